import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSessionDocument, sessionDocumentFromText } from '../reference/document';
import { fixture } from '../helpers/fixtures';

test('tree diagnostics are merged with reader diagnostics, with line numbers, sorted', async () => {
  const doc = await openSessionDocument(fixture('real-v3', 'gjc-04-awesome-agent-ide.jsonl'));
  assert.deepEqual(doc.diagnostics.map((d) => [d.line, d.kind]), [
    [44, 'invalid-json'],
    [45, 'missing-parent'],
  ]);
  assert.equal(doc.tree.defaultLeafId, doc.loaded.entries.at(-1)!.id);
  assert.equal(doc.context().leafId, doc.tree.defaultLeafId);
  assert.deepEqual(doc.context(null).messages, []);
  assert.equal(doc.stats().messagesByRole.user, 6); // grep -c '"role":"user"' on the file
});

test('duplicate ids and cycles in a text document get their physical line numbers', () => {
  const h = JSON.stringify({ type: 'session', version: 3, id: 's' });
  const e = (id: string, parentId: string | null) => JSON.stringify({ type: 'message', id, parentId, message: { role: 'user', content: id } });
  const doc = sessionDocumentFromText([h, e('a', 'b'), e('b', 'a'), '', e('c', null), e('c', null)].join('\n') + '\n');
  const kinds = doc.diagnostics.filter((d) => d.kind !== 'blank').map((d) => [d.kind, d.line]);
  assert.deepEqual(kinds, [
    ['cycle', 3],
    ['duplicate-id', 6],
  ]);
});
