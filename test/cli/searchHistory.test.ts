// `session-loom search` and `session-loom history` through the BUILT binary (`npm run test:cli`
// builds dist/cli.js, dist/sqlite3.wasm beside it): the index built on first use in the cache
// folder ($XDG_CACHE_HOME), picked up incrementally on the next run; the prompt history read from
// a database the real sqlite3 CLI left with rows in its WAL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, fixtureFiles } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';

let home: string;
let cache: string;
let root: string;

const cli = (...args: string[]) => runCli(args, { env: { ...process.env, HOME: home, XDG_CACHE_HOME: cache }, timeout: 120_000 });

const line = (o: object): string => JSON.stringify(o) + '\n';

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-search-home-'));
  cache = mkdtempSync(join(tmpdir(), 'sl-search-cache-'));
  root = join(home, 'sessions');
  mkdirSync(join(root, '--work-x--'), { recursive: true });
  for (const f of fixtureFiles('real-v3')) copyFileSync(f, join(root, '--work-x--', f.split('/').pop()!));
  writeFileSync(
    join(root, '--work-x--', 'mine.jsonl'),
    line({ type: 'session', version: 3, id: 'cafe0000', timestamp: '2026-06-01T10:00:00.000Z', cwd: '/work/x' }) +
      line({ type: 'message', id: 'cafe0001', parentId: null, timestamp: '2026-06-01T10:01:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'Why does the hafnium parser stall?' }] } }),
  );
});

after(() => {
  for (const d of [home, cache]) rmSync(d, { recursive: true, force: true });
});

test('search builds its index on first use in the cache folder, then answers from it', () => {
  const first = cli('search', '--root', root, 'hafnium', '--json');
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /building the search index in .*sl-search-cache-.*session-loom.*first use/);
  const out = first.json();
  assert.equal(out.sessions.length, 1);
  assert.equal(out.sessions[0].file, join(root, '--work-x--', 'mine.jsonl'));
  assert.deepEqual(out.sessions[0].entries.map((e: { entryId: string }) => e.entryId), ['cafe0001']);
  assert.match(out.sessions[0].entries[0].snippet, /hafnium parser/);
  assert.deepEqual(out.sessions[0].entries[0].highlights, [[13, 20]]);
  assert.ok(readdirSync(join(cache, 'session-loom')).some((d) => d.startsWith('index-')));
  // Second run: no build message, the same answer; text output marks the match.
  const again = cli('search', '--root', root, 'hafnium');
  assert.equal(again.code, 0);
  assert.doesNotMatch(again.stderr, /building/);
  assert.match(again.stdout, /cafe0001 {2}Why does the \[hafnium\] parser stall\?/);
});

test('search picks up an appended entry on the next run; a query of filters alone is a usage error', () => {
  appendFileSync(
    join(root, '--work-x--', 'mine.jsonl'),
    line({ type: 'message', id: 'cafe0002', parentId: 'cafe0001', timestamp: '2026-06-01T10:02:00.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'The hafnium lock is held twice.' }] } }),
  );
  const r = cli('search', '--root', root, 'hafnium role:assistant', '--json');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json().sessions[0].entries.map((e: { entryId: string }) => e.entryId), ['cafe0002']);
  const bad = cli('search', '--root', root, 'after:2026-01-01');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /no word to look up/);
  assert.equal(cli('search', '--root', join(home, 'nope'), 'x').code, 1);
  assert.equal(cli('search').code, 2);
});

async function killedWriter(db: string, sql: string): Promise<void> {
  const child = spawn('/usr/bin/sqlite3', [db], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('__READY__')) resolve();
    });
    child.stdin.write(`${sql}\nSELECT '__READY__';\n`);
  });
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGKILL');
  await exited;
}

test('history lists, searches (FTS5, prefix) and filters by cwd a database whose rows are still in the WAL', async () => {
  const db = join(home, 'history.db');
  await killedWriter(
    db,
    `PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
     CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, prompt TEXT NOT NULL, created_at INTEGER NOT NULL, cwd TEXT);
     CREATE VIRTUAL TABLE history_fts USING fts5(prompt, content='history', content_rowid='id');
     CREATE TRIGGER history_ai AFTER INSERT ON history BEGIN INSERT INTO history_fts(rowid, prompt) VALUES (new.id, new.prompt); END;
     INSERT INTO history(prompt, created_at, cwd) VALUES ('Why does the hafnium parser stall?', 1780308060, '/work/x');
     INSERT INTO history(prompt, created_at, cwd) VALUES ('git commit it', 1780308100, '/work/y');`,
  );
  assert.ok(statSync(`${db}-wal`).size > 0);
  const all = cli('history', '--db', db, '--json');
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(all.json().entries.map((e: { prompt: string }) => e.prompt), ['git commit it', 'Why does the hafnium parser stall?']);
  assert.deepEqual(cli('history', '--db', db, '--search', 'haf pars', '--json').json().entries.map((e: { id: number }) => e.id), [1]);
  assert.deepEqual(cli('history', '--db', db, '--cwd', '/work/y', '--json').json().entries.map((e: { id: number }) => e.id), [2]);
  assert.equal(cli('history', '--db', db, '--limit', '1', '--json').json().entries.length, 1);
  // --locate finds the session and entry where the prompt was sent (cwd + time).
  const located = cli('history', '--db', db, '--search', 'hafnium', '--locate', '--root', root, '--json').json();
  assert.deepEqual(located.entries[0].session, { file: join(root, '--work-x--', 'mine.jsonl'), entryId: 'cafe0001' });
  const text = cli('history', '--db', db);
  assert.match(text.stdout, /2026-06-01 10:01:00 {2}\/work\/x {2}Why does the hafnium parser stall\?/);
});

test('history: a missing, foreign or non-SQLite database is one clear error (exit 1), never a stack trace', async () => {
  const missing = cli('history', '--db', join(home, 'nope.db'));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /No prompt history yet: .*nope\.db does not exist/);
  writeFileSync(join(home, 'text.db'), 'plain text\n'.repeat(30));
  const text = cli('history', '--db', join(home, 'text.db'));
  assert.equal(text.code, 1);
  assert.match(text.stderr, /is not an SQLite database/);
  const foreign = join(home, 'foreign.db');
  await killedWriter(foreign, 'CREATE TABLE t(a);');
  const f = cli('history', '--db', foreign);
  assert.equal(f.code, 1);
  assert.match(f.stderr, /not a prompt history \(it has no "history" table\)/);
  assert.doesNotMatch(f.stderr + text.stderr + missing.stderr, /\n\s+at /, 'no stack trace');
});

test('search agent:codex / agent:claude finds a planted word only in that agent\'s sessions, with the entry to open', () => {
  const agentRoot = join(home, 'agent-sessions');
  const codex = join(agentRoot, 'codex', 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl');
  const claude = join(agentRoot, 'claude', 'short.jsonl');
  const xcsh = join(agentRoot, 'xcsh', 'x.jsonl');
  for (const p of [codex, claude, xcsh]) mkdirSync(join(p, '..'), { recursive: true });
  const text = (rel: string): string => readFileSync(join(REPO_ROOT, 'test', 'fixtures', rel), 'utf8');
  writeFileSync(codex, text('codex/agent-history/session-01.jsonl').replace('[REDACTED_PROMPT]', 'the osmium ledger'));
  writeFileSync(claude, text('claude-code/spotter/short.jsonl').replace('mix phx.server doesnt seem to start', 'the osmium ledger will not start'));
  writeFileSync(
    xcsh,
    line({ type: 'session', version: 3, id: 'os0', timestamp: '2026-06-01T10:00:00.000Z', cwd: '/work/os' }) +
      line({ type: 'message', id: 'os000001', parentId: null, timestamp: '2026-06-01T10:01:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'the osmium ledger in xcsh' }] } }),
  );
  const all = cli('search', '--root', agentRoot, 'osmium', '--json');
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(all.json().sessions.map((s: { agent: string }) => s.agent).sort(), ['claude', 'codex', 'xcsh']);
  const onlyCodex = cli('search', '--root', agentRoot, 'agent:codex', 'osmium', '--json');
  assert.equal(onlyCodex.code, 0, onlyCodex.stderr);
  const s = onlyCodex.json().sessions;
  assert.deepEqual(
    s.map((x: { file: string; agent: string }) => [x.file, x.agent]),
    [[codex, 'codex']],
  );
  assert.deepEqual(
    s[0].entries.map((e: { entryId: string }) => e.entryId),
    ['L6'],
  );
  assert.match(s[0].entries[0].snippet, /osmium ledger/);
  const onlyClaude = cli('search', '--root', agentRoot, 'osmium', 'agent:claude');
  assert.equal(onlyClaude.code, 0, onlyClaude.stderr);
  assert.equal(onlyClaude.stdout, `${claude}  (1 match, /home/marco/projects/spotter)\n  7d48cbd2-6615-4dd8-87f6-38f12b8167d6  the [osmium] ledger will not start\n`);
  const bad = cli('search', '--root', agentRoot, 'osmium', 'agent:gemini');
  assert.match(bad.stderr, /agent: expects xcsh, dsh, claude or codex, not "gemini"/);
  assert.match(cli('search', '--help').stdout, /agent:xcsh\|dsh\|claude\|codex/);
});

test('history reads Claude Code\'s and Codex\'s history.jsonl by default (both Codex id fields) and --locate finds their sessions by id', () => {
  const h = mkdtempSync(join(tmpdir(), 'sl-agent-home-'));
  try {
    const claudeFile = join(h, '.claude', 'projects', '-home-marco-projects-spotter', '55604662-cf2a-4331-851a-ec234028f8ca.jsonl');
    const codexFile = join(h, '.codex', 'sessions', '2026', '06', '05', 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl');
    for (const p of [claudeFile, codexFile]) mkdirSync(join(p, '..'), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'test', 'fixtures', 'claude-code', 'spotter', 'short.jsonl'), claudeFile);
    copyFileSync(join(REPO_ROOT, 'test', 'fixtures', 'codex', 'agent-history', 'session-01.jsonl'), codexFile);
    writeFileSync(
      join(h, '.claude', 'history.jsonl'),
      line({ display: 'mix phx.server doesnt seem to start', pastedContents: {}, timestamp: Date.parse('2026-02-10T21:11:57.000Z'), project: '/home/marco/projects/spotter', sessionId: '55604662-cf2a-4331-851a-ec234028f8ca' }),
    );
    writeFileSync(
      join(h, '.codex', 'history.jsonl'),
      line({ session_id: '019e9625-802f-7e91-840a-cfe88d14117a', ts: Math.floor(Date.parse('2026-06-05T04:58:24.000Z') / 1000), text: '[REDACTED_PROMPT]' }) +
        line({ conversation_id: 'older-thread', ts: Math.floor(Date.parse('2025-09-25T02:12:25.000Z') / 1000), text: 'an older codex prompt' }),
    );
    const run = (...args: string[]) => runCli(args, { env: { ...process.env, HOME: h, XDG_CACHE_HOME: cache, CODEX_HOME: '', CLAUDE_CONFIG_DIR: '' }, timeout: 120_000 });
    const r = run('history', '--json', '--locate');
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(
      out.sources.map((s: { agent: string; total: number }) => [s.agent, s.total]),
      [
        ['claude', 1],
        ['codex', 2],
      ],
    );
    assert.deepEqual(
      out.entries.map((e: { agent: string; sessionId: string; prompt: string; session: unknown }) => [e.agent, e.sessionId, e.prompt, e.session]),
      [
        ['codex', '019e9625-802f-7e91-840a-cfe88d14117a', '[REDACTED_PROMPT]', { file: codexFile, entryId: 'L6' }],
        ['claude', '55604662-cf2a-4331-851a-ec234028f8ca', 'mix phx.server doesnt seem to start', { file: claudeFile, entryId: '7d48cbd2-6615-4dd8-87f6-38f12b8167d6' }],
        ['codex', 'older-thread', 'an older codex prompt', null],
      ],
    );
    const searched = run('history', '--search', 'phx', '--json');
    assert.deepEqual(
      JSON.parse(searched.stdout).entries.map((e: { prompt: string }) => e.prompt),
      ['mix phx.server doesnt seem to start'],
    );
    const text = run('history', '--db', join(h, '.codex', 'history.jsonl'));
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^2026-06-05 04:58:24 {2}- {2}\[REDACTED_PROMPT\]\n2025-09-25 02:12:25 {2}- {2}an older codex prompt\n$/);
  } finally {
    rmSync(h, { recursive: true, force: true });
  }
});
