// The session model: what every view asks of an opened session, whatever agent wrote it
// (issue 10's format seam) and wherever it is loaded (issue 11: in-process for the CLI and the
// tests, in a worker thread for the extension). Everything is asynchronous and answers in plain,
// structured-cloneable data shaped for display (src/protocol/messages.ts), so the same calls work
// across a worker port and no caller ever holds a session's entries.
//
// A model is a format's answer to these questions:
// - summary(): the header facts and totals (title, cwd, version or state, sizes, tokens, models,
//   diagnostics);
// - tree(): the navigable structure as flat rows under a filter and a search — the branch tree
//   for xcsh, turns → steps → events for dsh — with a selected node highlighted;
// - context()/messages()/cutEntries(): "what the model sees" at a node, in windows;
// - refresh(): follow the file as the agent writes it.
import type { IndexCache } from './xcsh/lazy/indexCache';
import type { Translate } from '../l10n';
import type { ChartData, ContextInfo, MessageView, Result, SessionSummary, TreeFilter } from '../../protocol/messages';
import type { SessionFormat } from '../formats/detect';
import type { BranchQuery, BranchSegment, EntryFacts, RevealStep, RunEntry } from './xcsh/branchQueries';
import type { SessionDocuments } from './documents';

export type { BranchQuery, BranchSegment, EntryFacts, RevealStep, RunEntry };

export interface TreeParams {
  filter: TreeFilter;
  search: string;
  leafId: string | null;
  focusEntryId: string | null;
  start: number;
  count: number;
}

export type TreeResult = Result<'getTree'>;
export type ImageResult = Result<'getImage'>;

export interface RefreshOutcome {
  /** unchanged: same size and mtime; appended: only the new tail was read; reloaded: read again. */
  kind: 'unchanged' | 'appended' | 'reloaded';
  summary: SessionSummary;
}

export interface SessionModel {
  readonly format: SessionFormat;
  readonly path: string;
  summary(): Promise<SessionSummary>;
  /** A node id the model knows (a leaf the webview restored may be gone after a reload). */
  has(nodeId: string): Promise<boolean>;
  /** The node the context shows when none is chosen: the session's last entry or event. */
  defaultLeaf(): Promise<string | null>;
  tree(p: TreeParams): Promise<TreeResult>;
  context(leafId: string | null): Promise<ContextInfo>;
  messages(leafId: string | null, start: number, count: number): Promise<MessageView[]>;
  cutEntries(leafId: string | null, start: number, count: number): Promise<MessageView[]>;
  /** The context-size chart at a leaf (contextChart.ts): its points and the totals per model. */
  chart(leafId: string | null): Promise<ChartData>;
  locate(leafId: string | null, entryId: string): Promise<{ messageIndex: number | null; cutIndex: number | null }>;
  image(entryId: string, blockIndex: number): Promise<ImageResult>;
  refresh(): Promise<RefreshOutcome>;
  /**
   * The entry or event as the session holds it (parsed, migrated in memory, never clipped): what
   * a view needs beyond the display windows, e.g. a tool result's full output or its
   * `details.diff`. Null for an unknown id.
   */
  rawEntry?(entryId: string): Promise<unknown>;
  dispose(): void;
  // ---- the Sessions view's branch tree (xcsh and Claude Code: the branch tree; Codex: turns as
  // runs of their records; a dsh log has none there) ----
  /** The segments under a visible entry (null: the top): segmentsUnder(computeVisibleTree(…)) as data. */
  segments?(q: BranchQuery, under: string | null): Promise<BranchSegment[]>;
  /** A page of the entries of the run that starts at `firstId`. */
  runEntries?(q: BranchQuery, firstId: string, start: number, count: number): Promise<RunEntry[]>;
  /** The visible entry that shows `entryId` (itself or its nearest visible ancestor) and the segments down to it. */
  revealPath?(q: BranchQuery, entryId: string): Promise<{ target: string; chain: RevealStep[] } | null>;
  /** How many entries the filter shows and the search matches. */
  searchHit?(q: BranchQuery): Promise<{ entryMatches: number }>;
}

/** A model in this process (not behind a worker port): it also gives the command line's documents. */
export interface LocalSessionModel extends SessionModel {
  /** What the command line prints of the session (documents.ts): context, records, tree, doctor. */
  documents(): SessionDocuments;
}

export interface ModelOptions {
  /** The words a view shows (the extension passes vscode.l10n.t). */
  l10nT?: Translate;
  /** The xcsh blob store for images (default ~/.xcsh/agent/blobs). */
  blobDir?: string;
  /** The dsh home for attachments (default $DSH_HOME or ~/.dsh). */
  dshHome?: string;
  /** Which session of a dsh SQLite store. */
  session?: string;
  /** Cancels the open (the lazy index stops between read chunks with rpc's CancelledError). */
  signal?: AbortSignal;
  /** Where the lazy model keeps the indexes of big sessions between openings (none: not kept). */
  indexCache?: IndexCache;
  /**
   * Write a newly built index to `indexCache` before the model answers, not in the background (the
   * CLI, whose process ends with its command).
   */
  keepIndexFirst?: boolean;
  /** How far the open has read (the lazy index calls it after each read chunk; the other models do not). */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

/** Only image types a browser renders inert; anything else (svg carries script) is refused. */
export function inertImageMime(mime: string): string | null {
  return /^image\/(png|jpeg|gif|webp|bmp)$/.test(mime) ? mime : null;
}
