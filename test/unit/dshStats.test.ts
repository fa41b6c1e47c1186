import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dshSessionStats, dshStateDescription, dshStateLabel, readDshLog } from '../../src/core/formats/dsh/index';
import { dshFixtureText } from '../helpers/dshBuild';
import { assistantMessage, ev, oneTurnLog, rawLog } from '../helpers/dshLogs';

test('dsh-packed-chunks: counts, tool calls, usage from the usage chunks (not doubled by message usage), model, title, times', async () => {
  const log = await readDshLog(Buffer.from(dshFixtureText('dsh-packed-chunks.session.jsonl')));
  const s = dshSessionStats(log);
  assert.deepEqual(s.messages, { user: 1, injected: 1, assistant: 2, toolResults: 1 });
  assert.equal(s.toolCalls, 1);
  assert.equal(s.turns, 1);
  assert.equal(s.steps, 2);
  // step 1: 2878 in / 83 out / 0 cache read / 17 reasoning; step 2: 167 / 52 / 2816 / 21
  assert.deepEqual(s.usage, { inputTokens: 3045, outputTokens: 135, cacheReadTokens: 2816, cacheWriteTokens: 0, reasoningTokens: 38 });
  assert.deepEqual(s.models, [{ provider: 'deepseek-official', model: 'deepseek-v4-flash' }]);
  assert.equal(s.title, 'Use the bash tool to');
  assert.equal(s.createdAt, 1783352165190);
  assert.equal(s.lastEventTime, 1785730418717);
  assert.equal(s.state, 'complete');
  assert.equal(s.events, 124);
});

test('dsh-compaction-recovery: the compaction LLM call is not turn usage; 24/6 + 20/4', async () => {
  const s = dshSessionStats(await readDshLog(Buffer.from(dshFixtureText('dsh-compaction-recovery.session.jsonl'))));
  assert.equal(s.usage.inputTokens, 44);
  assert.equal(s.usage.outputTokens, 10);
  // the prompt is a human one; the summary replacing it is injected context
  assert.deepEqual(s.messages, { user: 1, injected: 1, assistant: 2, toolResults: 1 });
});

test('usage falls back to assistant/message.usage for a step without usage chunks (spec §4.4)', async () => {
  const records = [...oneTurnLog().slice(0, 3), assistantMessage(3, 1, 1, [{ type: 'text', text: 'x' }], { usage: { inputTokens: 7, outputTokens: 3, cacheWriteTokens: 2 } }), ...oneTurnLog().slice(4)];
  const s = dshSessionStats(await readDshLog(Buffer.from(rawLog(records))));
  assert.deepEqual(s.usage, { inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 2, reasoningTokens: 0 });
});

test('synthetic closers are counted apart from recorded events', async () => {
  const log = await readDshLog(Buffer.from(rawLog([...oneTurnLog(), ev('turn/start', 6, { turn: 2 })])));
  const s = dshSessionStats(log);
  assert.equal(s.events, 7);
  assert.equal(s.closers, 1);
  assert.equal(s.state, 'interrupted');
});

test('each state has its own label and sentence, through the l10nT argument', () => {
  const states = ['complete', 'open', 'interrupted', 'torn', 'corrupt'] as const;
  assert.equal(new Set(states.map((s) => dshStateLabel(s))).size, 5);
  assert.equal(new Set(states.map((s) => dshStateDescription(s))).size, 5);
  const seen: string[] = [];
  dshStateLabel('torn', (m) => (seen.push(m), `«${m}»`));
  assert.deepEqual(seen, ['Torn']);
});
