// The lazy xcsh model (issue 11) answers exactly as the eager one: on the real fixtures (made v3
// by the migration the CLI runs, or given the v3 header they lack), the bench's generated
// sessions, and property-generated v3 files with every damage the reader tolerates. Files outside
// its scope fall back; a file that changes under it is detected, never misread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { XcshModel } from '../../src/core/engine/xcsh/xcshModel';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import { FileChangedError } from '../../src/core/engine/xcsh/lazy/bodyReader';
import { buildLazyIndex } from '../../src/core/engine/xcsh/lazy/lazyIndex';
import { openSessionModel } from '../../src/core/engine/openModel';
import { CancelledError } from '../../src/core/engine/rpc';
import { generateSession } from '../../bench/generate';
import { fixtureFiles } from '../helpers/fixtures';
import { migratedCopy } from '../helpers/migrated';
import { assertSameAnswers, assertSameBranches, probeIds } from '../helpers/modelParity';
import { fileArb, renderFile } from '../helpers/generatedV3';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'sl-lazy-'));

async function both(path: string): Promise<{ eager: XcshModel; lazy: LazyXcshModel }> {
  const eager = await XcshModel.open(path, { blobDir: join(tmpdir(), 'sl-no-blobs') });
  const lazy = await LazyXcshModel.tryOpen(path, { blobDir: join(tmpdir(), 'sl-no-blobs') });
  assert.ok(lazy, `${path} is in the lazy scope`);
  return { eager, lazy };
}


test('migrated v1 fixtures (upstream-full, made v3 as `session-loom migrate` does): the lazy model answers as the eager one', async () => {
  const dir = tmp();
  for (const src of fixtureFiles('upstream-full')) {
    const path = await migratedCopy(src, dir);
    const { eager, lazy } = await both(path);
    const ids = probeIds(eager);
    const images = eager.snapshot.loaded.entries.filter((e) => JSON.stringify(e).includes('"type":"image"')).slice(0, 3).map((e) => e.id);
    await assertSameAnswers(eager, lazy, { leaves: ids, searches: ['read file', 'zzz-no-match'], window: 25, imageEntries: images, rowCap: 400 });
  }
});

test('real v3 fixtures: the ones with a header are read lazily and answer as the eager model; the header-less (damaged) one falls back, and given a v3 header answers as the eager model', async () => {
  const dir = tmp();
  for (const src of fixtureFiles('real-v3')) {
    const headed = readFileSync(src, 'utf8').startsWith('{"type":"session"');
    let path = src;
    if (!headed) {
      assert.equal((await buildLazyIndex(src)).kind, 'fallback', `${src} has no header: eager`);
      path = join(dir, src.split('/').pop()!);
      writeFileSync(path, Buffer.concat([Buffer.from('{"type":"session","version":3,"id":"fixture","timestamp":"2026-07-14T08:00:00.000Z","cwd":"/w"}\n'), readFileSync(src)]));
    }
    const { eager, lazy } = await both(path);
    await assertSameAnswers(eager, lazy, { leaves: probeIds(eager), searches: ['site'], window: 30, rowCap: 300 });
    await assertSameBranches(eager, lazy, probeIds(eager), ['site']);
  }
});

test('bench-generated sessions (branches, labels, compactions, model/thinking changes): the lazy model answers as the eager one', async () => {
  const dir = tmp();
  for (const [n, seed] of [
    [400, 1],
    [1500, 7],
  ] as const) {
    const path = join(dir, `gen-${n}.jsonl`);
    generateSession(path, n, seed);
    const { eager, lazy } = await both(path);
    await assertSameAnswers(eager, lazy, { leaves: probeIds(eager, 6), searches: ['tests errors'], window: 60, rowCap: 2000 });
    await assertSameBranches(eager, lazy, probeIds(eager, 6), ['tests errors']);
  }
});

// ---------- property-generated v3 sessions ----------

test('property: generated v3 sessions (branches, compactions incl. remote, labels, custom messages, glued records, torn tails, CRLF, BOM, unreadable lines, the title line, multi-line records): the lazy model answers as the eager one', async () => {
  const dir = tmp();
  let k = 0;
  await fc.assert(
    fc.asyncProperty(fileArb, async (f) => {
      const path = join(dir, `p${k++}.jsonl`);
      writeFileSync(path, renderFile(f));
      const { eager, lazy } = await both(path);
      const ids = probeIds(eager, 5);
      await assertSameAnswers(eager, lazy, { leaves: ids, searches: ['hello', 'read file'], window: 4, imageEntries: ids.slice(0, 2) });
      await assertSameBranches(eager, lazy, ids, ['hello']);
    }),
    { numRuns: 80 },
  );
});

test('property: a live session grown by appends (cut anywhere, even inside a record or a run of junk lines) is followed by tail reads; every answer equals the eager model that followed it', async () => {
  const dir = tmp();
  let k = 0;
  await fc.assert(
    fc.asyncProperty(fileArb, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), async (f, c1, c2) => {
      const bytes = Buffer.from(renderFile(f));
      // the first read holds the header line whole (a file without its header yet is not lazy)
      const headerEnd = bytes.indexOf(0x0a, bytes.indexOf('"type":"session"')) + 1;
      const span = bytes.length - headerEnd;
      const [lo, b] = [headerEnd + Math.floor(c1 * span), headerEnd + Math.floor(c2 * span)].sort((x, y) => x - y) as [number, number];
      let a = lo;
      const path = join(dir, `live${k++}.jsonl`);
      writeFileSync(path, bytes.subarray(0, Math.max(a, 1)));
      const eager = await XcshModel.open(path);
      const lazy = await LazyXcshModel.tryOpen(path);
      assert.ok(lazy);
      for (const cut of [b, bytes.length]) {
        appendFileSync(path, bytes.subarray(Math.max(a, 1), Math.max(cut, a, 1)));
        a = Math.max(cut, a, 1);
        await eager.refresh();
        await lazy.refresh();
        const ids = probeIds(eager, 4);
        await assertSameAnswers(eager, lazy, { leaves: ids, searches: ['hello'], window: 5 });
      }
    }),
    { numRuns: 60 },
  );
});

test('scope: v1/v2 headers, versions above 3, garbled versions, dsh headers, entries without an id and empty files fall back to the eager model', async () => {
  const dir = tmp();
  const cases: Record<string, string> = {
    v1: '{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user","content":"hi"}}\n',
    v2: '{"type":"session","id":"s","version":2}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}\n',
    v4: '{"type":"session","id":"s","version":4}\n',
    garbled: '{"type":"session","id":"s","version":"3"}\n',
    dsh: '{"type":"session","version":0,"createdAt":1}\n',
    idless: '{"type":"session","id":"s","version":3}\n{"type":"message","parentId":null,"message":{"role":"user","content":"hi"}}\n',
    empty: '',
  };
  for (const [name, text] of Object.entries(cases)) {
    const path = join(dir, `${name}.jsonl`);
    writeFileSync(path, text);
    const r = await buildLazyIndex(path);
    assert.equal(r.kind, 'fallback', name);
  }
});

// ---------- a file that changes under the model ----------

async function changingFixture(): Promise<{ path: string; lazy: LazyXcshModel; eager: XcshModel; leaf: string }> {
  const dir = tmp();
  const path = join(dir, 's.jsonl');
  generateSession(path, 300, 3);
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  const { eager, lazy } = await both(path);
  return { path, lazy, eager, leaf: (await eager.defaultLeaf())! };
}

test('a file appended to between two body reads: the old bodies still read right (their bytes are unchanged), and refresh reads just the tail into the index', async () => {
  const { path, lazy, eager, leaf } = await changingFixture();
  const before = await lazy.messages(leaf, 0, 5);
  appendFileSync(path, `${JSON.stringify({ type: 'message', id: 'fffffff0', parentId: leaf, timestamp: '2026-02-01T00:00:00.000Z', message: { role: 'user', content: 'appended' } })}\n`);
  assert.deepEqual(await lazy.messages(leaf, 0, 5), before, 'same bytes, same answer');
  assert.deepEqual(await lazy.messages(leaf, 5, 5), await (await XcshModel.open(path)).messages(leaf, 5, 5));
  const r = await lazy.refresh();
  assert.equal(r.kind, 'appended');
  assert.equal(r.summary.defaultLeafId, 'fffffff0');
  assert.equal((await eager.refresh()).kind, 'appended');
  await assertSameAnswers(eager, lazy, { leaves: ['fffffff0', leaf], window: 50, rowCap: 50 });
});

test('overlapping refreshes of a growing file are read one after the other: the tail is indexed once', async () => {
  const { path, lazy, eager, leaf } = await changingFixture();
  appendFileSync(path, `${JSON.stringify({ type: 'message', id: 'fffffff1', parentId: leaf, timestamp: '2026-02-01T00:00:00.000Z', message: { role: 'user', content: 'one' } })}\n`);
  const [a, b] = await Promise.all([lazy.refresh(), lazy.refresh()]);
  assert.deepEqual([a.kind, b.kind], ['appended', 'unchanged']);
  await eager.refresh();
  await assertSameAnswers(eager, lazy, { leaves: ['fffffff1', leaf], window: 50, rowCap: 50 });
});

test('a file rewritten in place (same size, different bytes) between two body reads is detected: FileChangedError, never a body from the old offsets', async () => {
  const { path, lazy, leaf } = await changingFixture();
  await lazy.messages(leaf, 0, 3);
  const bytes = readFileSync(path);
  // shift every record by one byte: same size, the offsets now point into other records
  const shifted = Buffer.concat([Buffer.from(' '), bytes.subarray(0, bytes.length - 1)]);
  writeFileSync(path, shifted);
  assert.equal(statSync(path).size, bytes.length);
  await assert.rejects(lazy.messages(leaf, 10, 20), FileChangedError);
  await assert.rejects(lazy.tree({ filter: 'all', search: '', leafId: null, focusEntryId: null, start: 100, count: 20 }), FileChangedError);
});

test('a file replaced by rename between two body reads is detected (another inode): FileChangedError; refresh reads the new file', async () => {
  const { path, lazy, eager, leaf } = await changingFixture();
  await lazy.messages(leaf, 0, 3);
  const other = `${path}.new`;
  generateSession(other, 200, 99);
  renameSync(other, path);
  await assert.rejects(lazy.messages(leaf, 0, 50), FileChangedError);
  const r = await lazy.refresh();
  assert.equal(r.kind, 'reloaded');
  assert.equal((await eager.refresh()).kind, 'reloaded');
  await assertSameAnswers(eager, lazy, { leaves: [(await eager.defaultLeaf())!], window: 50, rowCap: 50 });
});

test('a file rewritten with the same size and mtime but other bytes at the offsets: the id check refuses the body', async () => {
  const { path, lazy, leaf } = await changingFixture();
  const st = statSync(path);
  const text = readFileSync(path, 'latin1');
  // swap two ids of equal length in place, then restore the mtime: only the content check can tell
  const changed = text.replace(/"id":"(0000000[0-9a-f])"/, '"id":"zzzzzzzz"');
  assert.notEqual(changed, text);
  writeFileSync(path, changed, 'latin1');
  utimesSync(path, st.atime, st.mtime);
  await assert.rejects(lazy.cutEntries(leaf, 0, 1000).then(() => lazy.tree({ filter: 'all', search: '', leafId: null, focusEntryId: null, start: 0, count: 1000 })), FileChangedError);
});

test('a file rewritten in place while it is being indexed is indexed again: the model answers for the new bytes', async () => {
  const dir = tmp();
  const path = join(dir, 'moving.jsonl');
  generateSession(path, 3000, 5);
  const other = join(dir, 'other.jsonl');
  generateSession(other, 3000, 6);
  const size = statSync(path).size;
  const next = readFileSync(other).subarray(0, size);
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  const opening = LazyXcshModel.tryOpen(path);
  await new Promise((r) => setImmediate(r));
  writeFileSync(path, next); // same inode, same size, other bytes (cut mid-record: a torn tail)
  const lazy = await opening;
  assert.ok(lazy);
  const eager = await XcshModel.open(path);
  await assertSameAnswers(eager, lazy, { leaves: [(await eager.defaultLeaf())!], window: 100, rowCap: 100 });
});

test('cancellation: an aborted signal stops the indexing pass between chunks with the rpc CancelledError', async () => {
  const dir = tmp();
  const path = join(dir, 'big.jsonl');
  generateSession(path, 3000, 5);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(buildLazyIndex(path, { signal: ac.signal }), CancelledError);
  const ac2 = new AbortController();
  const run = buildLazyIndex(path, { signal: ac2.signal });
  setImmediate(() => ac2.abort());
  await assert.rejects(run, CancelledError);
});

test('a lazily read file rewritten out of the lazy scope (damaged: no header) is handed to the eager model on refresh, revisions going on', async () => {
  const { path, lazy } = await changingFixture();
  const text = readFileSync(path, 'utf8');
  writeFileSync(path, text.slice(text.indexOf('\n') + 1));
  const r = await lazy.refresh();
  assert.equal(r.kind, 'reloaded');
  assert.equal(r.summary.revision, 2);
  assert.notEqual(r.summary.readOnlyReason, null, 'shown as damaged, as the eager model shows it');
  const eager = await XcshModel.open(path, {}, 2);
  await assertSameAnswers(eager, lazy, { leaves: [(await eager.defaultLeaf())!], window: 50, rowCap: 50 });
});

test('openSessionModel: a v3 file opens lazily, a v1 file and `eager: true` open the eager model', async () => {
  const dir = tmp();
  const v3 = join(dir, 'v3.jsonl');
  generateSession(v3, 50, 2);
  assert.ok((await openSessionModel(v3)) instanceof LazyXcshModel);
  assert.ok((await openSessionModel(v3, { eager: true })) instanceof XcshModel);
  assert.ok((await openSessionModel(fixtureFiles('upstream')[0]!)) instanceof XcshModel);
});
