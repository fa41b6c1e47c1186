// Issue 15 point 10: entries of a v2/v3 file without a string `id` get a `missing-id` diagnostic
// and a stable id made from the file's bytes (Part C §5, §10), so the tree, the context and the
// views work — and the last entry having no id never empties the conversation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionDocumentFromText } from '../reference/document';
import { loadSessionFile, loadSessionFromText } from '../../src/core/formats/xcsh/load';
import { rewriteSessionFile } from '../../src/core/store/rewrite';
import { severityOf } from '../../src/core/diagnostics';

const H3 = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}';
const user = (id: unknown, parentId: string | null, text: string, omitId = false) =>
  JSON.stringify({ type: 'message', ...(omitId ? {} : { id }), parentId, timestamp: '2026-01-01T00:00:01Z', message: { role: 'user', content: text } });
const assistant = (id: unknown, parentId: string | null, text: string) =>
  JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:02Z', message: { role: 'assistant', provider: 'p', model: 'm', content: [{ type: 'text', text }] } });

test('the last entry has no string id: the context is the conversation through its parentId, never empty', () => {
  for (const bad of [7, null, undefined, { x: 1 }]) {
    const text = [H3, user('aaaaaaaa', null, 'hi'), assistant(bad, 'aaaaaaaa', 'yo')].join('\n') + '\n';
    const doc = sessionDocumentFromText(text);
    const made = doc.loaded.entries[1]!.id;
    assert.match(made, /^[0-9a-f]{8}$/);
    assert.equal(doc.tree.defaultLeafId, made);
    const ctx = doc.context();
    assert.equal(ctx.leafId, made);
    assert.deepEqual(ctx.messageSources, ['aaaaaaaa', made], String(bad));
    const d = doc.diagnostics.find((x) => x.kind === 'missing-id')!;
    assert.equal(d.line, 3);
    assert.equal(d.entryId, made);
    assert.equal(severityOf(d.kind), 'error');
    assert.match(d.message, bad === undefined ? /it has no "id"/ : /"id" is/);
  }
});

test('made ids are stable (same bytes, same ids — from text or file), unique, and never one already in the file', async () => {
  const text = [H3, user(0, null, 'a'), user(0, null, 'a'), assistant('bbbbbbbb', null, 'b'), user(null, 'bbbbbbbb', 'c', true)].join('\n') + '\n';
  const a = loadSessionFromText(text);
  const dir = mkdtempSync(join(tmpdir(), 'loom-ids-'));
  const p = join(dir, 's.jsonl');
  writeFileSync(p, text);
  const b = await loadSessionFile(p);
  const ids = a.entries.map((e) => e.id);
  assert.deepEqual(b.entries.map((e) => e.id), ids);
  assert.equal(new Set(ids).size, 4);
  assert.equal(ids[2], 'bbbbbbbb');
  assert.deepEqual([...a.syntheticIds!].sort(), [ids[0], ids[1], ids[3]].sort());
  assert.deepEqual(a.diagnostics.map((d) => [d.line, d.kind]), [[2, 'missing-id'], [3, 'missing-id'], [5, 'missing-id']]);
});

test('entries without an id are not "changed": a rewrite of a v3 file keeps their bytes (the made id is not written)', async () => {
  const text = [H3, user(5, null, 'a'), assistant('bbbbbbbb', null, 'b')].join('\n') + '\n';
  const dir = mkdtempSync(join(tmpdir(), 'loom-ids-'));
  const p = join(dir, 's.jsonl');
  writeFileSync(p, text);
  const old = new Date(Date.now() - 60_000);
  utimesSync(p, old, old);
  const l = await loadSessionFile(p);
  assert.equal(l.changed, null);
  assert.equal(l.migration.entriesTouched, 0);
  const r = await rewriteSessionFile(p, l, { expected: l.stat!, breadcrumbsDir: join(dir, 'none') });
  assert.deepEqual([r.copied, r.edited, r.reserialised], [2, 0, 0]);
});

test('a v2 entry without an id gets its stable id from what the migrated file holds (so migrating does not move it)', () => {
  const v2 = '{"type":"session","version":2,"id":"s"}\n{"type":"message","parentId":null,"message":{"role":"hookMessage","customType":"x","content":"h"}}\n';
  const before = loadSessionFromText(v2);
  const migratedText = '{"type":"session","version":3,"id":"s"}\n{"type":"message","parentId":null,"message":{"role":"custom","customType":"x","content":"h"}}\n';
  assert.equal(loadSessionFromText(migratedText).entries[0]!.id, before.entries[0]!.id);
});

test('a header-less file whose entries have no ids is read as v1: a linear chain, not a heap of roots', () => {
  const text = '{"type":"message","message":{"role":"user","content":"a"}}\n{"type":"message","message":{"role":"assistant","provider":"p","model":"m","content":[]}}\n';
  const doc = sessionDocumentFromText(text);
  assert.ok(doc.loaded.readOnlyReason);
  const [a, b] = doc.loaded.entries;
  assert.equal(b!.parentId, a!.id);
  assert.equal(doc.context().messages.length, 2);
  assert.equal(doc.diagnostics.filter((d) => d.kind === 'missing-id').length, 0);
});
