import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStore, defaultBlobDir, describeBlobProblem, findBlobRefs, isBlobRef, parseBlobRef, resolveImageData, sha256Hex } from '../../src/core/formats/xcsh/blobs';
import { severityOf } from '../../src/core/diagnostics';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { SessionManager } from '../reference/manager';
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

test('findBlobRefs: image blocks wherever they stand (message incl. toolResult, custom_message, any nested field: Part B §19, issue 22 §25), never text that merely looks like a reference', () => {
  const img = { type: 'image', mimeType: 'image/png', data: `blob:sha256:${H}` };
  const entries = [
    { type: 'message', id: '1', message: { role: 'toolResult', content: [img] } },
    { type: 'custom_message', id: '2', content: [img, { type: 'text', text: `blob:sha256:${H}` }] },
    { type: 'custom', id: '3', data: { content: [img] } },
    { type: 'message', id: '4', message: { role: 'user', content: 'blob:sha256:' + H } },
  ] as unknown as SessionEntry[];
  assert.deepEqual(findBlobRefs(entries).map((r) => r.entryId), ['1', '2', '3']);
});

// ---- what a store entry must be before its bytes are used (issue 15, point 13) ----

/**
 * A store holding one good blob and one of each bad kind, all under valid hash names, plus a
 * session file that references every one of them (one image per entry).
 */
function badStoreFixture() {
  const root = mkdtempSync(join(tmpdir(), 'loom-bad-blobs-'));
  const dir = join(root, 'blobs');
  mkdirSync(dir);
  const named = (s: string) => sha256Hex(Buffer.from(s));
  const good = Buffer.from('good image bytes');
  const goodHash = sha256Hex(good);
  writeFileSync(join(dir, goodHash), good);
  // a link out of the store under the hash OF ITS TARGET'S CONTENT: only the link check stops it
  const secret = join(root, 'passwd');
  writeFileSync(secret, 'root:x:0:0:root:/root:/bin/bash\n');
  const linkHash = sha256Hex(readFileSync(secret));
  symlinkSync(secret, join(dir, linkHash));
  const zeroHash = named('zero');
  symlinkSync('/dev/zero', join(dir, zeroHash));
  const fifoHash = named('fifo');
  execFileSync('mkfifo', [join(dir, fifoHash)]);
  const folderHash = named('folder');
  mkdirSync(join(dir, folderHash));
  const big = Buffer.alloc(2000, 7);
  const bigHash = sha256Hex(big);
  writeFileSync(join(dir, bigHash), big);
  const wrongHash = named('what the name promises');
  writeFileSync(join(dir, wrongHash), 'something else');
  const missingHash = named('never stored');
  return { root, dir, good, goodHash, secret, linkHash, zeroHash, fifoHash, folderHash, bigHash, wrongHash, missingHash };
}
const SMALL_CAP = 1000;

test('blob reads: only a regular file inside the store, within the cap, whose SHA-256 is its name; each failure typed, never thrown', { timeout: 10_000 }, async () => {
  const f = badStoreFixture();
  const s = new BlobStore(f.dir, { maxBytes: SMALL_CAP });
  const t0 = Date.now();
  assert.deepEqual(await s.read(f.goodHash), { ok: true, bytes: f.good });
  assert.deepEqual(await s.read(f.linkHash), { ok: false, problem: { reason: 'symlink' } });
  assert.deepEqual(await s.read(f.zeroHash), { ok: false, problem: { reason: 'symlink' } });
  assert.deepEqual(await s.read(f.fifoHash), { ok: false, problem: { reason: 'not-regular', fileType: 'FIFO' } });
  assert.deepEqual(await s.read(f.folderHash), { ok: false, problem: { reason: 'not-regular', fileType: 'folder' } });
  assert.deepEqual(await s.read(f.bigHash), { ok: false, problem: { reason: 'too-large', size: 2000, maxBytes: SMALL_CAP } });
  assert.deepEqual(await s.read(f.wrongHash), { ok: false, problem: { reason: 'hash-mismatch', actual: sha256Hex(Buffer.from('something else')) } });
  assert.deepEqual(await s.read(f.missingHash), { ok: false, problem: { reason: 'missing' } });
  assert.ok(Date.now() - t0 < 5000, 'a FIFO or /dev/zero does not hang the read');
  for (const h of [f.linkHash, f.zeroHash, f.fifoHash, f.folderHash, f.bigHash, f.wrongHash]) assert.equal(await s.get(h), null, h);
  // has() looks at the entry itself: a link is not a blob, even to a regular file
  assert.equal(await s.has(f.goodHash), true);
  for (const h of [f.linkHash, f.zeroHash, f.fifoHash, f.folderHash]) assert.equal(await s.has(h), false, h);
  // with the default cap the 2000-byte blob is fine
  assert.equal((await new BlobStore(f.dir).read(f.bigHash)).ok, true);
});

test('resolveImageData: a linked file outside the store is never embedded; a bad blob is "bad" with its reason', { timeout: 10_000 }, async () => {
  const f = badStoreFixture();
  const s = new BlobStore(f.dir, { maxBytes: SMALL_CAP });
  const r = await resolveImageData(`blob:sha256:${f.linkHash}`, s);
  assert.deepEqual(r, { kind: 'bad', hash: f.linkHash, problem: { reason: 'symlink' } });
  assert.ok(!JSON.stringify(r).includes(readFileSync(f.secret).toString('base64')));
  assert.equal((await resolveImageData(`blob:sha256:${f.fifoHash}`, s)).kind, 'bad');
  assert.equal((await resolveImageData(`blob:sha256:${f.zeroHash}`, s)).kind, 'bad');
  assert.equal((await resolveImageData(`blob:sha256:${f.wrongHash}`, s)).kind, 'bad');
  assert.deepEqual(await resolveImageData(`blob:sha256:${f.missingHash}`, s), { kind: 'missing', hash: f.missingHash });
  assert.deepEqual(await resolveImageData(`blob:sha256:${f.goodHash}`, s), { kind: 'blob', base64: f.good.toString('base64'), hash: f.goodHash });
  assert.match(describeBlobProblem({ reason: 'symlink' }), /symbolic link/);
  assert.match(describeBlobProblem({ reason: 'too-large', size: 2000, maxBytes: 1000 }), /2000 bytes, over the 1000-byte limit/);
});

test('the blob store folder itself may be a symbolic link (a store on another disk); only its entries may not', async () => {
  const f = badStoreFixture();
  const linkedDir = join(f.root, 'store-link');
  symlinkSync(f.dir, linkedDir);
  const s = new BlobStore(linkedDir);
  assert.deepEqual(await s.get(f.goodHash), f.good);
  assert.equal(await s.has(f.goodHash), true);
  assert.equal((await s.read(f.linkHash)).ok, false);
});

function sessionReferencing(dir: string, hashes: string[]): string {
  const header = { type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' };
  const lines = [JSON.stringify(header)];
  hashes.forEach((h, i) => {
    const id = String(i).padStart(8, '0');
    const parentId = i === 0 ? null : String(i - 1).padStart(8, '0');
    lines.push(JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: `blob:sha256:${h}` }] } }));
  });
  const p = join(dir, 'images.jsonl');
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

test('loading with a store: each bad blob is one bad-blob diagnostic on its line; content is checked only with verifyOnCheck', { timeout: 10_000 }, async () => {
  const f = badStoreFixture();
  const order = [f.goodHash, f.linkHash, f.zeroHash, f.fifoHash, f.folderHash, f.bigHash, f.wrongHash, f.missingHash];
  const p = sessionReferencing(f.root, order);
  const quick = await loadSessionFile(p, { blobs: new BlobStore(f.dir, { maxBytes: SMALL_CAP }) });
  const kinds = (l: typeof quick) => l.diagnostics.map((d) => [d.line, d.kind]);
  // line 2 is the good blob; line 8 (wrong content) needs a read to be found
  assert.deepEqual(kinds(quick), [[3, 'bad-blob'], [4, 'bad-blob'], [5, 'bad-blob'], [6, 'bad-blob'], [7, 'bad-blob'], [9, 'missing-blob']]);
  assert.match(quick.diagnostics[0]!.message, new RegExp(`${f.linkHash} .*symbolic link.*reference left in place`));
  assert.match(quick.diagnostics[2]!.message, /is a FIFO, not a regular file/);
  assert.match(quick.diagnostics[3]!.message, /is a folder, not a regular file/);
  assert.match(quick.diagnostics[4]!.message, /2000 bytes, over the 1000-byte limit/);
  const verified = await loadSessionFile(p, { blobs: new BlobStore(f.dir, { maxBytes: SMALL_CAP, verifyOnCheck: true }) });
  assert.deepEqual(kinds(verified), [[3, 'bad-blob'], [4, 'bad-blob'], [5, 'bad-blob'], [6, 'bad-blob'], [7, 'bad-blob'], [8, 'bad-blob'], [9, 'missing-blob']]);
  assert.match(verified.diagnostics[5]!.message, /does not match its content/);
  assert.equal(severityOf('bad-blob'), 'warning');
});

test('SessionManager with a store: one bad blob costs its image only (the others resolve; references stay)', { timeout: 10_000 }, async () => {
  const f = badStoreFixture();
  const order = [f.linkHash, f.zeroHash, f.fifoHash, f.folderHash, f.bigHash, f.wrongHash, f.goodHash];
  const p = sessionReferencing(f.root, order);
  const m = await SessionManager.open(p, { blobs: new BlobStore(f.dir, { maxBytes: SMALL_CAP }), rewriteMigrated: false });
  const data = m.getEntries().map((e) => ((e as { message: { content: { data: string }[] } }).message.content[0]!.data));
  assert.deepEqual(data.slice(0, -1), order.slice(0, -1).map((h) => `blob:sha256:${h}`));
  assert.equal(data.at(-1), f.good.toString('base64'));
});

test('put: a planted link at the final name is replaced by the blob, never written through; a corrupted blob is rewritten', async () => {
  const f = badStoreFixture();
  const s = new BlobStore(f.dir);
  const victim = join(f.root, 'victim');
  writeFileSync(victim, 'do not touch');
  const bytes = Buffer.from('new image');
  const h = sha256Hex(bytes);
  symlinkSync(victim, join(f.dir, h));
  assert.equal(await s.put(bytes), h);
  assert.equal(readFileSync(victim, 'utf8'), 'do not touch');
  assert.equal(lstatSync(join(f.dir, h)).isFile(), true);
  assert.deepEqual(await s.get(h), bytes);
  // the corrupted one (name ≠ content) is replaced by the right bytes
  const wanted = Buffer.from('what the name promises');
  assert.equal(await s.put(wanted), f.wrongHash);
  assert.deepEqual(await s.get(f.wrongHash), wanted);
  assert.ok(!readdirSync(f.dir).some((n) => n.endsWith('.tmp')), 'no temp files left');
});
