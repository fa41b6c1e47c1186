// Decoding one zstd frame and checking it (dsh-format.md §3): the content checksum is the low 32
// bits of XXH64 (seed 0) of the decompressed frame, stored little-endian after the last block.
//
// Libraries (VS Code's Node has no zstd; Node's own zstd is experimental and only from 22.15):
// - fzstd (pure TypeScript, ~25 KB, no native code): decodes a frame and streams a torn one
//   block by block; it does not verify checksums, hence
// - xxhash-wasm (a 2 KB inlined WASM module): XXH64 at ~200 MB/s. It initialises asynchronously,
//   so every reader entry point is async.
import { Decompress, decompress } from 'fzstd';
import type { ZstdFrame } from './zstdFrames';

type H64 = (bytes: Uint8Array) => bigint;
let xxh64: Promise<H64> | null = null;

/** The XXH64 function, initialised once per process. */
export function loadXxh64(): Promise<H64> {
  // A dynamic import: the package is an ES module (esbuild inlines it into the CommonJS bundles).
  xxh64 ??= import('xxhash-wasm').then(async ({ default: xxhash }) => {
    const api = await xxhash();
    return (bytes: Uint8Array) => api.h64Raw(bytes);
  });
  return xxh64;
}

export type FrameDecode = { ok: true; plaintext: Uint8Array } | { ok: false; message: string };

/** Decodes one complete frame of `file` and verifies its checksum when it has one. */
export function decodeFrame(file: Uint8Array, frame: ZstdFrame, h64: H64): FrameDecode {
  let plaintext: Uint8Array;
  try {
    plaintext = decompress(file.subarray(frame.start, frame.end));
  } catch (e) {
    return { ok: false, message: `the zstd frame at byte ${frame.start} does not decode (${(e as Error).message})` };
  }
  if (frame.contentSize !== null && plaintext.length !== frame.contentSize) {
    return { ok: false, message: `the zstd frame at byte ${frame.start} decodes to ${plaintext.length} bytes, not the ${frame.contentSize} its header declares` };
  }
  if (frame.hasChecksum) {
    const e = frame.end;
    const stored = (file[e - 4]! | (file[e - 3]! << 8) | (file[e - 2]! << 16) | (file[e - 1]! << 24)) >>> 0;
    const actual = Number(h64(plaintext) & 0xffffffffn);
    if (stored !== actual) {
      return { ok: false, message: `the zstd frame at byte ${frame.start} fails its content checksum (stored ${hex8(stored)}, computed ${hex8(actual)})` };
    }
  }
  return { ok: true, plaintext };
}

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

/**
 * Whatever a torn final frame still yields: the blocks that are complete, decoded in order
 * (none when the tear is in the frame header). Never throws; its output is unverified (the
 * checksum, if any, is what was cut off or cannot be trusted without the whole frame).
 */
export function decodeTornFrame(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    const stream = new Decompress((chunk) => {
      parts.push(chunk.slice());
      total += chunk.length;
    });
    stream.push(bytes, false);
  } catch {
    // A block that does not decode ends the recovery; what came before it stays.
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One zstd frame without a checksum (SQLite `data` BLOBs); throws when it does not decode. */
export function decompressBlob(bytes: Uint8Array): Uint8Array {
  return decompress(bytes);
}
