import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entryIs, type SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { isValidHeader, validateEntry } from '../reference/schemas';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { fixture } from '../helpers/fixtures';

test('header validity per Part A', () => {
  assert.equal(isValidHeader({ type: 'session', id: 'x' }), true);
  assert.equal(isValidHeader({ type: 'session' }), false);
  assert.equal(isValidHeader({ type: 'message', id: 'x' }), false);
});

test('unknown types and unknown fields validate and pass through', () => {
  assert.deepEqual(validateEntry({ type: 'from_the_future', id: 'a', anything: 1 }), { ok: true });
  assert.equal(validateEntry({ type: 'label', id: 'a' }).ok, false, 'label needs targetId');
});

test('every entry of the real v3 fixtures validates against its schema', async () => {
  for (const f of ['gjc-03-raddit-dashboard-pr.jsonl', 'gjc-04-awesome-agent-ide.jsonl']) {
    const l = await loadSessionFile(fixture('real-v3', f));
    for (const e of l.entries) {
      const r = validateEntry(e);
      assert.ok(r.ok, `${f}: ${JSON.stringify(r)}`);
    }
  }
});

test('entryIs narrows known types', () => {
  const e = { type: 'label', id: 'a', targetId: 'b', label: 'x' } as SessionEntry;
  assert.ok(entryIs(e, 'label'));
  assert.equal(entryIs(e, 'message'), false);
});
