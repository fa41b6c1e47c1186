// Every anomaly the core finds becomes a Diagnostic: never an exception, never silence.
// Line numbers are 1-based physical lines of the file (a title line counts as line 1).

export type DiagnosticKind =
  // reader (src/core/formats/xcsh/jsonl.ts)
  | 'blank' // an empty or whitespace-only line (skipped)
  | 'invalid-json' // a line that could not be parsed, nor split into records (skipped, kept verbatim on rewrite)
  | 'glued-records' // `{…}{…}` on one line, split and recovered
  | 'trailing-text' // more text after a complete record on its line (`{…} xyz`, `{…},`): the record is read as the agent reads it, the text skipped (kept verbatim on rewrite)
  | 'torn-tail' // the last line is an unterminated fragment (an interrupted write)
  | 'torn-record' // a record cut short beside complete records on its line (`{…}{"type":"mess…`, `{"ty…{…}`): the complete ones are read, the fragment kept verbatim
  | 'multi-line-record' // one record spread over several lines (pretty-printed JSON, Part B §17): read as one record
  | 'too-deep' // a record nested deeper than MAX_RECORD_DEPTH (formats/xcsh/depth.ts): not read, kept verbatim
  | 'too-large' // a line longer than the record cap (formats/xcsh/lineParser.ts MAX_RECORD_BYTES): not read, kept verbatim
  | 'not-an-object' // valid JSON that is not an object (array, string, number…)
  | 'bom' // a UTF-8 byte-order mark before the first record
  | 'title-line' // the oh-my-pi fixed-width `{"type":"title"}` first line (skipped; header read from line 2)
  // session loader (src/core/formats/xcsh/load.ts)
  | 'no-header' // a non-empty file whose first record is not a valid session header: damaged, read-only
  | 'invalid-header' // a header record that exists but fails validation
  | 'unsupported-version' // header version above the newest we can write: read-only
  | 'invalid-version' // header version that is not a number (a numeric string is read as its number): read-only
  | 'dsh-log' // a deepseek-harness log opened through the xcsh reader: read-only, never written
  | 'missing-blob' // an image `blob:sha256:…` reference whose blob is not in the store
  | 'bad-blob' // a blob that is there but not used: a symlink, not a regular file, over the size cap, content not matching its hash, unreadable
  | 'invalid-blob-ref' // a blob reference that is not exactly 64 lowercase hex characters
  | 'invalid-entry' // a JSON object record without a string `type` (skipped, kept verbatim on rewrite)
  | 'unresolved-compaction' // a v1 compaction whose firstKeptEntryIndex names no entry (kept as is)
  | 'missing-id' // a v2/v3 entry whose `id` is missing or not a string: shown with a stable id made from its bytes (not on disk)
  | 'invalid-field' // a wrongly typed field (Part C §11: a level, role or rule list that is not a string, an assistant without provider/model, a mode_change without mode): ignored
  // byte audit (src/core/formats/xcsh/byteAudit.ts; `doctor` only)
  | 'invalid-utf8' // bytes that are not UTF-8: JSON readers see U+FFFD there (rewrites keep the bytes)
  | 'unsafe-integer' // an integer beyond ±(2^53−1): JSON readers round it (rewrites keep the digits)
  // tree index (src/core/tree/tree.ts)
  | 'duplicate-id' // two entries share an id (the last one wins)
  | 'missing-parent' // an entry whose parentId names no entry (treated as a root: an orphan)
  | 'cycle' // a parentId chain that loops (the walk stops at the first repeated id)
  // store (src/core/store/tempFiles.ts)
  | 'leftover-temp-file' // `.<name>.<hex>.tmp` beside the file: an interrupted (or running) write of ours
  // dsh reader (src/core/formats/dsh/); 'torn-tail', 'no-header', 'invalid-header' and
  // 'unsupported-version' are shared with the xcsh reader
  | 'dsh-corrupt' // dsh would refuse the log (dsh-format.md §3): only the readable prefix is shown
  | 'dsh-bad-record' // an unparsable storage record or a malformed packed chunk row
  | 'dsh-seq-gap' // a record whose seq does not continue the log
  | 'dsh-frame' // a zstd frame with an invalid structure, a decode failure or a checksum mismatch
  | 'dsh-legacy' // a legacy event shape upgraded in memory (§2, last part)
  | 'dsh-refused-event' // an event shape dsh refuses to load (request/header-delta, mode/set, …): shown raw
  | 'dsh-unknown-type' // an event type outside the known catalogue (shown raw)
  | 'dsh-surface' // a surface event whose surfaceOp is missing or does not apply to the surface
  | 'dsh-interrupted' // the last turn was open: closers applied in memory, never written
  // Codex reader (src/core/formats/codex/)
  | 'codex-unknown-type' // a record type (or response item type) this reader does not know: kept, shown raw
  | 'codex-no-meta' // the first record is not a session_meta: the thread id and cwd are unknown
  | 'codex-frame' // a `.jsonl.zst` frame that does not decode, fails its checksum or is torn
  | 'codex-empty'; // no record at all (the CLI refuses an all-empty rollout)

export type DiagnosticSeverity = 'error' | 'warning' | 'info';

export interface Diagnostic {
  /** 1-based physical line number in the file (the first, for a finding over several lines); 0 when not tied to a line. */
  line: number;
  /**
   * The last line of a finding over several lines: a multi-line record, or a run of consecutive
   * blank or unreadable lines reported once ("1,000,000 blank lines" is one finding).
   */
  lastLine?: number;
  /** How many lines a run of blank or unreadable lines holds (absent: one). */
  count?: number;
  kind: DiagnosticKind;
  /** A human-readable sentence naming what is wrong and what was done about it. */
  message: string;
  /** The entry the diagnostic is about, when there is one. */
  entryId?: string;
}

const SEVERITY: Record<DiagnosticKind, DiagnosticSeverity> = {
  blank: 'info',
  'invalid-json': 'error',
  'glued-records': 'warning',
  'trailing-text': 'warning',
  'torn-tail': 'warning',
  'torn-record': 'warning',
  'multi-line-record': 'warning',
  'too-deep': 'error',
  'too-large': 'error',
  'not-an-object': 'error',
  bom: 'info',
  'title-line': 'info',
  'no-header': 'error',
  'invalid-header': 'error',
  'unsupported-version': 'warning',
  'invalid-version': 'warning',
  'dsh-log': 'info',
  'missing-blob': 'warning',
  'bad-blob': 'warning',
  'invalid-blob-ref': 'error',
  'invalid-entry': 'error',
  'unresolved-compaction': 'warning',
  'missing-id': 'error',
  'invalid-field': 'warning',
  'invalid-utf8': 'warning',
  'unsafe-integer': 'warning',
  'duplicate-id': 'warning',
  'missing-parent': 'warning',
  cycle: 'error',
  'leftover-temp-file': 'warning',
  'dsh-corrupt': 'error',
  'dsh-bad-record': 'error',
  'dsh-seq-gap': 'error',
  'dsh-frame': 'error',
  'dsh-legacy': 'info',
  'dsh-refused-event': 'error',
  'dsh-unknown-type': 'info',
  'dsh-surface': 'warning',
  'dsh-interrupted': 'info',
  'codex-unknown-type': 'info',
  'codex-no-meta': 'warning',
  'codex-frame': 'error',
  'codex-empty': 'warning',
};

export function severityOf(kind: DiagnosticKind): DiagnosticSeverity {
  return SEVERITY[kind];
}

/** Diagnostics a repair into a new file fixes (lines the reader had to split, drop or cut). */
const REPAIRABLE: ReadonlySet<string> = new Set<DiagnosticKind>(['invalid-json', 'glued-records', 'trailing-text', 'torn-tail', 'torn-record', 'multi-line-record', 'too-deep', 'not-an-object', 'no-header', 'invalid-header', 'invalid-entry']);

export function isRepairableKind(kind: string): boolean {
  return REPAIRABLE.has(kind);
}

/**
 * `file:line: message` — the form every user-facing error uses (editors jump to `file:line`). A
 * finding over several lines names its first line there; its message names the range.
 */
export function formatDiagnostic(file: string, d: Diagnostic): string {
  return `${file}:${d.line > 0 ? d.line : 1}: ${d.kind}: ${d.message}`;
}

/** The lines a diagnostic covers, as text: `"12"`, or `"12–40"` for a finding over several lines. */
export function diagnosticLines(d: Diagnostic): string {
  return d.lastLine !== undefined && d.lastLine > d.line ? `${d.line}–${d.lastLine}` : String(d.line);
}
