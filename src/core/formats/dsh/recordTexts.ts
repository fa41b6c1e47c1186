// Where the event store (eventStore.ts) reads again the records it does not keep parsed: the
// stored file itself, kept as read (a raw log's bytes; a zstd log's compressed frames, decoded
// again on demand). Keeping the compressed bytes instead of the decompressed text or the parsed
// events is what keeps a loaded zstd log small (dsh-format.md §3: the frames are independent, so
// any one decodes alone). A record is addressed by its offset in the logical JSONL text (the
// concatenation of every frame's content; for a raw log, the file) and its length in bytes.
import { redecodeFrame } from './zstdDecode';

export interface RecordTexts {
  /** The text of the record at logical offset `start`, `length` bytes (UTF-8, no newline). */
  text(start: number, length: number): string;
}

/** A raw log: the logical text is the file. */
export class RawRecordTexts implements RecordTexts {
  constructor(private readonly file: Buffer) {}

  text(start: number, length: number): string {
    return this.file.toString('utf8', start, start + length);
  }
}

/** Decoded frames kept for the next reads: a few, within a byte budget (a frame can be megabytes). */
const CACHED_FRAMES = 4;
const CACHED_BYTES = 4 * 1024 * 1024;

/**
 * A zstd log: the compressed file and, per frame whose records are addressed, where it lies in the
 * file and where its content starts in the logical text. A frame was verified (size, checksum)
 * when the log was read; decoding it again from the same bytes gives the same content. A torn
 * final frame cannot be decoded whole: the content recovered from its complete blocks is kept.
 */
export class ZstdRecordTexts implements RecordTexts {
  private frameStart: Float64Array<ArrayBuffer> = new Float64Array(64);
  private frameEnd: Float64Array<ArrayBuffer> = new Float64Array(64);
  /** textStart[i]: the logical offset of frame i's first byte; textStart[frames] the end. */
  private textStart: Float64Array<ArrayBuffer> = new Float64Array(65);
  private frames = 0;
  private readonly pinned = new Map<number, Buffer>();
  /** The most recently decoded frames, most recent last (sequential reads decode each frame once). */
  private readonly cache = new Map<number, Buffer>();
  private cachedBytes = 0;

  constructor(private readonly file: Buffer) {}

  /** The logical text length so far (where the next frame's content starts). */
  get textLength(): number {
    return this.textStart[this.frames]!;
  }

  /** Registers the next frame (file bytes [start, end), `contentLength` bytes of content); returns its logical offset. */
  addFrame(start: number, end: number, contentLength: number): number {
    if (this.frames + 1 >= this.textStart.length) this.grow();
    const i = this.frames++;
    this.frameStart[i] = start;
    this.frameEnd[i] = end;
    this.textStart[i + 1] = this.textStart[i]! + contentLength;
    return this.textStart[i]!;
  }

  /** Registers content that cannot be decoded again (a torn final frame's recovered blocks). */
  addContent(content: Buffer): number {
    const at = this.addFrame(0, 0, content.length);
    this.pinned.set(this.frames - 1, content);
    return at;
  }

  text(start: number, length: number): string {
    const i = this.frameAt(start);
    const offset = start - this.textStart[i]!;
    return this.content(i).toString('utf8', offset, offset + length);
  }

  private content(i: number): Buffer {
    const pinned = this.pinned.get(i);
    if (pinned) return pinned;
    let content = this.cache.get(i);
    if (content) {
      this.cache.delete(i);
    } else {
      const plain = redecodeFrame(this.file, this.frameStart[i]!, this.frameEnd[i]!);
      content = Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength);
      this.cachedBytes += content.length;
      // Evict the least recently read, always keeping the one just decoded.
      for (const [j, old] of this.cache) {
        if (this.cache.size < CACHED_FRAMES && this.cachedBytes <= CACHED_BYTES) break;
        this.cache.delete(j);
        this.cachedBytes -= old.length;
      }
    }
    this.cache.set(i, content);
    return content;
  }

  /** The frame whose content holds logical offset `at`. */
  private frameAt(at: number): number {
    let lo = 0;
    let hi = this.frames - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.textStart[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private grow(): void {
    const n = this.frameStart.length * 2;
    const copy = (a: Float64Array, size: number): Float64Array<ArrayBuffer> => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.frameStart = copy(this.frameStart, n);
    this.frameEnd = copy(this.frameEnd, n);
    this.textStart = copy(this.textStart, n + 1);
  }
}
