// Issue 22 §1, §7, §12, §16, §22: the search index deletes only what it made, keeps the sessions' words private,
// never hangs on a FIFO, rebuilds itself when FTS5's segments are damaged, and reads again a session replaced by
// another file of the same size and mtime.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INDEX_APPLICATION_ID, IndexNotOursError, openIndexDb } from '../../src/core/search/indexDb';
import { SessionSearchIndex } from '../../src/core/search/searchIndex';
import { loadSqliteWasm } from '../../src/core/store/sqliteWasm';
import { NODE_FS_VFS, registerNodeFsVfs } from '../../src/core/store/nodeFsVfs';

const made: string[] = [];
const tmp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-index-safety-'));
  made.push(dir);
  return dir;
};
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function session(id: string, words: string): string {
  const t = '2026-06-01T10:00:00.000Z';
  return [
    { type: 'session', version: 3, id, timestamp: t, cwd: '/p' },
    { type: 'message', id: `${id}-1`, parentId: null, timestamp: t, message: { role: 'user', content: words, timestamp: 0 } },
  ]
    .map((o) => JSON.stringify(o))
    .join('\n') + '\n';
}

/** A sessions root with one session holding `words`; returns [root, file]. */
function sessionsRoot(dir: string, words: string): [string, string] {
  const root = join(dir, 'sessions');
  mkdirSync(join(root, '--p--'), { recursive: true });
  const file = join(root, '--p--', 'a.jsonl');
  writeFileSync(file, session('aaaa0001', words));
  return [root, file];
}

/** Another program's SQLite database, made with SQLite itself (through the same WASM build). */
async function foreignDb(path: string, applicationId = 0): Promise<void> {
  const sqlite3 = await loadSqliteWasm();
  registerNodeFsVfs(sqlite3);
  const db = new sqlite3.oo1.DB({ filename: path, flags: 'c', vfs: NODE_FS_VFS } as never);
  db.exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('keep me'); PRAGMA application_id=${applicationId};`);
  db.close();
}

const snapshot = (paths: string[]) => paths.map((p) => { try { return readFileSync(p).toString('base64'); } catch { return null; } });

test("another program's database (with its -journal and -wal), or bytes that are not SQLite, at the index's path is refused with a sentence and left byte for byte", async () => {
  for (const [what, make, why] of [
    ['a plain database', (p: string) => foreignDb(p), /another database/],
    ["another program's application id", (p: string) => foreignDb(p, 0x1234), /application id 0x1234/],
    ['bytes that are not SQLite', async (p: string) => writeFileSync(p, Buffer.alloc(64 * 1024, 0x5a)), /not a SQLite database/],
  ] as const) {
    const dir = tmp();
    const path = join(dir, 'index.db');
    await make(path);
    writeFileSync(`${path}-journal`, 'their journal');
    writeFileSync(`${path}-wal`, 'their wal');
    const files = [path, `${path}-journal`, `${path}-wal`];
    const before = snapshot(files);
    await assert.rejects(SessionSearchIndex.open(path), (e: unknown) => {
      assert.ok(e instanceof IndexNotOursError, `${what}: ${String(e)}`);
      assert.match((e as Error).message, new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a Session Loom search index \\(`));
      assert.match((e as Error).message, why);
      assert.match((e as Error).message, /it was left untouched: remove it or choose another index folder$/);
      return true;
    });
    assert.deepEqual(snapshot(files), before, `${what}: every file as it was`);
  }
});

test('our index carries its mark; one made before the mark (our user_version and tables) is recognised and marked', async () => {
  const dir = tmp();
  const path = join(dir, 'index.db');
  let opened = await openIndexDb(path);
  assert.equal(opened.db.selectValue('PRAGMA application_id'), INDEX_APPLICATION_ID);
  opened.db.exec('PRAGMA application_id=0');
  opened.close();
  assert.equal(readFileSync(path).readUInt32BE(68), 0, 'unmarked, as before the mark');
  opened = await openIndexDb(path);
  try {
    assert.equal(opened.fresh, false, 'kept, not rebuilt');
    assert.equal(opened.db.selectValue('PRAGMA application_id'), INDEX_APPLICATION_ID);
  } finally {
    opened.close();
  }
});

test('the index folder is 0700 and its files 0600 whatever the umask: a 0600 session\'s words stay private', async () => {
  const dir = tmp();
  const [root] = sessionsRoot(dir, 'hunter2 secret words');
  const cache = join(dir, 'cache', 'index-x');
  const old = process.umask(0);
  try {
    const idx = await SessionSearchIndex.open(join(cache, 'index.db'));
    try {
      await idx.update([root]);
      assert.equal(statSync(join(cache, 'index.lock')).mode & 0o777, 0o600);
    } finally {
      idx.close();
    }
  } finally {
    process.umask(old);
  }
  assert.equal(statSync(cache).mode & 0o777, 0o700);
  assert.equal(statSync(join(cache, 'index.db')).mode & 0o777, 0o600);
});

test('a FIFO standing in for index.lock, index.db or its journal is refused at once with a sentence (no hang)', async () => {
  for (const name of ['index.lock', 'index.db', 'index.db-journal']) {
    const dir = tmp();
    execFileSync('mkfifo', [join(dir, name)]);
    await assert.rejects(SessionSearchIndex.open(join(dir, 'index.db')), (e: unknown) => /not a regular file/.test((e as Error).message), name);
  }
});

test('a damaged FTS5 segment is rebuilt: the next search answers from a rebuilt index, and an open after an unclean end checks and rebuilds', async () => {
  const dir = tmp();
  const [root] = sessionsRoot(dir, 'gadolinium ytterbium');
  const path = join(dir, 'cache', 'index.db');
  let idx = await SessionSearchIndex.open(path);
  await idx.update([root]);
  idx.close();
  const damage = async () => {
    const opened = await openIndexDb(path);
    // Every segment's leaf pages zeroed (ids above 10 are FTS5's segment blocks; 1 is its structure, 10 its averages).
    opened.db.exec('UPDATE fts_data SET block = zeroblob(length(block)) WHERE id > 10');
    opened.close();
  };
  await damage();
  idx = await SessionSearchIndex.open(path);
  try {
    await idx.update([root]); // nothing changed: no row is written, the damage stays
    const found = await idx.search('gadolinium');
    assert.equal(found.results.sessions.length, 1, 'the query after the damage found the session (rebuilt)');
    assert.equal((await idx.search('ytterbium')).results.sessions.length, 1);
  } finally {
    idx.close();
  }
  await damage();
  writeFileSync(join(dir, 'cache', 'index.lock'), '999999999'); // a process that died holding the index
  idx = await SessionSearchIndex.open(path);
  try {
    assert.equal(idx.fresh, true, 'the integrity check found the damage and the index starts again');
    await idx.update([root]);
    assert.equal((await idx.search('gadolinium')).results.sessions.length, 1);
  } finally {
    idx.close();
  }
});

test('a session replaced by another file of the same size and mtime (a new inode) is read again', async () => {
  const dir = tmp();
  const [root, file] = sessionsRoot(dir, 'zirconium alpha');
  const when = new Date('2026-06-02T10:00:00Z');
  utimesSync(file, when, when);
  const idx = await SessionSearchIndex.open(join(dir, 'cache', 'index.db'));
  try {
    await idx.update([root]);
    const st = statSync(file);
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, session('aaaa0001', 'hafnium!! alpha')); // same length as 'zirconium alpha'
    assert.equal(statSync(other).size, st.size);
    utimesSync(other, when, when);
    renameSync(other, file);
    const now = statSync(file);
    assert.equal(now.size, st.size);
    assert.equal(now.mtimeMs, st.mtimeMs);
    assert.notEqual(now.ino, st.ino);
    const stats = await idx.update([root]);
    assert.equal(stats.unchanged, 0, 'not taken for unchanged');
    assert.equal((await idx.search('hafnium')).results.sessions.length, 1);
    assert.equal((await idx.search('zirconium')).results.sessions.length, 0);
  } finally {
    idx.close();
  }
});

test('an unchanged session whose mtime has a sub-millisecond fraction stays unchanged (the index keeps its mtime exactly, not to the 15 digits JSON gives a real)', async () => {
  const dir = tmp();
  const [root, file] = sessionsRoot(dir, 'niobium alpha');
  // 17 significant digits in milliseconds: what a nanosecond file system gives.
  const seconds = 1780000000.1234567;
  utimesSync(file, seconds, seconds);
  const ms = statSync(file).mtimeMs;
  assert.ok(String(ms).replace(/[^0-9]/g, '').length >= 16, `the file system keeps a fine mtime (${ms})`);
  const idx = await SessionSearchIndex.open(join(dir, 'cache', 'index.db'));
  try {
    await idx.update([root]);
    const again = await idx.update([root]);
    assert.deepEqual([again.unchanged, again.reindexed, again.appended], [1, 0, 0]);
    // One microsecond later, same size and inode: a change, read again.
    utimesSync(file, seconds + 0.000001, seconds + 0.000001);
    const touched = await idx.update([root]);
    assert.equal(touched.unchanged, 0, 'a microsecond is a change');
  } finally {
    idx.close();
  }
});

test('opening an index and searching it writes nothing to it (a CLI search is a reader)', async () => {
  const dir = tmp();
  const [root] = sessionsRoot(dir, 'tantalum alpha');
  const path = join(dir, 'cache', 'index.db');
  let idx = await SessionSearchIndex.open(path);
  await idx.update([root]);
  idx.close();
  const before = snapshot([path, `${path}-journal`]);
  idx = await SessionSearchIndex.open(path);
  try {
    await idx.update([root]);
    assert.equal((await idx.search('tantalum', { entriesPerSession: 3 })).results.sessions.length, 1);
  } finally {
    idx.close();
  }
  assert.deepEqual(snapshot([path, `${path}-journal`]), before);
});
