// Issue 22 §7 (the rest): every file and folder the product makes for itself is private to the
// user — folders 0700, files 0600 — whatever the umask: the lazy index cache (its folder, made
// under the extension's global storage or the CLI's cache folder, and its files) and the CLI's
// own-writes record. Folders are made level by level: Node 20's recursive mkdir never returns
// under /proc (`--index /proc/nonexistent/x`), so a folder that cannot be made must fail at once.
import { test } from 'node:test';
import { BlobStore } from '../../src/core/formats/xcsh/blobs';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLazyIndex } from '../../src/core/engine/xcsh/lazy/lazyIndex';
import { IndexCache } from '../../src/core/engine/xcsh/lazy/indexCache';
import { noteOwnWrite, isOwnWrite } from '../../src/cli/ownWrites';
import { makePrivateDir } from '../../src/core/store/privateDir';

const H3 = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}';
const msg = (id: string, parentId: string | null) => JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'x' } });
const mode = (p: string) => statSync(p).mode & 0o777;

async function withUmask<T>(mask: number, f: () => Promise<T>): Promise<T> {
  const old = process.umask(mask);
  try {
    return await f();
  } finally {
    process.umask(old);
  }
}

function session(dir: string): string {
  const p = join(dir, 's.jsonl');
  writeFileSync(p, `${H3}\n${msg('aaaaaaaa', null)}\n${msg('bbbbbbbb', 'aaaaaaaa')}\n`);
  return p;
}

test('issue 22 §7: the lazy index cache folder (and each folder made above it) is 0700 and its files 0600 under umask 0; a folder of ours made 0777 before is made 0700', async () => {
  const root = mkdtempSync(join(tmpdir(), 'loom-private-'));
  const p = session(root);
  const ix = await buildLazyIndex(p);
  await withUmask(0, async () => {
    const dir = join(root, 'globalStorage', 'session-loom', 'index');
    assert.equal(await new IndexCache(dir, { minBytes: 0 }).save(ix!), true);
    for (const d of [join(root, 'globalStorage'), join(root, 'globalStorage', 'session-loom'), dir]) assert.equal(mode(d), 0o700, d);
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.equal(mode(join(dir, files[0]!)), 0o600);

    const old = join(root, 'old-cache');
    mkdirSync(old, { mode: 0o777 });
    chmodSync(old, 0o777);
    assert.equal(await new IndexCache(old, { minBytes: 0 }).save(ix!), true);
    assert.equal(mode(old), 0o700);
    assert.equal(mode(join(old, readdirSync(old)[0]!)), 0o600);
  });
});

test('issue 22 §7: the CLI\'s own-writes record: its folder 0700 and its file 0600 under umask 0, also in a folder made 0777 before', async () => {
  const root = mkdtempSync(join(tmpdir(), 'loom-private-'));
  const p = session(root);
  await withUmask(0, async () => {
    const file = join(root, 'cache', 'session-loom', 'own-writes.json');
    await noteOwnWrite(p, file);
    assert.equal(mode(join(root, 'cache')), 0o700);
    assert.equal(mode(join(root, 'cache', 'session-loom')), 0o700);
    assert.equal(mode(file), 0o600);
    const st = statSync(p);
    assert.equal(await isOwnWrite(p, { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs }, file), true);

    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    await noteOwnWrite(p, join(open, 'own-writes.json'));
    assert.equal(mode(open), 0o700);
    assert.equal(mode(join(open, 'own-writes.json')), 0o600);
  });
});

test('issue 22 §7: a folder under /proc that cannot be made fails at once (Node 20\'s recursive mkdir loops forever there): the cache and the record give up, never hang', { timeout: 20_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'loom-private-'));
  const p = session(root);
  const built = await buildLazyIndex(p);
  await assert.rejects(makePrivateDir('/proc/nonexistent/x'), (e: NodeJS.ErrnoException) => e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'EROFS');
  assert.equal(await new IndexCache('/proc/nonexistent/x', { minBytes: 0 }).save(built), false);
  await noteOwnWrite(p, '/proc/nonexistent/x/own-writes.json'); // best effort: returns
  // A file where a folder is wanted: ENOTDIR, at once.
  writeFileSync(join(root, 'file'), '');
  await assert.rejects(makePrivateDir(join(root, 'file', 'sub')), (e: NodeJS.ErrnoException) => e.code === 'ENOTDIR');
});

test('issue 22 §7: a blob written to the store is 0600 under umask 0 (it holds the session\'s data)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-private-'));
  await withUmask(0, async () => {
    const store = new BlobStore(join(dir, 'blobs'));
    const hash = await store.put(Buffer.from('a secret picture'));
    assert.equal(mode(join(store.dir, hash)), 0o600);
  });
});
