// Issue 14 §6, end to end on the BUILT binary (`npm run test:cli` builds dist/cli.js): the live
// guard refuses what may be a running session, not a fresh copy or the CLI's own last write, and
// says so in one line.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fixture } from '../helpers/fixtures';
import { assertCliBuilt, runCli, type CliRun as Run } from '../helpers/runCli';

const V3 = 'real-v3/gjc-04-awesome-agent-ide.jsonl';
const V1 = 'upstream/pi-large-session.v1.head25.jsonl';
let home: string;
let work: string;

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-live-home-'));
  work = mkdtempSync(join(tmpdir(), 'sl-live-work-'));
  // another user must reach both (the not-owner test below)
  chmodSync(home, 0o777);
  chmodSync(work, 0o777);
});

/** HOME and the cache folder are private to the test: no real breadcrumbs or own-write records. */
function cli(opts: { uid?: number; home?: string }, ...args: string[]): Run {
  const h = opts.home ?? home;
  return runCli(args, { env: { ...process.env, HOME: h, USERPROFILE: h, XDG_CACHE_HOME: join(h, '.cache') }, timeout: 60_000, uid: opts.uid });
}

let n = 0;
/** A fresh copy of a fixture: its mtime is now, as after `cp`. */
function freshCopy(rel: string): string {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  chmodSync(dir, 0o777);
  const p = join(dir, basename(rel));
  copyFileSync(fixture(...rel.split('/')), p);
  chmodSync(p, 0o644); // the shared fixtures are read-only (0444)
  return p;
}
function age(p: string): void {
  const t = new Date(Date.now() - 60_000);
  utimesSync(p, t, t);
}
function someEntryId(p: string): string {
  return runCli(['entries', p]).json().entries[2].id as string;
}

/** A process that holds `p` open for writing (as a running agent does, O_APPEND) until killed. */
async function holdOpen(p: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', `require('fs').openSync(${JSON.stringify(p)}, 'a'); console.log('ready'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return child;
}

/** The one-line refusal: `<file>: live: <why>`, no `:1:`, the way out at most once. */
function assertOneLineRefusal(r: Run, p: string, forceable: boolean): void {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.ok(r.stderr.startsWith(`${p}: live: `), r.stderr);
  assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /:1:/);
  assert.doesNotMatch(r.stderr, /refusing to write/, 'the path once');
  assert.equal((r.stderr.match(/force/g) ?? []).length, 1, `the hint once: ${r.stderr}`);
  if (forceable) assert.match(r.stderr, /\(use --force to write anyway\)\n$/);
  else assert.match(r.stderr, /--force does not override/);
}

test('§6 a file copied a second ago that no process has open is written by title, relabel and migrate (Linux: /proc shows no writer)', { skip: process.platform !== 'linux' }, () => {
  for (const [cmd, rel] of [['title', V3], ['relabel', V3], ['migrate', V1]] as const) {
    const p = freshCopy(rel);
    const args = cmd === 'title' ? ['Copied'] : cmd === 'relabel' ? [someEntryId(p), 'copied'] : [];
    const before = readFileSync(p);
    const r = cli({}, cmd, p, ...args);
    assert.equal(r.code, 0, `${cmd} on a fresh copy: ${r.stderr}`);
    assert.notDeepEqual(readFileSync(p), before, `${cmd} wrote`);
  }
});

test("§6 the CLI's own write does not trip its next command: title, title, relabel, relabel, migrate in a row", () => {
  const p = freshCopy(V1);
  age(p);
  const steps: string[][] = [['migrate', p], ['title', p, 'One'], ['title', p, 'Two']];
  for (const s of steps) assert.equal(cli({}, ...s).code, 0, s.join(' '));
  const id = someEntryId(p);
  for (const label of ['a', 'b']) {
    const r = cli({}, 'relabel', p, id, label);
    assert.equal(r.code, 0, r.stderr);
  }
  assert.equal(cli({}, 'title', p, 'Three').code, 0);
  assert.match(readFileSync(p, 'utf8').split('\n')[0]!, /"title":"Three"/);
});

test('§6 a fresh file another process holds open for writing: title and migrate refuse for good, relabel unless --force; one line each', { skip: process.platform !== 'linux' }, async () => {
  for (const [cmd, rel] of [['title', V3], ['migrate', V1], ['relabel', V3]] as const) {
    const p = freshCopy(rel);
    const args = cmd === 'title' ? ['Held'] : cmd === 'relabel' ? [someEntryId(p), 'held'] : [];
    const holder = await holdOpen(p);
    try {
      const before = readFileSync(p);
      const r = cli({}, cmd, p, ...args);
      assertOneLineRefusal(r, p, cmd === 'relabel');
      assert.match(r.stderr, new RegExp(`pid ${holder.pid} \\(node\\) has it open for writing`));
      assert.deepEqual(readFileSync(p), before, `${cmd} wrote despite the refusal`);
      if (cmd === 'relabel') assert.equal(cli({}, cmd, p, ...args, '--force').code, 0, 'an append orphans nothing: --force may');
    } finally {
      holder.kill();
    }
  }
});

test('§6 a breadcrumb naming the file: refused in one line `<file>: live: …` with the --force hint once, no `:1:`', () => {
  const crumbHome = mkdtempSync(join(tmpdir(), 'sl-live-crumb-'));
  const p = freshCopy(V3);
  age(p);
  mkdirSync(join(crumbHome, '.xcsh', 'agent', 'terminal-sessions'), { recursive: true });
  writeFileSync(join(crumbHome, '.xcsh', 'agent', 'terminal-sessions', 'term-1'), `/work\n${p}\n`);
  for (const args of [['title', p, 'Crumb'], ['relabel', p, someEntryId(p), 'crumb'], ['migrate', p]]) {
    const r = cli({ home: crumbHome }, ...args);
    if (args[0] === 'migrate') {
      assert.equal(r.code, 0, 'a v3 file needs no migration: nothing to refuse');
      continue;
    }
    assertOneLineRefusal(r, p, true);
    assert.match(r.stderr, /a terminal breadcrumb \(.*term-1\) names it/);
    assert.equal(cli({ home: crumbHome }, ...args, '--force').code, 0);
  }
});

test("§6 where the open-writer check cannot see (another user's file): a fresh file is refused saying why; the CLI's own last write is not", { skip: process.getuid?.() !== 0 || process.platform !== 'linux' }, () => {
  // Run as `nobody` on a group/other-writable file owned by uid 4242: nobody cannot inspect that
  // owner's processes, so only the time rule and the record of its own writes are left.
  const p = freshCopy(V3);
  chmodSync(p, 0o666);
  chownSync(p, 4242, 4242);
  age(p);
  const nobody = { uid: 65534, home: mkdtempSync(join(tmpdir(), 'sl-live-nobody-')) };
  chmodSync(nobody.home, 0o777);
  const id = someEntryId(p);
  const first = cli(nobody, 'relabel', p, id, 'one');
  assert.equal(first.code, 0, `an old file: ${first.stderr}`);
  const second = cli(nobody, 'relabel', p, id, 'two');
  assert.equal(second.code, 0, `right after its own write: ${second.stderr}`);
  // the same fresh file, without the record of that write: the time rule, and why it stands
  rmSync(join(nobody.home, '.cache', 'session-loom'), { recursive: true, force: true });
  const unknown = cli(nobody, 'relabel', p, id, 'three');
  assertOneLineRefusal(unknown, p, true);
  assert.match(unknown.stderr, /it was modified \d+\.\d s ago and it belongs to another user, whose processes this user cannot inspect, so an agent may be writing it/);
});
