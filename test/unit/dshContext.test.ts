import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DshContextIndex, dshContextAt, dshContextIndex, eventsWithClosers, readDshLog, type DshLog } from '../../src/core/formats/dsh/index';
import { DSH_FIXTURES, dshFixtureText } from '../helpers/dshBuild';
import { assistantMessage, ev, oneTurnLog, rawLog, userMessage } from '../helpers/dshLogs';

const fixtureLog = (name: string): Promise<DshLog> => readDshLog(Buffer.from(dshFixtureText(name)));

test('compaction-recovery: the summary (seq 21) replaces seq 4; its compaction/summary is reported; the span is shadowed', async () => {
  const log = await fixtureLog('dsh-compaction-recovery.session.jsonl');
  const ctx = dshContextAt(log);
  assert.equal(ctx.at, 30);
  // user 4 is replaced by 21 in its place; assistant 13, tool result 15, assistant 28 follow
  assert.deepEqual(ctx.messageSeqs, [21, 13, 15, 28]);
  assert.equal(ctx.messages[0], log.events.at(21)!.data);
  assert.equal(ctx.messages[1], (log.events.at(13)!.data as { message: unknown }).message);
  assert.deepEqual(ctx.replacements, [
    {
      replacingSeq: 21,
      shadowedSeqs: [4],
      start: 4,
      end: 4,
      compaction: { kind: 'summary', seq: 20, compactionId: '338e88fa-e78b-4d49-bd38-8f919e85f5e1', shadowedTokenCount: 266, provider: 'deepseek-official', model: 'deepseek-v4-flash' },
    },
  ]);
  assert.equal(ctx.title, 'Establish a durable compaction premise');
  assert.deepEqual(ctx.model, { provider: 'deepseek-official', model: 'deepseek-v4-flash' });
  assert.match(ctx.system!, /^You are an AI agent powered by DeepSeek Harness\./);
});

test('what the model saw at seq N is the fold over seq ≤ N: before the compaction seq 4 is still there', async () => {
  const log = await fixtureLog('dsh-compaction-recovery.session.jsonl');
  assert.deepEqual(dshContextAt(log, 20).messageSeqs, [4, 13, 15]);
  assert.deepEqual(dshContextAt(log, 20).replacements, []);
  assert.deepEqual(dshContextAt(log, 3).messageSeqs, []);
  assert.equal(dshContextAt(log, 3).system, null);
  assert.equal(dshContextAt(log, 3).title, null);
  assert.deepEqual(dshContextAt(log, 4).messageSeqs, [4]);
});

test('chunks, tool/call, titles and plugin events never reach the model; injected context does', async () => {
  const log = await fixtureLog('dsh-packed-chunks.session.jsonl');
  const ctx = dshContextAt(log);
  // the prompt (4), the runtime context (5), assistant 57, tool result 61, assistant 121
  assert.deepEqual(ctx.messageSeqs, [4, 5, 57, 61, 121]);
  // the fixture's templated tools string is kept as the one entry it is
  assert.deepEqual(ctx.tools, ['{{tools}}']);
  assert.equal(ctx.system, '{{system}}');
});

test('an assistant message with empty content (a usage-only max-tokens step) is skipped', async () => {
  const records = [...oneTurnLog().slice(0, 3), assistantMessage(3, 1, 1, [], { usage: { inputTokens: 5, outputTokens: 0 } }), ...oneTurnLog().slice(4)];
  const log = await readDshLog(Buffer.from(rawLog(records)));
  assert.deepEqual(dshContextAt(log).messageSeqs, [1]);
});

test('tool names come from the latest request/header; a later header changes system, tools and model from its seq on', async () => {
  const header = (seq: number, system: string, tools: unknown, model: string): unknown =>
    ev('request/header', seq, { header: { config: { provider: 'p', model }, system, tools }, reason: seq === 0 ? 'initial' : 'change' });
  const records = [header(0, 's1', [{ name: 'read', description: '' }, { name: 'bash' }], 'm1'), userMessage(1, 'a'), header(2, 's2', [{ type: 'function', function: { name: 'edit' } }], 'm2')];
  const log = await readDshLog(Buffer.from(rawLog(records)));
  assert.deepEqual(dshContextAt(log, 1), { at: 1, messages: [log.events.at(1)!.data], messageSeqs: [1], system: 's1', tools: ['read', 'bash'], model: { provider: 'p', model: 'm1' }, title: null, replacements: [] });
  const late = dshContextAt(log, 2);
  assert.equal(late.system, 's2');
  assert.deepEqual(late.tools, ['edit']);
  assert.deepEqual(late.model, { provider: 'p', model: 'm2' });
});

test('a replace whose range is not on the surface is reported and read as an append', async () => {
  const records = [userMessage(0, 'a'), { ...userMessage(1, 'b'), surfaceOp: { op: 'replace', start: 7, end: 7 }, sourceEventSeqs: [7] }];
  const log = await readDshLog(Buffer.from(rawLog(records)));
  assert.deepEqual(dshContextAt(log).messageSeqs, [0, 1]);
  assert.equal(dshContextIndex(log).diagnostics[0]!.kind, 'dsh-surface');
});

test('nested replacements: a span holding an earlier replacement is shadowed whole; only the newest is in effect', async () => {
  const records = [
    userMessage(0, 'a'),
    userMessage(1, 'b'),
    { ...userMessage(2, 'sum-ab'), surfaceOp: { op: 'replace', start: 0, end: 1 }, sourceEventSeqs: [0, 1] },
    userMessage(3, 'c'),
    { ...userMessage(4, 'sum-all'), surfaceOp: { op: 'replace', start: 2, end: 3 }, sourceEventSeqs: [2, 3] },
    userMessage(5, 'd'),
  ];
  const log = await readDshLog(Buffer.from(rawLog(records)));
  assert.deepEqual(dshContextAt(log, 3).messageSeqs, [2, 3]);
  assert.deepEqual(dshContextAt(log, 3).replacements.map((r) => r.replacingSeq), [2]);
  const last = dshContextAt(log);
  assert.deepEqual(last.messageSeqs, [4, 5]);
  assert.deepEqual(last.replacements.map((r) => [r.replacingSeq, r.shadowedSeqs]), [[4, [2, 3]]]);
});

test('the context index is built once per log (cached)', async () => {
  const log = await fixtureLog('dsh-cancel-aborted.session.jsonl');
  assert.equal(dshContextIndex(log), dshContextIndex(log));
});

test('the fold over the seqs the reader noted equals the fold over every event, at every seq of every fixture', async () => {
  for (const name of DSH_FIXTURES) {
    const text = dshFixtureText(name);
    // cut before the last turn/end too, so closers take part
    for (const source of [text, text.split('\n').slice(0, -3).join('\n') + '\n']) {
      const log = await readDshLog(Buffer.from(source));
      const full = new DshContextIndex(eventsWithClosers(log));
      for (let n = -1; n < log.events.length + log.closers.length; n++) assert.deepEqual(dshContextAt(log, n), full.contextAt(n), `${name} at ${n}`);
    }
  }
});
