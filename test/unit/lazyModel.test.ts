// The session engine's xcsh model (issues 11 and 23) answers exactly as the whole-file reference
// (test/reference/): on every real fixture as it is (v1 files migrated in memory, the header-less
// one shown damaged) and made v3 by the migration the CLI runs, the bench's generated sessions,
// property-generated v3 files with every damage the reader tolerates, and every shape the loader
// reshapes (v1/v2, missing and numeric ids, too-new and garbled versions, dsh headers, empty
// files). A file that changes under it is detected, never misread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { XcshModel } from '../reference/xcshModel';
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
  const lazy = await LazyXcshModel.open(path, { blobDir: join(tmpdir(), 'sl-no-blobs') });
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

test('real v3 fixtures: the engine answers as the reference, the header-less (damaged) one as it is and given a v3 header', async () => {
  const dir = tmp();
  for (const src of fixtureFiles('real-v3')) {
    const paths = [src];
    if (!readFileSync(src, 'utf8').startsWith('{"type":"session"')) {
      const path = join(dir, src.split('/').pop()!);
      writeFileSync(path, Buffer.concat([Buffer.from('{"type":"session","version":3,"id":"fixture","timestamp":"2026-07-14T08:00:00.000Z","cwd":"/w"}\n'), readFileSync(src)]));
      paths.push(path);
    }
    for (const path of paths) {
      const { eager, lazy } = await both(path);
      await assertSameAnswers(eager, lazy, { leaves: probeIds(eager), searches: ['site'], window: 30, rowCap: 300 });
      await assertSameBranches(eager, lazy, probeIds(eager), ['site']);
    }
  }
});

test('v1 fixtures as they are (upstream, upstream-full: migrated in memory, ids made per Part C §10): the engine answers as the reference', async () => {
  for (const path of [...fixtureFiles('upstream'), ...fixtureFiles('upstream-full')]) {
    const { eager, lazy } = await both(path);
    const ids = probeIds(eager, 6);
    const images = eager.snapshot.loaded.entries.filter((e) => JSON.stringify(e).includes('"type":"image"')).slice(0, 2).map((e) => e.id);
    await assertSameAnswers(eager, lazy, { leaves: ids, searches: ['read file'], window: 40, imageEntries: images, rowCap: 300 });
    await assertSameBranches(eager, lazy, ids.slice(0, 3), ['read file']);
    assert.equal((await lazy.summary()).needsMigration, true, path);
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
      const lazy = await LazyXcshModel.open(path);
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

test('every shape the loader reshapes (v1/v2 headers, versions above 3, garbled versions, dsh headers, entries without an id or with numeric ids, header-less files, empty files) is opened by the engine and answers as the reference', async () => {
  const dir = tmp();
  const cases: Record<string, string> = {
    v1: '{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user","content":"hi"}}\n',
    v2: '{"type":"session","id":"s","version":2}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}\n',
    v4: '{"type":"session","id":"s","version":4}\n',
    garbled: '{"type":"session","id":"s","version":"3"}\n',
    dsh: '{"type":"session","version":0,"createdAt":1}\n',
    idless: '{"type":"session","id":"s","version":3}\n{"type":"message","parentId":null,"message":{"role":"user","content":"hi"}}\n',
    empty: '',
    v2hook:
      '{"type":"session","id":"s","version":2}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}\n' +
      '{"type":"message","parentId":"a","message":{"role":"hookMessage","content":"hook"}}\n{"type":"message","id":"c","parentId":"a","message":{"role":"user","content":"other"}}\n',
    v1compaction:
      '{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user","content":"one"}}\n{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"two"}]}}\n' +
      '{"type":"compaction","summary":"sum","firstKeptEntryIndex":2,"tokensBefore":10}\n{"type":"message","message":{"role":"user","content":"three"}}\n{"type":"compaction","summary":"bad","firstKeptEntryIndex":0}\n',
    numericIds:
      '{"type":"session","id":"s","version":3}\n{"type":"message","id":5,"parentId":null,"message":{"role":"user","content":"five"}}\n{"type":"message","id":"b","parentId":5,"message":{"role":"user","content":"child of five"}}\n',
    headerless: '{"type":"message","message":{"role":"user","content":"no header"}}\n{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"reply"}]}}\n',
    headerlessWithIds: '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}\n{"type":"message","parentId":"a","message":{"role":"user","content":"y"}}\n',
    badHeader: '{"type":"session","version":3}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}\n',
    v1torn: '{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user","content":"one"}}\n{"type":"message","mess\n{"type":"message","message":{"role":"user","content":"two"}}\n',
  };
  for (const [name, text] of Object.entries(cases)) {
    const path = join(dir, `${name}.jsonl`);
    writeFileSync(path, text);
    const { eager, lazy } = await both(path);
    await assertSameAnswers(eager, lazy, { leaves: probeIds(eager, 8), searches: ['hi'], window: 3 });
    await assertSameBranches(eager, lazy, probeIds(eager, 4), ['hi']);
    const ix = await buildLazyIndex(path);
    assert.equal(ix.n, eager.snapshot.loaded.entries.length, name);
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
  const opening = LazyXcshModel.open(path);
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

test('a file rewritten as a damaged one (no header) is indexed again on refresh and shown damaged, as the reference shows it, revisions going on', async () => {
  const { path, lazy } = await changingFixture();
  const text = readFileSync(path, 'utf8');
  writeFileSync(path, text.slice(text.indexOf('\n') + 1));
  const r = await lazy.refresh();
  assert.equal(r.kind, 'reloaded');
  assert.equal(r.summary.revision, 2);
  assert.notEqual(r.summary.readOnlyReason, null, 'shown as damaged, as the reference shows it');
  const eager = await XcshModel.open(path, {}, 2);
  await assertSameAnswers(eager, lazy, { leaves: [(await eager.defaultLeaf())!], window: 50, rowCap: 50 });
});

test('openSessionModel: one model for every xcsh file (a v3 file, a v1 file, a header-less one)', async () => {
  const dir = tmp();
  const v3 = join(dir, 'v3.jsonl');
  generateSession(v3, 50, 2);
  const headerless = join(dir, 'h.jsonl');
  writeFileSync(headerless, '{"type":"message","message":{"role":"user","content":"x"}}\n');
  for (const p of [v3, fixtureFiles('upstream')[0]!, headerless]) assert.ok((await openSessionModel(p)) instanceof LazyXcshModel, p);
});
