// The prompt history reader (src/core/history/): the agent's own schema written by the real
// sqlite3 CLI, rows still in the WAL of a writer killed before it checkpointed, every database
// that is not a readable history as a typed error, and "Open in Session" by cwd and time.
import { test } from 'node:test';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import { IndexCache } from '../../src/core/engine/xcsh/lazy/indexCache';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dayOf, describeHistoryError, HistoryError, historyFtsQuery, openPromptHistory } from '../../src/core/history/promptHistory';
import { locatePrompt, samePrompt } from '../../src/core/history/promptSessions';
import { encodeCwdLegacy } from '../../src/core/formats/xcsh/cwd';
import { sqliteKilledAfter, sqliteWriter } from '../helpers/sqliteCli';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'loom-history-'));

/** xcsh's HistoryStorage schema (oh-my-pi's history-storage.ts), in WAL mode like the agent. */
const SCHEMA = `PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
CREATE TABLE IF NOT EXISTS history (id INTEGER PRIMARY KEY AUTOINCREMENT, prompt TEXT NOT NULL, created_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s','now') AS INTEGER)), cwd TEXT);
CREATE INDEX IF NOT EXISTS idx_history_created_at ON history(created_at DESC);
CREATE VIRTUAL TABLE IF NOT EXISTS history_fts USING fts5(prompt, content='history', content_rowid='id');
CREATE TRIGGER IF NOT EXISTS history_ai AFTER INSERT ON history BEGIN INSERT INTO history_fts(rowid, prompt) VALUES (new.id, new.prompt); END;`;

const ins = (prompt: string, at: number, cwd: string | null): string => `INSERT INTO history(prompt, created_at, cwd) VALUES (${sq(prompt)}, ${at}, ${cwd === null ? 'NULL' : sq(cwd)});`;
const sq = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const T0 = Date.UTC(2026, 5, 1, 9, 0) / 1000;

test('rows the agent committed but never checkpointed (writer SIGKILLed) are listed, newest first', async () => {
  const db = join(tmp(), 'history.db');
  await sqliteKilledAfter(db, `${SCHEMA} ${ins('first prompt', T0, '/work/a')} ${ins('second prompt', T0 + 60, '/work/b')} ${ins('third prompt', T0 + 120, '/work/a')}`);
  assert.ok(statSync(`${db}-wal`).size > 0, 'the rows are only in the WAL');
  const h = await openPromptHistory(db);
  try {
    assert.ok(h.walFrames > 0);
    assert.equal(h.hasFts, true);
    assert.deepEqual(h.query({}).entries.map((e) => e.prompt), ['third prompt', 'second prompt', 'first prompt']);
    assert.deepEqual(h.query({ cwd: '/work/a' }).entries.map((e) => e.prompt), ['third prompt', 'first prompt']);
    assert.deepEqual(h.cwds(), [{ cwd: '/work/a', count: 2 }, { cwd: '/work/b', count: 1 }]);
  } finally {
    h.close();
  }
});

test('a database locked by a live writer in the middle of a transaction still reads: its last commit, no error', async () => {
  const db = join(tmp(), 'history.db');
  await sqliteKilledAfter(db, `${SCHEMA} ${ins('committed prompt', T0, '/w')}`);
  const writer = await sqliteWriter(db, `PRAGMA journal_mode=WAL; BEGIN EXCLUSIVE; ${ins('not yet committed', T0 + 5, '/w')}`);
  try {
    const h = await openPromptHistory(db);
    try {
      assert.deepEqual(h.query({}).entries.map((e) => e.prompt), ['committed prompt']);
    } finally {
      h.close();
    }
  } finally {
    await writer.release();
  }
});

test("search goes through the database's own FTS5 index: each word a prefix, ranked", async () => {
  const db = join(tmp(), 'history.db');
  await sqliteKilledAfter(db, `${SCHEMA} ${ins('git commit the parser fix', T0, '/w')} ${ins('commit commit commit', T0 + 1, '/w')} ${ins('unrelated words', T0 + 2, '/w')} ${ins('refactor the committee', T0 + 3, '/w')}`);
  const h = await openPromptHistory(db);
  try {
    const r = h.query({ search: 'comm' });
    assert.equal(r.usedFts, true);
    assert.deepEqual(r.entries.map((e) => e.prompt).sort(), ['commit commit commit', 'git commit the parser fix', 'refactor the committee']);
    assert.equal(r.entries[0]!.prompt, 'commit commit commit', 'bm25 ranks the prompt that says it most first');
    assert.deepEqual(h.query({ search: 'git comm' }).entries.map((e) => e.prompt), ['git commit the parser fix']);
    assert.equal(historyFtsQuery('a "b'), '"a"* """b"*');
  } finally {
    h.close();
  }
});

test('a history without its FTS index is still searched (by substring), and says so', async () => {
  const db = join(tmp(), 'history.db');
  await sqliteKilledAfter(db, `CREATE TABLE history (id INTEGER PRIMARY KEY, prompt TEXT, created_at INTEGER, cwd TEXT); ${ins('find the widget', T0, '/w')}`);
  const h = await openPromptHistory(db);
  try {
    assert.equal(h.hasFts, false);
    const r = h.query({ search: 'widg' });
    assert.equal(r.usedFts, false);
    assert.equal(r.entries.length, 1);
  } finally {
    h.close();
  }
});

test('missing, not SQLite, foreign and damaged databases are typed errors with one clear sentence each', async () => {
  const dir = tmp();
  const expect = async (path: string, code: string, words: RegExp) => {
    await assert.rejects(openPromptHistory(path), (e: unknown) => {
      assert.ok(e instanceof HistoryError, String(e));
      assert.equal(e.code, code);
      assert.match(describeHistoryError(e), words);
      return true;
    });
  };
  await expect(join(dir, 'nope.db'), 'missing', /No prompt history yet/);
  writeFileSync(join(dir, 'text.db'), 'hello, not a database\n'.repeat(20));
  await expect(join(dir, 'text.db'), 'not-sqlite', /not an SQLite database/);
  const foreign = join(dir, 'foreign.db');
  await sqliteKilledAfter(foreign, 'CREATE TABLE notes(a); INSERT INTO notes VALUES (1);');
  await expect(foreign, 'foreign', /not a prompt history \(it has no "history" table\)/);
  const odd = join(dir, 'odd.db');
  await sqliteKilledAfter(odd, 'CREATE TABLE history(a, b);');
  await expect(odd, 'foreign', /no id, prompt, created_at column/);
  const damaged = join(dir, 'damaged.db');
  await sqliteKilledAfter(damaged, `PRAGMA journal_mode=DELETE; CREATE TABLE history (id INTEGER PRIMARY KEY, prompt TEXT, created_at INTEGER, cwd TEXT); ${ins('x'.repeat(3000), T0, '/w')} ${ins('y'.repeat(3000), T0, '/w')}`);
  const bytes = readFileSync(damaged);
  bytes.fill(0xff, 4096 + 100, 4096 + 2000);
  bytes.fill(0xff, 100, 300);
  writeFileSync(damaged, bytes);
  await assert.rejects(openPromptHistory(damaged), (e: unknown) => e instanceof HistoryError && (e.code === 'corrupt' || e.code === 'foreign'));
});

test('Open in Session: the user message of that cwd with the same text, closest in time; null when no session holds it', async () => {
  const dir = tmp();
  const root = join(dir, 'sessions');
  const proj = join(root, encodeCwdLegacy('/work/loom'));
  mkdirSync(proj, { recursive: true });
  const iso = (s: number) => new Date(s * 1000).toISOString();
  const lines = [
    { type: 'session', version: 3, id: 's1', timestamp: iso(T0 - 600), cwd: '/work/loom' },
    { type: 'message', id: 'u0000001', parentId: null, timestamp: iso(T0 - 500), message: { role: 'user', content: [{ type: 'text', text: 'fix the parser' }] } },
    { type: 'message', id: 'a0000001', parentId: 'u0000001', timestamp: iso(T0 - 490), message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } },
    { type: 'message', id: 'u0000002', parentId: 'a0000001', timestamp: iso(T0 + 2), message: { role: 'user', content: [{ type: 'text', text: '  fix the parser\n' }] } },
  ];
  const file = join(proj, '2026-06-01T08-50-00-000Z_s1.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const at = await locatePrompt({ id: 1, prompt: 'fix the parser', createdAt: T0, cwd: '/work/loom' }, [root]);
  assert.deepEqual(at && { file: at.file, entryId: at.entryId }, { file, entryId: 'u0000002' });
  assert.equal(await locatePrompt({ id: 2, prompt: 'never sent', createdAt: T0, cwd: '/work/loom' }, [root]), null);
  assert.equal(await locatePrompt({ id: 3, prompt: 'fix the parser', createdAt: T0, cwd: '/work/other' }, [root]), null);
  assert.equal(samePrompt('a  b', 'a b'), true);
  assert.equal(dayOf(T0, 0), '2026-06-01');
});

test('Open in Session reads each candidate through the session engine: a v1 session is found with the id the viewer shows (made by migration); a current one\'s index is kept for the next lookup, a migrated one\'s is not (it is re-read)', async () => {
  const dir = tmp();
  const root = join(dir, 'sessions');
  const proj = join(root, encodeCwdLegacy('/work/loom'));
  mkdirSync(proj, { recursive: true });
  const iso = (s: number) => new Date(s * 1000).toISOString();
  // v1: no ids, no parentIds; the viewer shows ids made by the migration (Part C §10)
  const lines = [
    { type: 'session', id: 's1', timestamp: iso(T0 - 600), cwd: '/work/loom' },
    { type: 'message', timestamp: iso(T0 - 500), message: { role: 'user', content: [{ type: 'text', text: 'an older prompt' }] } },
    { type: 'message', timestamp: iso(T0 - 490), message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } },
    { type: 'message', timestamp: iso(T0 + 1), message: { role: 'user', content: [{ type: 'text', text: 'rename the module' }] } },
  ];
  const file = join(proj, '2026-06-01T08-50-00-000Z_s1.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const shown = await LazyXcshModel.open(file);
  const ids: string[] = [];
  for (const r of (await shown.tree({ filter: 'all', search: '', leafId: null, focusEntryId: null, start: 0, count: 10 })).rows) ids.push(r.entryId);
  const cache = new IndexCache(join(dir, 'index'), { minBytes: 0 });
  const at = await locatePrompt({ id: 1, prompt: 'rename the module', createdAt: T0, cwd: '/work/loom' }, [root], cache);
  assert.deepEqual(at && { file: at.file, entryId: at.entryId }, { file, entryId: ids[2] });
  assert.ok(!existsSync(cache.fileFor(file)), 'a migrated index is never kept (indexCache.ts)');
  const again = await locatePrompt({ id: 2, prompt: 'an older prompt', createdAt: T0 - 500, cwd: '/work/loom' }, [root], cache);
  assert.equal(again?.entryId, ids[0]);
  // the same session written as v3: its index is kept
  const v3 = join(proj, '2026-06-01T08-51-00-000Z_s2.jsonl');
  writeFileSync(v3, [{ type: 'session', version: 3, id: 's2', timestamp: iso(T0 - 600), cwd: '/work/loom' }, { type: 'message', id: 'u3000001', parentId: null, timestamp: iso(T0 + 3), message: { role: 'user', content: [{ type: 'text', text: 'write the tests' }] } }].map((l) => JSON.stringify(l)).join('\n') + '\n');
  const kept = await locatePrompt({ id: 3, prompt: 'write the tests', createdAt: T0, cwd: '/work/loom' }, [root], cache);
  assert.equal(kept?.entryId, 'u3000001');
  assert.ok(existsSync(cache.fileFor(v3)), 'the index was kept');
});
