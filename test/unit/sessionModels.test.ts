// The Sessions view's cache of opened sessions (src/extension/sessions/sessionModels.ts), run
// against a real model worker: it stamps what it read, refreshes a changed file through the model,
// releases idle sessions beyond its bound (the worker lets them go too), and a collapse during a
// load cancels that load in the worker unless another opener (the editor) waits for it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelHost } from '../../src/core/engine/worker/modelHost';
import { CancelledError, SessionModels } from '../../src/extension/sessions/sessionModels';
import { generateSession } from '../../bench/generate';
import { fixtureFiles } from '../helpers/fixtures';
import { bundleModelWorker } from '../helpers/modelWorkerBundle';

let bundleDir = '';
let workerFile = '';
let dir = '';
before(async () => {
  ({ dir: bundleDir, workerFile } = await bundleModelWorker('loom-view-models-'));
  dir = mkdtempSync(join(tmpdir(), 'loom-view-sessions-'));
});
after(() => {
  rmSync(bundleDir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

function setup(keepIdle = 8): { host: ModelHost; models: SessionModels; opens: string[] } {
  const host = new ModelHost({ workerFile });
  const opens: string[] = [];
  const models = new SessionModels((file, signal) => {
    opens.push(file);
    return host.open({ path: file }, signal);
  }, keepIdle);
  return { host, models, opens };
}

const heldPaths = async (host: ModelHost): Promise<string[]> => (await host.held()).map((h) => h.path).sort();

/** A copy of a real fixture under a name of its own. */
function copyOf(i: number, name = `s${i}.jsonl`): string {
  const file = join(dir, name);
  copyFileSync(fixtureFiles('real-v3')[i % fixtureFiles('real-v3').length]!, file);
  return file;
}

test('a session is opened once and shared by every get; its stamp is size:mtime:revision of what was read', async () => {
  const { host, models, opens } = setup();
  try {
    const file = copyOf(0, 'shared.jsonl');
    const [a, b] = await Promise.all([models.get(file), models.get(file)]);
    assert.equal(a, b);
    assert.deepEqual(opens, [file]);
    assert.equal(models.peek(file), a);
    assert.equal(a.stamp, `${a.summary.sizeBytes}:${a.summary.modified}:${a.summary.revision}`);
    assert.deepEqual(await heldPaths(host), [file]);
  } finally {
    models.dispose();
    host.dispose();
  }
});

test('a changed file: peek sees nothing until the next get, which refreshes the same model (appended entries counted, a new stamp)', async () => {
  const { host, models, opens } = setup();
  try {
    const file = copyOf(1, 'growing.jsonl');
    const first = await models.get(file);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1]!) as { id: string };
    appendFileSync(file, JSON.stringify({ type: 'label', id: 'view0001', parentId: last.id, timestamp: new Date().toISOString(), targetId: last.id, label: 'checkpoint' }) + '\n');
    models.invalidate(file);
    assert.equal(models.peek(file), undefined, 'stale until refreshed');
    const next = await models.get(file);
    assert.equal(next.model, first.model, 'the model was refreshed, not opened again');
    assert.deepEqual(opens, [file]);
    assert.equal(next.summary.entryCount, first.summary.entryCount + 1);
    assert.notEqual(next.stamp, first.stamp);
    assert.equal(models.peek(file), next);
  } finally {
    models.dispose();
    host.dispose();
  }
});

test('idle sessions beyond the bound are released (least recently used first) and the worker lets them go; held ones are never released', async () => {
  const { host, models } = setup(2);
  try {
    const files = [0, 1, 2, 3, 4].map((i) => copyOf(i, `lru${i}.jsonl`));
    await models.get(files[0]!);
    models.hold(files[0]!, 'expanded');
    for (const f of files.slice(1)) await models.get(f);
    // files[0] is held; of the idle 1..4, the two most recent stay.
    assert.deepEqual(
      files.map((f) => models.isKnown(f)),
      [true, false, false, true, true],
    );
    assert.deepEqual(await heldPaths(host), [files[0]!, files[3]!, files[4]!].sort());
    // Collapsed, the held one joins the idle ones as the most recent: the oldest idle goes.
    models.unhold(files[0]!, 'expanded');
    assert.deepEqual(
      files.map((f) => models.isKnown(f)),
      [true, false, false, false, true],
    );
    // A get makes a session recent again.
    await models.get(files[0]!);
    await models.get(files[1]!);
    assert.deepEqual(
      files.map((f) => models.isKnown(f)),
      [true, true, false, false, false],
    );
    assert.deepEqual(await heldPaths(host), [files[0]!, files[1]!].sort());
  } finally {
    models.dispose();
    host.dispose();
  }
  // Disposed: nothing is open any more.
  assert.equal(models.size, 0);
});

test('collapsing a session row while its load runs aborts the load: the worker no longer holds it, and expanding again starts a new load', async () => {
  const { host, models, opens } = setup();
  try {
    // Big enough that the load is still running when the collapse comes.
    const file = join(dir, 'big.jsonl');
    generateSession(file, 60_000, 7);
    const loading = models.get(file);
    models.hold(file, 'expanded');
    // Wait until the worker has the load in hand.
    for (let i = 0; i < 200 && (await heldPaths(host)).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(await heldPaths(host), [file], 'the load runs in the worker');
    models.unhold(file, 'expanded');
    await assert.rejects(loading, CancelledError);
    assert.equal(models.isKnown(file), false);
    assert.deepEqual(await heldPaths(host), [], 'the worker let the cancelled load go');
    const again = await models.get(file);
    assert.equal(again.summary.entryCount, 60_000);
    assert.deepEqual(opens, [file, file], 'a second load');
  } finally {
    models.dispose();
    host.dispose();
  }
});

test('a collapse does not cancel a load another opener of the same file (the session editor) waits for: the editor still gets its model', async () => {
  const { host, models } = setup();
  try {
    const file = join(dir, 'shared-big.jsonl');
    generateSession(file, 60_000, 9);
    const editor = host.open({ path: file });
    const loading = models.get(file);
    models.hold(file, 'expanded');
    for (let i = 0; i < 200 && (await host.held()).every((h) => h.refs < 2); i++) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(await host.held(), [{ path: file, refs: 2 }], 'one load, shared');
    models.unhold(file, 'expanded');
    await assert.rejects(loading, CancelledError);
    const m = await editor;
    assert.equal((await m.summary()).entryCount, 60_000);
    assert.deepEqual(await host.held(), [{ path: file, refs: 1 }]);
    m.dispose();
  } finally {
    models.dispose();
    host.dispose();
  }
});

test('a search that releases a session it opened only to look at lets the worker go of it at once', async () => {
  const { host, models } = setup();
  try {
    const file = copyOf(2, 'looked-at.jsonl');
    await models.get(file);
    models.release(file);
    assert.equal(models.isKnown(file), false);
    assert.deepEqual(await heldPaths(host), []);
  } finally {
    models.dispose();
    host.dispose();
  }
});
