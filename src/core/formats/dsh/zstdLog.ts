// Zstd dsh logs (`session.jsonl.zstd`, dsh's default; dsh-format.md §3 "Zstandard encoding"):
// independent checksummed frames, the header line alone in frame 1, then one frame per durable
// append batch. Every frame is decoded and verified on its own. Corruption (refused by dsh):
// no complete header frame, a header frame that is not exactly one line, a complete frame that
// fails to decode or to match its checksum, a complete frame ending inside a record, an invalid
// frame structure. A torn final frame gives up the complete lines of its complete blocks.
import { DshRecordScanner, type RecordPlace } from './recordScanner';
import { asBuffer, emptyScan, readHeaderLine, scanLines, type ParsedDshLog } from './logText';
import { ZstdRecordTexts } from './recordTexts';
import { decodeFrame, decodeTornFrame, loadXxh64, MAX_FRAME_CONTENT, MAX_HEADER_FRAME_CONTENT } from './zstdDecode';
import { readZstdFrame, type ZstdFrameStep, type ZstdTearPlace } from './zstdFrames';
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
  const refuse = (d: DshDiagnostic): ParsedDshLog => {
    diagnostics.push(d);
    return { header: null, scan: emptyScan(), diagnostics, corrupt: true };
  };

  // Frames are walked one at a time (no list of them all is kept while reading).
  const firstStep = readZstdFrame(file, 0);
  const firstFrame = firstStep.frame;
  if (!firstFrame) {
    const why = firstStep.invalid ? firstStep.invalid.message : 'the file ends before its first zstd frame is complete';
    return refuse({ line: 1, offset: 0, kind: 'no-header', message: `no complete header frame: ${why}` });
  }
  const first = decodeFrame(file, firstFrame, h64, MAX_HEADER_FRAME_CONTENT);
  if (!first.ok) return refuse({ line: 1, offset: 0, kind: 'dsh-frame', message: `${first.message}: the header cannot be read` });
  const headerText = asBuffer(first.plaintext);
  if (headerText.length === 0 || headerText.indexOf(10) !== headerText.length - 1) {
    return refuse({ line: 1, offset: 0, kind: 'no-header', message: 'the first zstd frame is not exactly one header line (dsh writes the header alone in frame 1)' });
  }
  const header = readHeaderLine(headerText.toString('utf8', 0, headerText.length - 1), diagnostics, 0);
  if (!header) return { header: null, scan: emptyScan(), diagnostics, corrupt: true };

  // The events not kept parsed are read again from the compressed frames, which the log keeps.
  const texts = new ZstdRecordTexts(file);
  const scanner = new DshRecordScanner(header.id, texts);
  let line = 2;
  let corrupt = false;
  const frameCorrupt = (offset: number, kind: DshDiagnostic['kind'], message: string): void => {
    corrupt = true;
    diagnostics.push(
      { line, offset, kind, message },
      { line, offset, kind: 'dsh-corrupt', message: `corrupt log: dsh refuses a session with this frame; showing the ${scanner.length} events before byte ${offset}, read-only` },
    );
  };

  let end: ZstdFrameStep | null = null;
  for (let pos = firstFrame.end; pos < file.length && !scanner.stopped; ) {
    const step = readZstdFrame(file, pos);
    const frame = step.frame;
    if (!frame) {
      end = step;
      break;
    }
    pos = frame.end;
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
    const base = texts.addFrame(frame.start, frame.end, text.length);
    line = scanLines(scanner, text, 0, text.length, line, () => frame.start, base).nextLine;
  }

  let tornTail: { place: RecordPlace; message: string } | undefined;
  if (!corrupt && !scanner.stopped && end) {
    if (end.invalid) {
      frameCorrupt(end.invalid.offset, 'dsh-frame', `invalid zstd structure: ${end.invalid.message}`);
    } else if (end.torn) {
      const { start, place } = end.torn;
      const torn = decodeTornFrame(file.subarray(start));
      const recovered = asBuffer(torn.content);
      const before = scanner.length;
      const { rest, nextLine } = scanLines(scanner, recovered, 0, recovered.length, line, () => start, texts.addContent(recovered));
      const lines = nextLine - line;
      tornTail = {
        place: { line: nextLine, offset: start },
        message:
          `the final zstd frame (byte ${start}, ${file.length - start} bytes) is torn ${TEAR_WORDS[place]}: ` +
          `${lines} complete line(s) recovered from its complete blocks (${scanner.length - before} events, unverified: no checksum), ` +
          `${recovered.length - rest} byte(s) of an incomplete record dropped` +
          (torn.overCap ? `; its blocks claim or give more than the ${MAX_FRAME_CONTENT / (1024 * 1024)} MiB a frame may hold: decoding stopped there` : ''),
      };
    }
  }
  return { header, scan: scanner.finish(corrupt ? undefined : tornTail), diagnostics, corrupt: corrupt || scanner.stopped };
}
