// Reading a whole session file into the rows the index stores, apart from writing them
// (indexUpdate.ts): the read needs no database, so a bulk build can run it in a second thread
// (indexReadAhead.ts) while the index's own thread does nothing but SQLite's work. Its result
// is plain data (structured-cloneable) for that reason.
import type { SessionFormat } from '../formats/detect';
import { sniffSessionFile } from '../formats/sniff';
import { loadSessionFile } from '../formats/xcsh/load';
import { CURRENT_SESSION_VERSION } from '../formats/xcsh/entryTypes';
import type { ViewEntry } from '../tree/treeView';
import { entrySearchFields } from './searchText';
import { readDshFileRows } from './dshSearch';
import { readCodexFileRows } from './codexSearch';
import { readClaudeFileRows } from './claudeSearch';

/** One row of the index: the searchable text, its meta tokens, the entry to open, its time and bytes. */
export interface IndexRow {
  body: string;
  meta: string;
  eid: string;
  ts: number | null;
  off: number;
  len: number;
}

/** A whole file as the index stores it. */
export interface WholeFileRows {
  /** The title row (sequence 0), when the session has a title. */
  title: IndexRow | null;
  /** The entry rows, in file order (sequences 1, 2, …). */
  rows: IndexRow[];
  /** The `files` columns that describe what was read. */
  bytes: number;
  resumeFrom: number;
  resumeLine: number;
  head: string;
  seam: string;
  tailOk: boolean;
  cwd: string | null;
  titleText: string | null;
  created: number | null;
  /** The agent that wrote it (its format, by content): an `agent:` token on every row, and how a row's bytes read back. */
  agent: SessionFormat;
}

/** Entry rows of `entries` (those with an id), with their byte ranges. */
export function entryIndexRows(entries: readonly ViewEntry[], starts: readonly number[], ends: readonly number[], max: number): IndexRow[] {
  const out: IndexRow[] = [];
  for (let i = 0; i < entries.length && out.length < max; i++) {
    const f = entrySearchFields(entries[i]!);
    if (!f) continue;
    out.push({ body: f.body, meta: f.meta, eid: f.openId, ts: f.time, off: starts[i]!, len: ends[i]! - starts[i]! });
  }
  return out;
}

/**
 * Reads a whole file with the reader of its format, told by content (formats/sniff.ts): a dsh log
 * with the dsh reader (dshSearch.ts), a Codex rollout and a Claude Code transcript with theirs
 * (codexSearch.ts, claudeSearch.ts), anything else as xcsh (lenient, migrating in memory, stable
 * ids for v1/v2) — so an indexed entry id is the id the editor shows. `maxRows`: the rows a file may hold.
 */
export async function readWholeFile(path: string, maxRows: number): Promise<WholeFileRows> {
  const sniff = await sniffSessionFile(path);
  const format = sniff.kind === 'session' ? sniff.format : 'xcsh';
  if (format === 'dsh') return readDshFileRows(path, maxRows);
  if (format === 'codex') return readCodexFileRows(path, maxRows);
  if (format === 'claude') return readClaudeFileRows(path, maxRows);
  const loaded = await loadSessionFile(path);
  const header = loaded.header;
  const titleText = [typeof header?.title === 'string' ? header.title : '', typeof loaded.titleLine?.title === 'string' ? loaded.titleLine.title : ''].filter((t) => t.trim() !== '').join('\n');
  const createdMs = typeof header?.timestamp === 'string' ? Date.parse(header.timestamp) : NaN;
  const created = Number.isFinite(createdMs) ? createdMs : null;
  const title =
    titleText !== '' && loaded.headerRange ? { body: titleText, meta: 'session title', eid: '', ts: created, off: loaded.headerRange.start, len: loaded.headerRange.end - loaded.headerRange.start } : null;
  const rows = entryIndexRows(loaded.entries as unknown as ViewEntry[], loaded.entryStarts, loaded.entryEnds, maxRows - 1);
  // A tail can be read later only where the editor's live tail could (tail.ts): a plain, clean
  // v3 file whose open end (if any) holds no entry, and no ids made up for id-less entries.
  const resume = loaded.resume ?? { from: loaded.bytes, startLine: loaded.lines ?? 0 };
  const lastEntryLine = loaded.entryLines.length > 0 ? loaded.entryLines[loaded.entryLines.length - 1]! : 0;
  const tailOk =
    header !== null && loaded.readOnlyReason === null && loaded.originalVersion === CURRENT_SESSION_VERSION && loaded.syntheticIds === null && loaded.identity !== undefined && (resume.from === loaded.bytes || lastEntryLine < resume.startLine + 1);
  return {
    title,
    rows,
    bytes: loaded.bytes,
    resumeFrom: resume.from,
    resumeLine: resume.startLine,
    head: loaded.identity?.head ?? '',
    seam: loaded.identity?.seam ?? '',
    tailOk,
    cwd: typeof header?.cwd === 'string' ? header.cwd : null,
    titleText: titleText || null,
    created,
    agent: 'xcsh',
  };
}
