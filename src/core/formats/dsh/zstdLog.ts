// Zstd dsh logs (`session.jsonl.zstd`, dsh's default; dsh-format.md §3 "Zstandard encoding"):
// independent checksummed frames, the header line alone in frame 1, then one frame per durable
// append batch. Every frame is decoded and verified on its own. Corruption (refused by dsh):
// no complete header frame, a header frame that is not exactly one line, a complete frame that
// fails to decode or to match its checksum, a complete frame ending inside a record, an invalid
// frame structure. A torn final frame gives up the complete lines of its complete blocks.
import { DshRecordScanner, type RecordPlace } from './recordScanner';
import { asBuffer, emptyScan, readHeaderLine, scanLines, type ParsedDshLog } from './logText';
import { decodeFrame, decodeTornFrame, loadXxh64 } from './zstdDecode';
import { scanZstdFrames, type ZstdTearPlace } from './zstdFrames';
import type { DshDiagnostic } from './types';

const TEAR_WORDS: Record<ZstdTearPlace, string> = {
  'frame-header': 'in its frame header',
  block: 'inside a block',
  checksum: 'in its checksum',
};

export async function readZstdLog(bytes: Uint8Array): Promise<ParsedDshLog> {
  const file = asBuffer(bytes);
  const h64 = await loadXxh64();
  const diagnostics: DshDiagnostic[] = [];
  const structure = scanZstdFrames(file);
  const { frames } = structure;
  const refuse = (d: DshDiagnostic): ParsedDshLog => {
    diagnostics.push(d);
    return { header: null, scan: emptyScan(), diagnostics, corrupt: true };
  };

  if (frames.length === 0) {
    const why = structure.invalid ? structure.invalid.message : 'the file ends before its first zstd frame is complete';
    return refuse({ line: 1, offset: 0, kind: 'no-header', message: `no complete header frame: ${why}` });
  }
  const first = decodeFrame(file, frames[0]!, h64);
  if (!first.ok) return refuse({ line: 1, offset: 0, kind: 'dsh-frame', message: `${first.message}: the header cannot be read` });
  const headerText = asBuffer(first.plaintext);
  if (headerText.length === 0 || headerText.indexOf(10) !== headerText.length - 1) {
    return refuse({ line: 1, offset: 0, kind: 'no-header', message: 'the first zstd frame is not exactly one header line (dsh writes the header alone in frame 1)' });
  }
  const header = readHeaderLine(headerText.toString('utf8', 0, headerText.length - 1), diagnostics, 0);
  if (!header) return { header: null, scan: emptyScan(), diagnostics, corrupt: true };

  const scanner = new DshRecordScanner();
  let line = 2;
  let corrupt = false;
  const frameCorrupt = (offset: number, kind: DshDiagnostic['kind'], message: string): void => {
    corrupt = true;
    diagnostics.push(
      { line, offset, kind, message },
      { line, offset, kind: 'dsh-corrupt', message: `corrupt log: dsh refuses a session with this frame; showing the ${scanner.length} events before byte ${offset}, read-only` },
    );
  };

  for (let i = 1; i < frames.length && !scanner.stopped; i++) {
    const frame = frames[i]!;
    const decoded = decodeFrame(file, frame, h64);
    if (!decoded.ok) {
      frameCorrupt(frame.start, 'dsh-frame', decoded.message);
      break;
    }
    const text = asBuffer(decoded.plaintext);
    if (text.length > 0 && text[text.length - 1] !== 10) {
      frameCorrupt(frame.start, 'dsh-bad-record', `the complete zstd frame at byte ${frame.start} ends inside a record (records never straddle frames)`);
      break;
    }
    line = scanLines(scanner, text, 0, text.length, line, () => frame.start).nextLine;
  }

  let tornTail: { place: RecordPlace; message: string } | undefined;
  if (!corrupt && !scanner.stopped) {
    if (structure.invalid) {
      frameCorrupt(structure.invalid.offset, 'dsh-frame', `invalid zstd structure: ${structure.invalid.message}`);
    } else if (structure.torn) {
      const { start, place } = structure.torn;
      const recovered = asBuffer(decodeTornFrame(file.subarray(start)));
      const before = scanner.length;
      const { rest, nextLine } = scanLines(scanner, recovered, 0, recovered.length, line, () => start);
      const lines = nextLine - line;
      tornTail = {
        place: { line: nextLine, offset: start },
        message:
          `the final zstd frame (byte ${start}, ${file.length - start} bytes) is torn ${TEAR_WORDS[place]}: ` +
          `${lines} complete line(s) recovered from its complete blocks (${scanner.length - before} events, unverified: no checksum), ` +
          `${recovered.length - rest} byte(s) of an incomplete record dropped`,
      };
    }
  }
  return { header, scan: scanner.finish(corrupt ? undefined : tornTail), diagnostics, corrupt: corrupt || scanner.stopped };
}
