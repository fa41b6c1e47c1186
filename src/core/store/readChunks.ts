// A file read from an offset to its end in chunks, with read-ahead: the next read is under way
// while a chunk is handled, into the other of two buffers, so the handling never waits for a
// read's round trip through libuv's thread pool after the first one. `onChunk` must keep no
// reference into the chunk once it returns (its buffer is read into again two chunks later).
import type { FileHandle } from 'node:fs/promises';

export interface ChunkReadOptions {
  /** Size of the first read. */
  first: number;
  /** Size of the reads after a first read that filled its buffer (a short first read keeps the first size). */
  next: number;
  /** Checked before each chunk is handled (and before the first read): an error to stop with, or null. */
  stop?: () => Error | null;
}

/** Reads `fh` from `from` to its end; returns the end offset and the last byte read (-1: none). */
export async function readChunks(fh: FileHandle, from: number, opts: ChunkReadOptions, onChunk: (chunk: Buffer, got: number, abs: number) => void): Promise<{ end: number; lastByte: number }> {
  let chunk: Buffer = Buffer.allocUnsafeSlow(opts.first);
  let spare: Buffer | null = null;
  let abs = from;
  let lastByte = -1;
  let pending: Promise<{ bytesRead: number }> | null = null;
  const check = (): void => {
    const e = opts.stop?.() ?? null;
    if (e !== null) throw e;
  };
  try {
    check();
    pending = fh.read(chunk, 0, chunk.length, abs);
    for (;;) {
      const got: number = (await pending).bytesRead;
      pending = null;
      check();
      if (got === 0) break;
      const size = chunk.length === opts.next || got === opts.first ? opts.next : opts.first;
      const next: Buffer = spare !== null && spare.length === size ? spare : Buffer.allocUnsafeSlow(size);
      pending = fh.read(next, 0, next.length, abs + got);
      onChunk(chunk, got, abs);
      abs += got;
      lastByte = chunk[got - 1]!;
      spare = chunk;
      chunk = next;
    }
  } finally {
    // (a read still under way is let finish: the caller closes the file after this)
    if (pending !== null) await pending.catch(() => undefined);
  }
  return { end: abs, lastByte };
}
