// `session-loom search` over dsh logs through the BUILT binary (issue 22 point 21): a HOME whose
// default dsh root (~/.dsh/sessions, which `search` uses without --root) holds a raw log and a
// zstd one. A word only in a dsh log finds that session, with the event to open (`e<seq>`) and a
// snippet of its text (for the zstd log, read back from its frame).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertCliBuilt, runCli } from '../helpers/runCli';
import { dshFixture, dshFixtureText, zstdLogOf } from '../helpers/dshBuild';

let home: string;
let cache: string;
let raw: string;
let zstd: string;

function search(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CACHE_HOME: cache };
  delete env.DSH_HOME;
  return runCli(['search', ...args], { env, timeout: 120_000 });
}

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-dsh-search-home-'));
  cache = mkdtempSync(join(tmpdir(), 'sl-dsh-search-cache-'));
  raw = join(home, '.dsh', 'sessions', '--work-raw--', 'sess-raw', 'session.jsonl');
  zstd = join(home, '.dsh', 'sessions', '--work-zstd--', 'sess-zstd', 'session.jsonl.zstd');
  for (const p of [raw, zstd]) mkdirSync(join(p, '..'), { recursive: true });
  copyFileSync(dshFixture('dsh-interrupted-tool-outcome-unknown.session.jsonl'), raw);
  writeFileSync(zstd, zstdLogOf(dshFixtureText('dsh-compaction-recovery.session.jsonl'), 4));
});

after(() => {
  for (const d of [home, cache]) rmSync(d, { recursive: true, force: true });
});

test('search finds a word only in a zstd dsh log under ~/.dsh/sessions: the session, the event to open, a snippet with the word', () => {
  const out = search('RECOVERED', '--json');
  assert.equal(out.code, 0, out.stderr);
  const json = out.json();
  assert.deepEqual(
    json.sessions.map((s: { file: string }) => s.file),
    [zstd],
  );
  const entries = json.sessions[0].entries as { entryId: string; snippet: string }[];
  assert.deepEqual(
    entries.map((e) => e.entryId),
    ['e4', 'e28'],
  );
  for (const e of entries) assert.match(e.snippet, /RECOVERED/);
  // The text listing marks the word.
  const text = search('RECOVERED');
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, / {2}e28 {2}.*\[RECOVERED\]/);
});

test('search finds a word only in a raw dsh log; a phrase is checked on its text', () => {
  const json = search('"remote mutation"', '--json').json();
  assert.deepEqual(
    json.sessions.map((s: { file: string }) => s.file),
    [raw],
  );
  assert.equal(json.sessions[0].entries[0].entryId, 'e1');
  assert.match(json.sessions[0].entries[0].snippet, /remote mutation/);
});
