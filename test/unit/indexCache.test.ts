// The lazy index kept on disk between openings (issue 11: a big session's branch tree shown in a
// fraction of its index pass). A model opened from the cache answers exactly as the eager model;
// a session grown since costs only its new bytes; a session rewritten, replaced or shrunk, and a
// cache file that is torn, foreign, of another format or another session's, are never used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { XcshModel } from '../reference/xcshModel';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import { buildLazyIndex } from '../../src/core/engine/xcsh/lazy/lazyIndex';
import { CACHED_INDEX_FIELDS, CACHED_TREE_FIELDS, IndexCache, INDEX_CACHE_FORMAT, readIndexFile, writeIndexFile } from '../../src/core/engine/xcsh/lazy/indexCache';
import { ModelHost } from '../../src/core/engine/worker/modelHost';
import { generateSession } from '../../bench/generate';
import { fixtureFiles } from '../helpers/fixtures';
import { migratedCopy } from '../helpers/migrated';
import { assertSameAnswers, assertSameBranches, probeIds } from '../helpers/modelParity';
import { fileArb, renderFile } from '../helpers/generatedV3';
import { bundleModelWorker } from '../helpers/modelWorkerBundle';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'sl-ixcache-'));
const blobDir = join(tmpdir(), 'sl-no-blobs');

/** Opens through `cache`; `fromCache`: the open read no chunk of the file (a full pass reports each one). */
async function open(path: string, cache: IndexCache): Promise<{ model: LazyXcshModel; fromCache: boolean }> {
  let read = false;
  const model = await LazyXcshModel.open(path, { blobDir, indexCache: cache, onProgress: () => (read = true) });
  assert.ok(model, `${path} is in the lazy scope`);
  // The save runs in the model's refresh queue: a refresh after it waits for it.
  await model.refresh();
  return { model, fromCache: !read };
}

/** A bench session of `n` entries in `dir`. */
function generated(dir: string, n: number): string {
  const path = join(dir, `gen-${n}.jsonl`);
  generateSession(path, n, n % 13);
  return path;
}

async function assertCachedAnswersAsEager(path: string, cache: IndexCache, searches: string[]): Promise<void> {
  const first = await open(path, cache);
  assert.equal(first.fromCache, false, `${path}: the first open reads the file`);
  first.model.dispose();
  const second = await open(path, cache);
  assert.equal(second.fromCache, true, `${path}: the second open comes from the cache`);
  const eager = await XcshModel.open(path, { blobDir });
  const ids = probeIds(eager);
  await assertSameAnswers(eager, second.model, { leaves: ids, searches, window: 20, rowCap: 400 });
  await assertSameBranches(eager, second.model, ids, searches.slice(0, 1));
  second.model.dispose();
}

test('the cache writes every field of the index and of its tree (a field added to LazyIndexData or TreeState fails here until indexCache.ts keeps it)', async () => {
  const dir = tmp();
  const path = join(dir, 'g.jsonl');
  generateSession(path, 300, 3);
  const ix = await buildLazyIndex(path);
  assert.deepEqual(Object.keys(ix).sort(), [...CACHED_INDEX_FIELDS].sort());
  assert.deepEqual(Object.keys(ix.tree).sort(), [...CACHED_TREE_FIELDS].sort());
});

test('real fixtures (v3, and v1 made v3 as `session-loom migrate` does) and bench sessions: opened from the cache, the model answers as the eager one', async () => {
  const dir = tmp();
  const cache = new IndexCache(join(dir, 'cache'), { minBytes: 0 });
  const files = fixtureFiles('real-v3').filter((f) => readFileSync(f, 'utf8').startsWith('{"type":"session"'));
  for (const src of fixtureFiles('upstream-full').slice(0, 4)) files.push(await migratedCopy(src, dir));
  for (const n of [400, 1500]) files.push(generated(dir, n));
  assert.ok(files.length >= 6);
  for (const path of files) await assertCachedAnswersAsEager(path, cache, ['read file', 'zzz-no-match']);
});

test('property: generated v3 sessions (branches, compactions, labels, glued records, torn tails, CRLF, BOM, unreadable lines): opened from the cache, the model answers as the eager one', async () => {
  const dir = tmp();
  const cache = new IndexCache(join(dir, 'cache'), { minBytes: 0, maxFiles: 1000 });
  let k = 0;
  await fc.assert(
    fc.asyncProperty(fileArb, async (f) => {
      const path = join(dir, `p${k++}.jsonl`);
      writeFileSync(path, renderFile(f));
      await assertCachedAnswersAsEager(path, cache, ['hello']);
    }),
    { numRuns: 40 },
  );
});

test('property: a session grown since it was cached (cut anywhere, even inside a record) is opened from the cache plus a read of its tail, and answers as the eager model of the grown file', async () => {
  const dir = tmp();
  const cache = new IndexCache(join(dir, 'cache'), { minBytes: 0, maxFiles: 1000 });
  let k = 0;
  await fc.assert(
    fc.asyncProperty(fileArb, fc.double({ min: 0, max: 1, noNaN: true }), async (f, c) => {
      const bytes = Buffer.from(renderFile(f));
      const headerEnd = bytes.indexOf(0x0a, bytes.indexOf('"type":"session"')) + 1;
      const cut = headerEnd + Math.floor(c * (bytes.length - headerEnd));
      const path = join(dir, `live${k++}.jsonl`);
      writeFileSync(path, bytes.subarray(0, cut));
      const first = await open(path, cache);
      assert.equal(first.fromCache, false);
      first.model.dispose();
      appendFileSync(path, bytes.subarray(cut));
      const { model } = await open(path, cache);
      const eager = await XcshModel.open(path, { blobDir });
      const ids = probeIds(eager, 4);
      await assertSameAnswers(eager, model, { leaves: ids, searches: ['hello'], window: 5 });
      model.dispose();
    }),
    { numRuns: 40 },
  );
  // (A cut inside an open end that holds entries needs a full pass: the next test holds the tail read itself.)
});

test('a session grown by whole records since it was cached is opened from the cache and a read of only its new bytes', async () => {
  const dir = tmp();
  const cache = new IndexCache(join(dir, 'cache'), { minBytes: 0 });
  const full = join(dir, 'full.jsonl');
  generateSession(full, 1200, 4);
  const bytes = readFileSync(full);
  const cut = bytes.lastIndexOf(0x0a, Math.floor(bytes.length * 0.7)) + 1;
  const path = join(dir, 'grown.jsonl');
  writeFileSync(path, bytes.subarray(0, cut));
  (await open(path, cache)).model.dispose();
  appendFileSync(path, bytes.subarray(cut));
  const { model, fromCache } = await open(path, cache);
  assert.equal(fromCache, true, 'the cached index and the tail, no full pass');
  assert.equal(model.index.bytes, bytes.length);
  const eager = await XcshModel.open(path, { blobDir });
  await assertSameAnswers(eager, model, { leaves: probeIds(eager), searches: ['tests'], window: 20 });
  await assertSameBranches(eager, model, probeIds(eager), []);
  model.dispose();
});

test('a session rewritten in place (same size, even its old mtime put back), replaced by another file, shrunk or deleted is never answered from its cache', async () => {
  const dir = tmp();
  const cache = new IndexCache(join(dir, 'cache'), { minBytes: 0 });
  const path = join(dir, 's.jsonl');
  generateSession(path, 400, 5);
  (await open(path, cache)).model.dispose();
  assert.ok(await cache.load(path), 'cached');

  // Rewritten: one id changed in the middle of the file, same size, the old mtime restored.
  const st = statSync(path);
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf('"id":"', text.length >> 1) + 6;
  const flipped = text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1);
  // Near the start too: the identity is the first and last 4 KB of what was read.
  const head = text.indexOf('"id":"', 200) + 6;
  writeFileSync(path, flipped.slice(0, head) + (flipped[head] === 'a' ? 'b' : 'a') + flipped.slice(head + 1));
  utimesSync(path, st.atime, st.mtime);
  assert.equal(statSync(path).size, st.size);
  assert.equal(await cache.load(path), null, 'bytes already read changed: not used');
  const reopened = await open(path, cache);
  assert.equal(reopened.fromCache, false, 'read again');
  const eager = await XcshModel.open(path, { blobDir });
  await assertSameAnswers(eager, reopened.model, { leaves: probeIds(eager), searches: [], window: 10 });
  reopened.model.dispose();

  // Replaced: another file renamed over it (a new inode), the same bytes even.
  assert.ok(await cache.load(path));
  const other = join(dir, 'other.jsonl');
  copyFileSync(path, other);
  renameSync(other, path);
  assert.equal(await cache.load(path), null, 'another inode: not used');

  // Shrunk, then deleted.
  (await open(path, cache)).model.dispose();
  assert.ok(await cache.load(path));
  truncateSync(path, statSync(path).size - 100);
  assert.equal(await cache.load(path), null, 'shorter than what was read: not used');
  writeFileSync(path, '');
  renameSync(path, join(dir, 'gone.jsonl'));
  assert.equal(await cache.load(path), null, 'no file: nothing');
});

test('a cache file that is torn, garbage, of another format, or another session\'s is ignored, and the next full pass replaces it', async () => {
  const dir = tmp();
  const cache = new IndexCache(join(dir, 'cache'), { minBytes: 0 });
  const a = join(dir, 'a.jsonl');
  const b = join(dir, 'b.jsonl');
  generateSession(a, 300, 11);
  generateSession(b, 300, 12);
  (await open(a, cache)).model.dispose();
  const file = cache.fileFor(a);
  const good = readFileSync(file);
  assert.ok(await readIndexFile(file, a), 'the good file reads');

  for (const [what, bytes] of [
    ['torn in its columns', good.subarray(0, good.length - 9)],
    ['torn in its head', good.subarray(0, 40)],
    ['empty', Buffer.alloc(0)],
    ['garbage', Buffer.from('not a cache at all, just some words\n'.repeat(20))],
    ['another format', Buffer.concat([good.subarray(0, 4), Buffer.from([INDEX_CACHE_FORMAT + 1, 0, 0, 0]), good.subarray(8)])],
  ] as const) {
    writeFileSync(file, bytes);
    assert.equal(await readIndexFile(file, a), null, what);
    assert.equal(await cache.load(a), null, what);
  }
  // Another session's cache under this one's name.
  (await open(b, cache)).model.dispose();
  copyFileSync(cache.fileFor(b), file);
  assert.equal(await cache.load(a), null, "b's index is not a's");
  // The next open reads the file and writes a good cache again.
  const again = await open(a, cache);
  assert.equal(again.fromCache, false);
  again.model.dispose();
  assert.equal((await open(a, cache)).fromCache, true);
});

test('small sessions are not cached; beyond maxFiles the least recently used cache file goes; a temp file never takes the real name', async () => {
  const dir = tmp();
  const small = new IndexCache(join(dir, 'small'), { minBytes: 10 * 1024 * 1024 });
  const s = join(dir, 's.jsonl');
  generateSession(s, 200, 2);
  (await open(s, small)).model.dispose();
  assert.equal((await open(s, small)).fromCache, false, 'below minBytes: read each time');

  const cache = new IndexCache(join(dir, 'cache'), { minBytes: 0, maxFiles: 2 });
  const files = [1, 2, 3].map((i) => {
    const p = join(dir, `f${i}.jsonl`);
    generateSession(p, 100, i);
    return p;
  });
  for (const [i, p] of files.entries()) {
    (await open(p, cache)).model.dispose();
    // Used seconds apart (the last one just now): the recency order is unambiguous.
    if (i < files.length - 1) utimesSync(cache.fileFor(p), new Date(), new Date(Date.now() - (10 - i) * 1000));
  }
  const left = readdirSync(cache.dir).sort();
  assert.deepEqual(left, [cache.fileFor(files[1]!), cache.fileFor(files[2]!)].map((f) => f.split('/').pop()!).sort());
  assert.ok(!left.some((f) => f.endsWith('.tmp')));

  // And beyond maxBytes: only the newest stays when each file alone fills the budget.
  const tight = new IndexCache(join(dir, 'tight'), { minBytes: 0, maxBytes: 1 });
  for (const [i, p] of files.entries()) {
    (await open(p, tight)).model.dispose();
    if (i < files.length - 1) utimesSync(tight.fileFor(p), new Date(), new Date(Date.now() - (10 - i) * 1000));
  }
  assert.deepEqual(readdirSync(tight.dir), [tight.fileFor(files[2]!).split('/').pop()!]);
});

test('writeIndexFile replaces the cache file whole: a reader sees the old index or the new one', async () => {
  const dir = tmp();
  const path = join(dir, 's.jsonl');
  generateSession(path, 300, 9);
  const ix = await buildLazyIndex(path);
  const file = join(dir, 'ix.slix');
  await writeIndexFile(file, ix);
  const before = readFileSync(file);
  await writeIndexFile(file, ix);
  assert.deepEqual(readFileSync(file), before, 'the same index writes the same bytes');
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
});

test('through the model worker: a big session (≥ 16 MB) is indexed once; the next worker opens it from the cache folder the extension passes', async () => {
  const dir = tmp();
  const { dir: bundleDir, workerFile } = await bundleModelWorker('loom-ixcache-worker-');
  const path = join(dir, 'big.jsonl');
  generateSession(path, 40_000, 21);
  assert.ok(statSync(path).size >= 16 * 1024 * 1024, 'big enough to be cached');
  const cacheDir = join(dir, 'cache');
  const first = new ModelHost({ workerFile, indexCacheDir: cacheDir });
  const m1 = await first.open({ path });
  const summary = await m1.summary();
  await m1.refresh(); // after the save
  m1.dispose();
  first.dispose();
  assert.equal(readdirSync(cacheDir).filter((f) => f.endsWith('.slix')).length, 1, 'one cache file');
  const cached = new IndexCache(cacheDir).fileFor(path);
  // Made old: a load that uses it marks it used (now); a full pass would write a new file (a new inode).
  utimesSync(cached, new Date(0), new Date(0));
  const ino = statSync(cached).ino;
  const second = new ModelHost({ workerFile, indexCacheDir: cacheDir });
  const m2 = await second.open({ path });
  await m2.refresh();
  assert.equal(statSync(cached).ino, ino, 'not written again');
  assert.ok(statSync(cached).mtimeMs > Date.now() - 60_000, 'opened from the cache (it was marked used)');
  assert.deepEqual(await m2.summary(), summary);
  const leaf = await m2.defaultLeaf();
  const eager = await XcshModel.open(path, { blobDir });
  assert.deepEqual(await m2.context(leaf), await eager.context(leaf));
  m2.dispose();
  second.dispose();
  const { rmSync } = await import('node:fs');
  rmSync(bundleDir, { recursive: true, force: true });
});
