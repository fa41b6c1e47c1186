// Issue 22 (adversarial review), points 8, 12, 17 and 23, on the BUILT binary (`npm run test:cli`
// builds dist/cli.js): each case runs the CLI as a child process, with a timeout where a hang is
// the bug (a FIFO standing in for a database or its -wal/-journal).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dshFixture, dshFixtureText, storeSessionOf, writeDshStore } from '../helpers/dshBuild';
import { SQLITE3 } from '../helpers/sqliteCli';
import { CLI, assertCliBuilt, runCli } from '../helpers/runCli';

let home: string;
let work: string;
let n = 0;

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-i22-home-'));
  work = mkdtempSync(join(tmpdir(), 'sl-i22-work-'));
});

after(() => {
  for (const d of [home, work]) rmSync(d, { recursive: true, force: true });
});

function dir(): string {
  const d = join(work, String(n++));
  mkdirSync(d);
  return d;
}

const cli = (...args: string[]) =>
  runCli(args, { env: { ...process.env, HOME: home, USERPROFILE: home, XDG_CACHE_HOME: join(home, '.cache') }, timeout: 20_000, killSignal: 'SIGKILL' });

const sqlite = (db: string, sql: string): void => {
  const r = spawnSync(SQLITE3, [db], { input: sql, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
};

const HISTORY_SCHEMA = `CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, prompt TEXT NOT NULL, created_at INTEGER NOT NULL, cwd TEXT);
CREATE VIRTUAL TABLE history_fts USING fts5(prompt, content='history', content_rowid='id');
CREATE TRIGGER history_ai AFTER INSERT ON history BEGIN INSERT INTO history_fts(rowid, prompt) VALUES (new.id, new.prompt); END;`;

function historyDb(d: string): string {
  const db = join(d, 'history.db');
  sqlite(db, `${HISTORY_SCHEMA} INSERT INTO history(prompt, created_at, cwd) VALUES ('a good prompt', 1780308060, '/w');`);
  return db;
}

const ESC = '\u001b';
const BEL = '\u0007';

/** A small v3 session whose cwd and tool output carry terminal escape sequences. */
function hostileSession(d: string): string {
  const p = join(d, 'hostile.jsonl');
  const lines = [
    { type: 'session', version: 3, id: 'aaaa0000', timestamp: '2026-01-01T00:00:00.000Z', cwd: `/w${ESC}]0;cwd-title${BEL}` },
    { type: 'message', id: '00000001', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: [{ type: 'text', text: 'run it' }] } },
    { type: 'message', id: '00000002', parentId: '00000001', timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'cat x' } }] } },
    {
      type: 'message',
      id: '00000003',
      parentId: '00000002',
      timestamp: '2026-01-01T00:00:03.000Z',
      message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: `clip${ESC}]52;c;SGVsbG8=${BEL} title${ESC}]0;pwned${BEL} wipe${ESC}[2J${ESC}[3J end\tcol` }], isError: false, timestamp: 1 },
    },
  ];
  writeFileSync(p, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return p;
}

// ---- (8) export --format md on a terminal ----

/** The CLI under a real pseudo-terminal (util-linux `script`): stdout is a TTY, as for a user. */
function underPty(args: string[]): { code: number | null; out: string } {
  const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`;
  const r = spawnSync('script', ['-qec', [process.execPath, CLI, ...args].map(quote).join(' '), '/dev/null'], {
    encoding: 'utf8',
    env: { ...process.env, HOME: home, USERPROFILE: home },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 20_000,
    killSignal: 'SIGKILL',
  });
  return { code: r.status, out: r.stdout };
}

test('(8) export --format md to a terminal escapes the escape sequences of tool output and cwd; to a pipe or -o it is the Markdown as is', () => {
  const d = dir();
  const p = hostileSession(d);
  const tty = underPty(['export', p, '--format', 'md']);
  assert.equal(tty.code, 0, tty.out);
  assert.ok(!tty.out.includes(ESC), `no raw ESC reaches the terminal:\n${JSON.stringify(tty.out)}`);
  assert.ok(!tty.out.includes(BEL), 'no raw BEL');
  assert.ok(tty.out.includes('\\x1b]52;c;SGVsbG8=\\x07'), 'OSC 52 shown escaped');
  assert.ok(tty.out.includes('\\x1b[2J\\x1b[3J'), 'CSI 2J/3J shown escaped');
  assert.ok(tty.out.includes('\\x1b]0;cwd-title\\x07'), 'the cwd shown escaped');
  assert.ok(tty.out.includes('end\tcol'), 'a tab is harmless: kept');

  const piped = cli('export', p, '--format', 'md');
  assert.equal(piped.code, 0, piped.stderr);
  assert.ok(piped.stdout.includes(`clip${ESC}]52;c;SGVsbG8=${BEL}`), 'to a pipe: the Markdown exactly');
  const out = join(d, 'out.md');
  const toFile = cli('export', p, '--format', 'md', '-o', out);
  assert.equal(toFile.code, 0, toFile.stderr);
  assert.equal(readFileSync(out, 'utf8'), piped.stdout, 'with -o: the same Markdown as is');
});

// ---- (12) a FIFO in place of a database, its -wal or its -journal ----

function assertRefusesFifo(r: ReturnType<typeof cli>, fifo: string): void {
  assert.notEqual(r.status, null, `the CLI hung on ${fifo} (killed after 20 s)`);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.stderr.includes(fifo) && /FIFO/.test(r.stderr), `one sentence naming the FIFO:\n${r.stderr}`);
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
}

test('(12) history --db naming a FIFO exits promptly with a sentence naming it', () => {
  const fifo = join(dir(), 'history.db');
  spawnSync('mkfifo', [fifo]);
  assertRefusesFifo(cli('history', '--db', fifo), fifo);
});

test('(12) history: a FIFO as history.db-wal or history.db-journal exits promptly, naming it', () => {
  for (const side of ['-wal', '-journal']) {
    const db = historyDb(dir());
    spawnSync('mkfifo', [db + side]);
    assertRefusesFifo(cli('history', '--db', db), db + side);
  }
});

test('(12) a dsh SQLite store whose -wal or -journal is a FIFO: events, export exit promptly, naming it', async () => {
  for (const side of ['-wal', '-journal']) {
    const db = join(dir(), 'store.db');
    await writeDshStore(db, [storeSessionOf(dshFixtureText('dsh-cancel-aborted.session.jsonl'), 'one')]);
    spawnSync('mkfifo', [db + side]);
    assertRefusesFifo(cli('events', db, '--session', 'one'), db + side);
    assertRefusesFifo(cli('export', db, '--format', 'md', '--session', 'one'), db + side);
  }
});

// ---- (17) a created_at that is no time ----

test('(17) history lists a row whose created_at is text or out of range, its time unknown (JSON null, text "unknown time")', () => {
  const d = dir();
  const db = join(d, 'history.db');
  sqlite(
    db,
    `${HISTORY_SCHEMA}
     INSERT INTO history(prompt, created_at, cwd) VALUES ('a good prompt', 1780308060, '/w');
     INSERT INTO history(prompt, created_at, cwd) VALUES ('a text time', 'yesterday', '/w');
     INSERT INTO history(prompt, created_at, cwd) VALUES ('a far time', 99999999999999, '/w');`,
  );
  const json = cli('history', '--db', db, '--json');
  assert.equal(json.code, 0, json.stderr);
  const byPrompt = new Map(json.json().entries.map((e: { prompt: string; createdAt: string | null }) => [e.prompt, e.createdAt]));
  assert.deepEqual(Object.fromEntries(byPrompt), { 'a good prompt': '2026-06-01T10:01:00.000Z', 'a text time': null, 'a far time': null });
  const text = cli('history', '--db', db);
  assert.equal(text.code, 0, text.stderr);
  const rows = text.stdout.trimEnd().split('\n');
  assert.equal(rows.length, 3, text.stdout);
  assert.ok(rows.some((r) => r.startsWith('2026-06-01 10:01:00  /w  a good prompt')), text.stdout);
  assert.ok(rows.some((r) => /^unknown time +\/w {2}a text time$/.test(r)), text.stdout);
  assert.ok(rows.some((r) => /^unknown time +\/w {2}a far time$/.test(r)), text.stdout);
  const located = cli('history', '--db', db, '--locate', '--root', d, '--json');
  assert.equal(located.code, 0, located.stderr);
  assert.equal(located.json().entries.find((e: { prompt: string }) => e.prompt === 'a text time').session, null);
});

// ---- (23a) the WASM SQLite's own console lines ----

test('(23a) a damaged history database: our one sentence on stderr, no raw "sqlite3_step() rc=" line from the library', () => {
  const d = dir();
  const db = join(d, 'history.db');
  sqlite(
    db,
    `${HISTORY_SCHEMA}
     WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
     INSERT INTO history(prompt, created_at, cwd) SELECT 'prompt number ' || x || ' ' || hex(randomblob(40)), 1780308060 + x, '/w' FROM c;`,
  );
  // Damage the row pages (not the schema on page 1): the failure comes when the rows are read.
  const bytes = readFileSync(db);
  for (let page = 2; page < 40; page++) bytes.fill(0xff, page * 4096 + 10, page * 4096 + 3010);
  writeFileSync(db, bytes);
  const r = cli('history', '--db', db);
  assert.equal(r.code, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /sqlite3_step/, r.stderr);
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /damaged/);
});

// ---- (23b) a name longer than the system allows ----

test('(23b) a path longer than the system allows is "file name too long", never "no such directory"/"no such file"', () => {
  const long = join(work, 'x'.repeat(300));
  for (const args of [
    ['ls', '--root', long],
    ['search', '--root', long, 'word'],
    ['history', '--db', `${long}.db`],
    ['context', `${long}.jsonl`],
  ]) {
    const r = cli(...args);
    assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
    assert.match(r.stderr, /file name too long/, `${args[0]}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /no such|does not exist|ENAMETOOLONG/, `${args[0]}: ${r.stderr}`);
  }
});

// ---- (23c) fork onto a symbolic link ----

test('(23c) fork -o onto a symbolic link (dangling or not) says so, and writes nothing through it', () => {
  const d = dir();
  const p = hostileSession(d);
  const dangling = join(d, 'dangling.jsonl');
  const target = join(d, 'missing-target.jsonl');
  symlinkSync(target, dangling);
  const r = cli('fork', p, '00000002', '-o', dangling);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `${dangling}: the output path is a symbolic link; a fork never writes through or over a symbolic link\n`);
  assert.ok(!existsSync(target), 'nothing written through the link');
  assert.ok(lstatSync(dangling).isSymbolicLink(), 'the link is left as it was');
  const ok = cli('fork', p, '00000002', '-o', join(d, 'fork.jsonl'));
  assert.equal(ok.code, 0, ok.stderr);
});

// ---- (23d) export --session on a dsh SQLite store ----

test('(23d) export --session picks one session of a dsh store; without it the sessions are listed (exit 2); refused on xcsh and raw dsh logs', async () => {
  const d = dir();
  const db = join(d, 'store.db');
  await writeDshStore(db, [storeSessionOf(dshFixtureText('dsh-cancel-aborted.session.jsonl'), 'one'), storeSessionOf(dshFixtureText('dsh-packed-chunks.session.jsonl'), 'two')]);
  const raw = join(d, 'raw.jsonl');
  copyFileSync(dshFixture('dsh-packed-chunks.session.jsonl'), raw);

  const one = cli('export', db, '--format', 'md', '--session', 'one');
  assert.equal(one.code, 0, one.stderr);
  const two = cli('export', db, '--format', 'md', '--session', 'two');
  assert.equal(two.code, 0, two.stderr);
  assert.notEqual(one.stdout, two.stdout, 'each session its own context');
  // The same Markdown as the session read from its log, but for the facts naming the file and the session.
  const facts = (md: string): string => md.replace(/^- (File|Session): .*$/gm, '- $1');
  assert.match(two.stdout, /^- Session: `two`/m);
  assert.equal(facts(two.stdout), facts(cli('export', raw, '--format', 'md').stdout), 'the same Markdown as from its log');
  const html = cli('export', db, '--format', 'html', '--session', 'one');
  assert.equal(html.code, 0, html.stderr);

  const none = cli('export', db, '--format', 'md');
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /a dsh SQLite store with 2 sessions; pick one with --session <id>/);
  assert.deepEqual(none.json().sessions.map((s: { id: string }) => s.id).sort(), ['one', 'two']);

  const unknown = cli('export', db, '--format', 'md', '--session', 'nope');
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, `${db}: no session "nope" in this dsh store\n`);

  const xcsh = cli('export', hostileSession(d), '--format', 'md', '--session', 'one');
  assert.equal(xcsh.code, 2);
  assert.match(xcsh.stderr, /--session is for deepseek-harness \(dsh\) logs; this is an xcsh session file/);
  const log = cli('export', raw, '--format', 'md', '--session', 'one');
  assert.equal(log.code, 2);
  assert.match(log.stderr, /--session picks a session of a dsh SQLite store; .*raw\.jsonl is a dsh log of one session/);
});

test('(7) an export written with -o is 0600 under umask 0 (it holds the session\'s words)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loom-private-export-'));
  try {
    const src = join(dir, 's.jsonl');
    const t = '2026-01-01T00:00:00Z';
    writeFileSync(src, [{ type: 'session', version: 3, id: 's', timestamp: t, cwd: '/w' }, { type: 'message', id: 'a', parentId: null, timestamp: t, message: { role: 'user', content: 'a secret' } }].map((l) => JSON.stringify(l)).join('\n') + '\n');
    const out = join(dir, 'export.md');
    const r = spawnSync('sh', ['-c', `umask 0 && "${process.execPath}" "${CLI}" export "${src}" --format md -o "${out}"`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(readFileSync(out, 'utf8'), /a secret/);
    assert.equal((lstatSync(out).mode & 0o777).toString(8), '600');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
