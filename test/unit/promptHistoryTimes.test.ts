// Issue 22 (17): SQLite's column types are advisory, so a prompt-history row can hold a created_at
// that is no time at all ('yesterday', NULL) or a number no date can carry (99999999999999). Such
// a row is still read, its time unknown (createdAt null), and never breaks the rest of the list;
// "Open in Session" cannot place it by time and says so (null), rather than throwing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyTime, historyTimeIso, openPromptHistory } from '../../src/core/history/promptHistory';
import { locatePrompt } from '../../src/core/history/promptSessions';
import { sqliteKilledAfter } from '../helpers/sqliteCli';

test('historyTime: epoch seconds as a number or numeric text; anything else, or out of a date range, is null', () => {
  assert.equal(historyTime(1780308060), 1780308060);
  assert.equal(historyTime(BigInt(1780308060)), 1780308060);
  assert.equal(historyTime('1780308060'), 1780308060);
  assert.equal(historyTime(0), 0);
  for (const bad of ['yesterday', '', null, undefined, 99999999999999, Number.NaN, Infinity, -1e13, {}, '12abc']) assert.equal(historyTime(bad), null, String(bad));
  assert.equal(historyTimeIso(null), null);
  assert.equal(historyTimeIso(1780308060), '2026-06-01T10:01:00.000Z');
  assert.doesNotThrow(() => historyTimeIso(historyTime(8.64e12)));
});

test('openPromptHistory: rows with a text, NULL or out-of-range created_at are listed with createdAt null, beside the good ones', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'loom-history-times-')), 'history.db');
  await sqliteKilledAfter(
    db,
    `CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, prompt TEXT NOT NULL, created_at INTEGER, cwd TEXT);
     INSERT INTO history(prompt, created_at, cwd) VALUES ('good', 1780308060, '/w');
     INSERT INTO history(prompt, created_at, cwd) VALUES ('text', 'yesterday', '/w');
     INSERT INTO history(prompt, created_at, cwd) VALUES ('far', 99999999999999, '/w');
     INSERT INTO history(prompt, created_at, cwd) VALUES ('none', NULL, '/w');`,
  );
  const h = await openPromptHistory(db);
  try {
    const byPrompt = Object.fromEntries(h.query({}).entries.map((e) => [e.prompt, e.createdAt]));
    assert.deepEqual(byPrompt, { good: 1780308060, text: null, far: null, none: null });
    assert.equal(h.query({ search: 'text' }).entries[0]?.createdAt, null);
    const text = h.query({}).entries.find((e) => e.prompt === 'text')!;
    assert.equal(await locatePrompt(text, [join(db, '..')]), null, 'no time: no session can be matched, and no throw');
  } finally {
    h.close();
  }
});
