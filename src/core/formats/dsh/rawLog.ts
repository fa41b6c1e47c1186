// Raw dsh logs (`session.jsonl`, `compression: 'none'`; dsh-format.md §3 "Raw encoding"): the
// logical lines as they are. A final line without `\n` is a torn tail: dropped, reported.
import { DshRecordScanner } from './recordScanner';
import { RawRecordTexts } from './recordTexts';
import { asBuffer, emptyScan, readHeaderLine, scanLines, type ParsedDshLog } from './logText';
import type { DshDiagnostic } from './types';

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
