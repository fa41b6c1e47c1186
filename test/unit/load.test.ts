import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionFile, loadSessionFromText } from '../../src/core/formats/xcsh/load';
import { BlobStore, sha256Hex } from '../../src/core/formats/xcsh/blobs';

const kinds = (l: { diagnostics: { line: number; kind: string }[] }) => l.diagnostics.map((d) => [d.line, d.kind]);
const H3 = '{"type":"session","version":3,"id":"s","cwd":"/w"}';
const E = (id: string, parent: string | null) => JSON.stringify({ type: 'message', id, parentId: parent, message: { role: 'user', content: id } });

test('missing file → empty session, no diagnostic, writable', async () => {
  const l = await loadSessionFile(join(mkdtempSync(join(tmpdir(), 'loom-')), 'nope.jsonl'));
  assert.equal(l.header, null);
  assert.equal(l.entries.length, 0);
  assert.equal(l.diagnostics.length, 0);
  assert.equal(l.readOnlyReason, null);
  assert.equal(l.stat, null);
});

test('zero-byte text → empty, not damaged', () => {
  const l = loadSessionFromText('');
  assert.equal(l.readOnlyReason, null);
  assert.equal(l.diagnostics.length, 0);
});

test('a v3 file loads unchanged: changed is null, lines and offsets line up', () => {
  const text = `${H3}\n${E('aaaaaaaa', null)}\n${E('bbbbbbbb', 'aaaaaaaa')}\n`;
  const l = loadSessionFromText(text);
  assert.equal(l.headerLine, 1);
  assert.equal(l.changed, null);
  assert.deepEqual(l.entryLines, [2, 3]);
  const buf = Buffer.from(text);
  l.entries.forEach((e, i) => assert.deepEqual(JSON.parse(buf.toString('utf8', l.entryStarts[i], l.entryEnds[i])), e));
});

test('non-empty file whose first record is not a header → no-header, entries still returned, read-only', () => {
  const l = loadSessionFromText(`${E('aaaaaaaa', null)}\n${E('bbbbbbbb', 'aaaaaaaa')}\n`);
  assert.equal(l.header, null);
  assert.equal(l.entries.length, 2);
  assert.deepEqual(kinds(l), [[1, 'no-header']]);
  assert.match(l.readOnlyReason!, /damaged: no valid session header \(line 1\)/);
});

test('a header without a string id → invalid-header + no-header', () => {
  const l = loadSessionFromText(`{"type":"session","id":7}\n${E('aaaaaaaa', null)}\n`);
  assert.deepEqual(kinds(l), [[1, 'invalid-header'], [1, 'no-header']]);
  assert.equal(l.entries.length, 1);
  assert.notEqual(l.readOnlyReason, null);
});

test('only garbage → no-header on the first line', () => {
  const l = loadSessionFromText('garbage\n');
  assert.deepEqual(kinds(l), [[1, 'invalid-json'], [1, 'no-header']]);
});

test('version above 3 → unsupported-version, read-only, not migrated (an id-less entry still gets a stable id to be shown, Part C §10)', () => {
  const l = loadSessionFromText(`{"type":"session","version":4,"id":"s"}\n{"type":"message","message":{"role":"hookMessage"}}\n`);
  assert.deepEqual(kinds(l), [[1, 'unsupported-version'], [2, 'missing-id']]);
  assert.equal(l.readOnlyReason, 'version 4 is newer than 3');
  assert.equal((l.entries[0] as { message: { role: string } }).message.role, 'hookMessage', 'not migrated');
  assert.equal(l.changed, null);
  assert.deepEqual([...(l.syntheticIds ?? [])], [l.entries[0]!.id]);
  assert.equal(l.originalVersion, 4);
});

test('title line: header read from line 2', () => {
  const l = loadSessionFromText(`${'{"type":"title","title":"T"}'.padEnd(256)}\n${H3}\n${E('aaaaaaaa', null)}\n`);
  assert.equal(l.headerLine, 2);
  assert.equal(l.titleLine?.title, 'T');
  assert.deepEqual(l.entryLines, [3]);
  assert.equal(l.readOnlyReason, null);
});

test('v1 migrates in memory: changed flags and report', () => {
  const l = loadSessionFromText('{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user","content":"a"}}\n');
  assert.equal(l.originalVersion, 1);
  assert.equal(l.header!.version, 3);
  assert.deepEqual(l.changed, [true]);
  assert.equal(l.migration.idsAssigned, 1);
});

test('records without a string type → invalid-entry, skipped', () => {
  const l = loadSessionFromText(`${H3}\n{"id":"x"}\n${E('aaaaaaaa', null)}\n`);
  assert.deepEqual(kinds(l), [[2, 'invalid-entry']]);
  assert.equal(l.entries.length, 1);
});

test('unknown entry types pass through untouched', () => {
  const raw = { type: 'brand_new', id: 'cccccccc', parentId: null, weird: { deep: [1, 2] } };
  const l = loadSessionFromText(`${H3}\n${JSON.stringify(raw)}\n`);
  assert.deepEqual(l.entries[0], raw);
});

test('blob references: missing and invalid ones are diagnosed when a store is given', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-'));
  const store = new BlobStore(join(dir, 'blobs'));
  const present = await store.put(Buffer.from('png-bytes'));
  const missing = sha256Hex(Buffer.from('other'));
  const img = (data: string) => ({ type: 'image', mimeType: 'image/png', data });
  const lines = [
    H3,
    JSON.stringify({ type: 'message', id: 'a1a1a1a1', parentId: null, message: { role: 'toolResult', toolCallId: 't', content: [img(`blob:sha256:${present}`), img(`blob:sha256:${missing}`)] } }),
    JSON.stringify({ type: 'custom_message', id: 'b2b2b2b2', parentId: 'a1a1a1a1', customType: 'c', content: [img('blob:sha256:../../etc/passwd')] }),
    JSON.stringify({ type: 'custom', id: 'c3c3c3c3', parentId: 'b2b2b2b2', customType: 'c', data: { content: [img('blob:sha256:zz')] } }),
  ];
  const p = join(dir, 's.jsonl');
  writeFileSync(p, lines.join('\n') + '\n');
  const l = await loadSessionFile(p, { blobs: store });
  // (the image block inside a custom entry's data too: the agent resolves it there, Part B §19)
  assert.deepEqual(kinds(l), [[2, 'missing-blob'], [3, 'invalid-blob-ref'], [4, 'invalid-blob-ref']]);
  assert.equal(l.diagnostics[0]!.entryId, 'a1a1a1a1');
  // the reference stays in place
  assert.equal((l.entries[0] as { message: { content: { data: string }[] } }).message.content[1]!.data, `blob:sha256:${missing}`);
});

test('stat is recorded for the rewrite guard', async () => {
  const p = join(mkdtempSync(join(tmpdir(), 'loom-')), 's.jsonl');
  writeFileSync(p, `${H3}\n`);
  const l = await loadSessionFile(p);
  assert.equal(l.stat!.size, H3.length + 1);
  assert.ok(l.stat!.mtimeMs > 0);
});
