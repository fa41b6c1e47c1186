import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSessionRoots, describeSkipped, groupByProject, idFromFileName, listAllWithSkipped, readSessionInfo } from '../../src/core/discovery/discovery';
import { findMostRecentSession, getRecentSessions, list, listAll } from '../reference/discovery';
import { makeFolderBeyondPathMax, removeDeepTree } from '../helpers/deepPath';

function session(file: string, header: Record<string, unknown>, entries: unknown[], ageSec = 0): void {
  writeFileSync(file, [JSON.stringify({ type: 'session', version: 3, timestamp: '2026-01-01T00:00:00.000Z', ...header }), ...entries.map((e) => JSON.stringify(e))].join('\n') + '\n');
  const t = new Date(Date.now() - ageSec * 1000);
  utimesSync(file, t, t);
}
const msg = (role: string, content: unknown) => ({ type: 'message', id: Math.random().toString(16).slice(2, 10), parentId: null, timestamp: 'x', message: { role, content } });

test('defaultSessionRoots: xcsh always, omp and pi only when present', () => {
  const home = mkdtempSync(join(tmpdir(), 'sl-home-'));
  assert.deepEqual(defaultSessionRoots(home), [join(home, '.xcsh', 'agent', 'sessions')]);
  mkdirSync(join(home, '.pi', 'agent', 'sessions'), { recursive: true });
  assert.deepEqual(defaultSessionRoots(home), [join(home, '.xcsh', 'agent', 'sessions'), join(home, '.pi', 'agent', 'sessions')]);
});

test('metadata from the prefix: id, cwd, title, created, version, first user message, parent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-disc-'));
  const p = join(dir, '2026_abcdef0123456789.jsonl');
  session(p, { id: 'abcdef0123456789', cwd: '/w', title: 'T', parentSession: 'p1' }, [msg('assistant', []), msg('user', [{ type: 'text', text: 'first question' }])]);
  const i = (await readSessionInfo(p))!;
  assert.equal(i.id, 'abcdef0123456789');
  assert.equal(i.cwd, '/w');
  assert.equal(i.title, 'T');
  assert.equal(i.created, '2026-01-01T00:00:00.000Z');
  assert.equal(i.version, 3);
  assert.equal(i.firstUserMessage, 'first question');
  assert.equal(i.parentSession, 'p1');
  assert.equal(i.damaged, false);
  assert.equal(i.isSubagent, false);
});

test('first user message beyond 4096 bytes is found with one larger prefix', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-disc-'));
  const p = join(dir, 's.jsonl');
  session(p, { id: 'x', cwd: '/w' }, [msg('assistant', [{ type: 'text', text: 'a'.repeat(6000) }]), msg('user', 'late')]);
  assert.equal((await readSessionInfo(p))!.firstUserMessage, 'late');
});

test('a damaged file is listed (id from its name, cwd decoded from the folder) and flagged', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sl-disc-'));
  const dir = join(root, '--srv-app--');
  mkdirSync(dir);
  const p = join(dir, '2026-01-01_0011223344556677.jsonl');
  writeFileSync(p, JSON.stringify(msg('user', 'orphan')) + '\n');
  const i = (await readSessionInfo(p))!;
  assert.equal(i.damaged, true);
  assert.equal(i.id, '0011223344556677');
  assert.equal(i.cwd, '/srv/app');
  assert.equal(i.version, null);
  assert.equal(idFromFileName('/a/b/2026-01-01T00-00-00-000Z_abc.jsonl'), 'abc');
});

test('getRecentSessions / findMostRecentSession by mtime; list(cwd, dir) and list(cwd) via the roots', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sl-disc-'));
  const dir = join(root, '--work-pi--');
  mkdirSync(dir);
  session(join(dir, 'a_1.jsonl'), { id: '1', cwd: '/work/pi' }, [], 300);
  session(join(dir, 'b_2.jsonl'), { id: '2', cwd: '/work/pi' }, [], 100);
  session(join(dir, 'c_3.jsonl'), { id: '3', cwd: '/work/pi' }, [], 200);
  writeFileSync(join(dir, 'notes.txt'), 'ignored');
  assert.deepEqual((await getRecentSessions(dir, 2)).map((s) => s.id), ['2', '3']);
  assert.equal(await findMostRecentSession(dir), join(dir, 'b_2.jsonl'));
  assert.equal(await findMostRecentSession(join(root, 'none')), null);
  assert.deepEqual((await list('/work/pi', dir)).map((s) => s.id), ['2', '3', '1']);
  assert.deepEqual((await list('/work/pi', undefined, [root])).map((s) => s.id), ['2', '3', '1']);
});

test('listAll recurses; subagent sessions link to their parent; groupByProject nests them', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sl-disc-'));
  const dir = join(root, '-projects-x');
  mkdirSync(dir);
  const parent = join(dir, '2026_pppppppppppppppp.jsonl');
  session(parent, { id: 'pppppppppppppppp', cwd: '/home/u/projects/x' }, [msg('user', 'main')]);
  mkdirSync(join(dir, '2026_pppppppppppppppp'));
  const child = join(dir, '2026_pppppppppppppppp', 'cccccccccccccccc.jsonl');
  session(child, { id: 'cccccccccccccccc', cwd: '/home/u/projects/x' }, [{ type: 'session_init', id: 'i', parentId: null, systemPrompt: 's', task: 't', tools: [] }]);
  const other = join(root, '--srv--');
  mkdirSync(other);
  session(join(other, 's_o.jsonl'), { id: 'o', cwd: '/srv' }, [], 500);
  const all = await listAll(root);
  assert.equal(all.length, 3);
  const c = all.find((s) => s.id === 'cccccccccccccccc')!;
  assert.equal(c.isSubagent, true);
  assert.equal(c.parentPath, parent);
  const groups = groupByProject(all);
  assert.deepEqual(groups.map((g) => g.project), ['/home/u/projects/x', '/srv']);
  assert.deepEqual(groups[0]!.sessions.map((s) => s.id), ['pppppppppppppppp']);
  assert.deepEqual(groups[0]!.subagents[parent]!.map((s) => s.id), ['cccccccccccccccc']);
});

test('listAllWithSkipped: every folder or session file left out is reported with why; the rest is listed as before', async () => {
  const root = mkdtempSync(join(tmpdir(), 'sl-skip-'));
  const outside = mkdtempSync(join(tmpdir(), 'sl-skip-out-'));
  const proj = join(root, '--w--');
  mkdirSync(proj);
  const good = join(proj, '2026_1111111111111111.jsonl');
  session(good, { id: '1111111111111111', cwd: '/w' }, [msg('user', 'kept')]);
  const elsewhere = join(outside, '2026_2222222222222222.jsonl');
  session(elsewhere, { id: '2222222222222222', cwd: '/w' }, [msg('user', 'linked')]);
  symlinkSync(elsewhere, join(proj, '2026_2222222222222222.jsonl'));
  symlinkSync(join(outside, 'nothing-here.jsonl'), join(proj, 'dangling.jsonl'));
  symlinkSync(root, join(proj, 'loop'));
  symlinkSync(elsewhere, join(proj, 'not-a-session.txt'));
  execFileSync('mkfifo', [join(proj, 'pipe.jsonl')]);
  const deep = makeFolderBeyondPathMax(join(root, '--deep--'), '2026_3333333333333333.jsonl', JSON.stringify({ type: 'session', version: 3, id: '3333333333333333', timestamp: 't', cwd: '/deep' }) + '\n');
  try {
    const { sessions, skipped } = await listAllWithSkipped(root);
    assert.deepEqual(sessions.map((s) => s.path), [good]);
    const byPath = new Map(skipped.map((s) => [s.path, s]));
    assert.equal(byPath.get(join(proj, '2026_2222222222222222.jsonl'))?.kind, 'symlinked-file');
    assert.equal(byPath.get(join(proj, 'dangling.jsonl'))?.kind, 'symlinked-file');
    assert.equal(byPath.get(join(proj, 'loop'))?.kind, 'symlinked-folder');
    assert.equal(byPath.get(join(proj, 'pipe.jsonl'))?.kind, 'not-regular');
    assert.equal(byPath.has(join(proj, 'not-a-session.txt')), false, 'a link that is neither a folder nor a .jsonl is not a candidate');
    const tooLong = skipped.filter((s) => s.kind === 'path-too-long');
    assert.equal(tooLong.length, 1, JSON.stringify(skipped.map((s) => [s.kind, s.code, s.path.length])));
    assert.ok(deep.startsWith(tooLong[0]!.path) && tooLong[0]!.path.length > 4096, 'the first folder beyond PATH_MAX on the way to the deep session');
    assert.equal(skipped.length, 5);
    assert.deepEqual(skipped.map((s) => s.path), skipped.map((s) => s.path).sort(), 'sorted by path');
    assert.match(describeSkipped(byPath.get(join(proj, 'loop'))!), /symbolic link to a folder, not followed/);
    assert.deepEqual((await listAll(root)).map((s) => s.path), [good], 'listAll lists the same sessions');
    assert.deepEqual((await listAllWithSkipped(join(root, 'no-such-root'))).skipped, [], 'a root that does not exist is not a skipped folder');
  } finally {
    removeDeepTree(root);
  }
});

test('listAllWithSkipped: an unreadable folder and an unreadable session file are reported (EACCES)', { skip: process.getuid?.() === 0 ? 'root reads through chmod 000 (the CLI test runs this as an unprivileged user)' : false }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'sl-skip-acl-'));
  const locked = join(root, '--locked--');
  mkdirSync(locked);
  session(join(locked, '2026_4444444444444444.jsonl'), { id: '4444444444444444', cwd: '/l' }, []);
  const proj = join(root, '--p--');
  mkdirSync(proj);
  const secret = join(proj, '2026_5555555555555555.jsonl');
  session(secret, { id: '5555555555555555', cwd: '/p' }, []);
  chmodSync(locked, 0o000);
  chmodSync(secret, 0o000);
  try {
    const { sessions, skipped } = await listAllWithSkipped(root);
    assert.deepEqual(sessions, []);
    // sorted by path: --locked-- before --p--
    assert.deepEqual(skipped, [
      { path: locked, kind: 'unreadable-folder', code: 'EACCES' },
      { path: secret, kind: 'unreadable-file', code: 'EACCES' },
    ]);
  } finally {
    chmodSync(locked, 0o755);
  }
});
