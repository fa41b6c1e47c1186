// One opened session: the loaded file plus its tree index, with every diagnostic (reader,
// loader, tree) in one list sorted by line. This is what the CLI and the extension work with.
import type { BlobStore } from './blobs';
import { buildSessionContext, type SessionContext } from './context';
import type { Diagnostic } from './diagnostics';
import { loadSessionFile, loadSessionFromText, type LoadedSession } from './load';
import { computeSessionStats, type SessionStats } from './stats';
import { buildTreeIndex, type TreeIndex } from './tree';

export interface SessionDocument {
  path: string | null;
  loaded: LoadedSession;
  tree: TreeIndex;
  /** Reader + loader + tree diagnostics, sorted by line (stable). */
  diagnostics: Diagnostic[];
  /** buildSessionContext at a leaf (undefined → the default leaf, null → the empty context). */
  context(leafId?: string | null): SessionContext;
  stats(): SessionStats;
}

export interface OpenOptions {
  blobs?: BlobStore;
}

export function documentFromLoaded(loaded: LoadedSession): SessionDocument {
  const tree = buildTreeIndex(loaded.entries, loaded.entryLines);
  const diagnostics =
    tree.diagnostics.length === 0 ? loaded.diagnostics.slice() : [...loaded.diagnostics, ...tree.diagnostics].sort((a, b) => a.line - b.line);
  return {
    path: loaded.path,
    loaded,
    tree,
    diagnostics,
    context: (leafId) => buildSessionContext(loaded.entries, leafId === undefined ? tree.defaultLeafId : leafId, tree),
    stats: () => computeSessionStats(loaded.entries, loaded.header),
  };
}

export async function openSessionDocument(path: string, opts: OpenOptions = {}): Promise<SessionDocument> {
  const loaded = await loadSessionFile(path, opts.blobs ? { blobs: opts.blobs } : {});
  return documentFromLoaded(loaded);
}

export function sessionDocumentFromText(text: string | Uint8Array, path: string | null = null): SessionDocument {
  return documentFromLoaded(loadSessionFromText(text, path));
}
