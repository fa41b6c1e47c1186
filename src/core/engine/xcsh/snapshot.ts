// One loaded state of a session file, as the editor shows it: the core's loaded session, its
// tree index and totals, plus the header summary for the webview. No `vscode` here, so the
// whole display pipeline can be exercised under plain node.
import { BlobStore } from '../../formats/xcsh/blobs';
import { isRepairableKind, severityOf, type Diagnostic } from '../../diagnostics';
import { openSessionDocument, type SessionDocument } from '../../formats/xcsh/document';
import type { LoadedSession } from '../../formats/xcsh/load';
import { CURRENT_SESSION_VERSION } from '../../formats/xcsh/schemas';
import { messageCountOf, type SessionStats } from '../../formats/xcsh/stats';
import type { TreeIndex } from '../../tree/tree';
import { firstMeaningfulPrompt } from '../../discovery/prompts';
import { oneLine } from '../../tree/treeView';
import type { SessionSummary } from '../../../protocol/messages';

/** Diagnostics sent with the summary; the rest is counted, not listed. */
const MAX_LISTED_DIAGNOSTICS = 500;
/** Problems sent with the summary (the Sessions view shows 50 rows and counts the rest). */
const MAX_LISTED_PROBLEMS = 100;

function diagnosticView(d: Diagnostic): SessionSummary['diagnostics'][number] {
  return { line: d.line, kind: d.kind, severity: severityOf(d.kind), message: d.message, ...(d.entryId !== undefined ? { entryId: d.entryId } : {}) };
}

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

function oneLineOrNull(text: string | null): string | null {
  return text ? oneLine(text, 160) : null;
}

/** What an untitled session is called in the header: its first meaningful prompt, else its first user message, on one line. */
export function promptLine(firstPrompt: string | null, firstUserMessage: string | null): string | null {
  return oneLineOrNull(firstPrompt ?? firstUserMessage);
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

/** What a summary is made of: the eager document and the lazy index both give these. */
export interface SummaryFacts {
  path: string;
  header: LoadedSession['header'];
  firstPrompt: string | null;
  originalVersion: number;
  readOnlyReason: string | null;
  stat: { size: number; mtimeMs: number } | null;
  bytes: number;
  entryCount: number;
  leafCount: number;
  defaultLeafId: string | null;
  stats: SessionStats;
  diagnostics: readonly Diagnostic[];
  revision: number;
}

export function summarizeFacts(f: SummaryFacts): SessionSummary {
  const { path, stats, diagnostics, revision } = f;
  const header = f.header;
  const problems = diagnostics.filter((d) => severityOf(d.kind) !== 'info');
  const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  return {
    format: 'xcsh',
    encoding: 'jsonl',
    state: null,
    fileName: path.split(/[\\/]/).pop() ?? path,
    filePath: path,
    title: str(header?.title) ?? stats.title,
    // The first prompt that says what the session is about: a leading "/mode" names nothing.
    firstPrompt: promptLine(f.firstPrompt, stats.firstUserMessage),
    cwd: str(header?.cwd),
    sessionId: str(header?.id),
    version: header ? f.originalVersion : null,
    currentVersion: CURRENT_SESSION_VERSION,
    needsMigration: header !== null && f.originalVersion < CURRENT_SESSION_VERSION,
    readOnlyReason: f.readOnlyReason,
    created: str(header?.timestamp) ?? stats.firstTimestamp,
    modified: f.stat ? new Date(f.stat.mtimeMs).toISOString() : stats.lastTimestamp,
    sizeBytes: f.stat?.size ?? f.bytes,
    entryCount: f.entryCount,
    leafCount: f.leafCount,
    defaultLeafId: f.defaultLeafId,
    totals: {
      messages: messageCountOf(stats),
      toolCalls: stats.toolCalls,
      tokensIn: stats.tokens.input,
      tokensOut: stats.tokens.output,
      cacheRead: stats.tokens.cacheRead,
      cacheWrite: stats.tokens.cacheWrite,
      tokensTotal: stats.tokens.total,
      cost: stats.cost,
    },
    models: stats.models,
    diagnosticCount: diagnostics.length,
    diagnostics: diagnostics.slice(0, MAX_LISTED_DIAGNOSTICS).map(diagnosticView),
    problemCount: problems.length,
    problems: problems.slice(0, MAX_LISTED_PROBLEMS).map(diagnosticView),
    // (Tree diagnostics are never of these kinds: the reader's and loader's decide.)
    repairable: diagnostics.some((d) => isRepairableKind(d.kind)),
    revision,
  };
}
