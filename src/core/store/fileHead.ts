// The first bytes of a file, for listings and prefix reads (Part A: metadata from a 4096-byte
// prefix). `fh.read` may return short counts, so it loops until the window is full or EOF.
import { open, type FileHandle } from 'node:fs/promises';

/** Bytes [start, end) of an open file; shorter when the file ends first. */
export async function readRange(fh: FileHandle, start: number, end: number): Promise<Buffer> {
  const buf = Buffer.alloc(Math.max(0, end - start));
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** The newlines in `buf[from, to)`. */
export function newlinesIn(buf: Buffer, from: number, to: number): number {
  let c = 0;
  for (let k = buf.indexOf(0x0a, from); k !== -1 && k < to; k = buf.indexOf(0x0a, k + 1)) c++;
  return c;
}

export async function readFileHead(path: string, maxBytes: number): Promise<{ data: Buffer; size: number }> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    return { data: await readRange(fh, 0, Math.min(size, maxBytes)), size };
  } finally {
    await fh.close();
  }
}
