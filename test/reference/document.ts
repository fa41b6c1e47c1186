// The reference (test-only, issue 23): one opened session as the whole-file model holds it: the
// loaded file plus its tree index, with every diagnostic (reader,
// loader, tree) in one list sorted by line. This is what the CLI and the extension work with.
import type { BlobStore } from '../../src/core/formats/xcsh/blobs';
import { buildSessionContext, type SessionContext } from './context';
import type { Diagnostic } from '../../src/core/diagnostics';
import { loadSessionFile, loadSessionFromText, type LoadedSession } from '../../src/core/formats/xcsh/load';
import { computeSessionStats, extendSessionStats, type SessionStats } from '../../src/core/formats/xcsh/stats';
import { planTail } from '../../src/core/formats/xcsh/tail';
import { readTail, statOrNull } from './tail';
import { buildTreeIndex, type TreeIndex } from '../../src/core/tree/tree';

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

function mergedDiagnostics(loaded: LoadedSession, tree: TreeIndex): Diagnostic[] {
  return tree.diagnostics.length === 0 ? loaded.diagnostics.slice() : [...loaded.diagnostics, ...tree.diagnostics].sort((a, b) => a.line - b.line);
}

/** Stats computed once per state; a tail load extends them instead of starting over. */
const statsCache = new WeakMap<SessionDocument, { entries: number; stats: SessionStats }>();

export function documentFromLoaded(loaded: LoadedSession): SessionDocument {
  const tree = buildTreeIndex(loaded.entries, loaded.entryLines);
  const doc: SessionDocument = {
    path: loaded.path,
    loaded,
    tree,
    diagnostics: mergedDiagnostics(loaded, tree),
    context: (leafId) => buildSessionContext(doc.loaded.entries, leafId === undefined ? doc.tree.defaultLeafId : leafId, doc.tree),
    stats: () => {
      const entries = doc.loaded.entries;
      const hit = statsCache.get(doc);
      if (hit && hit.entries === entries.length) return hit.stats;
      const stats = computeSessionStats(entries, doc.loaded.header);
      statsCache.set(doc, { entries: entries.length, stats });
      return stats;
    },
  };
  return doc;
}

export async function openSessionDocument(path: string, opts: OpenOptions = {}): Promise<SessionDocument> {
  const loaded = await loadSessionFile(path, opts.blobs ? { blobs: opts.blobs } : {});
  return documentFromLoaded(loaded);
}

export function sessionDocumentFromText(text: string | Uint8Array, path: string | null = null): SessionDocument {
  return documentFromLoaded(loadSessionFromText(text, path));
}

export interface RefreshResult {
  /** unchanged: same size and mtime; appended: only the new tail was read; reloaded: a full load. */
  kind: 'unchanged' | 'appended' | 'reloaded';
  /** Entries added by a tail load (0 otherwise). */
  added: number;
  /** Why a full reload was needed. */
  reason?: string;
}

/** One refresh at a time per document: two overlapping tail reads would append twice. */
const refreshing = new WeakMap<SessionDocument, Promise<RefreshResult>>();

/**
 * Brings a file-backed document up to date with its file, in place: reads only the appended tail
 * when the file grew by appending (a live session), else reloads it fully. Afterwards `doc` equals
 * `openSessionDocument(doc.path)` in everything it exposes. Until the returned promise settles,
 * `doc` still shows the previous state; the update itself happens in one synchronous step.
 */
export function refreshSessionDocument(doc: SessionDocument, opts: OpenOptions = {}): Promise<RefreshResult> {
  const prev = refreshing.get(doc);
  const run = (prev ? prev.catch(() => undefined) : Promise.resolve()).then(() => refreshNow(doc, opts));
  refreshing.set(doc, run);
  const done = (): void => {
    if (refreshing.get(doc) === run) refreshing.delete(doc);
  };
  run.then(done, done);
  return run;
}

async function refreshNow(doc: SessionDocument, opts: OpenOptions): Promise<RefreshResult> {
  const path = doc.path ?? doc.loaded.path;
  if (path === null) return { kind: 'unchanged', added: 0 };
  const loaded = doc.loaded;
  const st = await statOrNull(path);
  let reason = 'the file is gone';
  if (st) {
    const plan = await planTail(loaded, st);
    if (plan.kind === 'unchanged') return { kind: 'unchanged', added: 0 };
    if (plan.kind === 'full') reason = plan.reason;
    else {
      const before = loaded.entries.length;
      const stats = statsCache.get(doc);
      const tail = await readTail(loaded, plan, st, opts.blobs ? { blobs: opts.blobs } : {});
      if (tail !== null) {
        tail.commit();
        doc.tree.append(loaded.entries, loaded.entryLines);
        doc.diagnostics = mergedDiagnostics(loaded, doc.tree);
        if (stats && stats.entries === before) statsCache.set(doc, { entries: loaded.entries.length, stats: extendSessionStats(stats.stats, loaded.entries, before) });
        return { kind: 'appended', added: tail.added };
      }
      reason = 'the file changed while its tail was read';
    }
  }
  const fresh = documentFromLoaded(await loadSessionFile(path, opts.blobs ? { blobs: opts.blobs } : {}));
  doc.loaded = fresh.loaded;
  doc.tree = fresh.tree;
  doc.diagnostics = fresh.diagnostics;
  statsCache.delete(doc);
  return { kind: 'reloaded', added: 0, reason };
}
