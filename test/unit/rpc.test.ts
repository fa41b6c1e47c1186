// The worker channel (src/core/engine/rpc.ts) over a real MessageChannel: one answer per call,
// errors reject, cancellation reaches the handler, typed arrays move instead of being copied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { CancelledError, RpcClient, serve, throwIfCancelled, transfer } from '../../src/core/engine/rpc';

function pair(handlers: Parameters<typeof serve>[1]): { client: RpcClient; close: () => void } {
  const { port1, port2 } = new MessageChannel();
  const stop = serve(port2, handlers);
  const client = new RpcClient(port1);
  return {
    client,
    close: () => {
      stop();
      client.close();
      port1.close();
      port2.close();
    },
  };
}

test('a call gets its result; concurrent calls get their own answers', async () => {
  const { client, close } = pair({ double: async (p) => (p as number) * 2 });
  try {
    assert.deepEqual(await Promise.all([1, 2, 3].map((n) => client.call<number>('double', n))), [2, 4, 6]);
  } finally {
    close();
  }
});

test('a handler error rejects the call with its name, message and code; an unknown method rejects', async () => {
  const { client, close } = pair({
    fail: async () => {
      throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    },
  });
  try {
    await assert.rejects(client.call('fail', null), (e: NodeJS.ErrnoException) => e.message === 'no such file' && e.code === 'ENOENT');
    await assert.rejects(client.call('nope', null), /unknown method nope/);
  } finally {
    close();
  }
});

test('aborting a call cancels the handler, which rejects with CancelledError', async () => {
  let sawAbort = false;
  const { client, close } = pair({
    slow: async (_p, signal) => {
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => setTimeout(r, 5));
        if (signal.aborted) sawAbort = true;
        throwIfCancelled(signal);
      }
      return 'finished';
    },
  });
  try {
    const ac = new AbortController();
    const p = client.call('slow', null, ac.signal);
    setTimeout(() => ac.abort(), 20);
    await assert.rejects(p, CancelledError);
    assert.equal(sawAbort, true);
    await assert.rejects(client.call('slow', null, AbortSignal.abort()), CancelledError);
  } finally {
    close();
  }
});

test('transfer moves typed arrays: the sender keeps a detached buffer, the receiver the data', async () => {
  let sent: Int32Array | null = null;
  const { client, close } = pair({
    make: async () => {
      sent = Int32Array.from([1, 2, 3]);
      return transfer({ arr: sent }, [sent.buffer as ArrayBuffer]);
    },
  });
  try {
    const r = await client.call<{ arr: Int32Array }>('make', null);
    assert.deepEqual([...r.arr], [1, 2, 3]);
    assert.equal(sent!.byteLength, 0, 'the sender side was detached, not copied');
  } finally {
    close();
  }
});
