// Issue 15 "No byte lost", end to end: the BUILT binary (`npm run test:cli` builds dist/cli.js)
// against real concurrent appenders and a real SIGKILL.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture } from '../helpers/fixtures';
import { CLI, assertCliBuilt, runCli, runCliAsync } from '../helpers/runCli';
import { age, bigSession } from '../helpers/bigSession';

let home: string;

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-safe-home-'));
});

const env = () => ({ ...process.env, HOME: home, USERPROFILE: home, XDG_CACHE_HOME: join(home, '.cache') });
const cli = (...args: string[]) => runCli(args, { env: env() });
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


const appendedLine = (k: number) => `${JSON.stringify({ type: 'message', message: { role: 'user', content: `appended-${k}` } })}\n`;

// The agent stand-in. Modes: `hold` opens the file at once and appends through that one fd (as
// the agent does, O_APPEND) from the start; `hold-late` opens it only once our temp file appears
// (an agent started mid-rewrite) and then appends through it; `reopen` waits for the temp file,
// then appends one line per open (like `echo >>`). About one line per millisecond, until the
// stop file exists; then it prints how many lines it wrote.
const APPENDER = `
const fs = require('fs'), path = require('path');
const [file, mode, stop] = process.argv.slice(1);
const dir = path.dirname(file);
const temp = new RegExp('^\\\\.' + path.basename(file).replace(/\\./g, '\\\\.') + '\\\\.[0-9a-f]{12}\\\\.tmp$');
const line = (k) => JSON.stringify({ type: 'message', message: { role: 'user', content: 'appended-' + k } }) + '\\n';
let k = 0, fd = mode === 'hold' ? fs.openSync(file, 'a') : -1, started = mode === 'hold';
console.log('ready');
(function tick() {
  if (fs.existsSync(stop)) { console.log('count ' + k); process.exit(0); }
  if (!started && fs.readdirSync(dir).some((n) => temp.test(n))) { started = true; if (mode === 'hold-late') fd = fs.openSync(file, 'a'); }
  if (started) { if (fd >= 0) fs.writeSync(fd, line(k++)); else fs.appendFileSync(file, line(k++)); }
  setTimeout(tick, started ? 1 : 0);
})();`;

type Mode = 'hold' | 'hold-late' | 'reopen';

/** Runs the CLI while an appender writes to the file; returns the CLI's result and how many lines were appended. */
async function withAppender(p: string, mode: Mode, args: string[]): Promise<{ code: number; stdout: string; stderr: string; count: number }> {
  const stop = join(mkdtempSync(join(tmpdir(), 'sl-stop-')), 'stop');
  const child = spawn(process.execPath, ['-e', APPENDER, p, mode, stop], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  while (!out.includes('ready')) await sleep(5);
  if (mode === 'hold') await sleep(50); // let the live agent write a little first
  // async, so this process stays responsive; the appender is a process of its own anyway
  const r = await runCliAsync(args, { env: env() });
  await sleep(30); // a few more lines after the writer is done
  writeFileSync(stop, '');
  await exited;
  const count = Number(/count (\d+)/.exec(out)?.[1] ?? NaN);
  assert.ok(Number.isInteger(count), `appender output: ${out}`);
  return { ...r, count };
}

/** Every appended line is in the file exactly once. */
function assertNoneLost(p: string, count: number, what: string): void {
  const text = readFileSync(p, 'utf8');
  const lost: number[] = [];
  for (let k = 0; k < count; k++) {
    const at = text.indexOf(appendedLine(k));
    if (at === -1 || text.indexOf(appendedLine(k), at + 1) !== -1) lost.push(k);
  }
  assert.deepEqual(lost, [], `${what}: ${lost.length} of ${count} appended lines lost or duplicated`);
}

for (const cmd of ['migrate', 'title'] as const) {
  for (const force of [false, true]) {
    const args = (p: string) => [cmd, p, ...(cmd === 'title' ? ['Raced'] : []), ...(force ? ['--force'] : [])];
    const name = `${cmd}${force ? ' --force' : ''}`;

    test(`§1 ${name} while another program appends (one open per line): every appended line is in the new file`, { timeout: 60_000 }, async (t) => {
      const p = join(mkdtempSync(join(tmpdir(), 'sl-race-')), 's.jsonl');
      bigSession(p, cmd === 'migrate' ? 1 : 3, 4);
      const r = await withAppender(p, 'reopen', args(p));
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.count > 0, 'the appender ran during the write');
      t.diagnostic(`${r.count} lines appended; ${JSON.parse(r.stdout).carriedBytes} bytes carried over by the writer`);
      const head = JSON.parse(readFileSync(p, 'utf8').slice(0, 200).split('\n')[0]!);
      assert.equal(cmd === 'migrate' ? head.version : head.title, cmd === 'migrate' ? 3 : 'Raced', 'the write happened');
      assertNoneLost(p, r.count, name);
    });

    test(`§1 ${name} on a file an agent holds open and appends to: refused, nothing lost`, { timeout: 60_000 }, async () => {
      const p = join(mkdtempSync(join(tmpdir(), 'sl-race-')), 's.jsonl');
      bigSession(p, cmd === 'migrate' ? 1 : 3, 4);
      const r = await withAppender(p, 'hold', args(p));
      assert.equal(r.code, 1, `${name} must refuse: ${r.stdout}`);
      assert.match(r.stderr, force ? /open for writing|changed/ : /live|changed/);
      if (force && cmd === 'title') assert.match(r.stderr, /pid \d+ \(node\) has it open for writing.*--force does not override/);
      assertNoneLost(p, r.count, name);
    });

    test(`§1 ${name} when an agent opens the file mid-rewrite and appends through it: refused or complete, nothing lost`, { timeout: 60_000, skip: process.platform !== 'linux' }, async (t) => {
      const p = join(mkdtempSync(join(tmpdir(), 'sl-race-')), 's.jsonl');
      bigSession(p, cmd === 'migrate' ? 1 : 3, 8);
      const r = await withAppender(p, 'hold-late', args(p));
      assert.ok(r.code === 0 || /open for writing/.test(r.stderr), `${r.code}: ${r.stderr}`);
      t.diagnostic(`exit ${r.code}, ${r.count} lines appended`);
      assertNoneLost(p, r.count, name);
    });
  }
}

test('§5 migrate --backup killed mid-write: no partial backup under a backup name, the session intact; doctor names the temp; the next write removes it once stale', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-kill-'));
  const p = join(dir, 's.jsonl');
  bigSession(p, 1, 16);
  const original = sha(p);
  const child = spawn(process.execPath, [CLI, 'migrate', p, '--backup'], { env: env(), stdio: 'ignore' });
  // Kill the moment the first new file appears beside the session (the backup's temp, or with
  // the old code the backup itself), so the kill lands while it is being written.
  const deadline = Date.now() + 30_000;
  let seen: string[] = [];
  while (Date.now() < deadline && child.exitCode === null) {
    seen = readdirSync(dir).filter((n) => n !== 's.jsonl');
    if (seen.length > 0) break;
  }
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  assert.ok(seen.length > 0, 'the write had started');
  for (const n of readdirSync(dir).filter((f) => f.includes('.bak-'))) assert.equal(sha(join(dir, n)), original, `${n}: a backup under its final name is complete`);
  assert.equal(sha(p), original, 'the session is untouched');
  const temps = readdirSync(dir).filter((n) => /^\.s\.jsonl\.[0-9a-f]{12}\.tmp$/.test(n));
  assert.equal(temps.length, 1, `the kill left our temp: ${readdirSync(dir).join(', ')}`);

  const doctor = cli('doctor', p, '--json');
  assert.equal(doctor.code, 1);
  const found = JSON.parse(doctor.stdout).diagnostics.filter((d: { kind: string }) => d.kind === 'leftover-temp-file');
  assert.equal(found.length, 1);
  assert.ok(found[0].message.includes(join(dir, temps[0]!)), found[0].message);

  age(join(dir, temps[0]!), 11 * 60_000);
  const again = cli('title', p, 'after the kill');
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.tmp')), [], 'the stale temp was removed');
});

// ---------------------------------------------------------------- §3, §6, §7 through the CLI

test('§3 a 0444 session: migrate, title and relabel exit 1 naming the permissions; the bytes are unchanged', () => {
  const p = join(mkdtempSync(join(tmpdir(), 'sl-ro-')), 's.jsonl');
  copyFileSync(fixture('real-v3', 'gjc-04-awesome-agent-ide.jsonl'), p);
  chmodSync(p, 0o444);
  age(p);
  const before = sha(p);
  const v1 = join(mkdtempSync(join(tmpdir(), 'sl-ro-')), 'v1.jsonl');
  copyFileSync(fixture('upstream', 'pi-large-session.v1.head25.jsonl'), v1);
  chmodSync(v1, 0o444);
  age(v1);
  const v1Before = sha(v1);
  for (const args of [['migrate', v1, '--force'], ['title', p, 'x', '--force'], ['relabel', p, 'whatever', 'x', '--force']]) {
    const r = cli(...args);
    assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
    assert.match(r.stderr, /read-only: .*0444/);
  }
  assert.equal(sha(p), before);
  assert.equal(sha(v1), v1Before);
});

const UNWRITABLE = [
  { name: 'version 1e400', header: '{"type":"session","version":1e400,"id":"s","cwd":"/w"}', says: /not a finite number/ },
  { name: 'version "4"', header: '{"type":"session","version":"4","id":"s","cwd":"/w"}', says: /version 4 is newer than 3/ },
  { name: 'version -1', header: '{"type":"session","version":-1,"id":"s","cwd":"/w"}', says: /version -1/ },
  { name: 'a dsh header (version 0, createdAt)', header: '{"type":"session","version":0,"id":"d","createdAt":1785498791421,"cwd":"/w"}', says: /deepseek-harness \(dsh\)/ },
];

for (const u of [...UNWRITABLE, { name: 'the real dsh fixture', header: '', says: /deepseek-harness \(dsh\) session log/ }]) {
  test(`§6/§7 ${u.name}: migrate (also --dry-run), title and relabel exit 1 naming the reason; the bytes are unchanged`, () => {
    const p = join(mkdtempSync(join(tmpdir(), 'sl-ver-')), 's.jsonl');
    if (u.header) writeFileSync(p, `${u.header}\n{"type":"message","id":"aaaaaaaa","parentId":null,"message":{"role":"user","content":"a"}}\n`);
    else {
      copyFileSync(fixture('dsh', 'dsh-cancel-aborted.session.jsonl'), p);
      chmodSync(p, 0o644);
    }
    age(p);
    const before = sha(p);
    for (const args of [['migrate', p], ['migrate', p, '--dry-run'], ['migrate', p, '--force', '--backup'], ['title', p, 'x', '--force'], ['relabel', p, 'aaaaaaaa', 'x', '--force']]) {
      const r = cli(...args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, u.says, args.join(' '));
    }
    assert.equal(sha(p), before);
    assert.deepEqual(readdirSync(join(p, '..')), ['s.jsonl'], 'no backup, no temp');
  });
}

test('--help of a write command says what --force overrides and what it never does', () => {
  for (const cmd of ['migrate', 'title', 'relabel']) {
    const r = cli(cmd, '--help');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--force overrides exactly these two guesses/);
    assert.match(r.stdout, /open for\s+writing/);
  }
  assert.match(cli('--help').stdout, /--force overrides exactly these two guesses/);
});
