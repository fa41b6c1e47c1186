// Is a file's head a Codex rollout's? For the format detection (formats/detect.ts, sniff.ts), by
// content only (never by the `rollout-…` name): the first line is read as isCodexRollout decides.
// Two things make it more than a JSON.parse of line 1:
// - a `.jsonl.zst` starts with the zstd magic like dsh's `.jsonl.zstd`: its first frame is decoded
//   as far as the head reaches (a torn frame gives up its complete blocks; at most 1 MiB);
// - the session_meta line of newer files carries the whole base instructions and can be longer
//   than the sniffed window: a line cut by the window is recognised by its envelope's start.
import { startsWithZstdMagic } from '../detect';
import { decodeTornFrame } from '../dsh/zstdDecode';
import { isCodexRollout } from './records';

const SNIFF_DECODE_CAP = 1024 * 1024;
/**
 * How much of a zstd file to hand sniffCodexRollout: a zstd block never holds more than 128 KiB
 * (RFC 8878), so a frame header and one whole first block fit in this window, and the first
 * block's content is the file's first 128 KiB — its first line when that line is shorter.
 * (sniff.ts reads 64 KiB, which a first block of poorly compressible content — an image in the
 * first prompt — can exceed.)
 */
export const CODEX_ZSTD_SNIFF_BYTES = 128 * 1024 + 64;
/** The start of an envelope session_meta line as the CLI writes it (serde field order: timestamp, type). */
const META_START = /^\s*\{\s*"timestamp"\s*:\s*"[^"\\]{0,64}"\s*,\s*"type"\s*:\s*"session_meta"\s*,\s*"payload"\s*:\s*\{/;

/** Whether the start of a first line (possibly cut) is a Codex rollout's. */
export function codexFirstLine(text: string, complete: boolean): boolean {
  const line = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (complete) {
    try {
      return isCodexRollout(JSON.parse(line));
    } catch {
      return false;
    }
  }
  return META_START.test(line);
}

/**
 * Whether `head` (the first bytes of a file, plain or zstd) is a Codex rollout: its first line,
 * decoded from the first zstd frame when the file is compressed.
 */
export function sniffCodexRollout(head: Uint8Array): boolean {
  let text: Uint8Array = head;
  if (startsWithZstdMagic(head)) text = decodeTornFrame(head, SNIFF_DECODE_CAP).content;
  const nl = text.indexOf(0x0a);
  const first = Buffer.from(text.buffer, text.byteOffset, nl === -1 ? text.length : nl).toString('utf8').replace(/\r$/, '');
  return codexFirstLine(first, nl !== -1);
}
