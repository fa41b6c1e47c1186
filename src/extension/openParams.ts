// What the extension opens a session with in the model worker: the editor and the Sessions view
// pass the same parameters, so both share one load and one model (the worker's registry keys by
// path, dsh session, blob store and dsh home).
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OpenParams } from '../core/engine/worker/modelRegistry';

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
}

/** `session`: which session of a dsh SQLite store (from the editor's URI). */
export function sessionOpenParams(file: string, session?: string): OpenParams {
  const blobDir = expandHome(vscode.workspace.getConfiguration('sessionLoom').get<string>('blobStore', '').trim());
  return {
    path: file,
    ...(vscode.l10n.bundle ? { bundle: vscode.l10n.bundle } : {}),
    ...(blobDir ? { blobDir } : {}),
    ...(session !== undefined ? { session } : {}),
  };
}
