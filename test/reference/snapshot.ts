// The reference (test-only, issue 23): one loaded state of a session file as the whole-file
// model holds it — the loaded session, its tree index and totals, its summary.
import { BlobStore } from '../../src/core/formats/xcsh/blobs';
import type { Diagnostic } from '../../src/core/diagnostics';
import type { LoadedSession } from '../../src/core/formats/xcsh/load';
import type { SessionStats } from '../../src/core/formats/xcsh/stats';
import type { TreeIndex } from '../../src/core/tree/tree';
import { firstMeaningfulPrompt } from '../../src/core/discovery/prompts';
import type { SessionSummary } from '../../src/protocol/messages';
import { summarizeFacts } from '../../src/core/engine/xcsh/snapshot';
import { openSessionDocument, type SessionDocument } from './document';

export interface SessionSnapshot {
  readonly path: string;
  readonly revision: number;
  readonly loaded: LoadedSession;
  readonly index: TreeIndex;
  readonly stats: SessionStats;
  readonly summary: SessionSummary;
  readonly blobs: BlobStore;
  readonly loadMs: number;
}

export async function loadSnapshot(path: string, blobs: BlobStore, revision: number): Promise<SessionSnapshot> {
  const t0 = performance.now();
  // Blob refs are not checked on load (one stat per image): images resolve on demand, and a
  // missing blob shows its placeholder where it is used.
  return snapshotOfDocument(path, await openSessionDocument(path), blobs, revision, t0);
}

/** The snapshot of a document's current state (after a load, or a refresh that read its tail). */
export function snapshotOfDocument(path: string, doc: SessionDocument, blobs: BlobStore, revision: number, t0: number): SessionSnapshot {
  const { loaded, tree: index } = doc;
  const stats = doc.stats();
  const summary = summarize(path, loaded, index, stats, doc.diagnostics, revision);
  return { path, revision, loaded, index, stats, summary, blobs, loadMs: performance.now() - t0 };
}

function summarize(path: string, loaded: LoadedSession, index: TreeIndex, stats: SessionStats, diagnostics: Diagnostic[], revision: number): SessionSummary {
  return summarizeFacts({
    path,
    header: loaded.header,
    firstPrompt: firstMeaningfulPrompt(loaded.entries),
    originalVersion: loaded.originalVersion,
    readOnlyReason: loaded.readOnlyReason,
    stat: loaded.stat,
    bytes: loaded.bytes,
    entryCount: loaded.entries.length,
    leafCount: index.leaves().length,
    defaultLeafId: index.defaultLeafId,
    stats,
    diagnostics,
    revision,
  });
}

