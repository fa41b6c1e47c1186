// Record bodies read back by byte range (the reader keeps only facts, records.ts), with a small
// bounded cache: a window's rows read the lines they show, and neighbouring lines in one read.
// Every body must parse to an object with the uuid (or type) the index holds for it; anything
// else means the file was rewritten since it was read, and the caller reads it again.
import { open } from 'node:fs/promises';
import { readRange } from '../../store/fileHead';
import { isObj } from './records';

export class TranscriptChangedError extends Error {
  constructor(
    readonly path: string,
    readonly line: number,
  ) {
    super(`${path} changed since it was read (line ${line} is not the record it was): read it again`);
    this.name = 'TranscriptChangedError';
  }
}

/** Where a body is: its line and byte range, and what it must be (a chain record's uuid, or a side record's type). */
export interface BodyRef {
  line: number;
  start: number;
  end: number;
  uuid?: string;
  type?: string;
}

const CACHE_ENTRIES = 512;
const CACHE_BYTES = 16 << 20;
/** Two ranges this close are read in one go. */
const MERGE_GAP = 64 << 10;

export class RecordBodies {
  readonly #cache = new Map<number, { value: Record<string, unknown>; bytes: number }>();
  #cacheBytes = 0;
  /** Bytes read from disk so far. */
  bytesRead = 0;

  constructor(readonly path: string) {}

  /** The parsed records at these refs, in the same order. */
  async read(refs: readonly BodyRef[]): Promise<Record<string, unknown>[]> {
    const out = new Array<Record<string, unknown>>(refs.length);
    const need: number[] = [];
    refs.forEach((ref, k) => {
      const hit = this.#cache.get(ref.start);
      if (hit) {
        this.#cache.delete(ref.start);
        this.#cache.set(ref.start, hit);
        out[k] = hit.value;
      } else need.push(k);
    });
    if (need.length === 0) return out;
    need.sort((a, b) => refs[a]!.start - refs[b]!.start);
    const fh = await open(this.path, 'r');
    try {
      let k = 0;
      while (k < need.length) {
        let j = k;
        while (j + 1 < need.length && refs[need[j + 1]!]!.start - refs[need[j]!]!.end <= MERGE_GAP) j++;
        const from = refs[need[k]!]!.start;
        const to = Math.max(...need.slice(k, j + 1).map((q) => refs[q]!.end));
        const buf = await readRange(fh, from, to);
        this.bytesRead += buf.length;
        for (let q = k; q <= j; q++) {
          const ref = refs[need[q]!]!;
          const value = this.#parse(buf, ref.start - from, ref.end - from, ref);
          out[need[q]!] = value;
          this.#remember(ref.start, value, ref.end - ref.start);
        }
        k = j + 1;
      }
    } finally {
      await fh.close();
    }
    return out;
  }

  async one(ref: BodyRef): Promise<Record<string, unknown>> {
    return (await this.read([ref]))[0]!;
  }

  #parse(buf: Buffer, s: number, e: number, ref: BodyRef): Record<string, unknown> {
    let v: unknown;
    try {
      v = e <= buf.length ? JSON.parse(buf.toString('utf8', s, e)) : undefined;
    } catch {
      v = undefined;
    }
    if (!isObj(v) || (ref.uuid !== undefined && v.uuid !== ref.uuid) || (ref.type !== undefined && ref.type !== '(no type)' && v.type !== ref.type)) {
      throw new TranscriptChangedError(this.path, ref.line);
    }
    return v;
  }

  #remember(key: number, value: Record<string, unknown>, bytes: number): void {
    if (bytes > CACHE_BYTES / 4) return; // a huge line is not kept: the next window may not need it
    this.#cache.set(key, { value, bytes });
    this.#cacheBytes += bytes;
    while (this.#cache.size > CACHE_ENTRIES || this.#cacheBytes > CACHE_BYTES) {
      const [oldest, v] = this.#cache.entries().next().value as [number, { bytes: number }];
      this.#cache.delete(oldest);
      this.#cacheBytes -= v.bytes;
    }
  }

  clear(): void {
    this.#cache.clear();
    this.#cacheBytes = 0;
  }
}

/**
 * The n-th image of a record's content (top-level blocks first in order, descending into
 * tool_result contents where they sit): how an image block of the display names its data.
 */
export function nthImage(record: Record<string, unknown>, n: number): { mediaType: string; data: string | null; sourceType: string } | null {
  const msg = isObj(record.message) ? record.message : null;
  const content = msg ? msg.content : undefined;
  let k = 0;
  const visit = (blocks: unknown): ReturnType<typeof nthImage> => {
    if (!Array.isArray(blocks)) return null;
    for (const b of blocks) {
      if (!isObj(b)) continue;
      if (b.type === 'image') {
        if (k++ === n) {
          const src = isObj(b.source) ? b.source : {};
          return { mediaType: typeof src.media_type === 'string' ? src.media_type : 'image/png', data: typeof src.data === 'string' ? src.data : null, sourceType: typeof src.type === 'string' ? src.type : '?' };
        }
      } else if (b.type === 'tool_result') {
        const hit = visit(b.content);
        if (hit) return hit;
      }
    }
    return null;
  };
  return visit(content);
}
