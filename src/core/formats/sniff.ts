// Is this file a session at all, and in which format? Decided once, by content, from the first
// bytes (SNIFF_BYTES), for every reader that is handed a file by name (the CLI's commands; the
// format detection of openModel.ts). A file that is not a session (an executable, an image, random
// bytes, a JSON array, JSONL of some other tool) is refused with one sentence saying what it is,
// instead of being read as an empty, damaged session.
//
// The rule errs on the side of reading: anything that could be a damaged session is a session
// (the loaders report the damage). Accepted as a session:
// - an empty file, or one of blank lines only (a session not written yet);
// - a zstd frame or an SQLite database (dsh's `.jsonl.zstd` and its SQLite store);
// - any line among the first SNIFF_BYTES that is a session record: an xcsh/pi/oh-my-pi header,
//   title line or entry (v1 entries without ids included), or a dsh header, event or packed row;
// - a line that starts like a JSON object but does not parse (glued records, a torn record, a
//   record longer than the sniffed window): damage, not another kind of file.
// Refused: magic numbers of binary formats, binary bytes (NUL, raw control characters, bytes that
// are not UTF-8) with no session record before them, JSON values that are not objects, plain text,
// and JSONL whose records are all something else.
import { open } from 'node:fs/promises';
import { isDshHeader, startsWithSqliteMagic, startsWithZstdMagic, type SessionFormat } from './detect';
import { EXTRA_ENTRY_TYPES, KNOWN_ENTRY_TYPES } from './xcsh/entryTypes';
import { isClaudeRecord, isClaudeTranscript } from './claude/detect';
import { isCodexRollout } from './codex/records';
import { CODEX_ZSTD_SNIFF_BYTES, codexFirstLine, sniffCodexRollout } from './codex/sniffCodex';
import { readRange } from '../store/fileHead';

/** Bytes read to decide: a dsh header is small, and a session's first records are found well within. */
export const SNIFF_BYTES = 64 * 1024;

export type SessionSniff = { kind: 'session'; format: SessionFormat } | { kind: 'not-session'; reason: string };

/** Well-known magic numbers at offset 0, and what they are (said in "binary data (…)"). */
const MAGICS: readonly { bytes: readonly (number | null)[]; what: string }[] = [
  { bytes: [0x7f, 0x45, 0x4c, 0x46], what: 'an ELF executable' },
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: 'a GIF image' },
  { bytes: [0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50], what: 'a WebP image' },
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], what: 'a PDF document' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'a ZIP archive' },
  { bytes: [0x1f, 0x8b], what: 'gzip-compressed data' },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: 'xz-compressed data' },
  { bytes: [0x42, 0x5a, 0x68], what: 'bzip2-compressed data' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], what: 'a 7-Zip archive' },
  { bytes: [0xcf, 0xfa, 0xed, 0xfe], what: 'a Mach-O executable' },
  { bytes: [0xce, 0xfa, 0xed, 0xfe], what: 'a Mach-O executable' },
  { bytes: [0xca, 0xfe, 0xba, 0xbe], what: 'a Mach-O universal binary or Java class' },
  { bytes: [0x00, 0x61, 0x73, 0x6d], what: 'a WebAssembly module' },
];

function magicOf(head: Uint8Array): string | null {
  for (const m of MAGICS) {
    if (head.length < m.bytes.length) continue;
    if (m.bytes.every((b, i) => b === null || head[i] === b)) return m.what;
  }
  return null;
}

const SESSION_TYPES: ReadonlySet<string> = new Set<string>(['session', 'title', ...KNOWN_ENTRY_TYPES, ...EXTRA_ENTRY_TYPES]);

/** The start of a Claude Code chain record as its CLI writes it (`parentUuid` first) or of one of its side records. */
const CLAUDE_LINE_START = /^\s*\{"(parentUuid"\s*:|type"\s*:\s*"(summary|file-history-snapshot|queue-operation)")/;

/**
 * A parsed line that one of the formats would read as a record of its own: an xcsh/pi header
 * (`type: "session"`) or oh-my-pi title line, an entry of a known type, an entry of any other type
 * that carries an entry's fields (`id`, `parentId`, `timestamp`), or a dsh event (`seq`) or
 * packed row (`seq0`).
 */
export function isSessionRecord(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  if (typeof r.type !== 'string') return false;
  if (SESSION_TYPES.has(r.type)) return true;
  if (isCodexRollout(value)) return true;
  if (isClaudeRecord(value)) return true;
  return typeof r.id === 'string' || 'parentId' in r || typeof r.timestamp === 'string' || typeof r.timestamp === 'number' || typeof r.seq === 'number' || typeof r.seq0 === 'number';
}

/**
 * Bytes that text never holds: NUL, control characters other than tab, line feed, carriage
 * return and form feed (JSON escapes all of them), and sequences that are not UTF-8. Counted over
 * `bytes`; a multi-byte character cut by the end of the window is not counted.
 */
function binaryBytes(bytes: Uint8Array): number {
  let bad = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) bad++;
      else if (b === 0x7f) bad++;
      i++;
      continue;
    }
    const len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len === 0) {
      bad++;
      i++;
      continue;
    }
    if (i + len > bytes.length) break;
    let ok = true;
    for (let k = 1; k < len; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) ok = false;
    if (!ok) {
      bad++;
      i++;
      continue;
    }
    i += len;
  }
  return bad;
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : 'boolean';
}

const A_JSON: Record<string, string> = { array: 'a JSON array', string: 'a JSON string', number: 'a JSON number', boolean: 'a JSON boolean', null: 'JSON null' };

/**
 * Whether the first bytes of a file (`head`, the first `SNIFF_BYTES` or fewer of a file of `size`
 * bytes) are a session's, and its format. The format is `detect.ts`'s: zstd or SQLite, or a first
 * line (after a BOM) that is a dsh header, is dsh; any other session is xcsh.
 */
export function sniffSessionBytes(head: Uint8Array, size: number): SessionSniff {
  // a zstd stream is dsh's `.jsonl.zstd` unless its first line is a Codex rollout's (`.jsonl.zst`)
  if (startsWithZstdMagic(head)) return { kind: 'session', format: sniffCodexRollout(head) ? 'codex' : 'dsh' };
  if (startsWithSqliteMagic(head)) return { kind: 'session', format: 'dsh' };
  const magic = magicOf(head);
  if (magic) return { kind: 'not-session', reason: `binary data (${magic})` };
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const whole = head.length >= size;
  // Complete lines only (the last one too when the window holds the whole file).
  const lines: Uint8Array[] = [];
  let start = bom;
  for (let i = start; i < head.length; i++) {
    if (head[i] === 0x0a) {
      lines.push(head.subarray(start, i));
      start = i + 1;
    }
  }
  const partial = head.subarray(start);
  if (whole && partial.length > 0) lines.push(partial);
  const decoder = new TextDecoder();
  const texts = lines.map((l) => decoder.decode(l));
  // detectFileFormat's rule: the first line of the window (the window itself without a newline).
  const firstLine = lines.length > 0 ? texts[0]! : decoder.decode(partial);
  // A Codex rollout's first line is its session_meta, which can be longer than the window (the base
  // instructions): recognised by the start of its envelope too.
  if (codexFirstLine(firstLine, lines.length > 0)) return { kind: 'session', format: 'codex' };
  // A Claude Code transcript: one of the window's records is one only Claude Code writes. A first
  // line longer than the window is told by its start (the writer's key order: `parentUuid` first).
  const parsed: unknown[] = [];
  for (const t of texts) {
    try {
      parsed.push(JSON.parse(t));
    } catch {
      // (not a record: the loop below judges it)
    }
  }
  if (isClaudeTranscript(parsed) || (lines.length === 0 && CLAUDE_LINE_START.test(firstLine))) return { kind: 'session', format: 'claude' };
  const format: SessionFormat = (() => {
    try {
      return isDshHeader(JSON.parse(firstLine)) ? 'dsh' : 'xcsh';
    } catch {
      return 'xcsh';
    }
  })();
  const session: SessionSniff = { kind: 'session', format };

  let firstValue: string | null = null;
  let objects = 0;
  let brokenRecord = false;
  let seen = 0;
  for (const t of texts) {
    const s = t.trim();
    if (s === '') continue;
    seen++;
    let v: unknown;
    try {
      v = JSON.parse(s);
    } catch {
      // `{"…` that does not parse: glued or torn records (damage, read as such); a line that is
      // just `{` (pretty-printed JSON) or anything else is not a record.
      if (/^\{\s*"/.test(s)) brokenRecord = true;
      firstValue ??= 'text';
      continue;
    }
    if (isSessionRecord(v)) return session;
    const kind = jsonKind(v);
    firstValue ??= kind;
    if (kind === 'object') objects++;
  }
  if (brokenRecord) return session;
  // No complete line in the window: one line longer than SNIFF_BYTES. A record (it starts like
  // one) is read; anything else is judged by its bytes below.
  if (seen === 0 && !whole && /^\s*\{\s*"/.test(decoder.decode(partial.subarray(0, 256)))) return session;
  // Binary bytes early in the file, with no session record before them.
  const probe = head.subarray(0, Math.min(head.length, 8192));
  const bad = binaryBytes(probe);
  if (bad > 0 && (probe.includes(0) || bad * 20 > probe.length)) return { kind: 'not-session', reason: 'binary data' };
  if (seen === 0) {
    if (whole) return session; // empty, or blank lines only: a session not written yet
    return { kind: 'not-session', reason: 'text, not JSONL records (its first line is longer than 64 KiB and not a JSON object)' };
  }
  if (firstValue === 'object' || (objects > 0 && objects === seen)) {
    return { kind: 'not-session', reason: `JSONL, but no ${whole ? 'line' : `line of the first ${seen}`} is a session record (an xcsh/pi header or entry, a dsh header or event)` };
  }
  if (firstValue !== null && firstValue !== 'text') return { kind: 'not-session', reason: `${A_JSON[firstValue] ?? 'JSON'}, not JSONL records` };
  if (/^\s*\[/.test(firstLine)) return { kind: 'not-session', reason: 'a JSON array, not JSONL records' };
  if (/^\s*\{\s*$/.test(firstLine)) return { kind: 'not-session', reason: 'a multi-line JSON document, not JSONL records' };
  return { kind: 'not-session', reason: 'text, not JSONL records' };
}

/** sniffSessionBytes over the first SNIFF_BYTES of a file. Errors of the read (ENOENT, EISDIR…) are thrown. */
export async function sniffSessionFile(path: string): Promise<SessionSniff> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    // A zstd stream is read a little further: the first block of a Codex `.jsonl.zst` may be
    // longer than SNIFF_BYTES, and its first line is in it (sniffCodex.ts).
    const magic = Buffer.alloc(4);
    await fh.read(magic, 0, 4, 0);
    const head = await readRange(fh, 0, Math.min(size, startsWithZstdMagic(magic) ? Math.max(SNIFF_BYTES, CODEX_ZSTD_SNIFF_BYTES) : SNIFF_BYTES));
    // A file that grew since its stat: judged on what was read.
    return sniffSessionBytes(head, Math.max(size, head.length));
  } finally {
    await fh.close();
  }
}
