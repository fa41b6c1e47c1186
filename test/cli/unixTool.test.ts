// Issue 21 §5, the CLI as a good Unix tool, on the BUILT binary (`npm run test:cli` builds
// dist/cli.js): --version, short usage errors, a help text without broken lines, files that are
// not sessions refused in one sentence, extra arguments and options that do not apply refused,
// error messages that neither repeat the code nor blame the wrong argument, and one rule for
// "nothing found" (exit 0, where it looked on stderr).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, fixture } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';
import { dshFixtureText, storeSessionOf, writeDshStore, zstdLogOf } from '../helpers/dshBuild';

/** The help's width (src/cli/util.ts HELP_WIDTH); only the usage lines may pass it (they are the README's synopsis). */
const WIDTH = 100;
let home: string;
let work: string;

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-unix-home-'));
  work = mkdtempSync(join(tmpdir(), 'sl-unix-work-'));
});

after(() => {
  for (const d of [home, work]) rmSync(d, { recursive: true, force: true });
});

const cli = (...args: string[]) =>
  runCli(args, {
    cwd: work,
    env: { ...process.env, HOME: home, USERPROFILE: home, XDG_CACHE_HOME: join(home, '.cache'), DSH_HOME: join(home, '.dsh') },
    // a hang (Node's recursive mkdir under /proc loops forever) fails the test instead of the run
    timeout: 60_000,
  });

let n = 0;
function file(name: string, content: string | Uint8Array): string {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

/** Deterministic "random" bytes: a hash chain. */
function noise(bytes: number): Buffer {
  const parts: Buffer[] = [];
  let h = Buffer.from('session-loom');
  for (let got = 0; got < bytes; got += 32) parts.push((h = createHash('sha256').update(h).digest()));
  return Buffer.concat(parts).subarray(0, bytes);
}

const cols = (s: string): number => [...s].length;
const indentOf = (s: string): number => s.length - s.trimStart().length;

test('§5.1 --version and -V print "session-loom <package.json version>", exit 0', () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-V']) {
    const r = cli(flag);
    assert.equal(r.code, 0, flag);
    assert.equal(r.stdout, `session-loom ${version}\n`, flag);
    assert.equal(r.stderr, '', flag);
  }
});

test('§5.2 an unknown command is one line and a hint, exit 2, not the whole help; no command at all is a short usage, exit 2', () => {
  const r = cli('frobnicate');
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `session-loom: unknown command "frobnicate"\nRun 'session-loom --help' for usage.\n`);
  const opt = cli('--frob');
  assert.equal(opt.code, 2);
  assert.equal(opt.stderr, `session-loom: unknown option "--frob"\nRun 'session-loom --help' for usage.\n`);
  const none = cli();
  assert.equal(none.code, 2);
  assert.equal(none.stdout, '');
  const lines = none.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2, none.stderr);
  assert.match(lines[0]!, /^usage: session-loom <command> \[<args>\]/);
  assert.match(lines[0]!, /context, entries, events, tree, ls, doctor, search, history/);
  assert.equal(lines[1], "Run 'session-loom --help' for usage.");
});

/**
 * Lines of help text that break badly: too wide (usage lines aside), a paragraph line that ends
 * early (the next line's first word would have fitted: a dangling fragment), or a continuation
 * indented differently from its paragraph (a hanging `label: ` continues under the text after it).
 * A line that starts an option item (`--search: …`) starts a paragraph.
 */
function badHelpLines(text: string): string[] {
  const bad: string[] = [];
  const lines = text.split('\n');
  const isUsage = (l: string): boolean => l.startsWith('usage: ');
  lines.forEach((l, i) => {
    if (!isUsage(l) && cols(l) > WIDTH) bad.push(`too wide (${cols(l)}): ${l}`);
    if (l !== l.trimEnd()) bad.push(`trailing space: ${l}`);
    const next = lines[i + 1];
    if (next === undefined || l.trim() === '' || next.trim() === '' || isUsage(l) || isUsage(next)) return;
    // a list of options (`  --search: …`): each item its own paragraph
    if (/^\s*--?[a-z][\w-]*: /.test(next)) return;
    const hang = /^(\s*\S+: )/.exec(l)?.[1];
    const continues = indentOf(next) === indentOf(l) || (hang !== undefined && indentOf(next) === cols(hang));
    if (!continues) {
      // a deeper block under a paragraph is a new paragraph; anything else is misaligned
      if (indentOf(next) < indentOf(l) && indentOf(next) !== 0 && indentOf(next) !== 4) bad.push(`misaligned continuation: ${next}`);
      return;
    }
    const word = next.trimStart().split(' ')[0]!;
    if (cols(l) + 1 + cols(word) <= WIDTH) bad.push(`ends early ("${word}" fits): ${l}`);
  });
  return bad;
}

test('§5.3 the help text has no broken lines: at most 100 columns (usage lines aside), no dangling fragments, continuations aligned', () => {
  const help = cli('--help');
  assert.equal(help.code, 0);
  assert.deepEqual(badHelpLines(help.stdout), []);
  // every usage line is there, whole, and the README-bound synopsis is not wrapped
  assert.equal(help.stdout.split('\n').filter((l) => l.startsWith('usage: session-loom ')).length, 13);
  // the commands' own --help (the live-guard paragraph, the query language) too
  for (const c of ['migrate', 'relabel', 'title', 'search', 'history', 'context']) {
    const r = cli(c, '--help');
    assert.equal(r.code, 0, c);
    assert.deepEqual(badHelpLines(r.stdout), [], c);
  }
  // the checker itself catches what the old text had
  assert.deepEqual(badHelpLines('Nothing overrides the\nother refusals: the\nfile changed since it was read').length, 2);
  assert.equal(badHelpLines(`${'x'.repeat(WIDTH + 1)}`).length, 1);
  assert.match(help.stdout, /exit 0, and where it looked on stderr/, 'the help says what "nothing found" exits with');
});

test('§5.4 a file that is not a session is refused in one sentence naming it (exit 1) by context, tree, entries, doctor and events', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), noise(2000)]);
  const cases: [string, string][] = [
    [file('ls.jsonl', readFileSync(existsSync('/bin/ls') ? '/bin/ls' : process.execPath).subarray(0, 200_000)), 'binary data (an ELF executable)'],
    [file('image.jsonl', png), 'binary data (a PNG image)'],
    [file('noise.jsonl', noise(5000)), 'binary data'],
    [file('array.jsonl', '[1,2,3]\n'), 'a JSON array, not JSONL records'],
    [file('other.jsonl', '{"a":1}\n{"b":2}\n'), 'JSONL, but no line is a session record (an xcsh/pi header or entry, a dsh header or event)'],
    [file('notes.jsonl', 'just some notes\nabout a session\n'), 'text, not JSONL records'],
  ];
  if (process.platform !== 'linux') cases.shift(); // /bin/ls is an ELF file on Linux only
  for (const [path, what] of cases) {
    for (const cmd of ['context', 'tree', 'entries', 'doctor', 'events']) {
      const r = cli(cmd, path);
      assert.equal(r.code, 1, `${cmd} ${path}: ${r.stderr}`);
      assert.equal(r.stdout, '', `${cmd} ${path}`);
      assert.equal(r.stderr, `${path}: not a session file: ${what}\n`, `${cmd} ${path}`);
    }
  }
  // the write commands refuse it the same way, before any guard
  const other = cases.at(-2)![0];
  for (const args of [['migrate', other], ['title', other, 'T'], ['relabel', other, 'x', 'L'], ['fork', other, 'x'], ['export', other, '--format', 'md']]) {
    const r = cli(...args);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.stderr, `${other}: not a session file: JSONL, but no line is a session record (an xcsh/pi header or entry, a dsh header or event)\n`, args.join(' '));
  }
});

test('§5.4 what could be a (damaged) session is still read: empty, headerless, v1 without ids, glued, NUL tail, torn first line, dsh raw/zstd/SQLite', async () => {
  const header = JSON.stringify({ type: 'session', version: 3, id: 'hdr00001', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/x' });
  const entry = JSON.stringify({ type: 'message', id: 'e0000001', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } });
  const dshText = dshFixtureText('dsh-cancel-aborted.session.jsonl');
  const zstd = file('session.jsonl.zstd', zstdLogOf(dshText, 3));
  const store = join(work, 'store.db');
  await writeDshStore(store, [storeSessionOf(dshText, 'one')]);
  const accepted: [string, string[]][] = [
    [file('empty.jsonl', ''), ['doctor']],
    [file('blank.jsonl', '\n\n'), ['tree']],
    [fixture('real-v3', 'gjc-01-youtube-transcript-extraction.jsonl'), ['context', 'tree']],
    [fixture('upstream', 'pi-large-session.v1.head25.jsonl'), ['context', 'entries']],
    [fixture('upstream', 'pi-session.v1.glued-records.jsonl'), ['tree']],
    [file('nul-tail.jsonl', Buffer.concat([Buffer.from(`${header}\n${entry}\n`), Buffer.alloc(4096)])), ['context']],
    [file('torn-start.jsonl', `ssage":{"role":"user"}}\n${entry}\n`), ['context']],
    [file('glued-only.jsonl', `${header}${entry}\n`), ['context']],
    [fixture('dsh', 'dsh-cancel-aborted.session.jsonl'), ['events', 'context', 'tree']],
    [zstd, ['events', 'tree']],
  ];
  for (const [path, cmds] of accepted) {
    for (const cmd of cmds) {
      const r = cli(cmd, path);
      assert.doesNotMatch(r.stderr, /not a session file/, `${cmd} ${path}`);
      assert.ok(r.code === 0 || (cmd === 'doctor' && r.code === 1), `${cmd} ${path}: exit ${r.code} ${r.stderr}`);
    }
  }
  const s = cli('events', store, '--session', 'one');
  assert.equal(s.code, 0, s.stderr);
  assert.equal(s.json().format, 'dsh');
});

test('§5.5 extra arguments and options that do not apply are usage errors (exit 2) naming the argument', () => {
  const v3 = fixture('real-v3', 'gjc-04-awesome-agent-ide.jsonl');
  const raw = fixture('dsh', 'dsh-cancel-aborted.session.jsonl');
  const firstLine = (args: string[]): string => {
    const r = cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    const lines = r.stderr.trimEnd().split('\n');
    assert.ok(lines.length <= 2 && (lines.length === 1 || lines[1]!.startsWith('usage: session-loom ')), r.stderr);
    return lines[0]!;
  };
  // extra positionals: usage errors before the file is even looked at (a.jsonl does not exist)
  assert.equal(firstLine(['context', 'a.jsonl', 'b.jsonl']), 'session-loom: unexpected argument "b.jsonl"');
  assert.equal(firstLine(['tree', 'x.jsonl', 'extra']), 'session-loom: unexpected argument "extra"');
  for (const c of ['entries', 'events', 'doctor', 'migrate']) assert.equal(firstLine([c, v3, 'extra']), 'session-loom: unexpected argument "extra"', c);
  assert.equal(firstLine(['export', v3, 'extra', '--format', 'md']), 'session-loom: unexpected argument "extra"');
  assert.equal(firstLine(['fork', v3, 'id', 'extra']), 'session-loom: unexpected argument "extra"');
  assert.equal(firstLine(['relabel', v3, 'id', 'label', 'extra']), 'session-loom: unexpected argument "extra"');
  assert.equal(firstLine(['history', 'extra']), 'session-loom: unexpected argument "extra"');
  // --session picks a session of a SQLite store: not of a raw log
  for (const c of ['events', 'context', 'tree', 'doctor']) {
    assert.equal(firstLine([c, raw, '--session', 'x']), `session-loom: --session picks a session of a dsh SQLite store; ${raw} is a dsh log of one session`, c);
  }
  // --blobs is an xcsh blob store: not for a dsh log
  for (const c of ['context', 'doctor']) assert.match(firstLine([c, raw, '--blobs', work]), /^session-loom: --blobs is for xcsh session files/, c);
});

test('§5.6 errors do not repeat the code and blame the path they concern', () => {
  const missing = cli('context', 'missing.jsonl');
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, 'missing.jsonl: no such file or directory\n');
  const dir = join(work, 'a-folder');
  mkdirSync(dir);
  const d = cli('tree', dir);
  assert.equal(d.code, 1);
  assert.equal(d.stderr, `${dir}: is a directory, not a session file\n`);
  // an output file that cannot be made: named, without "ENOENT"
  const out = join(work, 'no-such-folder', 'x.md');
  const e = cli('export', fixture('real-v3', 'gjc-04-awesome-agent-ide.jsonl'), '--format', 'md', '-o', out);
  assert.equal(e.code, 1);
  assert.equal(e.stderr, `${out}: no such file or directory\n`);
  // an index folder that cannot be used is blamed, not the query
  const regular = file('regular', 'x');
  const under = cli('search', 'hafnium', '--index', join(regular, 'x'));
  assert.equal(under.code, 1);
  assert.equal(under.stderr, `${join(regular, 'x')}: cannot make the search index folder: ${regular} is not a directory\n`);
  const itself = cli('search', 'hafnium', '--index', regular);
  assert.equal(itself.stderr, `${regular}: not a directory, so it cannot be the search index folder\n`);
  if (process.platform === 'linux') {
    // Node's recursive mkdir loops forever here; the CLI makes folders one at a time
    const proc = cli('search', 'hafnium', '--index', '/proc/nonexistent/x');
    assert.equal(proc.code, 1, proc.stderr);
    assert.equal(proc.stderr, '/proc/nonexistent/x: cannot make the search index folder: /proc/nonexistent: no such file or directory\n');
  }
  for (const r of [missing, d, e, under, itself]) assert.doesNotMatch(r.stderr, /E[A-Z]{3,}:|hafnium:/);
});

test('§5.7 nothing found exits 0 with where it looked on stderr: ls, history and search agree (an empty HOME)', () => {
  const ls = cli('ls');
  assert.equal(ls.code, 0);
  assert.equal(ls.stderr, `no sessions found; looked in:\n  ${join(home, '.xcsh', 'agent', 'sessions')} (does not exist)\n`);
  const history = cli('history');
  assert.equal(history.code, 0, history.stderr);
  assert.equal(history.stdout, '');
  assert.equal(
    history.stderr,
    `no prompt history found; looked in:\n  ${join(home, '.xcsh', 'agent', 'history.db')} (does not exist)\n  ${join(home, '.claude', 'history.jsonl')} (does not exist)\n  ${join(home, '.codex', 'history.jsonl')} (does not exist)\n`,
  );
  const hj = cli('history', '--json');
  assert.equal(hj.code, 0);
  assert.deepEqual(hj.json().entries, []);
  const search = cli('search', 'hafnium');
  assert.equal(search.code, 0, search.stderr);
  assert.equal(search.stdout, '');
  assert.match(search.stderr, new RegExp(`no session matches "hafnium" \\(0 sessions searched\\); looked in:\\n  ${join(home, '.xcsh', 'agent', 'sessions').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(does not exist\\)\\n$`));
  const sj = cli('search', 'hafnium', '--json');
  assert.equal(sj.code, 0);
  assert.deepEqual(sj.json().sessions, []);
  assert.match(sj.stderr, /looked in:/);
  // a database named with --db must exist: that stays an error
  assert.equal(cli('history', '--db', join(home, 'nope.db')).code, 1);
});

test('§5.4 a refused file is read once it holds a session (nothing about it is remembered)', () => {
  // a file refused once is read normally when it becomes a session (nothing is remembered)
  const p = file('later.jsonl', '{"a":1}\n');
  assert.equal(cli('context', p).code, 1);
  copyFileSync(fixture('real-v3', 'gjc-04-awesome-agent-ide.jsonl'), p);
  assert.equal(cli('context', p).code, 0);
});
