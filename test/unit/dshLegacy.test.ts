import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dshContextAt, readDshLog, upgradeLegacyEvents, type DshLog } from '../../src/core/formats/dsh/index';
import { ev, meta, rawLog } from '../helpers/dshLogs';

const read = (records: unknown[]): Promise<DshLog> => readDshLog(Buffer.from(rawLog(records, meta('sid'))));

test('legacy user/message without id/role gets legacy-message:<sessionId>:<seq> and role user', async () => {
  const log = await read([{ type: 'user/message', seq: 0, time: 0, data: { content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } }, surfaceOp: 'append' }]);
  assert.deepEqual(log.events.at(0)!.data, { content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' }, id: 'legacy-message:sid:0', role: 'user' });
  assert.ok(log.diagnostics.some((d) => d.kind === 'dsh-legacy'));
});

test('legacy assistant/message {content, provenance} is wrapped into message with source kind model', async () => {
  const log = await read([{ type: 'assistant/message', seq: 0, time: 0, data: { turn: 1, step: 1, content: [{ type: 'text', text: 'a' }], provenance: { provider: 'p', model: 'm' }, usage: { inputTokens: 1, outputTokens: 2 } }, surfaceOp: 'append' }]);
  assert.deepEqual(log.events.at(0)!.data, {
    turn: 1,
    step: 1,
    usage: { inputTokens: 1, outputTokens: 2 },
    message: { id: 'legacy-message:sid:0', role: 'assistant', content: [{ type: 'text', text: 'a' }], source: { provider: 'p', model: 'm', kind: 'model' } },
  });
});

test('legacy tool/result is wrapped into a ToolResultMessage; a replacement inherits the id of the node it replaces', async () => {
  const log = await read([
    { type: 'tool/result', seq: 0, time: 0, data: { turn: 1, step: 1, callId: 'c1', content: [{ type: 'text', text: 'long' }], isError: false }, surfaceOp: 'append' },
    { type: 'tool/result', seq: 1, time: 0, data: { turn: 1, step: 1, callId: 'c1', content: [{ type: 'text', text: 'spilled' }], isError: false }, surfaceOp: { op: 'replace', start: 0, end: 0 }, sourceEventSeqs: [0] },
  ]);
  const m0 = (log.events.at(0)!.data as { message: Record<string, unknown> }).message;
  assert.deepEqual(m0, { id: 'legacy-message:sid:0', role: 'user', content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'long' }], isError: false }], source: { kind: 'tool', callId: 'c1' } });
  const m1 = (log.events.at(1)!.data as { message: { id: string } }).message;
  assert.equal(m1.id, 'legacy-message:sid:0');
  assert.deepEqual(dshContextAt(log).messageSeqs, [1]);
});

test('steering/message becomes user/message; turn/start loses its trigger', async () => {
  const log = await read([
    { type: 'turn/start', seq: 0, time: 0, data: { turn: 1, trigger: { kind: 'user' } } },
    { type: 'steering/message', seq: 1, time: 0, data: { turn: 1, content: [{ type: 'text', text: 's' }], source: { kind: 'user' } }, surfaceOp: 'append' },
  ]);
  assert.deepEqual(log.events.at(0)!.data, { turn: 1 });
  assert.equal(log.events.at(1)!.type, 'user/message');
  assert.deepEqual(log.events.at(1)!.data, { content: [{ type: 'text', text: 's' }], source: { kind: 'user' }, id: 'legacy-message:sid:1', role: 'user' });
});

test('old turn/end reasons: aborted → aborted/legacy, disposed → aborted/disposed, error{step,message} and error{step,failure}', async () => {
  const end = (seq: number, reason: unknown): unknown => ({ type: 'turn/end', seq, time: 0, data: { turn: 1, reason } });
  const log = await read([
    end(0, { kind: 'aborted' }),
    end(1, { kind: 'disposed' }),
    end(2, { kind: 'error', step: 1, message: 'boom' }),
    end(3, { kind: 'error', step: 1, message: 'boom', code: 'E1' }),
    end(4, { kind: 'error', step: 1, failure: { message: 'f', code: 'C' } }),
    end(5, { kind: 'completed' }),
  ]);
  assert.deepEqual(
    log.events.slice().map((e) => (e.data as { reason: unknown }).reason),
    [
      { kind: 'aborted', reason: { kind: 'legacy' } },
      { kind: 'aborted', reason: { kind: 'disposed' } },
      { kind: 'error', error: { message: 'boom', code: 'UNKNOWN' } },
      { kind: 'error', error: { message: 'boom', code: 'E1' } },
      { kind: 'error', error: { message: 'f', code: 'C' } },
      { kind: 'completed' },
    ],
  );
});

test('refused shapes (request/header-delta, mode/set, request/header reason fallback, malformed legacy) are diagnostics, shown as stored', async () => {
  const records = [
    ev('request/header-delta', 0, {}),
    ev('mode/set', 1, {}),
    ev('request/header', 2, { header: {}, reason: 'fallback' }),
    ev('turn/start', 3, { turn: 1, trigger: 'not-an-object' }),
  ];
  const log = await read(records);
  assert.equal(log.events.length, 4);
  assert.deepEqual(log.events.slice(), records);
  const refused = log.diagnostics.filter((d) => d.kind === 'dsh-refused-event');
  assert.equal(refused.length, 4);
  assert.deepEqual(refused.map((d) => d.seq), [0, 1, 2, 3]);
});

test('an unknown event type is kept raw with an info diagnostic unless it is ignorable', async () => {
  const log = await read([ev('future/thing', 0, { x: 1 }), { ...ev('future/other', 1, {}), ignorable: true }]);
  assert.deepEqual(log.diagnostics.filter((d) => d.kind === 'dsh-unknown-type').map((d) => d.seq), [0]);
});

test('the stored event objects are never mutated by an upgrade', async () => {
  const stored = { type: 'turn/start', seq: 0, time: 0, data: { turn: 1, trigger: { kind: 'user' } } };
  const copy = structuredClone(stored);
  const events = [stored as never];
  upgradeLegacyEvents(events, 'sid');
  assert.deepEqual(stored, copy);
});
