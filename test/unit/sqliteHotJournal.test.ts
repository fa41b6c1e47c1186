// The SQLite snapshot reader against damage and rollback journals (issue 22, points 5 and 13):
// - a WAL whose commit frame claims a database far larger than the files hold is not trusted
//   (nothing of that size is allocated): the frames from that commit on are ignored, said so;
// - a hot rollback journal (`<db>-journal`) left by a writer that spilled its transaction into
//   the main file, alive or SIGKILLed, is played back in memory as SQLite would, so the reader sees
//   what `sqlite3` itself reads (on a copy: sqlite3 rolls the original back), and the original
//   files keep their bytes and mtimes; a journal that is not hot (zeroed header) is ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSqliteSnapshot, walChecksum } from '../../src/core/store/sqliteSnapshot';
import { listDshDatabaseSessions, loadDshDatabaseSession } from '../../src/core/formats/dsh/index';
import { openPromptHistory } from '../../src/core/history/promptHistory';
import { dshFixtureText, storeSessionOf, writeDshStore } from '../helpers/dshBuild';
import { snapshotValues, SQLITE3, sqliteKilledAfter, sqliteWriter } from '../helpers/sqliteCli';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'loom-journal-'));
const WAL_SETUP = 'PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;';
/** A transaction big enough to spill out of a 1-page cache into the main file (a hot journal then). */
const SPILL = "CREATE TABLE pad(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000) INSERT INTO pad SELECT randomblob(400) FROM c;";

/** Bytes and mtime of each file (absent: 'absent'), to show a read changed nothing. */
function fingerprint(...paths: string[]): string[] {
  return paths.map((p) => (existsSync(p) ? `${createHash('sha256').update(readFileSync(p)).digest('hex')}@${statSync(p, { bigint: true }).mtimeNs}` : 'absent'));
}

/** What sqlite3 itself reads, on a copy of the database and its journal (it rolls a hot journal back, writing). */
function sqliteOnCopy(db: string, sql: string): string {
  const dir = tmp();
  const copy = join(dir, 'copy.db');
  copyFileSync(db, copy);
  if (existsSync(`${db}-journal`)) copyFileSync(`${db}-journal`, `${copy}-journal`);
  return execFileSync(SQLITE3, [copy, sql], { encoding: 'utf8' }).trim();
}


/** Appends to the WAL of `db` a checksum-valid commit frame (page 2 again) claiming a database of `claimPages` pages. */
function forgeWalCommit(db: string, claimPages: number): { walBytes: number } {
  const wal = readFileSync(`${db}-wal`);
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const bigEndian = (view.getUint32(0) & 1) === 1;
  const pageSize = view.getUint32(8);
  const frameSize = 24 + pageSize;
  const frames = Math.floor((wal.length - 32) / frameSize);
  const last = 32 + (frames - 1) * frameSize;
  const frame = Buffer.alloc(frameSize);
  const fv = new DataView(frame.buffer);
  fv.setUint32(0, 2);
  fv.setUint32(4, claimPages);
  fv.setUint32(8, view.getUint32(16));
  fv.setUint32(12, view.getUint32(20));
  wal.copy(frame, 24, last + 24, last + frameSize);
  let [s0, s1] = [view.getUint32(last + 16), view.getUint32(last + 20)];
  [s0, s1] = walChecksum(frame, 0, 8, bigEndian, s0, s1);
  [s0, s1] = walChecksum(frame, 24, frameSize, bigEndian, s0, s1);
  fv.setUint32(16, s0);
  fv.setUint32(20, s1);
  const forged = Buffer.concat([wal, frame]);
  writeFileSync(`${db}-wal`, forged);
  return { walBytes: forged.length };
}

test('(13) a WAL commit frame claiming a 512 MB (or 2 GB) database is damage: ignored from there, nothing of that size allocated', async () => {
  for (const claimBytes of [512 * 1024 * 1024, 2 * 1024 * 1024 * 1024 - 4096]) {
    const db = join(tmp(), 'w.db');
    await sqliteKilledAfter(db, `${WAL_SETUP} CREATE TABLE t(a); INSERT INTO t VALUES (1),(2); INSERT INTO t VALUES (3);`);
    const { walBytes } = forgeWalCommit(db, claimBytes / 4096);
    const snap = await readSqliteSnapshot(db);
    // bounded by what the files hold, not by the claim
    assert.ok(snap.image.length <= statSync(db).size + walBytes, `image of ${snap.image.length} bytes`);
    assert.equal(snap.walFramesIgnored, 1);
    assert.equal(snap.problems.length, 1);
    assert.match(snap.problems[0]!, new RegExp(`claims a database of ${claimBytes / 4096} pages of 4096 bytes, but the database file and the WAL hold at most \\d+: damaged`));
    assert.deepEqual(await snapshotValues(db), [1, 2, 3]);
  }
});

test('(13) a WAL of many small commits is merged in one pass (no copy of the page map per commit)', async () => {
  const db = join(tmp(), 'w.db');
  const inserts = Array.from({ length: 400 }, (_, i) => `INSERT INTO t VALUES (${i});`).join(' ');
  await sqliteKilledAfter(db, `${WAL_SETUP} PRAGMA page_size=512; CREATE TABLE t(a); ${inserts}`);
  const snap = await readSqliteSnapshot(db);
  assert.ok(snap.walFramesApplied >= 400);
  assert.deepEqual(snap.problems, []);
  assert.equal((await snapshotValues(db)).length, 400);
});

test('(5) a dsh store in rollback mode: a live writer that spilled an uncommitted change into the file, then SIGKILLed, is read as committed (as sqlite3 reads it), read-only', async () => {
  const db = join(tmp(), 'store.db');
  const session = storeSessionOf(dshFixtureText('dsh-subagent-child.session.jsonl'), 'kept');
  await writeDshStore(db, [session]);
  const committed = await listDshDatabaseSessions(db);
  assert.equal(committed[0]!.cwd, session.header.cwd);
  const events = (await loadDshDatabaseSession(db, 'kept'))!.events.length;

  const writer = await sqliteWriter(
    db,
    `PRAGMA journal_mode=DELETE; PRAGMA cache_size=1; BEGIN; UPDATE sessions SET cwd = '/uncommitted/cwd'; UPDATE events SET data = '{"title":"uncommitted title","messageSeqs":[],"source":{"kind":"user"}}' WHERE type = 'session/title'; ${SPILL}`,
  );
  const journal = `${db}-journal`;
  try {
    assert.ok(readFileSync(db).includes('/uncommitted/cwd'), 'the writer spilled its uncommitted change into the database file');
    assert.ok(existsSync(journal) && statSync(journal).size > 0);
    const before = fingerprint(db, journal, `${db}-wal`, `${db}-shm`);
    const live = await listDshDatabaseSessions(db);
    assert.equal(live[0]!.cwd, session.header.cwd, 'the uncommitted cwd is not shown');
    assert.equal(live[0]!.title, committed[0]!.title);
    assert.deepEqual(fingerprint(db, journal, `${db}-wal`, `${db}-shm`), before, 'reading wrote nothing');
  } finally {
    await writer.release();
  }
  // The writer is gone: its journal is hot. sqlite3 (on a copy) rolls it back; so do we, in memory.
  assert.ok(statSync(journal).size > 0, 'a hot journal is left');
  assert.equal(sqliteOnCopy(db, "SELECT cwd FROM sessions WHERE id = 'kept';"), session.header.cwd);
  const before = fingerprint(db, journal, `${db}-wal`, `${db}-shm`);
  const after = await listDshDatabaseSessions(db);
  assert.equal(after[0]!.cwd, session.header.cwd);
  assert.equal(after[0]!.title, committed[0]!.title);
  const log = (await loadDshDatabaseSession(db, 'kept'))!;
  assert.equal(log.events.length, events);
  assert.ok(log.diagnostics.some((d) => d.kind === 'dsh-log' && /hot rollback journal/.test(d.message)), JSON.stringify(log.diagnostics));
  assert.deepEqual(fingerprint(db, journal, `${db}-wal`, `${db}-shm`), before, 'reading wrote nothing (the journal is neither rolled back nor deleted)');
});

test('(5) a history.db whose rollback-mode writer was killed mid-transaction: its 55 committed rows, as sqlite3 reads them, read-only', async () => {
  const db = join(tmp(), 'history.db');
  const rows = Array.from({ length: 55 }, (_, i) => `INSERT INTO history(prompt, created_at, cwd) VALUES ('prompt ${i}', ${1_780_000_000 + i}, '/w');`).join(' ');
  await sqliteKilledAfter(
    db,
    `PRAGMA journal_mode=DELETE;
     CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, prompt TEXT NOT NULL, created_at INTEGER NOT NULL, cwd TEXT);
     CREATE VIRTUAL TABLE history_fts USING fts5(prompt, content='history', content_rowid='id');
     CREATE TRIGGER history_ai AFTER INSERT ON history BEGIN INSERT INTO history_fts(rowid, prompt) VALUES (new.id, new.prompt); END;
     ${rows}`,
  );
  await sqliteKilledAfter(
    db,
    `PRAGMA cache_size=1; BEGIN; WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000) INSERT INTO history(prompt, created_at, cwd) SELECT 'uncommitted ' || hex(randomblob(200)), 1790000000 + i, '/x' FROM c; DELETE FROM history WHERE id <= 20;`,
  );
  const journal = `${db}-journal`;
  assert.ok(existsSync(journal) && statSync(journal).size > 0, 'a hot journal is left');
  assert.equal(sqliteOnCopy(db, 'SELECT count(*) FROM history;'), '55');
  const before = fingerprint(db, journal, `${db}-wal`, `${db}-shm`);
  const h = await openPromptHistory(db);
  try {
    assert.equal(h.hotJournal, true);
    assert.equal(h.count(), 55);
    assert.deepEqual(h.cwds(), [{ cwd: '/w', count: 55 }]);
    assert.equal(h.query({ search: 'prompt' }).entries.length, 55);
    assert.equal(h.query({ search: 'uncommitted' }).entries.length, 0);
  } finally {
    h.close();
  }
  assert.deepEqual(fingerprint(db, journal, `${db}-wal`, `${db}-shm`), before, 'reading wrote nothing');
});

test('(5) a journal that is not hot is ignored: PERSIST mode zeroes its header at commit (the old pages stay behind it)', async () => {
  const db = join(tmp(), 'p.db');
  await sqliteKilledAfter(db, `PRAGMA journal_mode=PERSIST; CREATE TABLE t(a); INSERT INTO t VALUES (1); BEGIN; DELETE FROM t; INSERT INTO t VALUES (2), (3); COMMIT;`);
  const journal = readFileSync(`${db}-journal`);
  assert.ok(journal.length > 0 && journal[0] === 0, 'the persisted journal has a zeroed header');
  assert.equal(sqliteOnCopy(db, 'SELECT group_concat(a) FROM t;'), '2,3');
  assert.deepEqual(await snapshotValues(db), [2, 3]);
  const snap = await readSqliteSnapshot(db);
  assert.equal(snap.hotJournal, false);
});

test('(5) a hot journal claiming an original size beyond the files is damage: ignored with a problem, nothing of that size allocated', async () => {
  const db = join(tmp(), 'h.db');
  await sqliteKilledAfter(db, `PRAGMA journal_mode=DELETE; CREATE TABLE t(a); INSERT INTO t VALUES (1);`);
  await sqliteKilledAfter(db, `PRAGMA cache_size=1; BEGIN; INSERT INTO t VALUES (2); ${SPILL}`);
  const journalPath = `${db}-journal`;
  assert.deepEqual(await snapshotValues(db), [1]);
  const journal = readFileSync(journalPath);
  journal.writeUInt32BE(0x7fffffff, 16);
  writeFileSync(journalPath, journal);
  const snap = await readSqliteSnapshot(db);
  assert.equal(snap.hotJournal, false);
  assert.ok(snap.image.length <= statSync(db).size);
  assert.match(snap.problems.join('\n'), /claims an original database of 2147483647 pages, but the database file and the journal hold at most \d+: damaged, ignored/);
});
