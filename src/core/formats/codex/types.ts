// The shapes the Codex rollout reader hands out (codex-format.md Part A). A rollout is one linear
// log: every physical line that reads as a record becomes a CodexRecord in file order, whatever
// its era (A.2: the `{timestamp,type,payload}` envelope, or the older bare lines, normalised here
// to the envelope's shape). Payloads are kept as parsed, unknown fields and unknown types included.
import type { DiagnosticKind } from '../../diagnostics';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The `type` of the envelope (RolloutItem variants, A.2) plus `state`, the bare era's sentinel. */
export type CodexRecordType = 'session_meta' | 'response_item' | 'compacted' | 'turn_context' | 'event_msg' | 'state' | (string & {});

export interface CodexRecord {
  /** 1-based physical line in the (decompressed) file. */
  line: number;
  type: CodexRecordType;
  /** The envelope's write time (UTC ISO); null on bare lines, which carry none. */
  timestamp: string | null;
  payload: unknown;
  /** Which envelope the line was written in (A.2, Part C §1). */
  era: 'envelope' | 'bare';
  /** The newer envelopes' monotonic line number, when present. */
  ordinal?: number;
}

/**
 * Kinds only the Codex reader reports; the rest are the shared ones of src/core/diagnostics.ts
 * (invalid-json, not-an-object, invalid-entry, torn-tail, too-large, too-deep, bom, blank).
 */
export type CodexOnlyDiagnosticKind =
  | 'codex-unknown-type' // a record type (or response item type) this reader does not know: kept, shown raw
  | 'codex-no-meta' // the first record is not a session_meta: the thread id and cwd are unknown
  | 'codex-frame' // a `.jsonl.zst` frame that does not decode, fails its checksum or is torn
  | 'codex-empty'; // no record at all (the CLI refuses an all-empty rollout)

export type CodexDiagnosticKind = DiagnosticKind | CodexOnlyDiagnosticKind;

export interface CodexDiagnostic {
  /** 1-based physical line (of the decompressed text for `.jsonl.zst`); 0 when not tied to a line. */
  line: number;
  /** The last line of a run of blank lines reported once. */
  lastLine?: number;
  count?: number;
  kind: CodexDiagnosticKind;
  message: string;
}

const CODEX_SEVERITY: Record<CodexOnlyDiagnosticKind, 'error' | 'warning' | 'info'> = {
  'codex-unknown-type': 'info',
  'codex-no-meta': 'warning',
  'codex-frame': 'error',
  'codex-empty': 'warning',
};

/** The severity of a Codex-only kind, or null for a shared kind (diagnostics.ts's severityOf answers those). */
export function codexOnlySeverity(kind: CodexDiagnosticKind): 'error' | 'warning' | 'info' | null {
  return (CODEX_SEVERITY as Record<string, 'error' | 'warning' | 'info' | undefined>)[kind] ?? null;
}

/** The canonical (first) session_meta of a rollout, as facts (A.3); every field may be missing. */
export interface CodexSessionMeta {
  /** The line it was read from. */
  line: number;
  id: string | null;
  timestamp: string | null;
  cwd: string | null;
  originator: string | null;
  cliVersion: string | null;
  /** `cli`, `vscode`, `exec`, `mcp`, `unknown`, or `subagent:<kind>` for `{"subagent": …}`. */
  source: string | null;
  modelProvider: string | null;
  /** Older files: the user instructions (`instructions`), or null. */
  instructions: string | null;
  /** Newer files: `base_instructions.text`, the system prompt actually used. */
  baseInstructions: string | null;
  git: { commitHash: string | null; branch: string | null; repositoryUrl: string | null } | null;
  forkedFromId: string | null;
  parentThreadId: string | null;
  threadSource: string | null;
  historyMode: string | null;
}

export interface CodexRollout {
  path: string;
  /** How the file stores its lines: plain JSONL or a zstd stream (`.jsonl.zst`, told by its magic). */
  encoding: 'jsonl' | 'zstd';
  /** The file's size on disk. */
  bytes: number;
  mtimeMs: number;
  records: CodexRecord[];
  diagnostics: CodexDiagnostic[];
  /** The first session_meta (A.3: only the first one is canonical; a fork repeats its parent's later). */
  meta: CodexSessionMeta | null;
  /** Which envelopes the lines used ('empty': no record). */
  era: 'envelope' | 'bare' | 'mixed' | 'empty';
  /**
   * Plain files: the byte just past the last complete line, and that line's successor's number,
   * so a refresh reads only what was appended. Null for `.jsonl.zst` (re-read whole).
   */
  resume: { offset: number; nextLine: number; ino: number } | null;
}

/** One item of the model's history as the replay rebuilds it (codex-format.md Part B). */
export interface HistoryItem {
  /**
   * Its id: `L<line>` for the response_item record on that line; `L<line>.<k>` for item k of the
   * replacement_history of the compacted record on that line; `L<line>.r<k>` for item k of the
   * history a compaction without replacement_history rebuilt (B.3); `<call id>~aborted` for the
   * output the CLI supplies for an unanswered call (B.4).
   */
  id: string;
  /** The line the item is read from (the compacted record's for replacement and rebuilt items). */
  line: number;
  /** The response item as the model is sent it (a tool output possibly cut, B.2). */
  item: Obj;
  origin: 'record' | 'replacement' | 'rebuilt' | 'synthetic';
  /** The compacted record (its line) whose new history this item belongs to. */
  compactionLine?: number;
  /** The compaction's summary (the `compaction` item, or the summary user message). */
  summary?: boolean;
  /** The stored tool output's length in bytes, when the model was sent a cut copy (B.2). */
  truncatedFrom?: number;
  /** A large tool output of a version that records no truncation policy: the model may have seen less (B.2). */
  mayBeTruncated?: boolean;
  /** Text this reader rebuilt (B.3): the CLI's structure, not its template wording. */
  approximate?: boolean;
  /** Images replaced by the CLI's placeholder text for a model without image input (B.4). */
  imagesOmitted?: number;
}
