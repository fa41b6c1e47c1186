import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dshAttachmentPath, readDshAttachment } from '../../src/core/formats/dsh/index';

function store(): { home: string; put: (bytes: Buffer, as?: string) => string } {
  const home = mkdtempSync(join(tmpdir(), 'loom-dsh-att-'));
  return {
    home,
    put(bytes, as) {
      const hex = as ?? createHash('sha256').update(bytes).digest('hex');
      const dir = join(home, 'attachments', 'v1', 'objects', hex.slice(0, 2));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, hex), bytes);
      return hex;
    },
  };
}

test('an attachment resolves to its verified bytes at attachments/v1/objects/<hex[0:2]>/<hex>', async () => {
  const s = store();
  const hex = s.put(Buffer.from('PNG…'));
  assert.equal(dshAttachmentPath(`sha256:${hex}`, s.home), join(s.home, 'attachments', 'v1', 'objects', hex.slice(0, 2), hex));
  const r = await readDshAttachment(`sha256:${hex}`, { home: s.home });
  assert.ok(r.ok);
  assert.equal(r.bytes.toString(), 'PNG…');
});

test('typed failures: invalid id, missing, hash mismatch, too large, symlink, FIFO', async () => {
  const s = store();
  assert.deepEqual((await readDshAttachment('sha256:../../etc/passwd', { home: s.home })), { ok: false, problem: { reason: 'invalid-id', id: 'sha256:../../etc/passwd' } });
  assert.equal((await readDshAttachment(`sha256:${'A'.repeat(64)}`, { home: s.home })).ok, false);
  const absent = 'a'.repeat(64);
  assert.deepEqual(await readDshAttachment(`sha256:${absent}`, { home: s.home }), { ok: false, problem: { reason: 'missing' } });

  const planted = 'b'.repeat(64);
  s.put(Buffer.from('not me'), planted);
  const mismatch = await readDshAttachment(`sha256:${planted}`, { home: s.home });
  assert.equal(!mismatch.ok && mismatch.problem.reason, 'hash-mismatch');

  const big = s.put(Buffer.alloc(100, 1));
  const tooBig = await readDshAttachment(`sha256:${big}`, { home: s.home, maxBytes: 10 });
  assert.deepEqual(!tooBig.ok && tooBig.problem, { reason: 'too-large', size: 100, maxBytes: 10 });

  const secret = join(s.home, 'secret');
  writeFileSync(secret, 'secret');
  const linkHex = createHash('sha256').update('secret').digest('hex');
  mkdirSync(join(s.home, 'attachments', 'v1', 'objects', linkHex.slice(0, 2)), { recursive: true });
  symlinkSync(secret, join(s.home, 'attachments', 'v1', 'objects', linkHex.slice(0, 2), linkHex));
  const link = await readDshAttachment(`sha256:${linkHex}`, { home: s.home });
  assert.equal(!link.ok && link.problem.reason, 'symlink');

  const fifoHex = 'c'.repeat(64);
  mkdirSync(join(s.home, 'attachments', 'v1', 'objects', 'cc'), { recursive: true });
  execFileSync('mkfifo', [join(s.home, 'attachments', 'v1', 'objects', 'cc', fifoHex)]);
  const fifo = await readDshAttachment(`sha256:${fifoHex}`, { home: s.home });
  assert.equal(!fifo.ok && fifo.problem.reason, 'not-regular');
});
