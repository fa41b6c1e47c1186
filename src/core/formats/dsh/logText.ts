// The logical JSONL text shared by both file encodings (dsh-format.md §3): line 1 is the header,
// every other line a storage record, each ending in `\n`. Lines are split on the bytes (a log can
// be longer than V8's longest string) and decoded one at a time.
import { parseDshHeader } from './header';
import { DshRecordScanner, type RecordScan } from './recordScanner';
import type { DshDiagnostic, DshHeader } from './types';

/** What an encoding reader hands to the assembler (load.ts). */
export interface ParsedDshLog {
  header: DshHeader | null;
  scan: RecordScan;
  /** Diagnostics of the header and of the physical encoding (frames), before the scan's own. */
  diagnostics: DshDiagnostic[];
  /** The encoding itself is corrupt (a bad complete frame, no header…), whatever the records say. */
  corrupt: boolean;
}

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Parses the header line; null with a diagnostic when it is not a dsh header. */
export function readHeaderLine(text: string, diagnostics: DshDiagnostic[], offset?: number): DshHeader | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    diagnostics.push({ line: 1, ...(offset !== undefined ? { offset } : {}), kind: 'no-header', message: 'the first line is not valid JSON, so there is no session header; nothing else was read' });
    return null;
  }
  const parsed = parseDshHeader(value, 1);
  if (!parsed.ok) {
    diagnostics.push(parsed.diagnostic);
    return null;
  }
  diagnostics.push(...parsed.diagnostics);
  return parsed.header;
}

/**
 * Feeds every complete line of `buf[start, end)` to the scanner; returns where the unterminated
 * remainder starts (=== end when the text ends in `\n`) and the next line number.
 * `offsetOf(i)` maps a position in `buf` to the byte offset reported in diagnostics;
 * `textBase + i` is the position's offset in the logical text the scanner's record texts read.
 */
export function scanLines(
  scanner: DshRecordScanner,
  buf: Buffer,
  start: number,
  end: number,
  firstLine: number,
  offsetOf: (pos: number) => number,
  textBase = 0,
): { rest: number; nextLine: number } {
  let line = firstLine;
  let s = start;
  while (s < end && !scanner.stopped) {
    const e = buf.indexOf(10, s);
    if (e === -1 || e >= end) break;
    const junk = junkLine(buf.subarray(s, e));
    // A line that cannot be JSON is refused from its bytes, without making a string of it.
    if (junk) scanner.unparsable({ line, offset: offsetOf(s) }, junk);
    else scanner.addLine(buf.toString('utf8', s, e), { line, offset: offsetOf(s) }, { start: textBase + s, length: e - s });
    line++;
    s = e + 1;
  }
  return { rest: scanner.stopped ? end : s, nextLine: line };
}

/** The index of the first byte of `bytes` that is not JSON whitespace, or -1. */
export function firstNonWhitespace(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0a) return i;
  }
  return -1;
}

/** Why a line's bytes are clearly not a JSON record (one of dsh's lines), or null when they may be. */
export function junkReason(firstByte: number | null, hasNul: boolean, length: number): string {
  const start = firstByte === null ? '' : firstByte === 0x7b ? '' : `it starts with byte 0x${firstByte.toString(16).padStart(2, '0')}, not "{"`;
  const nul = hasNul ? 'it holds a NUL byte (JSON text never does: a zeroed or sparse region)' : '';
  return `the record is not JSON (${[start, nul].filter(Boolean).join('; ')}): ${length} byte(s) skipped without being read into memory`;
}

/**
 * Why a complete line is clearly not a JSON record, or null: its first byte that is not
 * whitespace is not `{`, or it holds a NUL byte (never in JSON text). A blank line is left to the
 * JSON parser (it reports it as such).
 */
export function junkLine(line: Uint8Array): string | null {
  const i = firstNonWhitespace(line);
  const first = i === -1 ? null : line[i]!;
  const hasNul = line.indexOf(0) !== -1;
  if (!hasNul && (first === null || first === 0x7b)) return null;
  return junkReason(first, hasNul, line.length);
}

export function emptyScan(): RecordScan {
  return new DshRecordScanner().finish();
}
