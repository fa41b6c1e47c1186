// The model worker (issue 11): sessions are opened and held in a worker thread, and every answer
// the host gets through the port is exactly what the same model gives in-process. Loads of one
// file are shared, a closed editor cancels its load, and a worker that dies is replaced on the
// next call.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { openSessionModel } from '../../src/core/engine/openModel';
import type { SessionModel, TreeParams } from '../../src/core/engine/model';
import { CancelledError } from '../../src/core/engine/rpc';
import { ModelHost } from '../../src/core/engine/worker/modelHost';
import { bundleTranslate, ModelRegistry } from '../../src/core/engine/worker/modelRegistry';
import { generateSession } from '../../bench/generate';
import { fixture, fixtureFiles } from '../helpers/fixtures';
import { bundleModelWorker } from '../helpers/modelWorkerBundle';

/** The worker bundled as the build bundles it (a worker thread cannot run TypeScript through tsx on Node 20). */
let bundleDir = '';
let workerFile = '';
before(async () => {
  ({ dir: bundleDir, workerFile } = await bundleModelWorker('loom-model-worker-'));
});
after(() => rmSync(bundleDir, { recursive: true, force: true }));
const host = (): ModelHost => new ModelHost({ workerFile });

const treeParams = (leafId: string | null): TreeParams => ({ filter: 'default', search: '', leafId, focusEntryId: null, start: 0, count: 200 });

/** Every question a view asks, answered by one model. */
async function answers(m: SessionModel): Promise<unknown> {
  const leaf = await m.defaultLeaf();
  const ctx = await m.context(leaf);
  return {
    format: m.format,
    summary: await m.summary(),
    leaf,
    has: leaf === null ? null : await m.has(leaf),
    tree: await m.tree(treeParams(leaf)),
    ctx,
    messages: await m.messages(leaf, 0, 50),
    cut: await m.cutEntries(leaf, 0, 50),
  };
}

test('a session opened in the worker answers exactly as the same model in-process (xcsh real-v3 and dsh fixtures)', async () => {
  const h = host();
  try {
    for (const file of [...fixtureFiles('real-v3').slice(0, 3), fixture('dsh', 'dsh-compaction-recovery.session.jsonl')]) {
      const local = await openSessionModel(file);
      const remote = await h.open({ path: file });
      try {
        assert.deepEqual(await answers(remote), await answers(local), file);
      } finally {
        local.dispose();
        remote.dispose();
      }
    }
    // The load ran on another thread than this one.
    assert.ok(h.threadId !== undefined && h.threadId !== threadId);
  } finally {
    h.dispose();
  }
});

test('a load error crosses the port with its message and code (a missing file)', async () => {
  const h = host();
  try {
    await assert.rejects(h.open({ path: join(tmpdir(), 'no-such-session-loom-file.jsonl') }), (e: NodeJS.ErrnoException) => e.code === 'ENOENT' && /no such file/.test(e.message));
  } finally {
    h.dispose();
  }
});

test('opening one file twice shares one load; the last release disposes it', async () => {
  const reg = new ModelRegistry();
  const file = fixtureFiles('real-v3')[0]!;
  const [a, b] = await Promise.all([reg.open({ path: file }), reg.open({ path: file })]);
  assert.equal(a.handle, b.handle);
  assert.equal(reg.size, 1);
  reg.release(a.handle);
  assert.equal(reg.size, 1, 'still held by the second opener');
  assert.ok(await reg.call({ handle: b.handle, method: 'summary', args: [] }));
  reg.release(b.handle);
  assert.equal(reg.size, 0);
  await assert.rejects(reg.call({ handle: b.handle, method: 'summary', args: [] }), /no open session/);
});

test('closing an editor while its session loads cancels the load (CancelledError) and keeps nothing', async () => {
  const reg = new ModelRegistry();
  const ac = new AbortController();
  const opening = reg.open({ path: fixtureFiles('real-v3')[0]! }, ac.signal);
  ac.abort();
  await assert.rejects(opening, CancelledError);
  assert.equal(reg.size, 0);
  // Through the worker too: the host's signal reaches the worker's handler.
  const h = host();
  try {
    const ac2 = new AbortController();
    const p = h.open({ path: fixtureFiles('real-v3')[1]! }, ac2.signal);
    ac2.abort();
    await assert.rejects(p, CancelledError);
  } finally {
    h.dispose();
  }
});

test('only the session model methods can be called through the port', async () => {
  const reg = new ModelRegistry();
  const { handle } = await reg.open({ path: fixtureFiles('real-v3')[0]! });
  try {
    await assert.rejects(reg.call({ handle, method: 'dispose' as never, args: [] }), /not a session model method/);
    await assert.rejects(reg.call({ handle, method: 'constructor' as never, args: [] }), /not a session model method/);
  } finally {
    reg.release(handle);
  }
});

test('a worker that dies is replaced: the next call opens the session again and answers', async () => {
  const h = host();
  try {
    const file = fixtureFiles('real-v3')[0]!;
    const m = await h.open({ path: file });
    const before = await m.summary();
    const first = h.threadId;
    await h.current()!.worker.terminate();
    const after = await m.summary();
    assert.deepEqual(after, before);
    assert.notEqual(h.threadId, first);
    m.dispose();
  } finally {
    h.dispose();
  }
});

test('a refresh another holder of the shared model already read still reports the change to this holder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-worker-'));
  const h = host();
  try {
    const file = join(dir, 's.jsonl');
    copyFileSync(fixtureFiles('real-v3')[0]!, file);
    const a = await h.open({ path: file });
    const b = await h.open({ path: file });
    await a.summary();
    await b.summary();
    const { appendFileSync, readFileSync } = await import('node:fs');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1]!) as { id: string };
    appendFileSync(file, JSON.stringify({ type: 'label', id: 'worker01', parentId: last.id, timestamp: new Date().toISOString(), targetId: last.id, label: 'checkpoint' }) + '\n');
    const ra = await a.refresh();
    const rb = await b.refresh();
    assert.notEqual(ra.kind, 'unchanged');
    assert.notEqual(rb.kind, 'unchanged', 'the second holder learns of the change the first one read');
    assert.deepEqual(rb.summary, ra.summary);
    a.dispose();
    b.dispose();
  } finally {
    h.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the Sessions view branch queries (segments, runEntries, revealPath, searchHit, with and without index ids) answer through the worker exactly as in-process', async () => {
  const h = host();
  try {
    for (const file of fixtureFiles('real-v3').slice(0, 3)) {
      const local = await openSessionModel(file);
      const remote = await h.open({ path: file });
      try {
        const leaf = await local.defaultLeaf();
        const top = await local.segments!({ filter: 'default', search: '' }, null);
        const ids = top.flatMap((s) => (s.kind === 'entry' ? [s.id] : [s.firstId, s.lastId]));
        for (const q of [{ filter: 'default' as const, search: '' }, { filter: 'all' as const, search: 'the' }, { filter: 'default' as const, search: '', ids }]) {
          const segs = await local.segments!(q, null);
          assert.deepEqual(await remote.segments!(q, null), segs, `${file} segments`);
          const run = segs.find((s) => s.kind === 'run');
          if (run?.kind === 'run') assert.deepEqual(await remote.runEntries!(q, run.firstId, 1, 3), await local.runEntries!(q, run.firstId, 1, 3));
          if (leaf) assert.deepEqual(await remote.revealPath!(q, leaf), await local.revealPath!(q, leaf));
          assert.deepEqual(await remote.searchHit!(q), await local.searchHit!(q));
        }
      } finally {
        local.dispose();
        remote.dispose();
      }
    }
  } finally {
    h.dispose();
  }
});

test('the worker says which sessions it holds: an aborted load nobody else waits for is let go, a joined open only adds a reference', async () => {
  const h = host();
  try {
    const [a, b] = fixtureFiles('real-v3');
    const kept = await h.open({ path: a! });
    assert.deepEqual(await h.held(), [{ path: a!, refs: 1 }]);
    const ac = new AbortController();
    const p = h.open({ path: b! }, ac.signal);
    ac.abort();
    await assert.rejects(p, CancelledError);
    assert.deepEqual(await h.held(), [{ path: a!, refs: 1 }], 'the cancelled load is not held');
    const joined = await h.open({ path: a! });
    assert.deepEqual(await h.held(), [{ path: a!, refs: 2 }], 'a second open joins the first');
    joined.dispose();
    assert.ok(await kept.summary());
    assert.deepEqual(await h.held(), [{ path: a!, refs: 1 }]);
    kept.dispose();
    assert.deepEqual(await h.held(), []);
  } finally {
    h.dispose();
  }
});

test('the worker translates with the display language bundle it is given', () => {
  const t = bundleTranslate({ '{0} messages': '{0} Nachrichten' });
  assert.equal(t('{0} messages', 3), '3 Nachrichten');
  assert.equal(t('untranslated {0}', 'x'), 'untranslated x');
  assert.equal(bundleTranslate(undefined)('{0} messages', 1), '1 messages');
});

test('while a session loads, the worker says how far it has read: growing byte counts of the file, nothing once it is loaded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-progress-'));
  const file = join(dir, 'big.jsonl');
  try {
    // Big enough for several read chunks.
    generateSession(file, 40_000);
    const size = statSync(file).size;
    // In-process: the lazy index reports after each chunk, up to the file's size.
    const seen: [number, number][] = [];
    const local = await openSessionModel(file, { onProgress: (bytes, total) => seen.push([bytes, total]) });
    local.dispose();
    assert.ok(seen.length >= 2, `reported ${seen.length} times`);
    assert.ok(seen.every(([, total]) => total === size));
    assert.ok(seen.every(([bytes], i) => i === 0 || bytes >= seen[i - 1]![0]), 'never goes back');
    assert.equal(seen.at(-1)![0], size);
    // Through the worker: asked while the load runs, then after it.
    const h = host();
    try {
      const opening = h.open({ path: file });
      let during: { bytes: number; total: number } | null = null;
      let loaded = false;
      void opening.then(
        () => (loaded = true),
        () => undefined,
      );
      while (!loaded) {
        const p = await h.progress(file);
        if (p && p.bytes > 0 && p.bytes < size) during = p;
        await new Promise((r) => setTimeout(r, 5));
      }
      const model = await opening;
      assert.ok(during, 'a progress report came while the load ran');
      assert.equal(during.total, size);
      assert.equal(await h.progress(file), null, 'nothing once loaded');
      model.dispose();
    } finally {
      h.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
