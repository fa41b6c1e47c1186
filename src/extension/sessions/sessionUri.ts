// The URI the session editor opens for a listed session: its file, or for a session of a dsh
// SQLite store the store's file with the session named in the query (`?session=<id>`), so each
// session of a store is a document of its own.
import * as vscode from 'vscode';
import type { SessionMeta } from './catalog';

export function sessionUri(meta: Pick<SessionMeta, 'file' | 'store'>): vscode.Uri {
  if (!meta.store) return vscode.Uri.file(meta.file);
  return vscode.Uri.file(meta.store.path).with({ query: `session=${encodeURIComponent(meta.store.session)}` });
}

/** The store session a document URI names, if any. */
export function sessionOfUri(uri: vscode.Uri): string | undefined {
  const m = /(?:^|&)session=([^&]*)/.exec(uri.query);
  return m ? decodeURIComponent(m[1]!) : undefined;
}
