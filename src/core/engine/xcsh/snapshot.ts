// The header summary of an xcsh session for the webview and the Sessions view: title, sizes,
// totals, diagnostics, from the facts the index gives.
import { isRepairableKind, severityOf, type Diagnostic } from '../../diagnostics';
import type { LoadedSession } from '../../formats/xcsh/load';
import { CURRENT_SESSION_VERSION } from '../../formats/xcsh/entryTypes';
import { messageCountOf, type SessionStats } from '../../formats/xcsh/stats';
import { oneLine } from '../../tree/treeView';
import type { SessionSummary } from '../../../protocol/messages';

/** Diagnostics sent with the summary; the rest is counted, not listed. */
const MAX_LISTED_DIAGNOSTICS = 500;
/** Problems sent with the summary (the Sessions view shows 50 rows and counts the rest). */
const MAX_LISTED_PROBLEMS = 100;

function diagnosticView(d: Diagnostic): SessionSummary['diagnostics'][number] {
  return { line: d.line, kind: d.kind, severity: severityOf(d.kind), message: d.message, ...(d.entryId !== undefined ? { entryId: d.entryId } : {}) };
}

function oneLineOrNull(text: string | null): string | null {
  return text ? oneLine(text, 160) : null;
}

/** What an untitled session is called in the header: its first meaningful prompt, else its first user message, on one line. */
export function promptLine(firstPrompt: string | null, firstUserMessage: string | null): string | null {
  return oneLineOrNull(firstPrompt ?? firstUserMessage);
}

/** What a summary is made of (the index gives these; so does the test reference's document). */
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
