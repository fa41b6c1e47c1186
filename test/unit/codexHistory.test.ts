// Codex's prompt history `history.jsonl` (codex-format.md A.9: the id field is `session_id` in
// some versions and `conversation_id` in others — both are read) and the thread names of
// `session_index.jsonl` (A.1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { codexHomeOf, defaultCodexHistoryPath, parseCodexPromptHistory, parseSessionIndex, readCodexPromptHistory, readSessionIndex } from '../../src/core/formats/codex/index';
import { tempDir } from '../helpers/codexBuild';

test('history.jsonl: session_id (message_history.rs@3b205895) and conversation_id (@0c330ecf) both name the thread; bad lines are diagnostics', () => {
  const text = [
    '{"session_id":"019a-1","ts":1758766343,"text":"first prompt"}',
    '{"conversation_id":"019a-2","ts":1758766400,"text":"second\\nprompt"}',
    '{"ts":1758766500,"text":"no id"}',
    '{"session_id":"019a-3","ts":"soon","text":"odd time"}',
    '{"session_id":"019a-4","ts":1}',
    'garbage',
    '{"session_id":"019a-5","ts":1758766600,"text":"torn',
  ].join('\n');
  const h = parseCodexPromptHistory(Buffer.from(text));
  assert.deepEqual(h.entries, [
    { line: 1, threadId: '019a-1', idField: 'session_id', ts: 1758766343, text: 'first prompt' },
    { line: 2, threadId: '019a-2', idField: 'conversation_id', ts: 1758766400, text: 'second\nprompt' },
    { line: 3, threadId: null, idField: null, ts: 1758766500, text: 'no id' },
    { line: 4, threadId: '019a-3', idField: 'session_id', ts: null, text: 'odd time' },
  ]);
  assert.deepEqual(
    h.diagnostics.map((d) => [d.line, d.kind]),
    [
      [5, 'invalid-entry'],
      [6, 'invalid-json'],
      [7, 'torn-tail'],
    ],
  );
});

test('history.jsonl is read from $CODEX_HOME (else ~/.codex), streamed', async () => {
  assert.equal(defaultCodexHistoryPath({ CODEX_HOME: '/custom' }, '/home/u'), join('/custom', 'history.jsonl'));
  assert.equal(defaultCodexHistoryPath({}, '/home/u'), join('/home/u', '.codex', 'history.jsonl'));
  const dir = tempDir();
  const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify(i % 2 === 0 ? { session_id: `s${i}`, ts: 1700000000 + i, text: `p${i}` } : { conversation_id: `c${i}`, ts: 1700000000 + i, text: `p${i}` }));
  writeFileSync(join(dir, 'history.jsonl'), lines.join('\n') + '\n');
  const h = await readCodexPromptHistory(defaultCodexHistoryPath({ CODEX_HOME: dir }));
  assert.equal(h.entries.length, 3000);
  assert.deepEqual(h.diagnostics, []);
  assert.deepEqual(h.entries[2999], { line: 3000, threadId: 'c2999', idField: 'conversation_id', ts: 1700002999, text: 'p2999' });
  await assert.rejects(readCodexPromptHistory(join(dir, 'missing.jsonl')), { code: 'ENOENT' });
});

test('session_index.jsonl: the last name per id wins; the Codex home is found above sessions/ or archived_sessions/', async () => {
  const idx = parseSessionIndex(Buffer.from('{"id":"a","thread_name":"one","updated_at":"t1"}\n{"id":"b","thread_name":"bee"}\n{"id":"a","thread_name":"two","updated_at":"t2"}\n{"id":"c"}\n'));
  assert.deepEqual([...idx.names.entries()], [
    ['a', { name: 'two', updatedAt: 't2', line: 3 }],
    ['b', { name: 'bee', updatedAt: null, line: 2 }],
  ]);
  assert.deepEqual(
    idx.diagnostics.map((d) => [d.line, d.kind]),
    [[4, 'invalid-entry']],
  );
  assert.equal(codexHomeOf('/h/.codex/sessions/2025/09/24/rollout-x.jsonl'), '/h/.codex');
  assert.equal(codexHomeOf('/h/.codex/sessions/rollout-x.jsonl'), '/h/.codex');
  assert.equal(codexHomeOf('/h/.codex/archived_sessions/rollout-x.jsonl.zst'), '/h/.codex');
  assert.equal(codexHomeOf('/tmp/somewhere/rollout-x.jsonl'), null);
  assert.equal((await readSessionIndex(tempDir())).names.size, 0);
});
