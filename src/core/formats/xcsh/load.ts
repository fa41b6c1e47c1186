// Loading a session file: lenient read → header validation → in-memory migration → blob check.
// (Part A "Loading and compatibility"; Part C §1: reading never writes, a non-empty file without
// a valid header is damaged and read-only, never replaced; Part C §9: versions above 3 are
// read-only.)
import { createHash } from 'node:crypto';
import { open, stat as fsStat } from 'node:fs/promises';
import type { Diagnostic } from '../../diagnostics';
import { readJsonlFile, parseJsonlLenient, type JsonlParseResult, type ReadFrom, type ReadOptions, type RecordColumns } from './jsonl';
import { emptyReport, migrateSession, type MigrationReport } from './migrate';
import { readHeaderVersion, versionWriteRefusal } from './version';
import { stripReplayData } from './replayData';
import { CODEX_READ_ONLY_REASON, DSH_READ_ONLY_REASON, isDshHeader } from '../detect';
import { isCodexRollout } from '../codex/records';
import { CLAUDE_READ_ONLY_REASON, isClaudeRecord } from '../claude/detect';
import { CURRENT_SESSION_VERSION } from './entryTypes';
import type { SessionEntry, SessionHeader } from './schemas';
import { checkBlobRefs, type BlobStore } from './blobs';
import { assignMissingIds, type NumericLink } from './ids';
import { fieldDiagnostic } from './fieldChecks';
import type { RecordEdit } from '../../store/recordEdit';

export interface ByteRange {
  start: number;
  end: number;
}

export interface LoadedSession {
  path: string | null;
  /** After in-memory migration; null when there is no valid header. */
  header: SessionHeader | null;
  /** 1-based physical line of the header (2 after a title line), 0 if none. */
  headerLine: number;
  titleLine: Record<string, unknown> | null;
  /** `header.version` before migration (absent = 1). */
  originalVersion: number;
  /** Non-header records in file order, migrated in memory. */
  entries: SessionEntry[];
  /** entryLines[i] = 1-based physical line of entries[i]. */
  entryLines: number[];
  /** changed[i] is true when migration altered entries[i]; null when nothing changed. */
  changed: boolean[] | null;
  /**
   * The edits the migration made to each changed entry (keys: entry index): a rewrite applies
   * exactly these to the record's original bytes. A changed entry without edits (a caller's own
   * replacement) is re-serialised. Null when nothing was migrated.
   */
  entryEdits: Map<number, readonly RecordEdit[]> | null;
  /**
   * Ids made for entries that have no string `id` on disk in a v2/v3 (or header-less) file
   * (Part C §10; each has a `missing-id` diagnostic). Such entries are not `changed`: a rewrite
   * keeps their bytes, and a write naming one of these ids (a label) is refused. Null when none.
   */
  syntheticIds: Set<string> | null;
  /**
   * Entries whose numeric `parentId` / `firstKeptEntryId` was linked to a made id (ids.ts), by
   * position: a body read back from disk is linked the same way. Null when none.
   */
  numericLinks: Map<number, NumericLink> | null;
  diagnostics: Diagnostic[];
  migration: MigrationReport;
  /** Why the file must not be written (damaged, too new); null when writable. */
  readOnlyReason: string | null;
  stat: { size: number; mtimeMs: number } | null;
  // ---- what a byte-preserving rewrite needs (src/core/store/rewrite.ts) ----
  /** Byte range of the header record in the file; null when none. */
  headerRange: ByteRange | null;
  /** Byte ranges of entries[i] in the file (same order as `entries`). */
  entryStarts: number[];
  entryEnds: number[];
  /** The file ends with `\n` (or is empty). */
  endsWithNewline: boolean;
  /** Bytes read. */
  bytes: number;
  // ---- what an incremental tail load needs (src/core/formats/xcsh/tail.ts) ----
  /** Physical lines read. */
  lines?: number;
  /** Where a read of the grown file resumes to parse as a full read would (JsonlParseResult.resume). */
  resume?: ReadFrom;
  /** Which file, and which bytes, were read: a tail load resumes only when these still match. */
  identity?: FileIdentity;
}

/**
 * A file's identity as read: an atomic rewrite (rename over) changes the inode; an in-place
 * rewrite changes the first bytes or the bytes just before where the read ended.
 */
export interface FileIdentity {
  dev: number;
  ino: number;
  /** sha1 of bytes [0, min(4096, bytes)). */
  head: string;
  /** sha1 of bytes [max(0, bytes - 4096), bytes). */
  seam: string;
}

const IDENTITY_SPAN = 4096;

export interface LoadOptions {
  /** When given, blob references are checked and missing/invalid ones reported. */
  blobs?: BlobStore;
  /** Passed to the reader: cancellation and progress of the read (the engine's index pass). */
  read?: Pick<ReadOptions, 'signal' | 'abortError' | 'onChunk'>;
}

/** Part A: a header is `type: "session"` with a string `id`. Nothing more is required to read. */
function isHeaderRecord(v: Record<string, unknown>): boolean {
  return v.type === 'session' && typeof v.id === 'string';
}

/**
 * Builds a LoadedSession from a parse result (shared by the file and text loaders). Takes over
 * `parse.columns`: its arrays become the session's entry columns (see takeEntries).
 */
export function buildLoadedSession(parse: JsonlParseResult, path: string | null, stat: LoadedSession['stat']): LoadedSession {
  const diagnostics = parse.diagnostics.slice();
  const cols = parse.columns;
  let header: SessionHeader | null = null;
  let headerRange: ByteRange | null = null;
  let headerLine = 0;
  let readOnlyReason: string | null = null;
  let first = 0;

  const first0: Record<string, unknown> | undefined = cols.values[0];
  if (first0 && isHeaderRecord(first0)) {
    header = first0 as SessionHeader;
    headerLine = cols.lines[0]!;
    headerRange = { start: cols.starts[0]!, end: cols.ends[0]! };
    first = 1;
  } else if (parse.bytes > 0) {
    // Part C §1: damaged, not empty — show what can be read, never write, never replace.
    const line = first0 ? cols.lines[0]! : (parse.unparsed[0]?.line ?? 1);
    if (first0 && first0.type === 'session') {
      diagnostics.push({ line, kind: 'invalid-header', message: 'the session header has no string "id"' });
      first = 1;
    }
    const what = first0 ? `the first record is ${typeof first0.type === 'string' ? `a "${first0.type}" record` : 'not a session record'}` : 'no record could be parsed';
    diagnostics.push({ line, kind: 'no-header', message: `no valid session header (${what}); the file is damaged and read-only` });
    readOnlyReason = `damaged: no valid session header (line ${line})`;
    // Another agent's log read as xcsh entries (issue 24): named as what it is, never written.
    if (first0 && isCodexRollout(first0)) readOnlyReason = CODEX_READ_ONLY_REASON;
    else if (first0 && isClaudeRecord(first0)) readOnlyReason = CLAUDE_READ_ONLY_REASON;
  }

  const taken = takeEntries(cols, first, diagnostics);
  let entries = taken.entries;
  const { entryLines, entryStarts, entryEnds } = taken;
  let missing = taken.missingIds;

  const storedHeader = header;
  const hv = readHeaderVersion(header);
  const originalVersion = hv.version;
  let migration = emptyReport(originalVersion);
  let changed: boolean[] | null = null;
  let entryEdits: Map<number, readonly RecordEdit[]> | null = null;
  // A header-less (damaged) file whose entries all lack ids is read as v1: a linear chain in file
  // order, as its agent wrote it — not a heap of unrelated roots.
  const migrateFrom = header ?? (entries.length > 0 && missing.length === entries.length ? ({ type: 'session', id: '' } as SessionHeader) : null);
  if (header && hv.note !== null) {
    // Part C §11: a numeric string is read as its number; anything else is not a version.
    diagnostics.push({ line: headerLine, kind: 'invalid-version', message: hv.writable ? hv.note : `${hv.note}; shown read-only (only a version of exactly 1, 2 or 3 is ever written)` });
  }
  if (header && isDshHeader(header)) {
    // Issue 15 §7: a dsh header (`version: 0`, integer `createdAt`) is not a v1 xcsh session;
    // migrating it makes dsh refuse its own log. Shown as it is, never written.
    diagnostics.push({ line: headerLine, kind: 'dsh-log', message: 'a deepseek-harness (dsh) session log read as xcsh entries; shown read-only, never written' });
    readOnlyReason = DSH_READ_ONLY_REASON;
  } else if (header && originalVersion > CURRENT_SESSION_VERSION) {
    diagnostics.push({ line: headerLine, kind: 'unsupported-version', message: `session version ${originalVersion} is newer than ${CURRENT_SESSION_VERSION}; shown read-only` });
    readOnlyReason = `version ${originalVersion} is newer than ${CURRENT_SESSION_VERSION}`;
  } else if (header && originalVersion !== 1 && originalVersion !== 2 && originalVersion !== CURRENT_SESSION_VERSION) {
    // Not a version at all (NaN, 0, -1, 2.5): no migration — a v1 migration would relink every
    // parentId into one chain, misdrawing a branched file whose version is merely garbled.
    readOnlyReason = versionWriteRefusal(storedHeader);
  } else if (migrateFrom && originalVersion < CURRENT_SESSION_VERSION) {
    // (A current file needs no migration: migrateSession would only copy `entries`.)
    const m = migrateSession(migrateFrom, entries);
    if (header) header = m.header;
    entries = m.entries;
    migration = m.report;
    if (m.report.changedIndices.length > 0) {
      changed = new Array<boolean>(entries.length).fill(false);
      for (const i of m.report.changedIndices) changed[i] = true;
      entryEdits = m.edits;
    }
    if (originalVersion < 2) missing = [];
    for (const u of m.report.unresolvedCompactions) {
      const e = entries[u.entryIndex]!;
      diagnostics.push({
        line: entryLines[u.entryIndex] ?? 0,
        kind: 'unresolved-compaction',
        message: `compaction firstKeptEntryIndex ${JSON.stringify(u.firstKeptEntryIndex)} was not migrated (${u.reason}); kept as is${'firstKeptEntryId' in e ? '' : ', no entries are kept before it'}`,
        ...(typeof e.id === 'string' ? { entryId: e.id } : {}),
      });
    }
  }
  // After the migration: a v2 entry's stable id is made from what the migrated file will hold.
  const links = new Map<number, NumericLink>();
  const syntheticIds = missing.length > 0 ? assignMissingIds(entries, missing, entryLines, diagnostics, links) : null;

  if (storedHeader && readOnlyReason === null && !hv.writable) readOnlyReason = versionWriteRefusal(storedHeader);
  if (readOnlyReason === null && migration.parentsLinked > 0) {
    // Issue 22 §2/§3: a v1 migration links each entry to the one before it in file order. Bytes the
    // reader could not read that start like a record (`{`), before an entry, may be the record
    // that entry follows:
    // writing the links would join it past that record for good. Shown (migrated in memory, as
    // the agent would), never written; a repair into a new file is the explicit way out.
    const lastStart = entryStarts.length > 0 ? entryStarts[entryStarts.length - 1]! : -1;
    const unplaced = parse.unparsed.find((u) => u.record === true && u.start < lastStart);
    if (unplaced) readOnlyReason = `damaged: line ${unplaced.line} could not be read, and a migration would link the entries after it past it`;
  }
  stripReplayData(entries);

  diagnostics.sort((a, b) => a.line - b.line);
  return {
    path,
    header,
    headerLine,
    titleLine: parse.title?.value ?? null,
    originalVersion,
    entries,
    entryLines,
    changed,
    entryEdits,
    syntheticIds,
    numericLinks: links.size > 0 ? links : null,
    diagnostics,
    migration,
    readOnlyReason,
    stat,
    headerRange,
    entryStarts,
    entryEnds,
    endsWithNewline: parse.endsWithNewline,
    bytes: parse.bytes,
    lines: parse.lines,
    resume: parse.resume,
  };
}

/** The per-entry columns of a LoadedSession. */
export type EntryColumns = Pick<LoadedSession, 'entries' | 'entryLines' | 'entryStarts' | 'entryEnds'>;

export interface TakenEntries extends EntryColumns {
  /** Positions (in `entries`, ascending) of the entries without a string `id`. */
  missingIds: number[];
}

/**
 * Records (from `first` on) → entries; a record without a string `type` becomes a diagnostic.
 * Works in place: the columns' own arrays, compacted, become the entry columns (no copy of a
 * 1M-entry session's four arrays), so `cols` must belong to the caller alone.
 */
export function takeEntries(cols: RecordColumns, first: number, diagnostics: Diagnostic[]): TakenEntries {
  const { values, lines, starts, ends } = cols;
  const n = values.length;
  const missingIds: number[] = [];
  let w = 0;
  for (let i = first; i < n; i++) {
    const v = values[i]!;
    if (typeof v.type !== 'string') {
      diagnostics.push({ line: lines[i]!, kind: 'invalid-entry', message: 'record has no string "type"; skipped, kept verbatim' });
      continue;
    }
    if (typeof v.id !== 'string') missingIds.push(w);
    const bad = fieldDiagnostic(v, lines[i]!);
    if (bad !== null) diagnostics.push(bad);
    if (w !== i) {
      values[w] = v;
      lines[w] = lines[i]!;
      starts[w] = starts[i]!;
      ends[w] = ends[i]!;
    }
    w++;
  }
  if (w !== n) {
    values.length = w;
    lines.length = w;
    starts.length = w;
    ends.length = w;
  }
  return { entries: values as SessionEntry[], entryLines: lines, entryStarts: starts, entryEnds: ends, missingIds };
}

/**
 * Reads the identity of the first `bytes` bytes of a file (two reads of at most 4 KB). Returns
 * null when the file is no longer the inode `st` describes, or is shorter than `bytes`.
 */
export async function readFileIdentity(path: string, bytes: number, st: { dev: number; ino: number }): Promise<FileIdentity | null> {
  const fh = await open(path, 'r');
  try {
    const now = await fh.stat();
    if (now.dev !== st.dev || now.ino !== st.ino || now.size < bytes) return null;
    const hashOf = async (from: number, to: number): Promise<string | null> => {
      const buf = Buffer.alloc(to - from);
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, from + got);
        if (bytesRead === 0) return null;
        got += bytesRead;
      }
      return createHash('sha1').update(buf).digest('hex');
    };
    const head = await hashOf(0, Math.min(IDENTITY_SPAN, bytes));
    const seam = await hashOf(Math.max(0, bytes - IDENTITY_SPAN), bytes);
    return head === null || seam === null ? null : { dev: st.dev, ino: st.ino, head, seam };
  } finally {
    await fh.close();
  }
}

/** Loads from text held in memory (tests, pasted content). No stat; offsets are UTF-8 bytes. */
export function loadSessionFromText(text: string | Uint8Array, path: string | null = null): LoadedSession {
  return buildLoadedSession(parseJsonlLenient(text), path, null);
}

/**
 * Loads a session file. ENOENT → an empty session with no diagnostic (the caller decides whether
 * to create one). Never writes.
 */
export async function loadSessionFile(path: string, opts: LoadOptions = {}): Promise<LoadedSession> {
  let st;
  try {
    // stat BEFORE reading: if the file grows while we read, the rewrite guard sees a mismatch.
    st = await fsStat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return buildLoadedSession(parseJsonlLenient(''), path, null);
    throw e;
  }
  const parse = await readJsonlFile(path, undefined, opts.read ?? {});
  const loaded = buildLoadedSession(parse, path, { size: st.size, mtimeMs: st.mtimeMs });
  const identity = await readFileIdentity(path, parse.bytes, st).catch(() => null);
  if (identity) loaded.identity = identity;
  if (opts.blobs) {
    const blobDiags = await checkBlobRefs(loaded.entries, loaded.entryLines, opts.blobs);
    if (blobDiags.length > 0) {
      loaded.diagnostics.push(...blobDiags);
      loaded.diagnostics.sort((a, b) => a.line - b.line);
    }
  }
  return loaded;
}
