// Background workers yield the CPU to VS Code's threads (threadPriority.ts): on Linux the calling
// thread alone gets a lower priority; the process's main thread keeps its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';

test('a worker thread lowers its own priority, not the process\'s (Linux)', { skip: process.platform !== 'linux' }, async () => {
  const before = getPriority(process.pid);
  const code = `
    require('tsx/cjs');
    const { lowerThisThreadPriority } = require(${JSON.stringify(require.resolve('../../src/core/engine/worker/threadPriority.ts'))});
    const { getPriority } = require('node:os');
    const tid = lowerThisThreadPriority(7);
    require('node:worker_threads').parentPort.postMessage({ tid, prio: tid === null ? null : getPriority(tid) });`;
  const w = new Worker(code, { eval: true });
  const got = await new Promise<{ tid: number | null; prio: number | null }>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  await w.terminate();
  assert.notEqual(got.tid, null);
  assert.notEqual(got.tid, process.pid, 'the worker has a thread id of its own');
  assert.equal(got.prio, Math.max(7, before), 'the worker thread runs at the lower priority');
  assert.equal(getPriority(process.pid), before, 'the main thread is untouched');
});
