// OpenAI Codex CLI rollouts in the search index (issue 24). A rollout is read with the Codex reader
// (src/core/formats/codex: both eras, unknown types kept), and each record the editor shows as a
// message becomes a row: every `response_item` (messages, tool calls and their outputs; reasoning
// is a row without text, as an xcsh thinking block is not indexed) and every `compacted` summary.
// UI events (`event_msg`: mostly copies of the items), `turn_context` and the `session_meta` (the
// base instructions, the same long text in every session) are not. A row's text is the display
// message the editor renders for the record (codexDisplay.ts), its id the record's row in the
// outline (`L<line>`, codexOutline.ts), its bytes the record's line (a snippet and a phrase check
// read it back: rowText in indexQuery.ts). The title is the thread's name from the Codex home's
// session_index.jsonl (as the model shows it); it has no bytes in the rollout, so it has no row.
//
// A changed rollout is read again whole (tail_ok false): rollouts are small next to xcsh sessions,
// and a line's row needs the names of the calls before it.
// A `.jsonl.zst` rollout (zstd, told by its magic) is indexed from its decoded text: its rows' byte
// ranges are in that text, and reading one back decodes the file (rolloutRange below; a rollout
// is small, and one query decodes a file once).
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startsWithZstdMagic } from '../formats/detect';
import { loadedXxh64, loadXxh64, type H64 } from '../formats/dsh/zstdDecode';
import { decodeZstRolloutWith } from '../formats/codex/zstRollout';
import { callToolName, displayMessage, recordKind } from '../engine/codex/codexDisplay';
import { readCodexRolloutBytes } from '../formats/codex/load';
import { recordOf } from '../formats/codex/records';
import { codexHomeOf, readSessionIndex } from '../formats/codex/sessionIndex';
import { isObj, str, type CodexRecord } from '../formats/codex/types';
import type { IndexRow, WholeFileRows } from './indexRead';
import { recordOfLine, wholeReadRows } from './wholeRows';
import { messagesSearchFields, type EntrySearchFields } from './searchText';

/** The row id of a record: its outline row (codexOutline.ts). */
const codexEntryId = (line: number): string => `L${line}`;

/**
 * The index row of a Codex record; null for a record that has none (events, turn contexts, the
 * session_meta). `toolNames` (call id → tool) names the tool an output answers, for `tool:`; the
 * text never depends on it.
 */
export function codexSearchFields(rec: CodexRecord, toolNames: ReadonlyMap<string, string> = new Map()): EntrySearchFields | null {
  const p = isObj(rec.payload) ? rec.payload : null;
  if (!p) return null;
  const kind = recordKind(rec);
  let message: Record<string, unknown>;
  if (rec.type === 'response_item') message = displayMessage(p, { model: null, usage: null, toolNames });
  else if (rec.type === 'compacted') message = { role: 'compactionSummary', summary: str(p.message) ?? '' };
  else return null;
  const ms = rec.timestamp !== null ? Date.parse(rec.timestamp) : NaN;
  const role = kind === 'compaction' ? 'compaction' : String(message.role);
  return messagesSearchFields([message], [kind], role, codexEntryId(rec.line), Number.isFinite(ms) ? ms : null);
}

/**
 * The searchable text of a Codex row's bytes (its record's line; '' when they no longer read as a
 * record with a row). `eid` gives the line number, which a bare-era record does not carry.
 */
export function codexRowText(buf: Buffer, eid: string): string {
  const v = recordOfLine(buf);
  if (!v) return '';
  const line = /^L(\d+)$/.exec(eid);
  const rec = recordOf(v, line ? Number(line[1]) : 0, false);
  return rec ? (codexSearchFields(rec)?.body ?? '') : '';
}

/** Thread names of the Codex homes read during this process, by home (kept while the file is unchanged). */
const namesByHome = new Map<string, { mtimeMs: number; names: Map<string, { name: string }> }>();

/** The thread name of a rollout's session, or null (no Codex home on the path, no name, unreadable). */
async function threadNameOf(path: string, id: string | null): Promise<string | null> {
  const home = codexHomeOf(path);
  if (home === null || id === null) return null;
  try {
    const mtimeMs = (await stat(join(home, 'session_index.jsonl'))).mtimeMs;
    let got = namesByHome.get(home);
    if (!got || got.mtimeMs !== mtimeMs) {
      got = { mtimeMs, names: (await readSessionIndex(home)).names };
      namesByHome.set(home, got);
    }
    return got.names.get(id)?.name ?? null;
  } catch {
    return null; // none, or unreadable: only the title is lost
  }
}

/** Where each physical line of `bytes` starts (line n at index n − 1) and its end before the newline. */
function lineRanges(bytes: Buffer): { starts: number[]; ends: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  for (let s = 0; s < bytes.length; ) {
    let e = bytes.indexOf(10, s);
    if (e === -1) e = bytes.length;
    starts.push(s);
    ends.push(e > s && bytes[e - 1] === 13 ? e - 1 : e);
    s = e + 1;
  }
  return { starts, ends };
}

/** The text of a compressed rollout (what its frames decode to; a torn or damaged end gives up what decoded before it). */
function decodedRollout(h64: H64, file: Buffer): Buffer {
  const parts: Uint8Array[] = [];
  decodeZstRolloutWith(h64, file, (t) => parts.push(t), () => 0);
  return Buffer.concat(parts);
}

/** What a query knows of a rollout file: its decoded text, `plain` (not compressed), or null (cannot be decoded now). */
export type RolloutText = Buffer | 'plain' | null;

/**
 * A row's bytes of a rollout file: a byte range of the file, or of its decoded text when it is
 * compressed (decoded once per `known` map: one query). Null when they cannot be read, or when a
 * compressed file would have to be decoded before loadXxh64 has run (searchIndex.ts loads it first).
 */
export function rolloutRange(read: (path: string, off: number, len: number) => Buffer | null, known: Map<string, RolloutText>, path: string, off: number, len: number): Buffer | null {
  let text = known.get(path);
  if (text === undefined) {
    const head = read(path, 0, 4);
    if (head === null) return null;
    if (!startsWithZstdMagic(head)) text = 'plain';
    else {
      const h64 = loadedXxh64();
      try {
        text = h64 ? decodedRollout(h64, readFileSync(path)) : null;
      } catch {
        text = null;
      }
    }
    known.set(path, text);
  }
  if (text === 'plain') return read(path, off, len);
  if (text === null) return null;
  return off + len <= text.length ? text.subarray(off, off + len) : null;
}

/** A rollout as the index stores it: one row per record with a row, the title, the `files` columns. */
export async function readCodexFileRows(path: string, maxRows: number): Promise<WholeFileRows> {
  const st = await stat(path);
  const file = await readFile(path);
  const bytes = startsWithZstdMagic(file) ? decodedRollout(await loadXxh64(), file) : file;
  const rollout = await readCodexRolloutBytes(bytes, path, st.mtimeMs);
  const records = rollout.records;
  const toolNames = new Map<string, string>();
  for (const r of records) {
    if (r.type !== 'response_item' || !isObj(r.payload)) continue;
    const name = callToolName(r.payload);
    if (name !== null) toolNames.set(r.payload.call_id as string, name);
  }
  const rows: IndexRow[] = [];
  if (rollout.encoding === 'jsonl') {
    const { starts, ends } = lineRanges(bytes);
    for (const r of records) {
      if (rows.length >= maxRows - 1) break;
      const f = codexSearchFields(r, toolNames);
      const start = starts[r.line - 1];
      if (!f || start === undefined) continue;
      rows.push({ body: f.body, meta: f.meta, eid: f.openId, ts: f.time, off: start, len: ends[r.line - 1]! - start });
    }
  }
  const meta = rollout.meta;
  const firstTurnCwd = records.find((x) => x.type === 'turn_context' && isObj(x.payload) && typeof x.payload.cwd === 'string');
  const createdMs = meta?.timestamp ? Date.parse(meta.timestamp) : NaN;
  return wholeReadRows(file.length, rows, {
    title: null,
    cwd: meta?.cwd ?? (firstTurnCwd && isObj(firstTurnCwd.payload) ? str(firstTurnCwd.payload.cwd) : null),
    titleText: await threadNameOf(path, meta?.id ?? null),
    created: Number.isFinite(createdMs) ? createdMs : null,
    agent: 'codex',
  });
}
