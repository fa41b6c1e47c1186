// The index's rows are bound through SQLite's C functions from one reused WASM buffer
// (rowWriter.ts): what is stored must be what was given (non-ASCII text, a text bigger than the
// buffer so far, null and fractional times), and an SQLite error must still carry its result code
// (the index tells a damaged database apart by it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openIndexDb } from '../../src/core/search/indexDb';
import { RowWriter } from '../../src/core/search/rowWriter';

test('RowWriter stores what it is given: non-ASCII text, a body larger than its buffer, null and fractional times; errors keep their SQLite result code', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-row-writer-'));
  const opened = await openIndexDb(join(dir, 'index.db'));
  try {
    const db = opened.db;
    const w = new RowWriter(db, opened.sqlite3);
    const long = `${'naïve 日本語 ✓ 😀 filler '.repeat(20_000)} zzlastword`;
    w.add(2 ** 24 + 1, 'Café crème', 'message user zzslroleuser', 'ab12cd34', 1780000000123, 10, 20);
    w.add(2 ** 24 + 2, long, 'message assistant', 'é-id-ünïcode', null, 2 ** 40, 7);
    w.add(2 ** 24 + 3, 'after the long one', 'message', 'x', 1780000000000.5, 0, 1);
    assert.equal(w.rows, 3);
    assert.deepEqual(db.selectObjects('SELECT id, eid, ts, off, len FROM entries ORDER BY id').map((r) => ({ ...r })), [
      { id: 2 ** 24 + 1, eid: 'ab12cd34', ts: 1780000000123, off: 10, len: 20 },
      { id: 2 ** 24 + 2, eid: 'é-id-ünïcode', ts: null, off: 2 ** 40, len: 7 },
      { id: 2 ** 24 + 3, eid: 'x', ts: 1780000000000.5, off: 0, len: 1 },
    ]);
    const match = (q: string): number[] => db.selectValues('SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid', [q]) as number[];
    assert.deepEqual(match('cafe'), [2 ** 24 + 1]);
    assert.deepEqual(match('zzlastword'), [2 ** 24 + 2]);
    assert.deepEqual(match('zzslroleuser'), [2 ** 24 + 1]);
    assert.deepEqual(match('after'), [2 ** 24 + 3]);
    assert.throws(
      () => w.add(2 ** 24 + 3, 'again', 'message', 'y', null, 0, 1),
      (e: unknown) => ((e as { resultCode?: number }).resultCode ?? 0) % 256 === 19,
    );
    w.close();
  } finally {
    opened.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
