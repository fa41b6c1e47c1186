// Runs the BUILT binary (`npm run test:cli` builds dist/cli.js first) on copies of the fixtures.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { makeFolderBeyondPathMax, removeDeepTree } from '../helpers/deepPath';
import { fixture } from '../helpers/fixtures';
import { assertCliBuilt, runCli, type CliRun as Run } from '../helpers/runCli';
import { FIXTURE_EXPECTATIONS, countRoles } from './fixture-expectations';

let home: string;
let work: string;

before(() => {
  assertCliBuilt();
  home = mkdtempSync(join(tmpdir(), 'sl-cli-home-'));
  work = mkdtempSync(join(tmpdir(), 'sl-cli-work-'));
});

function cli(...args: string[]): Run {
  return cliWith({}, ...args);
}
/**
 * The CLI, killed after `timeoutMs` (code -1: a hang fails the test instead of blocking the run),
 * optionally as another user (`uid`/`gid`, when the tests run as root).
 */
function cliWith(opts: { timeoutMs?: number; uid?: number; gid?: number }, ...args: string[]): Run {
  // HOME points at an empty folder: no real breadcrumbs or session roots leak in.
  return runCli(args, {
    // the CLI's cache (the record of its own writes) inside that HOME too
    env: { ...process.env, HOME: home, USERPROFILE: home, XDG_CACHE_HOME: join(home, '.cache') },
    timeout: opts.timeoutMs ?? 120_000,
    uid: opts.uid,
    gid: opts.gid,
  });
}

let n = 0;
/** A private copy of a fixture; `old` backdates its mtime so the live guard does not fire. */
function copy(rel: string, old = true): string {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  const p = join(dir, basename(rel));
  copyFileSync(fixture(...rel.split('/')), p);
  chmodSync(p, 0o644); // the shared fixtures are read-only (0444): a copy to work on is the user's, writable
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
  for (const c of ['context', 'entries', 'tree', 'ls', 'doctor', 'migrate', 'relabel', 'title', 'export', 'fork']) assert.match(r.stdout, new RegExp(`session-loom ${c}`));
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
  assert.ok(bad.stderr.startsWith(`${p}: no entry`), bad.stderr);
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

test('context/entries/doctor --blobs: each bad blob costs its image only (link out, /dev/zero, FIFO, folder, over 50 MB, wrong content)', { timeout: 60_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'sl-cli-badblobs-'));
  const blobs = join(root, 'blobs');
  mkdirSync(blobs);
  const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
  const good = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  writeFileSync(join(blobs, sha(good)), good);
  const secret = join(root, 'passwd');
  writeFileSync(secret, 'root:x:0:0:root:/root:/bin/bash\n');
  symlinkSync(secret, join(blobs, sha(readFileSync(secret))));
  symlinkSync('/dev/zero', join(blobs, sha('zero')));
  spawnSync('mkfifo', [join(blobs, sha('fifo'))]);
  mkdirSync(join(blobs, sha('folder')));
  // sparse: 51 MB on paper, nothing on disk; over the 50 MB cap, so never read
  writeFileSync(join(blobs, sha('huge')), '');
  truncateSync(join(blobs, sha('huge')), 51 * 1024 * 1024);
  writeFileSync(join(blobs, sha('promised')), 'something else');
  const hashes = [sha(readFileSync(secret)), sha('zero'), sha('fifo'), sha('folder'), sha('huge'), sha('promised'), sha(good)];
  const lines = [JSON.stringify({ type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' })];
  hashes.forEach((h, i) => {
    const id = `0000000${i}`;
    lines.push(JSON.stringify({ type: 'message', id, parentId: i === 0 ? null : `0000000${i - 1}`, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: `blob:sha256:${h}` }] } }));
  });
  const p = join(root, 'img.jsonl');
  writeFileSync(p, lines.join('\n') + '\n');

  const c = cliWith({ timeoutMs: 20_000 }, 'context', p, '--blobs', blobs);
  assert.equal(c.code, 0, `finishes quickly (a FIFO or /dev/zero never hangs it) and succeeds: ${c.stderr}`);
  const data = c.json().messages.map((m: { content: { data: string }[] }) => m.content[0]!.data);
  assert.deepEqual(data.slice(0, -1), hashes.slice(0, -1).map((h) => `blob:sha256:${h}`), 'bad blobs keep their reference');
  assert.equal(data.at(-1), good.toString('base64'), 'the good image in the same session still resolves');
  assert.ok(!c.stdout.includes(readFileSync(secret).toString('base64')), 'the file behind the link is not embedded');
  const warned = c.stderr.trimEnd().split('\n');
  assert.deepEqual(warned.map((l) => /^.*:(\d+): bad-blob: /.exec(l)?.[1]), ['2', '3', '4', '5', '6', '7'], c.stderr);
  assert.match(warned[0]!, /symbolic link/);
  assert.match(warned[3]!, /folder, not a regular file/);
  assert.match(warned[4]!, /53477376 bytes, over the 52428800-byte limit/);
  assert.match(warned[5]!, /does not match its content/);

  const e = cliWith({ timeoutMs: 20_000 }, 'entries', p, '--blobs', blobs);
  assert.equal(e.code, 0, e.stderr);
  assert.equal(e.json().diagnostics.filter((d: { kind: string }) => d.kind === 'bad-blob').length, 6);
  const d = cliWith({ timeoutMs: 20_000 }, 'doctor', p, '--blobs', blobs);
  assert.equal(d.code, 1);
  assert.match(d.stderr, /6 findings/);
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

test('errors carry file:line (file: for the whole file) and exit non-zero (missing file, damaged file)', () => {
  const missing = cli('entries', join(work, 'nope.jsonl'));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /nope\.jsonl: no such file/);
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

test('ls --root says on stderr what it skipped and why (unreadable folder, symlinked file and folder, FIFO, path beyond PATH_MAX); a newline in a name forges no row', () => {
  const root = mkdtempSync(join(tmpdir(), 'sl-cli-skip-'));
  // Root reads through chmod 000, so as root the CLI runs as "nobody", who must reach the rest.
  const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  chmodSync(root, 0o755);
  const proj = join(root, '--w--');
  mkdirSync(proj);
  const mk = (file: string, id: string, first: string) => {
    const e = { type: 'message', id: 'aaaaaaaa', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: first } };
    writeFileSync(file, JSON.stringify({ type: 'session', version: 3, timestamp: '2026-01-01T00:00:00.000Z', id, cwd: '/w' }) + '\n' + JSON.stringify(e) + '\n');
  };
  const good = join(proj, '2026_1111111111111111.jsonl');
  mk(good, '1111111111111111', 'kept');
  const newline = join(proj, '2026_2222222222222222\n2026-01-01 00:00  ffffffffffffffff  forged row  .jsonl');
  mk(newline, '2222222222222222', 'odd name');
  const outside = join(root, 'outside.jsonl');
  mk(outside, '3333333333333333', 'linked');
  symlinkSync(outside, join(proj, '2026_3333333333333333.jsonl'));
  symlinkSync(root, join(proj, 'loop'));
  spawnSync('mkfifo', [join(proj, 'pipe.jsonl')]);
  const locked = join(root, '--locked--');
  mkdirSync(locked);
  mk(join(locked, '2026_4444444444444444.jsonl'), '4444444444444444', 'locked away');
  chmodSync(locked, 0o000);
  const deep = makeFolderBeyondPathMax(join(root, '--deep--'), '2026_5555555555555555.jsonl', '{"type":"session","version":3,"id":"5555555555555555","timestamp":"t","cwd":"/deep"}\n');
  try {
    const text = cliWith(asUser, 'ls', '--root', proj, '--root', locked, '--root', join(root, '--deep--'));
    assert.equal(text.code, 0, text.stderr);
    const notes = text.stderr.trimEnd().split('\n');
    const tooLong = notes.find((l) => l.includes('longer than the system allows'));
    assert.deepEqual(notes.filter((l) => l !== tooLong), [
      `${locked}: skipped: folder not readable (EACCES); the sessions in it are not listed`,
      `${proj}/2026_3333333333333333.jsonl: skipped: a symbolic link, not followed (only regular files are listed)`,
      `${proj}/loop: skipped: a symbolic link to a folder, not followed (links can loop)`,
      `${proj}/pipe.jsonl: skipped: not a regular file`,
    ]);
    assert.ok(tooLong && deep.startsWith(tooLong.split(': skipped: ')[0]!), text.stderr);
    const rows = text.stdout.trimEnd().split('\n');
    assert.equal(rows.length, 3, `the project and its two sessions, no forged row:\n${text.stdout}`);
    assert.ok(rows.some((r) => r.endsWith('2026_2222222222222222\\n2026-01-01 00:00  ffffffffffffffff  forged row  .jsonl')), text.stdout);

    const json = cliWith(asUser, 'ls', '--root', proj, '--root', locked, '--root', join(root, '--deep--'), '--json');
    assert.equal(json.code, 0, json.stderr);
    assert.equal(json.stderr, text.stderr, 'the same notes on stderr; stdout stays the array of projects');
    const groups = json.json();
    assert.ok(Array.isArray(groups));
    assert.deepEqual(groups[0].sessions.map((x: { path: string }) => x.path).sort(), [good, newline].sort());
  } finally {
    chmodSync(locked, 0o755);
    removeDeepTree(root);
  }
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

// ---- untrusted text in human-readable output (issue 15, point 14) ----

const OSC_TITLE = '\x1b]0;pwned\x07';
const CLEAR = '\x1b[2J';
/** Every character that must never reach a terminal raw (src/cli/terminalText.ts); LF separately. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const FORGED = '\r\n2026-01-01 00:00  ffffffffffffffff  forged row  /tmp/forged.jsonl';

/** A session whose every printed field carries escape sequences and row-forging line breaks. */
function hostileSession(dir: string): { file: string; header: Record<string, unknown>; entries: Record<string, unknown>[] } {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `2026-01-01_evil\n${CLEAR}name${OSC_TITLE}.jsonl`);
  const header = { type: 'session', version: 3, id: `evil${OSC_TITLE}`, timestamp: '2026-01-01T00:00:00.000Z', cwd: `/w${FORGED}`, title: `T${CLEAR}${OSC_TITLE}${FORGED}` };
  const a = `a${CLEAR}b`;
  const entries = [
    { type: 'message', id: a, parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: `hi${OSC_TITLE} there${FORGED}` } },
    { type: 'message', id: 'cccccccc', parentId: a, timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'text', text: `C1 \u009b2J, \u2028 sep, \u202eroverride, \u2066isolate` }], provider: 'p', model: 'm' } },
    { type: 'label', id: 'dddddddd', parentId: 'cccccccc', timestamp: '2026-01-01T00:00:03.000Z', targetId: a, label: `L\x1b[31m${FORGED}` },
    // its parent is missing: doctor's message names that id
    { type: 'message', id: 'eeeeeeee', parentId: `gone${CLEAR}\r\nfake.jsonl:1: clean`, timestamp: '2026-01-01T00:00:04.000Z', message: { role: 'user', content: 'orphan' } },
  ];
  writeFileSync(file, [header, ...entries].map((x) => JSON.stringify(x)).join('\n') + '\n');
  age(file);
  return { file, header, entries };
}
const shownPath = (p: string) => p.replace(/\n/g, '\\n').replace(/\x1b/g, '\\x1b').replace(/\x07/g, '\\x07');
function assertNoRawControl(r: Run, what: string): void {
  assert.doesNotMatch(r.stdout, RAW_CONTROL, `${what}: stdout`);
  assert.doesNotMatch(r.stderr, RAW_CONTROL, `${what}: stderr`);
}

test('human-readable output shows control characters escaped (tree, ls, doctor, errors); --json keeps the exact strings', () => {
  const root = mkdtempSync(join(tmpdir(), 'sl-cli-evil-'));
  const { file, header, entries } = hostileSession(join(root, 'proj'));

  const tree = cli('tree', file);
  assert.equal(tree.code, 0, tree.stderr);
  assertNoRawControl(tree, 'tree');
  // (the orphan is a second root: a blank line sets its tree apart; no other line is empty)
  const rows = tree.stdout.trimEnd().split('\n').filter((l) => l !== '');
  assert.equal(rows.length, entries.length, `one row per entry, none forged:\n${tree.stdout}`);
  assert.equal(tree.stdout.split('\n').filter((l) => l === '').length, 2, 'one blank line before the second root, and the final newline');
  assert.ok(rows[0]!.startsWith('a\\x1b[2Jb user: hi\\x1b]0;pwned\\x07 there'), rows[0]);
  assert.ok(rows[0]!.includes('[L\\x1b[31m\\r\\n2026-01-01'), rows[0]);
  // (U+2028 is whitespace, which the preview collapses to a space anyway)
  assert.ok(rows.some((r) => r.includes('\\x9b2J') && r.includes('\\u202e') && r.includes('\\u2066')), tree.stdout);
  assert.ok(tree.stderr.startsWith(`${shownPath(file)}:5: missing-parent: `), tree.stderr);
  assert.equal(tree.stderr.trimEnd().split('\n').length, 1, tree.stderr);

  const treeJson = cli('tree', file, '--json');
  assertNoRawControl(treeJson, 'tree --json');
  const first = treeJson.json().roots[0].entries[0];
  assert.equal(first.id, entries[0]!.id);
  assert.equal(first.label, entries[2]!.label);

  const ls = cli('ls', '--root', root);
  assert.equal(ls.code, 0, ls.stderr);
  assertNoRawControl(ls, 'ls');
  const lsRows = ls.stdout.trimEnd().split('\n');
  assert.equal(lsRows.length, 2, `a project line and one session row, none forged:\n${ls.stdout}`);
  assert.equal(lsRows[0], '/w\\r\\n2026-01-01 00:00  ffffffffffffffff  forged row  /tmp/forged.jsonl');
  assert.ok(lsRows[1]!.includes('evil\\x1b]0;pwned\\x07  T\\x1b[2J\\x1b]0;pwned\\x07\\r\\n2026'), lsRows[1]);
  assert.ok(lsRows[1]!.endsWith(shownPath(file)), lsRows[1]);
  const lsJson = cli('ls', '--root', root, '--json');
  assertNoRawControl(lsJson, 'ls --json');
  const s = lsJson.json()[0].sessions[0];
  assert.deepEqual([s.path, s.id, s.cwd, s.title, s.firstUserMessage], [file, header.id, header.cwd, header.title, (entries[0]!.message as { content: string }).content]);

  const doctor = cli('doctor', file);
  assert.equal(doctor.code, 1);
  assertNoRawControl(doctor, 'doctor');
  const doctorRows = doctor.stderr.trimEnd().split('\n');
  assert.equal(doctorRows.length, 2, doctor.stderr);
  assert.ok(doctorRows.every((l) => l.startsWith(`${shownPath(file)}:`)), doctor.stderr);
  assert.match(doctorRows[0]!, /gone\\x1b\[2J\\r\\nfake\.jsonl:1: clean/);
  const doctorJson = cli('doctor', file, '--json');
  assert.equal(doctorJson.json().file, file);
  assert.ok(doctorJson.json().diagnostics[0].message.includes(`gone${CLEAR}\r\nfake.jsonl:1: clean`));

  const context = cli('context', file, '--leaf', 'cccccccc');
  assertNoRawControl(context, 'context');
  const messages = context.json().messages;
  assert.equal(messages[1].content[0].text, (entries[1]!.message as { content: { text: string }[] }).content[0]!.text, 'C1, U+2028 and bidi characters come back exactly from --json');

  const badLeaf = cli('context', file, '--leaf', `x${CLEAR}\ny`);
  assert.equal(badLeaf.code, 1);
  assertNoRawControl(badLeaf, 'error');
  assert.equal(badLeaf.stderr, `${shownPath(file)}: no entry with id "x\\x1b[2J\\ny" (use --leaf null for the empty context)\n`);
  const missing = cli('doctor', `${file}.nope`);
  assertNoRawControl(missing, 'missing file');
  assert.equal(missing.stderr, `${shownPath(file)}.nope: no such file or directory\n`);
  const migrate = cli('migrate', file, '--dry-run');
  assertNoRawControl(migrate, 'migrate');
  assert.ok(migrate.stderr.startsWith(`${shownPath(file)}: already version 3`), migrate.stderr);
  const unknown = cli(`frob${OSC_TITLE}`);
  assertNoRawControl(unknown, 'unknown command');
  assert.match(unknown.stderr, /unknown command "frob\\x1b\]0;pwned\\x07"/);
  const unknownOption = cli('tree', file, `--x${CLEAR}`);
  assertNoRawControl(unknownOption, 'unknown option');
  assert.match(unknownOption.stderr, /^session-loom: unknown option --x\\x1b\[2J\nusage: session-loom tree/);
  const extra = cli('ls', `a\nb${CLEAR}`);
  assertNoRawControl(extra, 'ls argument');
  assert.match(extra.stderr, /^session-loom: unexpected argument "a\\nb\\x1b\[2J"\nusage: session-loom ls/);
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

test('migrate of a v1 file refuses, writing nothing, when a record it cannot read sits before later entries: the migration would link them past it (issue 22 §2)', () => {
  const p = copy('upstream/pi-large-session.v1.head25.jsonl');
  const orig = lines(p);
  orig.splice(5, 0, '{"type":"message","message":{"role":"user","content":"bad \\q escape"}}');
  writeFileSync(p, orig.join('\n'));
  age(p);
  const before = readFileSync(p);
  const r = cli('migrate', p, '--backup');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /:1: cannot migrate: damaged: line 6 could not be read, and a migration would link the entries after it past it/);
  assert.deepEqual(readFileSync(p), before);
  assert.equal(readdirSync(join(p, '..')).length, 1, 'no backup, no temp file');
});

test('migrate --backup: backup holds the original bytes; the file becomes v3; a line that is not a record stays verbatim in place', () => {
  const p = copy('upstream/pi-large-session.v1.head25.jsonl');
  // put a damaged line in the middle (line 6): text that is no record (nothing a migration could relink past)
  const orig = lines(p);
  const garbage = 'garbage left by a broken editor \\q';
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
  assert.ok(unknown.stderr.startsWith(`${p}: no entry`), unknown.stderr);
  assert.equal(cli('relabel', p, target).code, 2);
  const v1 = copy('upstream/pi-large-session.v1.head25.jsonl');
  const v1r = cli('relabel', v1, 'whatever', 'x');
  assert.equal(v1r.code, 1);
  assert.match(v1r.stderr, /migrate/);
});

// Issue 14 §6 changed this test: a just-modified file nobody holds open (a fresh copy) is now
// written (test/cli/liveGuard.test.ts); the guess left to refuse it is a terminal breadcrumb.
test('live guard: a file a terminal breadcrumb names is refused without --force, written with it', () => {
  const crumbs = join(home, '.xcsh', 'agent', 'terminal-sessions');
  mkdirSync(crumbs, { recursive: true });
  try {
    for (const [cmd, ...args] of [['title', 'Live'], ['relabel', '__TARGET__', 'x'], ['migrate']] as const) {
      const rel = cmd === 'migrate' ? 'upstream/pi-large-session.v1.head25.jsonl' : 'real-v3/gjc-04-awesome-agent-ide.jsonl';
      const p = copy(rel, false);
      writeFileSync(join(crumbs, 'term-live'), `/work\n${p}\n`);
      const target = cmd === 'relabel' ? (cli('entries', p).json().entries[2].id as string) : '';
      const a = args.map((x) => (x === '__TARGET__' ? target : x));
      const before = readFileSync(p);
      const refused = cli(cmd, p, ...a);
      assert.equal(refused.code, 1, `${cmd}: ${refused.stderr}`);
      assert.match(refused.stderr, /live/);
      assert.match(refused.stderr, /--force/);
      assert.ok(refused.stderr.startsWith(`${p}: live: `), refused.stderr);
      assert.deepEqual(readFileSync(p), before, `${cmd} wrote despite the refusal`);
      const forced = cli(cmd, p, ...a, '--force');
      assert.equal(forced.code, 0, `${cmd} --force: ${forced.stderr}`);
      assert.notDeepEqual(readFileSync(p), before);
    }
  } finally {
    rmSync(crumbs, { recursive: true, force: true });
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
  assert.equal(missingRoot.stderr, `${join(dir, 'nope')}: no such directory\n`);
  const fileRoot = cli('ls', '--root', file);
  assert.equal(fileRoot.code, 1);
  assert.equal(fileRoot.stderr, `${file}: not a directory\n`);
  const emptyRoot = cli('ls', '--root', dir);
  assert.equal(emptyRoot.code, 0, 'an existing folder without sessions is not an error');
  assert.match(emptyRoot.stderr, /no sessions found/);

  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '');
  const tree = cli('tree', empty);
  assert.equal(tree.code, 0);
  assert.equal(tree.stderr, `${empty}: empty file (0 bytes): no session in it yet\n`);
  const doctor = cli('doctor', empty);
  assert.equal(doctor.code, 0);
  assert.equal(doctor.stderr, `${empty}: empty file (0 bytes): no session in it yet\n`);
  assert.equal(readFileSync(empty, 'utf8'), '', 'nothing written');

  const leaf = cli('context', file, '--leaf', 'deadbeef');
  assert.equal(leaf.code, 1);
  assert.match(leaf.stderr, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: no entry with id "deadbeef"`));
});

// ---- issue 15: stable ids (point 19), id-less entries (point 10), no byte lost (point 2) ----

test('Part C §10: ids printed by `entries` are the same in every run, accepted by `context --leaf` before and after `migrate`, and are the ids it writes', () => {
  const p = copy('upstream/pi-large-session.v1.head25.jsonl');
  const first = cli('entries', p).json();
  const second = cli('entries', p).json();
  const ids = first.entries.map((e: { id: string }) => e.id) as string[];
  assert.deepEqual(second.entries.map((e: { id: string }) => e.id), ids, 'same file, same ids, in a new process');
  const leaf = ids[10]!;
  const before = cli('context', p, '--leaf', leaf);
  assert.equal(before.code, 0, before.stderr);
  const m = cli('migrate', p);
  assert.equal(m.code, 0, m.stderr);
  assert.deepEqual([m.json().edited, m.json().reserialised, m.json().notKeptExactly], [24, 0, []]);
  const onDisk = lines(p).slice(1).filter(Boolean).map((l) => JSON.parse(l).id);
  assert.deepEqual(onDisk, ids, 'migrate wrote exactly the ids shown');
  const after = cli('context', p, '--leaf', leaf);
  assert.equal(after.code, 0, after.stderr);
  assert.deepEqual(after.json(), before.json(), 'the leaf chosen before the migration shows the same context after it');
  assert.equal(JSON.stringify(cli('entries', p).json().entries), JSON.stringify(first.entries), '`entries` shows the same entries, byte for byte, before and after');
});

test('an entry without a string id: tree works, context is the conversation (not empty), doctor finds it (exit 1), relabel refuses its made id', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-noid-'));
  const p = join(dir, 's.jsonl');
  writeFileSync(
    p,
    [
      '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}',
      '{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"hi"}}',
      '{"type":"message","id":7,"parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02Z","message":{"role":"assistant","provider":"p","model":"m","content":[{"type":"text","text":"yo"}]}}',
    ].join('\n') + '\n',
  );
  age(p);
  const tree = cli('tree', p);
  assert.equal(tree.code, 0, tree.stderr);
  const made = /^([0-9a-f]{8}) assistant: yo {2}← leaf$/m.exec(tree.stdout)?.[1];
  assert.ok(made, tree.stdout);
  assert.match(tree.stderr, new RegExp(`${p}:3: missing-id: .*"${made}"`));
  const ctx = cli('context', p);
  assert.equal(ctx.code, 0);
  assert.deepEqual(ctx.json().messageSources, ['aaaa0001', made]);
  assert.deepEqual(cli('context', p, '--leaf', made!).json(), ctx.json());
  const doc = cli('doctor', p);
  assert.equal(doc.code, 1);
  assert.match(doc.stderr, /:3: missing-id: .*\(error\)/);
  const before = readFileSync(p);
  const rel = cli('relabel', p, made!, 'x');
  assert.equal(rel.code, 1);
  assert.ok(rel.stderr.startsWith(`${p}:3: `), rel.stderr);
  assert.match(rel.stderr, /no id on disk/);
  assert.deepEqual(readFileSync(p), before);
  const mig = cli('migrate', p);
  assert.equal(mig.code, 0);
  assert.equal(mig.json().written, false, 'a v3 file is not rewritten for its id-less entries');
});

test('doctor reports bytes that are not UTF-8 and integers beyond ±(2^53−1), with their lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-bytes-'));
  const p = join(dir, 's.jsonl');
  writeFileSync(
    p,
    Buffer.concat([
      Buffer.from('{"type":"session","version":3,"id":"s"}\n{"type":"message","id":"aaaa0001","parentId":null,"message":{"role":"user","content":"a'),
      Buffer.from([0xff]),
      Buffer.from('"}}\n{"type":"custom","id":"aaaa0002","parentId":"aaaa0001","data":{"n":12345678901234567890,"s":"99999999999999999999","ok":9007199254740991}}\n'),
    ]),
  );
  const r = cli('doctor', p);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /:2: invalid-utf8: .*column 88 \(file offset 127\)/);
  assert.match(r.stderr, /:3: unsafe-integer: integer beyond ±\(2\^53−1\): 12345678901234567890 \(read as 12345678901234567000\);/);
  const j = cli('doctor', p, '--json').json();
  assert.deepEqual(j.diagnostics.map((d: { line: number; kind: string }) => [d.line, d.kind]), [[2, 'invalid-utf8'], [3, 'unsafe-integer']]);
  assert.equal(j.findings, 2);
});

test('migrate --dry-run lists what it could not keep exactly (nothing, or the record that refuses it)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-unkept-'));
  const p = join(dir, 's.jsonl');
  const text = '{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user","content":"a"}}\n{"type":"compaction","summary":"s","firstKeptEntryIndex":1,"firstKeptEntryIndex":1}\n';
  writeFileSync(p, text);
  age(p);
  const dry = cli('migrate', p, '--dry-run');
  assert.equal(dry.code, 1);
  assert.deepEqual(dry.json().notKeptExactly, [{ line: 3, reason: '"firstKeptEntryIndex" occurs more than once' }]);
  const real = cli('migrate', p);
  assert.equal(real.code, 1);
  assert.ok(real.stderr.startsWith(`${p}:3: refusing to rewrite`), real.stderr);
  assert.equal(readFileSync(p, 'utf8'), text);
  assert.deepEqual(readdirSync(dir), ['s.jsonl']);
});

test('title keeps every other byte of the header (an integer beyond 2^53, -0, escapes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-cli-title-'));
  const p = join(dir, 's.jsonl');
  const header = '{"type":"session","version":3,"id":"s","n":123456789012345678901,"z":-0,"c":"\\u00e9"}';
  writeFileSync(p, `${header}\n`);
  age(p);
  assert.equal(cli('title', p, 'T').code, 0);
  assert.equal(readFileSync(p, 'utf8'), `${header.slice(0, -1)},"title":"T","titleSource":"user"}\n`);
});
