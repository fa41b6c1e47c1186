import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { BlobStore } from '../../src/core/formats/xcsh/blobs';
import { externalizeImages, MAX_PERSIST_CHARS, prepareEntryForPersist, TRUNCATION_NOTICE, truncateForPersist } from '../../src/core/formats/xcsh/persist';
import { fixture } from '../helpers/fixtures';

test('notice is byte-for-byte Part B §8', () => {
  assert.equal(TRUNCATION_NOTICE, '\n\n[Session persistence truncated large content]');
  assert.equal(MAX_PERSIST_CHARS, 500_000);
});

test('strings over the limit become exactly 500,000 code units ending with the notice', () => {
  const long = 'a'.repeat(MAX_PERSIST_CHARS + 1);
  const out = truncateForPersist({ x: { y: [long] } });
  const s = out.x.y[0]!;
  assert.equal(s.length, MAX_PERSIST_CHARS);
  assert.ok(s.endsWith(TRUNCATION_NOTICE));
  assert.equal(s, 'a'.repeat(MAX_PERSIST_CHARS - TRUNCATION_NOTICE.length) + TRUNCATION_NOTICE);
});

test('a string of exactly the limit is untouched (same object back)', () => {
  const v = { s: 'b'.repeat(MAX_PERSIST_CHARS) };
  assert.equal(truncateForPersist(v), v);
});

test('the cut never splits a surrogate pair', () => {
  const keep = MAX_PERSIST_CHARS - TRUNCATION_NOTICE.length;
  const s = 'a'.repeat(keep - 1) + '😀' + 'a'.repeat(100);
  const out = truncateForPersist(s);
  assert.equal(out, 'a'.repeat(keep - 1) + TRUNCATION_NOTICE);
});

test('signature fields over the limit are emptied, not cut', () => {
  const big = 's'.repeat(MAX_PERSIST_CHARS + 5);
  const out = truncateForPersist({ thinkingSignature: big, thoughtSignature: big, textSignature: big, other: 'ok' });
  assert.deepEqual(out, { thinkingSignature: '', thoughtSignature: '', textSignature: '', other: 'ok' });
  const small = { thinkingSignature: 'abc' };
  assert.equal(truncateForPersist(small), small);
});

test('partialJson and jsonlEvents are stripped at any depth', () => {
  const v = { partialJson: '{', a: [{ type: 'toolCall', partialJson: '{"x"', arguments: {} }], details: { jsonlEvents: [1] } };
  assert.deepEqual(truncateForPersist(v), { a: [{ type: 'toolCall', arguments: {} }], details: {} });
});

test('lineCount is recomputed after truncation (content.split("\\n").length)', () => {
  const content = 'l\n'.repeat(MAX_PERSIST_CHARS);
  const out = truncateForPersist({ content, lineCount: 1 });
  assert.equal(out.lineCount, out.content.split('\n').length);
  assert.notEqual(out.lineCount, 1);
  // unchanged objects keep their lineCount (upstream recomputes only when something changed)
  const same = { content: 'a\nb', lineCount: 99 };
  assert.equal(truncateForPersist(same), same);
});

test('unchanged values come back as the same object (structural sharing)', () => {
  const v = { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } };
  assert.equal(truncateForPersist(v), v);
});

test('images ≥ 1024 base64 chars in content arrays are externalised by sha256 of the decoded bytes', async () => {
  const store = new BlobStore(join(mkdtempSync(join(tmpdir(), 'loom-p-')), 'blobs'));
  const line = readFileSync(fixture('upstream', 'pi-compact.v1.toolresult-image.jsonl'), 'utf8').split('\n')[2]!;
  const entry = JSON.parse(line) as { message: { content: { type: string; data?: string }[] } };
  const img = entry.message.content.find((b) => b.type === 'image')!;
  assert.equal(img.data!.length, 68584);
  const out = await prepareEntryForPersist(entry, store);
  const outImg = out.message.content.find((b) => b.type === 'image')!;
  const hash = createHash('sha256').update(Buffer.from(img.data!, 'base64')).digest('hex');
  assert.equal(outImg.data, `blob:sha256:${hash}`);
  assert.deepEqual(await store.get(hash), Buffer.from(img.data!, 'base64'));
  assert.equal(img.data!.length, 68584, 'input not mutated');
});

test('small images, existing refs and images outside content arrays stay inline', async () => {
  const store = new BlobStore(join(mkdtempSync(join(tmpdir(), 'loom-p-')), 'blobs'));
  const big = Buffer.alloc(2000, 7).toString('base64');
  const v = {
    content: [{ type: 'image', data: 'A'.repeat(1020) }, { type: 'image', data: `blob:sha256:${'a'.repeat(64)}` }],
    details: { images: [{ type: 'image', data: big }] },
  };
  assert.equal(await externalizeImages(v, store), v);
  const exactly = { content: [{ type: 'image', data: 'A'.repeat(1024) }] };
  const out = await externalizeImages(exactly, store);
  assert.match(out.content[0]!.data, /^blob:sha256:[0-9a-f]{64}$/);
});
