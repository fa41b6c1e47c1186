import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DshDatabaseError,
  listDshDatabaseSessions,
  loadDshDatabaseSession,
  loadDshSource,
  readDshLog,
  DshSessionNotFoundError,
} from '../../src/core/formats/dsh/index';
import fc from 'fast-check';
import { SqliteSnapshotError } from '../../src/core/store/sqliteSnapshot';
import { DSH_FIXTURES, DSH_SCHEMA, dshFixtureText, storeRows, storeSessionOf, storeSql, writeDshStore } from '../helpers/dshBuild';
import { ev, meta, oneTurnLog, rawLog } from '../helpers/dshLogs';
import { sqliteKilledAfter } from '../helpers/sqliteCli';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'loom-dsh-db-'));
const fixtureSessions = () => DSH_FIXTURES.map((name, i) => storeSessionOf(dshFixtureText(name), `session-${i}`));

test('a store holding the five fixtures lists them and loads each exactly as its raw log (packed rows, zstd BLOBs, varint seqs)', async () => {
  const sessions = fixtureSessions();
  // the builder really exercises the three row encodings
  const binds = sessions.flatMap((s) => storeRows(s)).map((r) => r.bind);
  assert.ok(binds.some((b) => b[7] === 0), 'packed rows with ignorable = 0');
  assert.ok(binds.some((b) => b[4] instanceof Uint8Array), 'a zstd BLOB data');
  assert.ok(binds.some((b) => b[5] instanceof Uint8Array), 'a varint source_event_seqs');
  const db = join(tmp(), 'sessions.db');
  await writeDshStore(db, sessions);

  const listed = await listDshDatabaseSessions(db);
  assert.deepEqual(listed.map((s) => s.id).sort(), sessions.map((s) => String(s.header.id)).sort());
  const child = listed.find((s) => s.id === 'session-4')!;
  assert.equal(child.parentSession, '5138ed0d-e86e-4a7d-b75b-803307e92b17');
  assert.equal(child.origin, 'subagent');
  assert.equal(child.delegationDepth, 1);
  assert.equal(child.title, 'Reply with exactly the word');
  assert.equal(listed.find((s) => s.id === 'session-1')!.title, 'Establish a durable compaction premise');

  for (let i = 0; i < DSH_FIXTURES.length; i++) {
    const raw = await readDshLog(Buffer.from(dshFixtureText(DSH_FIXTURES[i]!)));
    const log = (await loadDshDatabaseSession(db, `session-${i}`))!;
    assert.equal(log.encoding, 'sqlite');
    assert.deepEqual(log.events.slice(), raw.events.slice(), DSH_FIXTURES[i]);
    assert.equal(log.state, 'complete');
    assert.deepEqual(log.diagnostics, []);
  }
  assert.equal(await loadDshDatabaseSession(db, 'absent'), null);
});

test('dsh-packed-chunks from SQLite rows: 35 rows → 124 events', async () => {
  const db = join(tmp(), 'one.db');
  await writeDshStore(db, [storeSessionOf(dshFixtureText('dsh-packed-chunks.session.jsonl'))]);
  const [s] = await listDshDatabaseSessions(db);
  assert.equal(s!.rows, 35);
  assert.equal((await loadDshSource(db))!.events.length, 124);
});

test('a foreign application id, another schema version or a plain SQLite file: a clear refusal, the file untouched', async () => {
  const dir = tmp();
  const cases: Array<[string, { applicationId?: number; userVersion?: number }, string]> = [
    ['foreign.db', { applicationId: 0x12345678 }, 'foreign-application-id'],
    ['plain.db', { applicationId: 0, userVersion: 0 }, 'foreign-application-id'],
    ['v16.db', { userVersion: 16 }, 'unsupported-schema-version'],
    ['v18.db', { userVersion: 18 }, 'unsupported-schema-version'],
  ];
  for (const [name, opts, code] of cases) {
    const db = join(dir, name);
    await writeDshStore(db, [storeSessionOf(rawLog(oneTurnLog()))], opts);
    const before = createHash('sha256').update(readFileSync(db)).digest('hex');
    await assert.rejects(listDshDatabaseSessions(db), (e: unknown) => e instanceof DshDatabaseError && e.code === code, name);
    await assert.rejects(loadDshSource(db), (e: unknown) => e instanceof DshDatabaseError, name);
    assert.equal(createHash('sha256').update(readFileSync(db)).digest('hex'), before, name);
  }
});

test('rows a writer committed to the WAL and never checkpointed are listed and loaded (writer SIGKILLed)', async () => {
  const db = join(tmp(), 'wal.db');
  const session = storeSessionOf(rawLog(oneTurnLog(), meta('walsession')));
  await sqliteKilledAfter(
    db,
    `PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; ${DSH_SCHEMA} PRAGMA application_id = ${0x44534850}; PRAGMA user_version = 17;\nBEGIN;\n${storeSql(session)}\nCOMMIT;`,
  );
  assert.deepEqual((await listDshDatabaseSessions(db)).map((s) => s.id), ['walsession']);
  const log = (await loadDshDatabaseSession(db, 'walsession'))!;
  assert.deepEqual(log.events.slice(), oneTurnLog());
  assert.equal(log.state, 'complete');
});

test('the corruption rule over rows: an undecodable row before a later turn/end is corrupt, after the last one a torn tail', async () => {
  const dir = tmp();
  // the row's data is made undecodable by a real writer afterwards
  const store = async (name: string, records: Array<Record<string, unknown>>, badSeq: number): Promise<string> => {
    const db = join(dir, name);
    const s = storeSessionOf(rawLog(records));
    await writeDshStore(db, [s]);
    await sqliteKilledAfter(db, `UPDATE events SET data = '{not json' WHERE seq = ${badSeq};`);
    return db;
  };
  const two = [...oneTurnLog(), ...oneTurnLog(6, 2)] as unknown as Array<Record<string, unknown>>;
  const corrupt = await loadDshSource(await store('c.db', two, 2), { liveWindowMs: 0 });
  assert.equal(corrupt.state, 'corrupt');
  assert.equal(corrupt.events.length, 2);
  assert.equal(corrupt.diagnostics.find((d) => d.kind === 'dsh-bad-record')!.seq, 2);

  const open = [...oneTurnLog(), ev('turn/start', 6, { turn: 2 }), ev('step/start', 7, { turn: 2, step: 1 })] as unknown as Array<Record<string, unknown>>;
  const torn = await loadDshSource(await store('t.db', open, 7), { liveWindowMs: 0 });
  assert.equal(torn.state, 'torn');
  assert.equal(torn.events.length, 7);
  assert.deepEqual(torn.closers.map((e) => e.type), ['turn/end']);
});

test('a store with several sessions needs a session id; an unknown one is a clear error', async () => {
  const db = join(tmp(), 'many.db');
  await writeDshStore(db, fixtureSessions());
  await assert.rejects(loadDshSource(db), (e: unknown) => e instanceof DshSessionNotFoundError && e.sessionIds.length === 5);
  await assert.rejects(loadDshSource(db, { session: 'nope' }), DshSessionNotFoundError);
  assert.equal((await loadDshSource(db, { session: 'session-3' })).events.length, 124);
});

test('property: random bytes behind an SQLite header are a typed refusal, never another exception or a write', async () => {
  const dir = tmp();
  let k = 0;
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 5000 }), fc.boolean(), async (bytes, header) => {
      const path = join(dir, `r${k++}.db`);
      const content = header ? Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.from(bytes)]) : Buffer.from(bytes);
      writeFileSync(path, content);
      await assert.rejects(listDshDatabaseSessions(path), (e: unknown) => e instanceof SqliteSnapshotError || e instanceof DshDatabaseError);
      assert.ok(readFileSync(path).equals(content));
    }),
    { numRuns: 60 },
  );
});
