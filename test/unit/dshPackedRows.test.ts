import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandPackedRow } from '../../src/core/formats/dsh/packedRows';
import { readDshLog } from '../../src/core/formats/dsh/index';
import { DSH_FIXTURES, dshFixtureText } from '../helpers/dshBuild';

const row = (over: Record<string, unknown> = {}, data: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'text-chunks',
  seq0: 10,
  time0: 1000,
  data: { turn: 1, step: 2, index: 1, dt: [5, -3], texts: ['a', 'b', 'c'], ...data },
  ...over,
});

test('a packed row expands to seq0+k and time0 + dt[0..k-1] (negative gaps kept)', () => {
  const events = expandPackedRow(row());
  assert.deepEqual(events, [
    { type: 'assistant/chunk', seq: 10, time: 1000, data: { turn: 1, step: 2, chunk: { type: 'text-delta', index: 1, text: 'a' } } },
    { type: 'assistant/chunk', seq: 11, time: 1005, data: { turn: 1, step: 2, chunk: { type: 'text-delta', index: 1, text: 'b' } } },
    { type: 'assistant/chunk', seq: 12, time: 1002, data: { turn: 1, step: 2, chunk: { type: 'text-delta', index: 1, text: 'c' } } },
  ]);
});

test('reasoning-chunks give reasoning-delta; tool-call-chunks carry id, and name only when the row has it', () => {
  const r = expandPackedRow(row({ type: 'reasoning-chunks' }));
  assert.ok(Array.isArray(r));
  assert.equal((r[0]!.data as { chunk: { type: string } }).chunk.type, 'reasoning-delta');
  const tool = { type: 'tool-call-chunks', seq0: 0, time0: 0, data: { turn: 1, step: 1, index: 0, dt: [0], id: 'c1', name: 'bash', args: ['{', '}'] } };
  const named = expandPackedRow(tool);
  assert.ok(Array.isArray(named));
  assert.deepEqual((named[1]!.data as { chunk: unknown }).chunk, { type: 'tool-call-delta', index: 0, id: 'c1', name: 'bash', argumentsDelta: '}' });
  const { name: _n, ...noName } = tool.data;
  const unnamed = expandPackedRow({ ...tool, data: noName });
  assert.ok(Array.isArray(unnamed));
  assert.deepEqual((unnamed[0]!.data as { chunk: unknown }).chunk, { type: 'tool-call-delta', index: 0, id: 'c1', argumentsDelta: '{' });
  assert.equal(Object.hasOwn((unnamed[0]!.data as { chunk: object }).chunk, 'name'), false);
});

test('malformed packed rows are refused, each rule of dsh-format.md §3', () => {
  const bad: Array<[string, Record<string, unknown>]> = [
    ['extra envelope key', row({ extra: 1 })],
    ['missing time0', (() => { const r = row(); delete r.time0; return r; })()],
    ['fractional seq0', row({ seq0: 1.5 })],
    ['extra data key', row({}, { extra: true })],
    ['empty payload', row({}, { texts: [], dt: [] })],
    ['dt of the wrong length', row({}, { dt: [1] })],
    ['a dt that is not an integer', row({}, { dt: [1, 0.5] })],
    ['a member that is not a string', row({}, { texts: ['a', 2, 'c'] })],
    ['time beyond the safe range', row({ time0: Number.MAX_SAFE_INTEGER }, { dt: [1, 1] })],
    ['texts on a tool-call row', { type: 'tool-call-chunks', seq0: 0, time0: 0, data: { turn: 1, step: 1, index: 0, dt: [0, 0], id: 'c', texts: ['a', 'b', 'c'] } }],
    ['a tool-call row without id', { type: 'tool-call-chunks', seq0: 0, time0: 0, data: { turn: 1, step: 1, index: 0, dt: [0], args: ['a', 'b'] } }],
  ];
  for (const [what, r] of bad) assert.equal(typeof expandPackedRow(r), 'string', what);
});

test('dsh-packed-chunks: 35 records expand to 124 events with contiguous seqs from 0 (fixture README)', async () => {
  const text = dshFixtureText('dsh-packed-chunks.session.jsonl');
  assert.equal(text.split('\n').filter((l) => l !== '').length - 1, 35);
  const log = await readDshLog(Buffer.from(text));
  assert.equal(log.events.length, 124);
  assert.ok(log.events.slice().every((e, i) => e.seq === i));
  assert.equal(log.state, 'complete');
  assert.deepEqual(log.diagnostics, []);
});

test('every fixture expands to contiguous seqs from 0, ending in a completed or aborted turn/end', async () => {
  for (const name of DSH_FIXTURES) {
    const log = await readDshLog(Buffer.from(dshFixtureText(name)));
    assert.ok(log.events.length > 0, name);
    assert.ok(log.events.slice().every((e, i) => e.seq === i), name);
    assert.equal(log.events.at(-1)!.type, 'turn/end', name);
    assert.equal(log.state, 'complete', name);
  }
});

test('the expanded packed rows equal what a fully unpacked log stores (reasoning text of the block-end)', async () => {
  const log = await readDshLog(Buffer.from(dshFixtureText('dsh-packed-chunks.session.jsonl')));
  // seq 10..26 are the reasoning-chunks row; their texts concatenate to the block-end's text (seq 53)
  const text = log.events
    .slice(10, 27)
    .map((e) => (e.data as { chunk: { text: string } }).chunk.text)
    .join('');
  assert.equal(text, ((log.events.at(53)!.data as { chunk: { block: { text: string } } }).chunk.block.text));
  // the tool-call-chunks row (seq 28..52) rebuilds the arguments of the block-end at seq 54
  const args = log.events
    .slice(28, 53)
    .map((e) => (e.data as { chunk: { argumentsDelta: string } }).chunk.argumentsDelta)
    .join('');
  assert.equal(args, (log.events.at(54)!.data as { chunk: { block: { arguments: string } } }).chunk.block.arguments);
});
