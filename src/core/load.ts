// Loading a session file: lenient read → header validation → in-memory migration → blob check.
// (Part A "Loading and compatibility"; Part C §1: reading never writes, a non-empty file without
// a valid header is damaged and read-only, never replaced; Part C §9: versions above 3 are
// read-only.)
import { stat as fsStat } from 'node:fs/promises';
import type { Diagnostic } from './diagnostics';
import { readJsonlFile, parseJsonlLenient, type JsonlParseResult, type JsonlRecord } from './jsonl';
import { emptyReport, headerVersion, migrateSession, type MigrationReport } from './migrate';
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from './schemas';
import { checkBlobRefs, type BlobStore } from './blobs';

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
  diagnostics: Diagnostic[];
  migration: MigrationReport;
  /** Why the file must not be written (damaged, too new); null when writable. */
  readOnlyReason: string | null;
  stat: { size: number; mtimeMs: number } | null;
  // ---- what a byte-preserving rewrite needs (src/core/rewrite.ts) ----
  /** Byte range of the header record in the file; null when none. */
  headerRange: ByteRange | null;
  /** Byte ranges of entries[i] in the file (same order as `entries`). */
  entryStarts: number[];
  entryEnds: number[];
  /** The file ends with `\n` (or is empty). */
  endsWithNewline: boolean;
  /** Bytes read. */
  bytes: number;
}

export interface LoadOptions {
  /** When given, blob references are checked and missing/invalid ones reported. */
  blobs?: BlobStore;
}

/** Part A: a header is `type: "session"` with a string `id`. Nothing more is required to read. */
function isHeaderRecord(v: Record<string, unknown>): boolean {
  return v.type === 'session' && typeof v.id === 'string';
}

/** Builds a LoadedSession from a parse result (shared by the file and text loaders). */
export function buildLoadedSession(parse: JsonlParseResult, path: string | null, stat: LoadedSession['stat']): LoadedSession {
  const diagnostics = parse.diagnostics.slice();
  const records = parse.records;
  let header: SessionHeader | null = null;
  let headerRange: ByteRange | null = null;
  let headerLine = 0;
  let readOnlyReason: string | null = null;
  let first = 0;

  const first0: JsonlRecord | undefined = records[0];
  if (first0 && isHeaderRecord(first0.value)) {
    header = first0.value as SessionHeader;
    headerLine = first0.line;
    headerRange = { start: first0.start, end: first0.end };
    first = 1;
  } else if (parse.bytes > 0) {
    // Part C §1: damaged, not empty — show what can be read, never write, never replace.
    const line = first0?.line ?? parse.unparsed[0]?.line ?? 1;
    if (first0 && first0.value.type === 'session') {
      diagnostics.push({ line, kind: 'invalid-header', message: 'the session header has no string "id"' });
      first = 1;
    }
    const what = first0 ? `the first record is ${typeof first0.value.type === 'string' ? `a "${first0.value.type}" record` : 'not a session record'}` : 'no record could be parsed';
    diagnostics.push({ line, kind: 'no-header', message: `no valid session header (${what}); the file is damaged and read-only` });
    readOnlyReason = `damaged: no valid session header (line ${line})`;
  }

  let entries: SessionEntry[] = [];
  const entryLines: number[] = [];
  const entryStarts: number[] = [];
  const entryEnds: number[] = [];
  for (let i = first; i < records.length; i++) {
    const r = records[i]!;
    if (typeof r.value.type !== 'string') {
      diagnostics.push({ line: r.line, kind: 'invalid-entry', message: 'record has no string "type"; skipped, kept verbatim' });
      continue;
    }
    entries.push(r.value as SessionEntry);
    entryLines.push(r.line);
    entryStarts.push(r.start);
    entryEnds.push(r.end);
  }

  const originalVersion = headerVersion(header);
  let migration = emptyReport(originalVersion);
  let changed: boolean[] | null = null;
  if (header && originalVersion > CURRENT_SESSION_VERSION) {
    diagnostics.push({ line: headerLine, kind: 'unsupported-version', message: `session version ${originalVersion} is newer than ${CURRENT_SESSION_VERSION}; shown read-only` });
    readOnlyReason = `version ${originalVersion} is newer than ${CURRENT_SESSION_VERSION}`;
  } else if (header) {
    const m = migrateSession(header, entries);
    header = m.header;
    entries = m.entries;
    migration = m.report;
    if (m.report.changedIndices.length > 0) {
      changed = new Array<boolean>(entries.length).fill(false);
      for (const i of m.report.changedIndices) changed[i] = true;
    }
    for (const u of m.report.unresolvedCompactions) {
      const e = entries[u.entryIndex]!;
      diagnostics.push({
        line: entryLines[u.entryIndex] ?? 0,
        kind: 'unresolved-compaction',
        message: `compaction firstKeptEntryIndex ${JSON.stringify(u.firstKeptEntryIndex)} names no entry (${u.reason}); kept as is, no entries are kept before it`,
        ...(typeof e.id === 'string' ? { entryId: e.id } : {}),
      });
    }
  }

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
    diagnostics,
    migration,
    readOnlyReason,
    stat,
    headerRange,
    entryStarts,
    entryEnds,
    endsWithNewline: parse.endsWithNewline,
    bytes: parse.bytes,
  };
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
  const parse = await readJsonlFile(path);
  const loaded = buildLoadedSession(parse, path, { size: st.size, mtimeMs: st.mtimeMs });
  if (opts.blobs) {
    const blobDiags = await checkBlobRefs(loaded.entries, loaded.entryLines, opts.blobs);
    if (blobDiags.length > 0) {
      loaded.diagnostics.push(...blobDiags);
      loaded.diagnostics.sort((a, b) => a.line - b.line);
    }
  }
  return loaded;
}
