// dsh (deepseek-harness) logs in the search index (issue 22 point 21). A dsh log is read with the
// dsh reader (src/core/formats/dsh: raw `.jsonl` or `.jsonl.zstd`, legacy shapes upgraded, the
// corruption rule applied), and each surface event it accepted — `user/message`,
// `assistant/message`, `tool/result` — becomes a row: its text, its role/tool tokens, the id the
// session editor opens (`e<seq>`, the event's own row: src/core/engine/dsh/dshOutline.ts) and its
// time. A row's bytes, which a snippet or a phrase check reads back (indexQuery.ts rowText):
//  - raw log: the record's line, exactly as for an xcsh entry (the file is the logical text);
//  - zstd log: the whole zstd frame that holds the record (a byte range inside the compressed file
//    cannot be parsed alone; a frame can: dsh's frames are independent, dsh-format.md §3). The
//    row's seq (from its id) picks the record among the frame's lines. A frame is one append
//    batch (a flush), small, and decoding one costs far less than reloading the log; the index
//    needs no other column and a row stays self-describing (its bytes start with the zstd magic).
// SQLite stores (`*.db`) are not indexed (sessionFilesUnder lists `.jsonl` and `.jsonl.zstd`).
// A dsh log has no cheap "appended tail" state (its records are checked as a whole by the
// corruption rule, and closers depend on the end): a changed log is read again whole.
import { startsWithZstdMagic } from '../formats/detect';
import { LegacyUpgrader } from '../formats/dsh/legacy';
import { readDshLog, readStableFile } from '../formats/dsh/load';
import type { DshEvent } from '../formats/dsh/types';
import { decodeTornFrame, redecodeFrame } from '../formats/dsh/zstdDecode';
import { readZstdFrame } from '../formats/dsh/zstdFrames';
import type { IndexRow, WholeFileRows } from './indexRead';
import { wholeReadRows } from './wholeRows';
import { filterToken, ROLE_TOKEN, TOOL_TOKEN, type EntrySearchFields } from './searchText';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The surface event types a row is made of (`steering/message` is a legacy user/message). */
const INDEXED_TYPES: ReadonlySet<string> = new Set(['user/message', 'assistant/message', 'tool/result']);
const STORED_TYPES = ['user/message', 'assistant/message', 'tool/result', 'steering/message'];
/** What a stored surface record's line holds (JSON.stringify writes no spaces; a string's quotes are escaped). */
const CANDIDATE = STORED_TYPES.map((t) => Buffer.from(`"type":"${t}"`));

/** The id the session editor opens for the event at `seq`. */
export const dshEntryId = (seq: number): string => `e${seq}`;

/** The seq of a dsh row's id (`e<seq>`), or null. */
export function seqOfDshEntryId(id: string): number | null {
  if (!/^e\d+$/.test(id)) return null;
  const n = Number(id.slice(1));
  return Number.isSafeInteger(n) ? n : null;
}

/** Whether `v` (a parsed record) is a stored dsh surface event — never an xcsh entry (whose types have no slash). */
export function isDshSurfaceRecord(v: unknown): v is DshEvent {
  return isObj(v) && typeof v.type === 'string' && STORED_TYPES.includes(v.type) && typeof v.seq === 'number' && Number.isSafeInteger(v.seq);
}

/** A stored record as dsh's loader reads it (the legacy upgrade alone; ids minted from the seq do not change any text). */
function upgraded(e: DshEvent): DshEvent {
  return new LegacyUpgrader('', () => undefined).upgrade(e);
}

function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args;
  if (args === undefined) return '';
  try {
    return JSON.stringify(args) ?? '';
  } catch {
    return '';
  }
}

/** Text blocks, tool calls (name, arguments) and tool results (their inner text) of dsh content blocks. */
function blocksText(content: unknown, tools: string[], calls: string[]): string[] {
  const parts: string[] = [];
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return parts;
  for (const b of content) {
    if (!isObj(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'tool-call') {
      const name = str(b.name) ?? '';
      if (name) tools.push(name);
      parts.push(name, argumentsText(b.arguments));
    } else if (b.type === 'tool-result') {
      if (typeof b.toolCallId === 'string') calls.push(b.toolCallId);
      parts.push(...blocksText(b.content, tools, calls));
    }
  }
  return parts;
}

/**
 * The index row of a dsh event (as the loader gives it, or a stored record: legacy shapes are
 * upgraded first), null for an event that is not a surface message. `toolNames` (callId → tool)
 * names the tool a result answers, for `tool:`; the text never depends on it.
 */
export function dshSearchFields(event: DshEvent, toolNames?: ReadonlyMap<string, string>): EntrySearchFields | null {
  const e = upgraded(event);
  if (!INDEXED_TYPES.has(e.type) || !isObj(e.data)) return null;
  const m = e.type === 'user/message' ? e.data : isObj(e.data.message) ? e.data.message : null;
  if (!m) return null;
  const tools: string[] = [];
  const calls: string[] = [];
  const body = blocksText(m.content, tools, calls)
    .filter((p) => p !== '')
    .join('\n');
  let role: string;
  if (e.type === 'assistant/message') role = 'assistant';
  else if (e.type === 'tool/result') {
    role = 'toolResult';
    for (const c of calls) {
      const name = toolNames?.get(c);
      if (name) tools.push(name);
    }
  } else role = str(m.role) ?? 'user';
  const meta = [e.type, role, filterToken(ROLE_TOKEN, role), ...tools.map((t) => filterToken(TOOL_TOKEN, t))].join(' ');
  const time = typeof e.time === 'number' && Number.isFinite(e.time) && e.time > 0 ? e.time : null;
  return { body, meta, openId: dshEntryId(e.seq), time };
}

/** Whether `line` may hold a stored surface record (a cheap look before JSON.parse). */
function mayBeSurface(buf: Buffer, start: number, end: number): boolean {
  for (const c of CANDIDATE) {
    const i = buf.indexOf(c, start);
    if (i !== -1 && i < end) return true;
  }
  return false;
}

/** The surface records among the lines of `text` (header excluded by the caller): seq → their [start, end). */
function surfaceLines(text: Buffer, from: number, onRecord: (seq: number, start: number, end: number) => void, all: boolean): void {
  for (let s = from; s < text.length; ) {
    let e = text.indexOf(10, s);
    if (e === -1) e = text.length;
    if (all || mayBeSurface(text, s, e)) {
      try {
        const v = JSON.parse(text.toString('utf8', s, e)) as unknown;
        if (isDshSurfaceRecord(v)) onRecord(v.seq, s, e);
      } catch {
        // not a record (torn, damaged): the loader did not accept it either
      }
    }
    s = e + 1;
  }
}

/** Where each record of a log lies: raw, its line; zstd, its frame. `all`: parse every line (no fast look). */
function placesOf(file: Buffer, zstd: boolean, all: boolean): Map<number, { off: number; len: number }> {
  const places = new Map<number, { off: number; len: number }>();
  const keep = (seq: number, off: number, len: number): void => {
    // The first record with a seq is the one the loader accepted (a later one is a gap).
    if (!places.has(seq)) places.set(seq, { off, len });
  };
  if (!zstd) {
    const nl = file.indexOf(10);
    if (nl !== -1) surfaceLines(file, nl + 1, (seq, s, e) => keep(seq, s, e - s), all);
    return places;
  }
  let first = true;
  for (let pos = 0; pos < file.length; ) {
    const step = readZstdFrame(file, pos);
    let content: Uint8Array;
    let start: number;
    let end: number;
    if (step.frame) {
      ({ start, end } = step.frame);
      try {
        content = redecodeFrame(file, start, end);
      } catch {
        break;
      }
    } else if (step.torn) {
      start = step.torn.start;
      end = file.length;
      content = decodeTornFrame(file.subarray(start)).content;
    } else break;
    if (!first) {
      const text = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
      surfaceLines(text, 0, (seq) => keep(seq, start, end - start), all);
    }
    first = false;
    if (!step.frame) break;
    pos = end;
  }
  return places;
}

/**
 * A dsh log file as the index stores it: one row per surface event the reader accepted (its text
 * read from the loaded log, its bytes located in the file), the title row, and the `files` columns
 * (tail_ok false: a changed dsh log is read again whole).
 */
export async function readDshFileRows(path: string, maxRows: number): Promise<WholeFileRows> {
  const { bytes, mtimeMs } = await readStableFile(path);
  const log = await readDshLog(bytes, { mtimeMs });
  const zstd = startsWithZstdMagic(bytes);
  const events = log.events;
  const seqs = events.seqsOf(INDEXED_TYPES);
  const toolNames = new Map<string, string>();
  for (const seq of seqs) {
    const e = events.at(seq);
    const m = e && e.type === 'assistant/message' && isObj(e.data) && isObj(e.data.message) ? e.data.message : null;
    if (m && Array.isArray(m.content)) for (const b of m.content) if (isObj(b) && b.type === 'tool-call' && typeof b.id === 'string' && typeof b.name === 'string') toolNames.set(b.id, b.name);
  }
  let places = placesOf(bytes, zstd, false);
  if (seqs.some((s) => !places.has(s))) places = placesOf(bytes, zstd, true);
  const rows: IndexRow[] = [];
  let titleRow: IndexRow | null = null;
  let titleText: string | null = null;
  for (const seq of seqs) {
    if (rows.length >= maxRows - 1) break;
    const place = places.get(seq);
    const e = events.at(seq);
    if (!place || !e) continue;
    const f = dshSearchFields(e, toolNames);
    if (!f) continue;
    rows.push({ body: f.body, meta: f.meta, eid: f.openId, ts: f.time, off: place.off, len: place.len });
  }
  // The title: the last session/title event's (dsh's own title), shown with the session; searchable
  // through its row, re-read from the same kind of bytes as an entry row.
  for (const seq of events.seqsOf(new Set(['session/title'])).reverse()) {
    const d = events.at(seq)?.data;
    if (!isObj(d) || typeof d.title !== 'string' || d.title.trim() === '') continue;
    titleText = d.title;
    const tp = titlePlace(bytes, zstd, seq);
    if (tp) titleRow = { body: d.title, meta: 'session title', eid: '', ts: null, off: tp.off, len: tp.len };
    break;
  }
  const header = log.header;
  const created = header && header.createdAt > 0 ? header.createdAt : null;
  if (titleRow) titleRow.ts = created;
  return wholeReadRows(bytes.length, rows, { title: titleRow, cwd: typeof header?.cwd === 'string' ? header.cwd : null, titleText, created, agent: 'dsh' });
}

/** The bytes of the `session/title` record at `seq`: raw, its line; zstd, its frame. */
function titlePlace(file: Buffer, zstd: boolean, seq: number): { off: number; len: number } | null {
  const marker = Buffer.from('"session/title"');
  let found: { off: number; len: number } | null = null;
  const look = (text: Buffer, from: number, at: (s: number, e: number) => { off: number; len: number }): void => {
    for (let s = from; s < text.length && !found; ) {
      let e = text.indexOf(10, s);
      if (e === -1) e = text.length;
      const i = text.indexOf(marker, s);
      if (i !== -1 && i < e) {
        try {
          const v = JSON.parse(text.toString('utf8', s, e)) as Obj;
          if (v.type === 'session/title' && v.seq === seq) found = at(s, e);
        } catch {
          // skip
        }
      }
      s = e + 1;
    }
  };
  if (!zstd) {
    const nl = file.indexOf(10);
    if (nl !== -1) look(file, nl + 1, (s, e) => ({ off: s, len: e - s }));
    return found;
  }
  for (let pos = 0; pos < file.length && !found; ) {
    const step = readZstdFrame(file, pos);
    if (!step.frame) break;
    const { start, end } = step.frame;
    try {
      const c = redecodeFrame(file, start, end);
      if (start > 0) look(Buffer.from(c.buffer, c.byteOffset, c.byteLength), 0, () => ({ off: start, len: end - start }));
    } catch {
      break;
    }
    pos = end;
  }
  return found;
}

/**
 * The record a dsh row's bytes hold, parsed: the line itself (raw), or — bytes starting with the
 * zstd magic: a frame (complete, or a torn final one) — the line of the frame whose event has
 * `seq` (`type` when given: the title row's `session/title`). Null when it no longer reads.
 */
export function dshRecordAt(buf: Buffer, seq: number | null, type?: string): Obj | null {
  if (!startsWithZstdMagic(buf)) {
    try {
      const v = JSON.parse(buf.toString('utf8')) as unknown;
      return isObj(v) ? v : null;
    } catch {
      return null;
    }
  }
  let content: Uint8Array;
  try {
    content = redecodeFrame(buf, 0, buf.length);
  } catch {
    content = decodeTornFrame(buf).content;
  }
  const text = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  for (let s = 0; s < text.length; ) {
    let e = text.indexOf(10, s);
    if (e === -1) e = text.length;
    try {
      const v = JSON.parse(text.toString('utf8', s, e)) as unknown;
      if (isObj(v) && (seq === null || v.seq === seq) && (type === undefined ? isDshSurfaceRecord(v) : v.type === type)) return v;
    } catch {
      // another record's line that no longer parses: not ours
    }
    s = e + 1;
  }
  return null;
}

/** The searchable text of a dsh row's bytes ('' when they no longer read as that record). */
export function dshRowText(buf: Buffer, eid: string, isTitle: boolean): string {
  if (isTitle) {
    const v = dshRecordAt(buf, null, 'session/title');
    const d = v && isObj(v.data) ? v.data : null;
    return d && typeof d.title === 'string' ? d.title : '';
  }
  const v = dshRecordAt(buf, seqOfDshEntryId(eid));
  return v && isDshSurfaceRecord(v) ? (dshSearchFields(v)?.body ?? '') : '';
}
