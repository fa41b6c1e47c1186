// `.jsonl.zst` rollouts (codex-format.md A.1, Part C §8): the CLI compresses cold rollouts with
// the zstd crate's stream encoder and reads them back through a stream decoder, so the file is a
// plain zstd stream — usually one frame without a content size or checksum, possibly several
// frames back to back. Decoded with dsh's zstd reader (formats/dsh/zstdFrames.ts walks the frame
// structure, zstdDecode.ts decodes a frame in bounded steps and verifies a checksum when there is
// one), one frame at a time, each frame's text handed to the line scanner before the next is
// decoded.
//
// Cap: what one frame may decode to is bounded before anything is allocated for it (a frame
// header may claim any size): 64 MiB, raised with the compressed size (64× the file, what real
// rollouts of mostly JSON text stay far below) up to 512 MiB. Beyond it the frame is reported
// as corrupt, at its byte offset, and the lines decoded before it stay.
import { decodeFrame, decodeTornFrame, loadXxh64, MAX_FRAME_CONTENT, type H64 } from '../dsh/zstdDecode';
import { readZstdFrame } from '../dsh/zstdFrames';
import type { CodexDiagnostic } from './types';

const MAX_ROLLOUT_FRAME = 512 * 1024 * 1024;

/** The most one frame of a compressed rollout of `compressedBytes` may decode to. */
export function zstFrameCap(compressedBytes: number): number {
  return Math.min(MAX_ROLLOUT_FRAME, Math.max(MAX_FRAME_CONTENT, compressedBytes * 64));
}

/**
 * Decodes every frame of `bytes` in order, handing each frame's content to `onText`. Problems
 * (an invalid structure, a frame that does not decode or fails its checksum, a torn final frame)
 * become `codex-frame` diagnostics; `lineAt()` names the line the scanner is at when one occurs.
 * A torn final frame gives up what its complete blocks decode to.
 */
export async function decodeZstRollout(bytes: Uint8Array, onText: (text: Uint8Array) => void, lineAt: () => number): Promise<CodexDiagnostic[]> {
  return decodeZstRolloutWith(await loadXxh64(), bytes, onText, lineAt);
}

/** decodeZstRollout with the XXH64 function at hand (synchronous: a search reading a row back). */
export function decodeZstRolloutWith(h64: H64, bytes: Uint8Array, onText: (text: Uint8Array) => void, lineAt: () => number): CodexDiagnostic[] {
  const cap = zstFrameCap(bytes.length);
  const problems: CodexDiagnostic[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const step = readZstdFrame(bytes, pos);
    if (step.invalid) {
      problems.push({ line: lineAt(), kind: 'codex-frame', message: `${step.invalid.message}: the rest of the file (from byte ${step.invalid.offset}) is not read` });
      break;
    }
    if (step.torn) {
      const torn = decodeTornFrame(bytes.subarray(step.torn.start), cap);
      onText(torn.content);
      problems.push({
        line: lineAt(),
        kind: 'codex-frame',
        message: `the final zstd frame (byte ${step.torn.start}) is torn (${step.torn.place}): ${torn.content.length} bytes recovered from its complete blocks, unverified${torn.overCap ? `; it claims or gives more than ${cap} bytes, decoding stopped there` : ''}`,
      });
      break;
    }
    const frame = step.frame!;
    const decoded = decodeFrame(bytes, frame, h64, cap);
    if (!decoded.ok) {
      problems.push({ line: lineAt(), kind: 'codex-frame', message: `${decoded.message}: the rest of the file is not read` });
      break;
    }
    onText(decoded.plaintext);
    pos = frame.end;
  }
  return problems;
}
