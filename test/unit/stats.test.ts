import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeSessionStats } from '../../src/core/formats/xcsh/stats';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { fixture } from '../helpers/fixtures';

const E = (o: Record<string, unknown>) => o as SessionEntry;

test('one pass: counts, tool calls, tokens, cost, models, first user message, title', () => {
  const s = computeSessionStats(
    [
      E({ type: 'model_change', id: '1', parentId: null, model: 'openai/gpt-4o' }),
      E({ type: 'message', id: '2', parentId: '1', timestamp: 't1', message: { role: 'user', content: [{ type: 'text', text: 'Hello' }] } }),
      E({
        type: 'message', id: '3', parentId: '2', timestamp: 't2',
        message: {
          role: 'assistant', provider: 'anthropic', model: 'claude',
          content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: {} }, { type: 'toolCall', id: 'c2', name: 'ls', arguments: {} }],
          usage: { input: 100, output: 20, cacheRead: 5, cacheWrite: 1, cost: { total: 0.5 } },
        },
      }),
      E({ type: 'message', id: '4', parentId: '3', message: { role: 'toolResult', toolCallId: 'c1', content: 'x', isError: true } }),
      E({ type: 'message', id: '5', parentId: '4', message: { role: 'user', content: 'second' } }),
      E({ type: 'model_change', id: '6', parentId: '5', provider: 'google', modelId: 'gemini' }),
      E({ type: 'compaction', id: '7', parentId: '6', summary: 's', tokensBefore: 1 }),
      E({ type: 'label', id: '8', parentId: '7', targetId: '2', label: 'x' }),
      E({ type: 'weird', id: '9', parentId: '8' }),
    ],
    { type: 'session', id: 'h', title: 'T' },
  );
  assert.equal(s.entries, 9);
  assert.deepEqual(s.messagesByRole, { user: 2, assistant: 1, toolResult: 1 });
  assert.equal(s.entriesByType.weird, 1);
  assert.equal(s.toolCalls, 2);
  assert.equal(s.toolResults, 1);
  assert.equal(s.toolErrors, 1);
  assert.deepEqual(s.tokens, { input: 100, output: 20, cacheRead: 5, cacheWrite: 1, total: 126 });
  assert.equal(s.cost, 0.5);
  assert.deepEqual(s.models, ['openai/gpt-4o', 'anthropic/claude', 'google/gemini']);
  assert.equal(s.firstUserMessage, 'Hello');
  assert.equal(s.title, 'T');
  assert.equal(s.compactions, 1);
  assert.equal(s.labels, 1);
  assert.equal(s.firstTimestamp, 't1');
  assert.equal(s.lastTimestamp, 't2');
});

test('fixture head25: 3 user, 8 assistant, 12 toolResult (README counts)', async () => {
  const l = await loadSessionFile(fixture('upstream', 'pi-large-session.v1.head25.jsonl'));
  const s = computeSessionStats(l.entries, l.header);
  assert.deepEqual(s.messagesByRole, { user: 3, assistant: 8, toolResult: 12 });
  assert.ok(s.cost > 0);
  assert.ok(s.firstUserMessage && s.firstUserMessage.length > 0);
});
