import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStore, defaultBlobDir, findBlobRefs, isBlobRef, parseBlobRef, resolveImageData } from '../../src/core/formats/xcsh/blobs';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';

const store = () => new BlobStore(join(mkdtempSync(join(tmpdir(), 'loom-blobs-')), 'blobs'));
const H = 'a'.repeat(64);

test('default directory is ~/.xcsh/agent/blobs', () => {
  assert.equal(defaultBlobDir(), join(homedir(), '.xcsh', 'agent', 'blobs'));
});

test('put returns the sha256 of the bytes; get/has round-trip', async () => {
  const s = store();
  const bytes = Buffer.from([0, 1, 2, 255]);
  const h = await s.put(bytes);
  assert.equal(h, createHash('sha256').update(bytes).digest('hex'));
  assert.deepEqual(await s.get(h), bytes);
  assert.equal(await s.has(h), true);
  assert.equal(await s.put(bytes), h, 'idempotent');
  assert.deepEqual(readdirSync(s.dir), [h], 'no temp files left');
  assert.equal(await s.get(H), null);
  assert.equal(await s.has(H), false);
});

test('parseBlobRef accepts exactly 64 lowercase hex', () => {
  assert.equal(parseBlobRef(`blob:sha256:${H}`), H);
  for (const bad of [`blob:sha256:${H.toUpperCase()}`, `blob:sha256:${H}0`, `blob:sha256:${H.slice(1)}`, 'blob:sha256:../../../etc/passwd', `blob:sha256:${H}/..`, H, 42, null]) {
    assert.equal(parseBlobRef(bad), null, String(bad));
  }
  assert.equal(isBlobRef('blob:sha256:x'), true);
  assert.equal(isBlobRef('iVBORw0'), false);
});

test('a traversal reference never reaches the file system', async () => {
  const s = store();
  assert.deepEqual(await resolveImageData('blob:sha256:../../../../etc/passwd', s), { kind: 'invalid', ref: 'blob:sha256:../../../../etc/passwd' });
  assert.equal(await s.get('../../etc/passwd'), null);
  assert.equal(await s.has('../x'), false);
  assert.equal(existsSync(s.dir), false, 'nothing was created');
});

test('resolveImageData: inline, blob, missing', async () => {
  const s = store();
  assert.deepEqual(await resolveImageData('QUJD', s), { kind: 'inline', base64: 'QUJD' });
  const h = await s.put(Buffer.from('ABC'));
  assert.deepEqual(await resolveImageData(`blob:sha256:${h}`, s), { kind: 'blob', base64: 'QUJD', hash: h });
  assert.deepEqual(await resolveImageData(`blob:sha256:${H}`, s), { kind: 'missing', hash: H });
});

test('findBlobRefs: message (incl. toolResult) and custom_message content only', () => {
  const img = { type: 'image', mimeType: 'image/png', data: `blob:sha256:${H}` };
  const entries = [
    { type: 'message', id: '1', message: { role: 'toolResult', content: [img] } },
    { type: 'custom_message', id: '2', content: [img, { type: 'text', text: `blob:sha256:${H}` }] },
    { type: 'custom', id: '3', data: { content: [img] } },
    { type: 'message', id: '4', message: { role: 'user', content: 'blob:sha256:' + H } },
  ] as unknown as SessionEntry[];
  assert.deepEqual(findBlobRefs(entries).map((r) => r.entryId), ['1', '2']);
});
