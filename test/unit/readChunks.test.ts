// readChunks (core/store/readChunks.ts): a file read to its end in chunks with read-ahead — the
// chunks are the file's bytes in order (a first read, then bigger ones once it was filled), the
// read of the next chunk is already under way when a chunk is handled, and a stop is honoured
// before any chunk is handled, also at the end of the file. Real files, real reads (counted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readChunks } from '../../src/core/store/readChunks';
import { fixture } from '../helpers/fixtures';

/** The file handle with its reads counted. */
function counted(fh: FileHandle): { fh: FileHandle; reads: () => number } {
  let n = 0;
  const read = fh.read.bind(fh) as (...a: unknown[]) => Promise<{ bytesRead: number }>;
  const wrapped = new Proxy(fh, { get: (t, k) => (k === 'read' ? (...a: unknown[]) => (n++, read(...a)) : Reflect.get(t, k, t)) });
  return { fh: wrapped as FileHandle, reads: () => n };
}

test('the chunks are the bytes of the file from the offset, in order: a first read, then bigger ones; each handled while the next read is under way', async () => {
  const path = fixture('claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d.jsonl');
  const bytes = readFileSync(path);
  for (const from of [0, 12345]) {
    const raw = await open(path, 'r');
    const { fh, reads } = counted(raw);
    try {
      const parts: Buffer[] = [];
      const sizes: number[] = [];
      let handled = 0;
      const { end, lastByte } = await readChunks(fh, from, { first: 1 << 16, next: 1 << 18 }, (chunk, got, abs) => {
        assert.equal(abs, from + parts.reduce((s, p) => s + p.length, 0));
        parts.push(Buffer.from(chunk.subarray(0, got)));
        sizes.push(got);
        handled++;
        // read-ahead: this chunk's read and the next one's were issued before it is handled
        assert.equal(reads(), handled + 1);
      });
      assert.deepEqual(Buffer.concat(parts), bytes.subarray(from));
      assert.equal(end, bytes.length);
      assert.equal(lastByte, bytes[bytes.length - 1]);
      assert.equal(sizes[0], 1 << 16);
      assert.ok(sizes.slice(1, -1).every((s) => s === 1 << 18), JSON.stringify(sizes));
    } finally {
      await raw.close();
    }
  }
});

test('a stop is thrown before a chunk is handled, and at the end of the file as well', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'readchunks-'));
  try {
    const path = join(dir, 'f');
    writeFileSync(path, 'x'.repeat(300));
    for (const stopAfter of [0, 1, 3]) {
      const fh = await open(path, 'r');
      try {
        let handled = 0;
        let checks = 0;
        const stop = (): Error | null => (checks++ >= stopAfter ? new Error('stopped') : null);
        await assert.rejects(readChunks(fh, 0, { first: 128, next: 128, stop }, () => void handled++), /stopped/);
        // checks: before the first read, then after each read (the fourth read finds the end)
        assert.equal(handled, Math.max(0, stopAfter - 1));
      } finally {
        await fh.close();
      }
    }
    const fh = await open(path, 'r');
    try {
      assert.deepEqual(await readChunks(fh, 300, { first: 128, next: 128 }, () => assert.fail('nothing to read')), { end: 300, lastByte: -1 });
    } finally {
      await fh.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
