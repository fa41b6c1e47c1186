// Runs the BUILT binary (`npm run test:cli` builds dist/cli.js first) on copies of the fixtures.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { REPO_ROOT, fixture } from '../helpers/fixtures';
import { FIXTURE_EXPECTATIONS, countRoles } from './fixture-expectations';

const CLI = join(REPO_ROOT, 'dist', 'cli.js');
let home: string;
let work: string;

before(() => {
  assert.ok(existsSync(CLI), 'dist/cli.js missing: run `npm run test:cli` (it builds first)');
  home = mkdtempSync(join(tmpdir(), 'sl-cli-home-'));
  work = mkdtempSync(join(tmpdir(), 'sl-cli-work-'));
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function cli(...args: string[]): Run {
  // HOME points at an empty folder: no real breadcrumbs or session roots leak in.
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, HOME: home, USERPROFILE: home }, maxBuffer: 256 << 20 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

let n = 0;
/** A private copy of a fixture; `old` backdates its mtime so the live guard does not fire. */
function copy(rel: string, old = true): string {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  const p = join(dir, basename(rel));
  copyFileSync(fixture(...rel.split('/')), p);
  if (old) age(p);
  return p;
}
function age(p: string): void {
  const t = new Date(Date.now() - 60_000);
  utimesSync(p, t, t);
}
const lines = (p: string): string[] => readFileSync(p, 'utf8').split('\n');

test('--help lists every subcommand; no arguments is a usage error', () => {
  const r = cli('--help');
  assert.equal(r.code, 0);
  for (const c of ['context', 'entries', 'tree', 'ls', 'doctor', 'migrate', 'relabel', 'title']) assert.match(r.stdout, new RegExp(`session-loom ${c}`));
  assert.equal(cli().code, 2);
  const u = cli('frobnicate');
  assert.equal(u.code, 2);
  assert.match(u.stderr, /unknown command/);
  assert.equal(cli('context', '--help').code, 0);
  assert.equal(cli('context', '--bogus', 'x').code, 2);
});

for (const x of FIXTURE_EXPECTATIONS) {
  test(`context at the default leaf: ${x.file}`, () => {
    const p = copy(x.file);
    const before = readFileSync(p);
    const r = cli('context', p);
    assert.equal(r.code, 0, r.stderr);
    const c = r.json();
    assert.deepEqual(countRoles(c.messages), x.roles);
    assert.equal(c.cutEntryIds.length, x.cut);
    assert.equal(c.thinkingLevel, x.thinkingLevel);
    assert.deepEqual(c.models, x.models);
    assert.equal(c.mode, 'none');
    assert.deepEqual(c.injectedTtsrRules, []);
    assert.equal(c.messageSources.length, c.messages.length);
    assert.equal(c.compaction !== null, x.compaction === true);
    assert.deepEqual(readFileSync(p), before, 'viewing never writes');
  });
}

test('context --leaf <id>, --leaf null, unknown leaf (error with file)', () => {
  const p = copy('real-v3/gjc-04-awesome-agent-ide.jsonl');
  const all = cli('entries', p).json();
  const target = all.entries[10].id as string;
  const c = cli('context', p, '--leaf', target).json();
  assert.equal(c.leafId, target);
  assert.equal(c.messageSources.at(-1), target);
  const empty = cli('context', p, '--leaf', 'null').json();
  assert.deepEqual(empty.messages, []);
  assert.equal(empty.leafId, null);
  const bad = cli('context', p, '--leaf', 'zzzzzzzz');
  assert.equal(bad.code, 1);
  assert.ok(bad.stderr.startsWith(`${p}:1: `), bad.stderr);
});

test('context --blobs resolves blob references in image blocks', () => {
  const blobs = join(work, 'blobs');
  mkdirSync(blobs);
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  const hash = createHash('sha256').update(png).digest('hex');
  writeFileSync(join(blobs, hash), png);
  const p = join(work, 'img.jsonl');
  const h = { type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' };
  const e = { type: 'message', id: 'aaaaaaaa', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: `blob:sha256:${hash}` }] } };
  writeFileSync(p, JSON.stringify(h) + '\n' + JSON.stringify(e) + '\n');
  assert.equal(cli('context', p).json().messages[0].content[0].data, `blob:sha256:${hash}`);
  assert.equal(cli('context', p, '--blobs', blobs).json().messages[0].content[0].data, png.toString('base64'));
});

test('entries: header migrated in memory, every entry, diagnostics, default leaf; the file is untouched', () => {
  const p = copy('upstream/pi-large-session.v1.head25.jsonl');
  const before = readFileSync(p);
  const r = cli('entries', p).json();
  assert.equal(r.header.version, 3);
  assert.equal(r.entries.length, 24);
  assert.ok(r.entries.every((e: { id?: unknown }) => typeof e.id === 'string'));
  assert.equal(r.leafId, r.entries[23].id);
  assert.ok(Array.isArray(r.diagnostics));
  assert.deepEqual(readFileSync(p), before);
});

test('errors carry file:line and exit non-zero (missing file, damaged file)', () => {
  const missing = cli('entries', join(work, 'nope.jsonl'));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /nope\.jsonl:1: no such file/);
  const damaged = copy('real-v3/gjc-01-youtube-transcript-extraction.jsonl');
  const t = cli('title', damaged, 'x');
  assert.equal(t.code, 1);
  assert.ok(t.stderr.startsWith(`${damaged}:1: `), t.stderr);
  const m = cli('migrate', damaged);
  assert.equal(m.code, 1);
  assert.match(m.stderr, /:1: cannot migrate: damaged/);
});

test('tree: indented text, labels in brackets, the default leaf marked once; --json nests by branch only', () => {
  const p = copy('real-v3/gjc-03-raddit-dashboard-pr.jsonl');
  const entries = cli('entries', p).json().entries;
  const target = entries[5].id as string;
  assert.equal(cli('relabel', p, target, 'checkpoint').code, 0);
  age(p);
  const r = cli('tree', p);
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.trimEnd().split('\n');
  assert.equal(rows.filter((l) => l.includes('← leaf')).length, 1);
  assert.ok(rows.some((l) => l.startsWith(target) && l.includes('[checkpoint]')));
  const j = cli('tree', p, '--json').json();
  const last = cli('entries', p).json().leafId;
  assert.equal(j.defaultLeafId, last);
  let count = 0;
  const stack = [...j.roots];
  while (stack.length) {
    const s = stack.pop();
    count += s.entries.length;
    stack.push(...s.children);
  }
  assert.equal(count, entries.length + 1);
});

test('ls: sessions grouped by project; subagent sessions found under their parent and linked', () => {
  const root = join(work, 'sessions');
  const proj = join(root, '--work-pi--');
  mkdirSync(proj, { recursive: true });
  const mk = (file: string, header: Record<string, unknown>, first: string) => {
    const e = { type: 'message', id: 'aaaaaaaa', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: first } };
    writeFileSync(file, JSON.stringify({ type: 'session', version: 3, timestamp: '2026-01-01T00:00:00.000Z', ...header }) + '\n' + JSON.stringify(e) + '\n');
  };
  const parent = join(proj, '2026-01-01T00-00-00-000Z_1111111111111111.jsonl');
  mk(parent, { id: '1111111111111111', cwd: '/work/pi', title: 'Main work' }, 'hello');
  mk(join(proj, '2026-01-02T00-00-00-000Z_2222222222222222.jsonl'), { id: '2222222222222222', cwd: '/work/pi' }, 'second session');
  mkdirSync(join(proj, '2026-01-01T00-00-00-000Z_1111111111111111'));
  const child = join(proj, '2026-01-01T00-00-00-000Z_1111111111111111', 'cccccccccccccccc.jsonl');
  mk(child, { id: 'cccccccccccccccc', cwd: '/work/pi', parentSession: '1111111111111111' }, 'subtask');
  const other = join(root, '--srv-x--');
  mkdirSync(other);
  mk(join(other, 'a_3333333333333333.jsonl'), { id: '3333333333333333', cwd: '/srv/x' }, 'other project');
  const j = cli('ls', '--root', root, '--json').json();
  assert.deepEqual(j.map((g: { project: string }) => g.project).sort(), ['/srv/x', '/work/pi']);
  const pi = j.find((g: { project: string }) => g.project === '/work/pi');
  assert.equal(pi.sessions.length, 2);
  const sub = pi.subagents[parent];
  assert.equal(sub.length, 1);
  assert.equal(sub[0].isSubagent, true);
  assert.equal(sub[0].parentPath, parent);
  assert.equal(sub[0].parentSession, '1111111111111111');
  const main = pi.sessions.find((s: { id: string }) => s.id === '1111111111111111');
  assert.equal(main.title, 'Main work');
  assert.equal(main.firstUserMessage, 'hello');
  const text = cli('ls', '--root', root);
  assert.equal(text.code, 0);
  assert.match(text.stdout, /^\/work\/pi$/m);
  assert.match(text.stdout, /↳ .*cccccccccccccccc/);
});

test('doctor: exit 0 when clean, 1 with file:line findings; --json', () => {
  const clean = cli('doctor', copy('upstream/pi-large-session.v1.head25.jsonl'));
  assert.equal(clean.code, 0, clean.stderr);
  assert.match(clean.stderr, /clean/);
  const p = copy('real-v3/gjc-04-awesome-agent-ide.jsonl');
  const bad = cli('doctor', p);
  assert.equal(bad.code, 1);
  assert.ok(bad.stderr.includes(`${p}:44: invalid-json`), bad.stderr);
  assert.ok(bad.stderr.includes(`${p}:45: missing-parent`), bad.stderr);
  const j = cli('doctor', p, '--json');
  assert.equal(j.code, 1);
  assert.equal(j.json().findings, 2);
});

test('a record nested 5,000 levels costs that record only: context, entries and tree work, doctor names it (was a stack overflow for the whole session)', () => {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  const p = join(dir, 'deep.jsonl');
  const m = (id: string, parentId: string | null, extra = '') => `{"type":"message","id":"${id}","parentId":${parentId === null ? 'null' : `"${parentId}"`},"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"${id}"${extra}}}`;
  const deep = m('dddddddd', 'aaaaaaaa', `,"d":${'['.repeat(5000)}${']'.repeat(5000)}`);
  writeFileSync(p, ['{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}', m('aaaaaaaa', null), deep, m('cccccccc', 'dddddddd'), ''].join('\n'));
  age(p);
  const entries = cli('entries', p);
  assert.equal(entries.code, 0, entries.stderr);
  assert.deepEqual(entries.json().entries.map((e: { id: string }) => e.id), ['aaaaaaaa', 'cccccccc']);
  const context = cli('context', p);
  assert.equal(context.code, 0, context.stderr);
  assert.ok(context.stderr.includes(`${p}:3: too-deep: record nested deeper than 1000 levels`), context.stderr);
  assert.equal(cli('tree', p).code, 0);
  const doctor = cli('doctor', p, '--json').json();
  assert.deepEqual(doctor.diagnostics.map((d: { line: number; kind: string }) => [d.line, d.kind]), [[3, 'too-deep'], [4, 'missing-parent']]);
  // the bytes stay: a migration-free rewrite (title) keeps the deep line verbatim
  assert.equal(cli('title', p, 't').code, 0);
  assert.equal(lines(p)[2], deep);
});

test('doctor: a million blank lines are one finding line, with its range', () => {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  const p = join(dir, 'blank.jsonl');
  writeFileSync(p, '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}\n' + '\n'.repeat(1_000_000) + 'junk\n'.repeat(3));
  const r = cli('doctor', p);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `${p}:2: blank: 1000000 blank lines (lines 2–1000001; skipped) (info)\n${p}:1000002: invalid-json: 3 lines could not be parsed as JSON (lines 1000002–1000004; the first could not be parsed as JSON (Unexpected token 'j', "junk" is not valid JSON)); skipped, kept verbatim (error)\n${p}: 1 finding\n`);
  const j = cli('doctor', p, '--json').json();
  assert.deepEqual(j.diagnostics.map((d: { line: number; lastLine: number; count: number }) => [d.line, d.lastLine, d.count]), [[2, 1_000_001, 1_000_000], [1_000_002, 1_000_004, 3]]);
});

test('migrate --dry-run writes nothing', () => {
  const p = copy('upstream/pi-large-session.v1.head25.jsonl');
  const before = readFileSync(p);
  const m0 = statSync(p).mtimeMs;
  const r = cli('migrate', p, '--dry-run');
  assert.equal(r.code, 0, r.stderr);
  const j = r.json();
  assert.equal(j.written, false);
  assert.equal(j.fromVersion, 1);
  assert.equal(j.idsAssigned, 24);
  assert.deepEqual(readFileSync(p), before);
  assert.equal(statSync(p).mtimeMs, m0);
  assert.equal(readdirSync(join(p, '..')).length, 1, 'no backup, no temp file');
});

test('migrate --backup: backup holds the original bytes; the file becomes v3; unparsable lines stay verbatim in place', () => {
  const p = copy('upstream/pi-large-session.v1.head25.jsonl');
  // put a damaged line in the middle (line 6)
  const orig = lines(p);
  const garbage = '{"type":"message","message":{"role":"user","content":"bad \\q escape"}}';
  orig.splice(5, 0, garbage);
  writeFileSync(p, orig.join('\n'));
  age(p);
  const before = readFileSync(p);
  const r = cli('migrate', p, '--backup');
  assert.equal(r.code, 0, r.stderr);
  const j = r.json();
  assert.equal(j.written, true);
  assert.ok(j.backupPath && existsSync(j.backupPath));
  assert.deepEqual(readFileSync(j.backupPath), before);
  const after = lines(p);
  assert.equal(after[5], garbage, 'the unparsable line is kept verbatim, in place');
  const header = JSON.parse(after[0]!);
  assert.equal(header.version, 3);
  const ents = after.slice(1).filter((l) => l && l !== garbage).map((l) => JSON.parse(l));
  assert.equal(ents.length, 24);
  assert.ok(ents.every((e) => /^[0-9a-f]{8}$/.test(e.id) && 'parentId' in e));
  // and the CLI now sees a v3 file with nothing to migrate
  age(p);
  const again = cli('migrate', p).json();
  assert.equal(again.written, false);
  assert.equal(again.fromVersion, 3);
});

test('title: replaces the header line only, sanitised, titleSource user; every byte after line 1 kept', () => {
  const p = copy('real-v3/gjc-03-raddit-dashboard-pr.jsonl');
  const before = readFileSync(p);
  const r = cli('title', p, '  My \u001b[31m  title\n ');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json().title, 'My [31m title');
  const after = readFileSync(p);
  const nl0 = before.indexOf(0x0a);
  const nl1 = after.indexOf(0x0a);
  assert.deepEqual(after.subarray(nl1), before.subarray(nl0));
  const h = JSON.parse(after.subarray(0, nl1).toString('utf8'));
  assert.equal(h.title, 'My [31m title');
  assert.equal(h.titleSource, 'user');
  assert.equal(h.id, JSON.parse(before.subarray(0, nl0).toString('utf8')).id);
  assert.equal(cli('title', p, ' \t ').code, 2);
});

test('title on a v1 file keeps it v1 (no version written into the header)', () => {
  const p = copy('upstream/pi-large-session.v1.head25.jsonl');
  assert.equal(cli('title', p, 'v1 title').code, 0);
  const h = JSON.parse(lines(p)[0]!);
  assert.equal(h.title, 'v1 title');
  assert.equal(h.version, undefined);
});

test('relabel appends exactly one label line (parent = the previous last entry); --clear; refusals', () => {
  const p = copy('real-v3/gjc-04-awesome-agent-ide.jsonl');
  const before = readFileSync(p);
  const ents = cli('entries', p).json();
  const target = ents.entries[3].id as string;
  const r = cli('relabel', p, target, 'important');
  assert.equal(r.code, 0, r.stderr);
  const after = readFileSync(p);
  assert.deepEqual(after.subarray(0, before.length), before);
  const added = after.subarray(before.length).toString('utf8');
  assert.equal(added.split('\n').filter(Boolean).length, 1);
  const e = JSON.parse(added);
  assert.equal(e.type, 'label');
  assert.equal(e.targetId, target);
  assert.equal(e.label, 'important');
  assert.equal(e.parentId, ents.leafId);
  assert.match(e.id, /^[0-9a-f]{8}$/);
  age(p);
  assert.equal(cli('relabel', p, target, '--clear').code, 0);
  const cleared = JSON.parse(lines(p).filter(Boolean).at(-1)!);
  assert.equal(cleared.label, undefined);
  assert.equal(cleared.targetId, target);
  age(p);
  const unknown = cli('relabel', p, 'zzzzzzzz', 'x');
  assert.equal(unknown.code, 1);
  assert.ok(unknown.stderr.startsWith(`${p}:1: `));
  assert.equal(cli('relabel', p, target).code, 2);
  const v1 = copy('upstream/pi-large-session.v1.head25.jsonl');
  const v1r = cli('relabel', v1, 'whatever', 'x');
  assert.equal(v1r.code, 1);
  assert.match(v1r.stderr, /migrate/);
});

test('live guard: a just-modified file is refused without --force, written with it', () => {
  for (const [cmd, ...args] of [['title', 'Live'], ['relabel', '__TARGET__', 'x'], ['migrate']] as const) {
    const rel = cmd === 'migrate' ? 'upstream/pi-large-session.v1.head25.jsonl' : 'real-v3/gjc-04-awesome-agent-ide.jsonl';
    const p = copy(rel, false);
    const target = cmd === 'relabel' ? (cli('entries', p).json().entries[2].id as string) : '';
    const a = args.map((x) => (x === '__TARGET__' ? target : x));
    const before = readFileSync(p);
    const refused = cli(cmd, p, ...a);
    assert.equal(refused.code, 1, `${cmd}: ${refused.stderr}`);
    assert.match(refused.stderr, /live/);
    assert.match(refused.stderr, /--force/);
    assert.ok(refused.stderr.startsWith(`${p}:`));
    assert.deepEqual(readFileSync(p), before, `${cmd} wrote despite the refusal`);
    const forced = cli(cmd, p, ...a, '--force');
    assert.equal(forced.code, 0, `${cmd} --force: ${forced.stderr}`);
    assert.notDeepEqual(readFileSync(p), before);
  }
});

test('bad input: a short message on stderr as file:line or session-loom:, the usage, a non-zero exit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-bad-'));
  const file = copy('upstream/pi-session.v1.glued-records.jsonl');

  const flag = cli('tree', file, '--frob');
  assert.equal(flag.code, 2);
  assert.equal(flag.stdout, '');
  assert.match(flag.stderr, /^session-loom: unknown option --frob\nusage: session-loom tree <file>/);
  assert.doesNotMatch(flag.stderr, /positional argument/, 'not node:util’s long hint');

  const missingRoot = cli('ls', '--root', join(dir, 'nope'));
  assert.equal(missingRoot.code, 1, 'a misspelt --root is an error, not "no sessions found"');
  assert.equal(missingRoot.stderr, `${join(dir, 'nope')}:1: no such directory\n`);
  const fileRoot = cli('ls', '--root', file);
  assert.equal(fileRoot.code, 1);
  assert.equal(fileRoot.stderr, `${file}:1: not a directory\n`);
  const emptyRoot = cli('ls', '--root', dir);
  assert.equal(emptyRoot.code, 0, 'an existing folder without sessions is not an error');
  assert.match(emptyRoot.stderr, /no sessions found/);

  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '');
  const tree = cli('tree', empty);
  assert.equal(tree.code, 0);
  assert.equal(tree.stderr, `${empty}:1: empty file (0 bytes): no session in it yet\n`);
  const doctor = cli('doctor', empty);
  assert.equal(doctor.code, 0);
  assert.equal(doctor.stderr, `${empty}: empty file (0 bytes): no session in it yet\n`);
  assert.equal(readFileSync(empty, 'utf8'), '', 'nothing written');

  const leaf = cli('context', file, '--leaf', 'deadbeef');
  assert.equal(leaf.code, 1);
  assert.match(leaf.stderr, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: no entry with id "deadbeef"`));
});
