// Decoding one zstd frame and checking it (dsh-format.md §3): the content checksum is the low 32
// bits of XXH64 (seed 0) of the decompressed frame, stored little-endian after the last block.
//
// Libraries (VS Code's Node has no zstd; Node's own zstd is experimental and only from 22.15):
// - fzstd (pure TypeScript, ~25 KB, no native code): decodes a frame and streams a torn one
//   block by block; it does not verify checksums, hence
// - xxhash-wasm (a 2 KB inlined WASM module): XXH64 at ~200 MB/s. It initialises asynchronously,
//   so every reader entry point is async.
//
// Every frame is decoded in bounded steps (fzstd's streaming `Decompress`, one callback per
// block of at most 128 KiB), never by the one-shot `decompress`, which allocates whatever the
// frame header claims (a 187-byte frame may claim 1 GB) or gathers every block of a frame before
// joining them (a 160 KB frame of RLE blocks expands to 5 GB). What a frame may hold is capped:
// - MAX_FRAME_CONTENT (64 MiB) per frame of a log, per SQLite `data` BLOB. A frame is one durable
//   append batch of dsh (flushed before each model call, before tool dispatch, after each step),
//   so it holds at most one step's events; its largest record is a tool result the model was
//   sent, and the largest model contexts are ~1M tokens (~4 MB of text): 64 MiB is 16 times that
//   (and half of libzstd's own default window limit, 128 MiB, beyond which `zstd -d` refuses a
//   frame without --memory). A larger claim (content size or window) or a larger output is
//   reported as corruption of that frame, at its byte offset, before anything is allocated for it.
// - MAX_HEADER_FRAME_CONTENT (1 MiB) for frame 1, which holds only the header line (a few hundred
//   bytes: ids, a cwd, a preset); listing reads nothing else.
import { Decompress } from 'fzstd';
import { readZstdFrame, type ZstdFrame } from './zstdFrames';

export type H64 = (bytes: Uint8Array) => bigint;
let xxh64: Promise<H64> | null = null;

/** The most a frame of a dsh log (or a `data` BLOB) may decode to: see above. */
export const MAX_FRAME_CONTENT = 64 * 1024 * 1024;
/** The most the header frame (frame 1: the header line alone) may decode to. */
export const MAX_HEADER_FRAME_CONTENT = 1024 * 1024;

/** The XXH64 function, initialised once per process. */
export function loadXxh64(): Promise<H64> {
  // A dynamic import: the package is an ES module (esbuild inlines it into the CommonJS bundles).
  xxh64 ??= import('xxhash-wasm').then(async ({ default: xxhash }) => {
    const api = await xxhash();
    loaded = (bytes: Uint8Array) => api.h64Raw(bytes);
    return loaded;
  });
  return xxh64;
}
let loaded: H64 | null = null;

/** The XXH64 function once loadXxh64 has resolved (for code that must stay synchronous), else null. */
export function loadedXxh64(): H64 | null {
  return loaded;
}

export type FrameDecode = { ok: true; plaintext: Uint8Array } | { ok: false; message: string; tooLarge?: true };

const mib = (n: number): string => (n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`);

/** Thrown from the decoder's callback to stop it (the output passed the cap). */
class OverCap extends Error {}

/**
 * libzstd's own default limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27): its streaming decoder, which
 * Node's zlib zstd (dsh's reader) uses, refuses a frame asking for a larger window ("Frame
 * requires too much memory for decoding"). So do we.
 */
const MAX_WINDOW = 2 ** 27;

/** A frame header's claims: declared content size (null: none), window, single segment. */
interface FrameClaims {
  contentSize: number | null;
  windowSize: number;
  singleSegment: boolean;
}

/** The claims of the frame header at the start of `bytes`, or null when it is incomplete. */
function headerClaims(bytes: Uint8Array): FrameClaims | null {
  if (bytes.length < 6) return null;
  const fhd = bytes[4]!;
  const single = (fhd >> 5) & 1;
  const dictBytes = [0, 1, 2, 4][fhd & 3]!;
  const fcsFlag = fhd >> 6;
  const fcsBytes = fcsFlag === 0 ? single : [0, 2, 4, 8][fcsFlag]!;
  const pos = 5 + (single ? 0 : 1) + dictBytes;
  if (pos + fcsBytes > bytes.length) return null;
  let contentSize: number | null = null;
  if (fcsBytes > 0) {
    contentSize = 0;
    for (let i = fcsBytes - 1; i >= 0; i--) contentSize = contentSize * 256 + bytes[pos + i]!;
    if (fcsBytes === 2) contentSize += 256;
  }
  let windowSize = contentSize ?? 0;
  if (!single) {
    const base = 2 ** (10 + (bytes[5]! >> 3));
    windowSize = base + (base / 8) * (bytes[5]! & 7);
  }
  return { contentSize, windowSize, singleSegment: single === 1 };
}

/**
 * The frame bytes to hand to the decoder under `cap`, or why the frame may not be decoded at all
 * (from its header alone: a declared content size above the cap, a window above libzstd's limit).
 * The decoder allocates the window the header asks for before the first block; a frame whose
 * output is at most `cap` (or its declared size) decodes the same with a window of that size
 * (no back-reference can reach further than the output), so a larger window descriptor is
 * lowered in a copy of the frame. `what` names the frame in the message.
 */
function boundedFrameBytes(bytes: Uint8Array, claims: FrameClaims, cap: number, what: string): { bytes: Uint8Array } | { message: string } {
  if (claims.contentSize !== null && claims.contentSize > cap) {
    return { message: `${what} declares ${claims.contentSize} bytes of content, above the ${mib(cap)} a frame may hold: treated as corruption, not decoded` };
  }
  if (claims.windowSize > MAX_WINDOW) {
    return { message: `${what} asks for a ${claims.windowSize}-byte decoding window, above zstd's own limit of ${mib(MAX_WINDOW)}: treated as corruption, not decoded` };
  }
  const need = Math.max(1, Math.min(claims.contentSize ?? cap, cap));
  if (claims.singleSegment || claims.windowSize <= need) return { bytes };
  const copy = bytes.slice();
  copy[5] = Math.max(0, Math.ceil(Math.log2(need)) - 10) << 3;
  return { bytes: copy };
}

/**
 * The content of the complete frame `bytes` (exactly one frame, walked as `frame`), decoded block
 * by block and never beyond `cap` bytes: a larger claim or output is an error, nothing of that
 * size is allocated. Memory: the output (≤ cap) plus one block.
 */
function inflateFrame(frameBytes: Uint8Array, frame: ZstdFrame, cap: number, what: string): FrameDecode {
  const bounded = boundedFrameBytes(frameBytes, { contentSize: frame.contentSize, windowSize: frame.windowSize, singleSegment: frameBytes[4]! & 0x20 ? true : false }, cap, what);
  if ('message' in bounded) return { ok: false, message: bounded.message, tooLarge: true };
  const bytes = bounded.bytes;
  // A declared size is the output buffer (checked against the output as it comes); otherwise the
  // blocks are gathered and joined once.
  const sized = frame.contentSize !== null ? new Uint8Array(frame.contentSize) : null;
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    const stream = new Decompress((chunk) => {
      if (chunk.length === 0) return;
      if (total + chunk.length > (sized ? sized.length : cap)) throw new OverCap();
      if (sized) sized.set(chunk, total);
      else parts.push(chunk.slice());
      total += chunk.length;
    });
    stream.push(bytes, true);
  } catch (e) {
    if (e instanceof OverCap) {
      return sized
        ? { ok: false, message: `${what} decodes to more than the ${sized.length} bytes its header declares` }
        : { ok: false, message: `${what} decodes to more than ${mib(cap)}, the most a frame may hold: treated as corruption, decoding stopped there`, tooLarge: true };
    }
    return { ok: false, message: `${what} does not decode (${(e as Error).message})` };
  }
  if (sized) {
    if (total !== sized.length) return { ok: false, message: `${what} decodes to ${total} bytes, not the ${sized.length} its header declares` };
    return { ok: true, plaintext: sized };
  }
  return { ok: true, plaintext: join(parts, total) };
}

function join(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Decodes one complete frame of `file` and verifies its checksum when it has one; never decodes
 * beyond `cap` (default MAX_FRAME_CONTENT): a larger frame is an error naming its byte offset.
 */
export function decodeFrame(file: Uint8Array, frame: ZstdFrame, h64: H64, cap = MAX_FRAME_CONTENT): FrameDecode {
  const decoded = inflateFrame(file.subarray(frame.start, frame.end), frame, cap, `the zstd frame at byte ${frame.start}`);
  if (!decoded.ok) return decoded;
  const plaintext = decoded.plaintext;
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

/** The content of a frame already verified by decodeFrame (the log's record texts read it again). */
export function redecodeFrame(file: Uint8Array, start: number, end: number): Uint8Array {
  const step = readZstdFrame(file.subarray(0, end), start);
  if (!step.frame) throw new Error(`the zstd frame at byte ${start} no longer walks`);
  const decoded = inflateFrame(file.subarray(start, end), step.frame, MAX_FRAME_CONTENT, `the zstd frame at byte ${start}`);
  if (!decoded.ok) throw new Error(decoded.message);
  return decoded.plaintext;
}

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

/**
 * Whatever a torn final frame still yields: the blocks that are complete, decoded in order
 * (none when the tear is in the frame header), at most `cap` bytes (`overCap`: it would give
 * more, or its header claims more; nothing beyond the cap is decoded). Never throws; its output
 * is unverified (the checksum, if any, is what was cut off or cannot be trusted without the
 * whole frame).
 */
export function decodeTornFrame(bytes: Uint8Array, cap = MAX_FRAME_CONTENT): { content: Uint8Array; overCap: boolean } {
  const parts: Uint8Array[] = [];
  let total = 0;
  let overCap = false;
  // The header's claims are checked (and its window lowered) before the decoder allocates it.
  const claims = headerClaims(bytes);
  if (claims) {
    const bounded = boundedFrameBytes(bytes, claims, cap, 'the torn frame');
    if ('message' in bounded) return { content: new Uint8Array(0), overCap: true };
    bytes = bounded.bytes;
  }
  try {
    const stream = new Decompress((chunk) => {
      if (total + chunk.length > cap) {
        overCap = true;
        throw new OverCap();
      }
      parts.push(chunk.slice());
      total += chunk.length;
    });
    stream.push(bytes, false);
  } catch {
    // A block that does not decode (or the cap) ends the recovery; what came before it stays.
  }
  return { content: join(parts, total), overCap };
}

/**
 * The content of a zstd BLOB (SQLite `data`: one frame, usually without a checksum), decoded in
 * bounded steps: throws when it does not decode, or when it claims or yields more than `cap`
 * (default MAX_FRAME_CONTENT) bytes in all.
 */
export function decompressBlob(bytes: Uint8Array, cap = MAX_FRAME_CONTENT): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let pos = 0; pos < bytes.length; ) {
    const step = readZstdFrame(bytes, pos);
    if (!step.frame) throw new Error(step.invalid ? step.invalid.message : `the zstd BLOB (${bytes.length} bytes) ends inside its frame at byte ${pos}`);
    const decoded = inflateFrame(bytes.subarray(pos, step.frame.end), step.frame, cap - total, `the zstd BLOB's frame at byte ${pos}`);
    if (!decoded.ok) throw new Error(decoded.message);
    parts.push(decoded.plaintext);
    total += decoded.plaintext.length;
    pos = step.frame.end;
  }
  return join(parts, total);
}
