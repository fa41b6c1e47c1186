// One contract, every SessionStorage: the same tests run unchanged against FileSessionStorage
// (in a temp dir) and MemorySessionStorage (test/contract/storage.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { SessionStorage, StorageFaults } from '../reference/storage';

export interface StorageFixture {
  storage: SessionStorage;
  /** A fresh directory in which the test may create files. */
  dir: string;
  /** Re-opens the same backing store (File: a new instance over the same directory). */
  reopen(): SessionStorage;
}

export function runStorageContract(name: string, make: (faults: StorageFaults) => StorageFixture): void {
  const fresh = (faults: StorageFaults = {}) => make(faults);

  test(`${name}: writeText / readText / exists / stat`, async () => {
    const { storage: s, dir } = fresh();
    const p = join(dir, 'a.jsonl');
    assert.equal(await s.exists(p), false);
    assert.equal(s.statSync(p), null);
    await s.writeText(p, 'héllo\n');
    assert.equal(await s.exists(p), true);
    assert.equal(s.existsSync(p), true);
    assert.equal(await s.readText(p), 'héllo\n');
    const st = s.statSync(p)!;
    assert.equal(st.size, Buffer.byteLength('héllo\n'));
    assert.equal(st.isFile, true);
    await assert.rejects(s.readText(join(dir, 'missing')));
  });

  test(`${name}: readBytes gives the bytes as written, UTF-8 or not (readText would turn them into U+FFFD)`, async () => {
    const { storage: s, dir } = fresh();
    const p = join(dir, 'b.jsonl');
    const bytes = Buffer.from([0x7b, 0x22, 0xff, 0xc3, 0x22, 0x7d, 0x0a]);
    await s.writeTextAtomic(p, bytes);
    assert.ok(Buffer.from(await s.readBytes(p)).equals(bytes));
    assert.notEqual(Buffer.from(await s.readText(p), 'utf8').length, bytes.length);
    await assert.rejects(s.readBytes(join(dir, 'missing')));
  });

  test(`${name}: writer appends lines in call order`, async () => {
    const { storage: s, dir } = fresh();
    const p = join(dir, 'w.jsonl');
    const w = s.openWriter(p);
    const writes = [];
    for (let i = 0; i < 50; i++) writes.push(w.writeLine(JSON.stringify({ i })));
    await Promise.all(writes);
    await w.close();
    const lines = (await s.readText(p)).trimEnd().split('\n').map((l) => JSON.parse(l).i as number);
    assert.deepEqual(lines, [...Array(50).keys()]);
  });

  test(`${name}: writer appends to existing content (O_APPEND), never overwrites`, async () => {
    const { storage: s, dir } = fresh();
    const p = join(dir, 'w.jsonl');
    await s.writeText(p, 'first\n');
    const w = s.openWriter(p);
    await w.writeLine('second');
    await w.close();
    assert.equal(await s.readText(p), 'first\nsecond\n');
  });

  test(`${name}: flush makes lines durable (visible to a fresh instance)`, async () => {
    const fx = fresh();
    const p = join(fx.dir, 'd.jsonl');
    const w = fx.storage.openWriter(p);
    await w.writeLine('{"a":1}');
    await w.flush();
    assert.equal(await fx.reopen().readText(p), '{"a":1}\n');
    await w.writeLine('{"b":2}');
    await w.fsync();
    assert.equal(await fx.reopen().readText(p), '{"a":1}\n{"b":2}\n');
    await w.close();
  });

  test(`${name}: exclusive writer refuses an existing file`, async () => {
    const { storage: s, dir } = fresh();
    const p = join(dir, 'x.jsonl');
    await s.writeText(p, 'keep\n');
    const w = s.openWriter(p, { exclusive: true });
    await assert.rejects(w.writeLine('no'));
    assert.equal(await s.readText(p), 'keep\n');
    assert.ok(w.getError());
  });

  test(`${name}: atomic rewrite replaces the content`, async () => {
    const { storage: s, dir } = fresh();
    const p = join(dir, 'r.jsonl');
    await s.writeText(p, 'old\n');
    await s.writeTextAtomic(p, 'new\n');
    assert.equal(await s.readText(p), 'new\n');
    assert.deepEqual(s.listFilesSync(dir), ['r.jsonl']);
  });

  for (const op of ['atomic-temp', 'fsync', 'rename'] as const) {
    test(`${name}: a failure at "${op}" mid-rewrite leaves the original intact and no temp file`, async () => {
      let armed = false;
      const { storage: s, dir } = fresh({
        beforeWrite(o) {
          if (armed && o === op) throw new Error(`injected ${op} failure`);
        },
      });
      const p = join(dir, 'r.jsonl');
      await s.writeText(p, 'original\n');
      armed = true;
      await assert.rejects(s.writeTextAtomic(p, 'replacement\n'), /injected/);
      armed = false;
      assert.equal(await s.readText(p), 'original\n');
      assert.deepEqual(s.listFilesSync(dir), ['r.jsonl']);
    });
  }

  test(`${name}: a failed write latches; every later writer operation rethrows it`, async () => {
    let fail = false;
    const { storage: s, dir } = fresh({
      beforeWrite(o) {
        if (fail && o === 'append') throw new Error('disk full');
      },
    });
    const p = join(dir, 'l.jsonl');
    const w = s.openWriter(p);
    await w.writeLine('ok');
    fail = true;
    await assert.rejects(w.writeLine('lost'), /disk full/);
    fail = false; // the disk recovers, but the writer must not pretend nothing happened
    assert.match(w.getError()!.message, /disk full/);
    await assert.rejects(w.writeLine('after'), /disk full/);
    await assert.rejects(w.flush(), /disk full/);
    await assert.rejects(w.fsync(), /disk full/);
    await assert.rejects(w.close(), /disk full/);
    assert.equal(await s.readText(p), 'ok\n');
  });

  test(`${name}: readTextPrefix reads at most maxBytes`, async () => {
    const { storage: s, dir } = fresh();
    const p = join(dir, 'p.jsonl');
    await s.writeText(p, 'abcdefghij');
    assert.equal(await s.readTextPrefix(p, 4), 'abcd');
    assert.equal(await s.readTextPrefix(p, 100), 'abcdefghij');
  });

  test(`${name}: listing, rename, unlink, ensureDir, writeTextSync`, async () => {
    const { storage: s, dir } = fresh();
    const sub = join(dir, 'sub', 'deeper');
    s.ensureDirSync(sub);
    assert.equal(s.existsSync(sub), true);
    assert.deepEqual(s.listFilesSync(sub), []);
    assert.deepEqual(s.listFilesSync(join(dir, 'nope')), []);
    s.writeTextSync(join(sub, 'b.jsonl'), 'b');
    await s.writeText(join(sub, 'a.jsonl'), 'a');
    assert.deepEqual(s.listFilesSync(sub), ['a.jsonl', 'b.jsonl']);
    assert.deepEqual(s.listFilesSync(join(dir, 'sub')), [], 'directories are not files');
    await s.rename(join(sub, 'a.jsonl'), join(sub, 'c.jsonl'));
    assert.deepEqual(s.listFilesSync(sub), ['b.jsonl', 'c.jsonl']);
    await s.unlink(join(sub, 'b.jsonl'));
    assert.deepEqual(s.listFilesSync(sub), ['c.jsonl']);
    assert.equal(await s.readText(join(sub, 'c.jsonl')), 'a');
    await assert.rejects(s.unlink(join(sub, 'b.jsonl')));
  });
}
