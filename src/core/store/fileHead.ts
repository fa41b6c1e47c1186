// The first bytes of a file, for listings and prefix reads (Part A: metadata from a 4096-byte
// prefix). `fh.read` may return short counts, so it loops until the window is full or EOF.
import { open } from 'node:fs/promises';

export async function readFileHead(path: string, maxBytes: number): Promise<{ data: Buffer; size: number }> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const want = Math.min(size, maxBytes);
    const buf = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await fh.read(buf, got, want - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { data: buf.subarray(0, got), size };
  } finally {
    await fh.close();
  }
}
