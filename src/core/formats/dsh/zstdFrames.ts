// The frame structure of a `.jsonl.zstd` log (RFC 8878; dsh-format.md §3 "Zstandard encoding"),
// walked without decoding so that every frame is decoded and checked on its own, and a torn
// final frame is found exactly. A one-shot decoder that stops after frame 1 is the classic bug:
// this walk is what makes "decode every frame" true.
//
// Frame: magic 28 B5 2F FD · frame header descriptor (FHD) · window byte unless single-segment
// · dictionary id (0/1/2/4 bytes) · content size (0/1/2/4/8 bytes) · blocks, each with a 3-byte
// little-endian header (bit 0 last, bits 1–2 type, bits 3–23 size; an RLE block carries one byte,
// type 3 is reserved) · a 4-byte checksum when FHD bit 0x04 is set. dsh writes no skippable
// frames and no dictionaries: either is an invalid structure here.

export interface ZstdFrame {
  /** Byte offsets in the file: [start, end). */
  start: number;
  end: number;
  /** The content size the header declares, when it declares one. */
  contentSize: number | null;
  /**
   * The window the header asks the decoder to keep (its window descriptor; the content size for
   * a single-segment frame): what a decoder allocates before the first block. RFC 8878 §3.1.1.1.2.
   */
  windowSize: number;
  /** Whether the frame ends with a content checksum (dsh always writes one in session logs). */
  hasChecksum: boolean;
}

/** Where a final frame was cut off by the end of the file. */
export type ZstdTearPlace = 'frame-header' | 'block' | 'checksum';

export interface ZstdFrameScan {
  frames: ZstdFrame[];
  /** The final frame, cut off by the end of the file: its start and where the cut is. */
  torn: { start: number; place: ZstdTearPlace } | null;
  /** The first byte that is no valid frame (structure), with why; nothing after it is walked. */
  invalid: { offset: number; message: string } | null;
}

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
/**
 * The longest a frame may be on disk: its content is capped at 64 MiB (MAX_FRAME_CONTENT,
 * zstdDecode.ts) and zstd never stores a block longer than its content (an incompressible block
 * is stored raw), so 64 MiB plus block headers; 1 MiB of slack. A longer walk (e.g. a zeroed
 * tail read as empty raw blocks, 00 00 00 each) is an invalid structure, found without reading on.
 */
export const MAX_FRAME_BYTES = 65 * 1024 * 1024;
const MAX_BLOCK = 128 * 1024;
const DICT_ID_BYTES = [0, 1, 2, 4];
const FCS_BYTES = [0, 2, 4, 8];

function readLE(b: Uint8Array, pos: number, n: number): number {
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + b[pos + i]!;
  return v;
}

/** One step of the walk: the frame at `pos`, or where the structure tears or breaks. */
export type ZstdFrameStep =
  | { frame: ZstdFrame; torn?: undefined; invalid?: undefined }
  | { frame?: undefined; torn: { start: number; place: ZstdTearPlace }; invalid?: undefined }
  | { frame?: undefined; torn?: undefined; invalid: { offset: number; message: string } };

/**
 * The frame starting at `pos` (< bytes.length), walked without decoding. Readers walk a log one
 * frame at a time with it, so that no list of every frame is kept while the log is read.
 */
export function readZstdFrame(bytes: Uint8Array, pos: number): ZstdFrameStep {
  const len = bytes.length;
  const start = pos;
  const torn = (place: ZstdTearPlace): ZstdFrameStep => ({ torn: { start, place } });
  const invalid = (offset: number, message: string): ZstdFrameStep => ({ invalid: { offset, message } });
  for (let i = 0; i < 4; i++) {
    if (pos + i >= len) return torn('frame-header');
    if (bytes[pos + i] !== MAGIC[i]) {
      return invalid(start, `byte ${start} does not start a zstd frame (magic 28 B5 2F FD expected; dsh writes no skippable frames)`);
    }
  }
  pos += 4;
  if (pos >= len) return torn('frame-header');
  const fhd = bytes[pos++]!;
  if (fhd & 0x08) return invalid(start, `the zstd frame at byte ${start} sets the reserved bit of its frame header`);
  const singleSegment = (fhd >> 5) & 1;
  const hasChecksum = ((fhd >> 2) & 1) === 1;
  const dictBytes = DICT_ID_BYTES[fhd & 3]!;
  const fcsFlag = fhd >> 6;
  const fcsBytes = fcsFlag === 0 ? singleSegment : FCS_BYTES[fcsFlag]!;
  const rest = (singleSegment ? 0 : 1) + dictBytes + fcsBytes;
  if (pos + rest > len) return torn('frame-header');
  // The window byte sizes the decoder's buffer (checked against a cap by the decoder,
  // zstdDecode.ts); a block is never above 128 KiB (RFC 8878).
  let windowSize = 0;
  if (!singleSegment) {
    const wd = bytes[pos]!;
    const base = 2 ** (10 + (wd >> 3));
    windowSize = base + (base / 8) * (wd & 7);
    pos++;
  }
  if (dictBytes > 0 && readLE(bytes, pos, dictBytes) !== 0) {
    return invalid(start, `the zstd frame at byte ${start} needs a dictionary (dsh never uses one)`);
  }
  pos += dictBytes;
  let contentSize: number | null = null;
  if (fcsBytes > 0) {
    contentSize = readLE(bytes, pos, fcsBytes) + (fcsBytes === 2 ? 256 : 0);
    pos += fcsBytes;
  }
  if (singleSegment) windowSize = contentSize ?? 0;

  for (;;) {
    if (pos - start > MAX_FRAME_BYTES) return invalid(pos, `the zstd frame at byte ${start} runs past ${MAX_FRAME_BYTES} bytes without a last block: longer than any frame of at most 64 MiB of content`);
    if (pos + 3 > len) return torn('block');
    const h = bytes[pos]! | (bytes[pos + 1]! << 8) | (bytes[pos + 2]! << 16);
    const last = h & 1;
    const type = (h >> 1) & 3;
    const size = h >>> 3;
    if (type === 3) return invalid(pos, `the zstd frame at byte ${start} has a block of the reserved type 3 at byte ${pos}`);
    if (size > MAX_BLOCK) return invalid(pos, `the zstd frame at byte ${start} has a ${size}-byte block at byte ${pos}, above the 128 KiB maximum`);
    pos += 3;
    const payload = type === 1 ? 1 : size;
    if (pos + payload > len) return torn('block');
    pos += payload;
    if (last) break;
  }
  if (hasChecksum) {
    if (pos + 4 > len) return torn('checksum');
    pos += 4;
  }
  return { frame: { start, end: pos, contentSize, windowSize, hasChecksum } };
}

/** Walks the frames of `bytes`, at most `maxFrames` of them (listing needs only the first). */
export function scanZstdFrames(bytes: Uint8Array, maxFrames = Infinity): ZstdFrameScan {
  const frames: ZstdFrame[] = [];
  let pos = 0;
  while (pos < bytes.length && frames.length < maxFrames) {
    const step = readZstdFrame(bytes, pos);
    if (!step.frame) return { frames, torn: step.torn ?? null, invalid: step.invalid ?? null };
    frames.push(step.frame);
    pos = step.frame.end;
  }
  return { frames, torn: null, invalid: null };
}
