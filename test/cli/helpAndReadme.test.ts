// Issue 14 §7 on the BUILT binary (`npm run test:cli` builds dist/cli.js): the README's CLI
// synopsis is `--help`'s, an empty `ls` says where it looked, and `doctor` names a missing header.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, fixture } from '../helpers/fixtures';
import { assertCliBuilt, runCli } from '../helpers/runCli';

let home: string;

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-help-home-'));
});

const cli = (...args: string[]) => runCli(args, { env: { ...process.env, HOME: home, USERPROFILE: home, XDG_CACHE_HOME: join(home, '.cache'), DSH_HOME: join(home, '.dsh') } });

/** The README's CLI section, and the lines of its first ```sh block: the synopsis. */
function readmeCli(): { section: string; synopsis: string[] } {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## The CLI');
  assert.ok(start >= 0, 'README has a CLI section');
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next === -1 ? undefined : next);
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the CLI section has a ```sh synopsis');
  return { section, synopsis: block[1]!.split('\n').filter((l) => l.trim() !== '') };
}

test('§7 the README synopsis is exactly the usage lines `session-loom --help` prints, in its order', () => {
  const help = cli('--help');
  assert.equal(help.code, 0);
  const usages = help.stdout
    .split('\n')
    .filter((l) => l.startsWith('usage: '))
    .map((l) => l.slice('usage: '.length));
  assert.ok(usages.length >= 9, 'every command has a usage line');
  assert.deepEqual(readmeCli().synopsis, usages);
});

test('§7 every option `--help` (or a command\'s --help) names is in the README\'s CLI section', () => {
  const { section } = readmeCli();
  const help = cli('--help').stdout;
  const commands = [...help.matchAll(/^usage: session-loom (\w+)/gm)].map((m) => m[1]!);
  let text = help;
  for (const c of commands) text += cli(c, '--help').stdout;
  const options = new Set([...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]));
  for (const o of ['--pretty', '--blobs', '--root', '--force', '--backup', '--session', '--at']) assert.ok(options.has(o), `--help names ${o}`);
  const missing = [...options].filter((o) => !section.includes(o));
  assert.deepEqual(missing, [], 'options in --help but not in the README');
  assert.match(section, /--root <dir>\]\.\.\./, 'a repeatable --root shows it');
});

test('§7 the README documents the live guard: what it refuses, what --force overrides, and the own-write rule', () => {
  const { section } = readmeCli();
  assert.match(section, /live guard/i);
  assert.match(section, /breadcrumb/);
  assert.match(section, /`?--force`? does not override/);
  assert.match(section, /own last write/);
});

test('§7 ls with no sessions folder says on stderr where it looked (each default root), exit 0; --json keeps `[]` on stdout', () => {
  const r = cli('ls');
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `no sessions found; looked in:\n  ${join(home, '.xcsh', 'agent', 'sessions')} (does not exist)\n`);
  const j = cli('ls', '--json');
  assert.equal(j.code, 0);
  assert.deepEqual(JSON.parse(j.stdout), []);
  assert.equal(j.stderr, r.stderr);
  // named roots: each one listed, an existing empty one without the mark
  const a = mkdtempSync(join(tmpdir(), 'sl-help-root-'));
  const b = join(a, 'sub');
  mkdirSync(b);
  const named = cli('ls', '--root', a, '--root', b);
  assert.equal(named.code, 0);
  assert.equal(named.stderr, `no sessions found; looked in:\n  ${a}\n  ${b}\n`);
});

test('§7 doctor on the headerless real-v3 fixture: --json says "header": "missing" and "version": null (not 1); the text says "no header"', () => {
  const headerless = fixture('real-v3', 'gjc-01-youtube-transcript-extraction.jsonl');
  const j = cli('doctor', headerless, '--json');
  assert.equal(j.code, 1);
  const d = JSON.parse(j.stdout);
  assert.equal(d.header, 'missing');
  assert.equal(d.version, null);
  assert.equal(d.entries, 381);
  const t = cli('doctor', headerless);
  assert.match(t.stderr.trimEnd().split('\n').at(-1)!, /: no header \(damaged, read-only; 381 entries\); 4 findings$/);
  const withHeader = JSON.parse(cli('doctor', fixture('real-v3', 'gjc-04-awesome-agent-ide.jsonl'), '--json').stdout);
  assert.equal(withHeader.header, 'present');
  assert.equal(withHeader.version, 3);
  const v1 = JSON.parse(cli('doctor', fixture('upstream', 'pi-large-session.v1.head25.jsonl'), '--json').stdout);
  assert.equal(v1.header, 'present');
  assert.equal(v1.version, 1, 'a header without a version is version 1 (Part A)');
});
