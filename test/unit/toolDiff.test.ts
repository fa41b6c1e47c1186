// Open Diff (issue 13): the before/after of the file-editing tool calls real sessions carry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolCallDiff } from '../../src/core/compare/toolDiff';
import { openSessionDocument } from '../reference/document';
import { fixture } from '../helpers/fixtures';

test('edit (pi\'s oldText/newText and Claude-style old_string/new_string), several edits, write against nothing', () => {
  assert.deepEqual(toolCallDiff('edit', { path: '/w/a.ts', oldText: 'a', newText: 'b' }), { file: '/w/a.ts', before: 'a', after: 'b' });
  assert.deepEqual(toolCallDiff('Edit', { file_path: '/w/a.ts', old_string: 'x', new_string: 'y' }), { file: '/w/a.ts', before: 'x', after: 'y' });
  assert.deepEqual(toolCallDiff('edit', { path: 'p', edits: [{ oldText: '1', newText: '2' }, { oldText: '3', newText: '4' }] }), { file: 'p', before: '1\n⋯\n3', after: '2\n⋯\n4' });
  assert.deepEqual(toolCallDiff('write', { path: 'n.md', content: '# hi' }), { file: 'n.md', before: '', after: '# hi' });
  assert.equal(toolCallDiff('read', { path: 'x' }), null);
  assert.equal(toolCallDiff('edit', { path: 'x' }), null, 'an edit without texts has no diff');
  assert.equal(toolCallDiff('bash', { command: 'ls' }), null);
});

test('every edit tool call of a real session has a diff with the texts of its arguments', async () => {
  const doc = await openSessionDocument(fixture('upstream-full', 'pi-before-compaction.jsonl'));
  let edits = 0;
  for (const e of doc.loaded.entries) {
    const m = (e as { message?: { role?: string; content?: unknown } }).message;
    if (m?.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content as { type?: string; name?: string; arguments?: Record<string, unknown> }[]) {
      if (b.type !== 'toolCall' || b.name !== 'edit') continue;
      edits++;
      const d = toolCallDiff(b.name, b.arguments ?? {});
      assert.ok(d, JSON.stringify(b.arguments).slice(0, 200));
      assert.equal(d.before, b.arguments!.oldText);
      assert.equal(d.after, b.arguments!.newText);
    }
  }
  assert.ok(edits > 10, `${edits} edit calls`);
});
