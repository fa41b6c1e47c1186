// Raw dsh logs (`session.jsonl`, `compression: 'none'`; dsh-format.md §3 "Raw encoding"): the
// logical lines as they are. A final line without `\n` is a torn tail: dropped, reported.
import type { FileHandle } from 'node:fs/promises';
import { DshRecordScanner } from './recordScanner';
import { RawRecordTexts } from './recordTexts';
import { asBuffer, emptyScan, firstNonWhitespace, junkReason, readHeaderLine, scanLines, type ParsedDshLog } from './logText';
import type { DshDiagnostic, DshHeader } from './types';
import { readRange } from '../../store/fileHead';

export function readRawLog(bytes: Uint8Array): ParsedDshLog {
  const buf = asBuffer(bytes);
  const diagnostics: DshDiagnostic[] = [];
  const nl = buf.indexOf(10);
  if (nl === -1) {
    diagnostics.push({
      line: 1,
      offset: 0,
      kind: 'no-header',
      message: buf.length === 0 ? 'the file is empty: no session header' : 'the header line is incomplete (no newline): an interrupted first write, nothing to show',
    });
    return { header: null, scan: emptyScan(), diagnostics, corrupt: true };
  }
  const header = readHeaderLine(buf.toString('utf8', 0, nl), diagnostics, 0);
  if (!header) return { header: null, scan: emptyScan(), diagnostics, corrupt: true };

  // The events not kept parsed are read again from the file's bytes, which the log keeps.
  const scanner = new DshRecordScanner(header.id, new RawRecordTexts(buf));
  const { rest, nextLine } = scanLines(scanner, buf, nl + 1, buf.length, 2, (p) => p);
  const tornTail =
    rest < buf.length
      ? { place: { line: nextLine, offset: rest }, message: `line ${nextLine} (byte ${rest}, ${buf.length - rest} bytes) has no newline: an interrupted write, dropped as dsh drops it` }
      : undefined;
  return { header, scan: scanner.finish(tornTail), diagnostics, corrupt: false };
}

interface StreamedTail {
  scanner: DshRecordScanner;
  header: DshHeader;
  diagnostics: DshDiagnostic[];
  /** The next line's number. */
  line: number;
}

/** Reads of a raw log file, in bytes. */
const READ_CHUNK = 1024 * 1024;

/** `length` bytes at `position` (fewer at the end of the file). */
const readAt = (fh: FileHandle, position: number, length: number): Promise<Buffer> => readRange(fh, position, position + length);

/**
 * A raw log read from an open file in chunks, in memory bounded by what is kept rather than by
 * the file (issue 22: a sparse 1 GB file of NULs, a zeroed tail after a crash). The file's bytes
 * are kept (the events not kept parsed are read again from them, RawRecordTexts) only up to the
 * first line that is clearly not JSON (a first byte other than `{` after whitespace, or a NUL
 * byte, which JSON text never holds). That line and every line after it cannot enter the log
 * (the first problem bounds the preserved prefix, dsh-format.md §3), so from there on they are
 * only scanned for a later `turn/end` (corrupt vs torn): a junk line is reported with its byte
 * range and never held, a line that may be JSON is held only until its newline. Gives what
 * readRawLog gives for the same bytes (junk lines carry their own message).
 */
export async function readRawLogFile(fh: FileHandle, size: number, chunkSize = READ_CHUNK): Promise<ParsedDshLog> {
  const prefixParts: Buffer[] = [];
  /** Where keeping the file's bytes stopped (a junk line's start); -1 while everything is kept. */
  let cut = -1;
  // Set once the cut is made (closures set them: a holder keeps the type checker's narrowing honest).
  const st: { after: StreamedTail | null; refused: ParsedDshLog | null } = { after: null, refused: null };
  // The current line: its start, whether it is junk (known from its first bytes), what is held of it.
  let lineStart = 0;
  let firstByte: number | null = null;
  let hasNul = false;
  let held: Buffer[] = [];

  /** Everything before `cut` is kept and scanned as readRawLog scans it; the rest streams. */
  const startStreaming = (): void => {
    const prefix = Buffer.concat(prefixParts, cut);
    prefixParts.length = 0;
    const diagnostics: DshDiagnostic[] = [];
    if (cut === 0) {
      diagnostics.push({ line: 1, offset: 0, kind: 'no-header', message: `the first line is not a session header: ${junkReason(firstByte, hasNul, size)}; nothing else was read` });
      st.refused = { header: null, scan: emptyScan(), diagnostics, corrupt: true };
      return;
    }
    const nl = prefix.indexOf(10);
    const header = readHeaderLine(prefix.toString('utf8', 0, nl), diagnostics, 0);
    if (!header) {
      st.refused = { header: null, scan: emptyScan(), diagnostics, corrupt: true };
      return;
    }
    const scanner = new DshRecordScanner(header.id, new RawRecordTexts(prefix));
    const { nextLine } = scanLines(scanner, prefix, nl + 1, prefix.length, 2, (p) => p);
    st.after = { scanner, header, diagnostics, line: nextLine };
  };

  for (let pos = 0; pos < size && !st.refused; ) {
    const chunk = await readAt(fh, pos, Math.min(chunkSize, size - pos));
    if (chunk.length === 0) break;
    if (cut === -1) prefixParts.push(chunk);
    for (let a = 0; a < chunk.length && !st.refused; ) {
      const nl = chunk.indexOf(10, a);
      const seg = chunk.subarray(a, nl === -1 ? chunk.length : nl);
      const wasJunk = hasNul || (firstByte !== null && firstByte !== 0x7b);
      if (!wasJunk) {
        if (firstByte === null) {
          const i = firstNonWhitespace(seg);
          if (i !== -1) firstByte = seg[i]!;
        }
        if (seg.indexOf(0) !== -1) hasNul = true;
        const junk = hasNul || (firstByte !== null && firstByte !== 0x7b);
        if (junk) {
          held = [];
          if (cut === -1) {
            cut = lineStart;
            startStreaming();
          }
        } else if (cut !== -1) {
          held.push(seg);
        }
      }
      if (nl === -1) break;
      // A complete line [lineStart, pos + nl) after the cut: fed to the scanner, junk from its range alone.
      const after = st.after;
      if (after) {
        const { scanner } = after;
        const place = { line: after.line++, offset: lineStart };
        const length = pos + nl - lineStart;
        if (hasNul || (firstByte !== null && firstByte !== 0x7b)) scanner.unparsable(place, junkReason(firstByte, hasNul, length));
        else scanner.addLine(Buffer.concat(held).toString('utf8'), place);
        if (scanner.stopped) break;
      }
      lineStart = pos + nl + 1;
      firstByte = null;
      hasNul = false;
      held = [];
      a = nl + 1;
    }
    pos += chunk.length;
    if (st.after?.scanner.stopped) break;
  }
  if (st.refused) return st.refused;
  if (!st.after) return readRawLog(Buffer.concat(prefixParts));
  const { scanner, header, diagnostics, line } = st.after;
  const tornTail =
    !scanner.stopped && lineStart < size
      ? { place: { line, offset: lineStart }, message: `line ${line} (byte ${lineStart}, ${size - lineStart} bytes) has no newline: an interrupted write, dropped as dsh drops it` }
      : undefined;
  return { header, scan: scanner.finish(tornTail), diagnostics, corrupt: false };
}
