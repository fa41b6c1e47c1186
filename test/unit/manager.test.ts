import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync, existsSync, mkdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionFile } from '../../src/core/formats/xcsh/load';
import { SessionManager, SessionFileError } from '../reference/manager';
import { MemorySessionStorage } from '../reference/memoryStorage';
import { FileSessionStorage } from '../reference/fileStorage';
import type { SessionStorage } from '../reference/storage';
import { fixture } from '../helpers/fixtures';

const user = (text: string) => ({ role: 'user', content: text, timestamp: 1 });
const assistant = (text: string) => ({ role: 'assistant', provider: 'p', model: 'm', content: [{ type: 'text', text }], timestamp: 2 });
const readLines = async (s: SessionStorage, p: string) => (await s.readText(p)).split('\n').filter(Boolean).map((l) => JSON.parse(l));

const backends: [string, () => { storage: SessionStorage; dir: string }][] = [
  ['memory', () => ({ storage: new MemorySessionStorage(), dir: '/sessions/--work--' })],
  ['file', () => ({ storage: new FileSessionStorage(), dir: join(mkdtempSync(join(tmpdir(), 'sl-mgr-')), '--work--') })],
];

for (const [name, make] of backends) {
  test(`[${name}] nothing is written before the first assistant message; then a full flush; then appends`, async () => {
    const { storage, dir } = make();
    const m = SessionManager.create('/work', { storage, sessionDir: dir, log: () => {} });
    const path = m.getSessionFile();
    m.appendModelChange('p/m');
    m.appendMessage(user('hi'));
    await m.flush();
    assert.equal(storage.existsSync(path), false, 'no file before an assistant message');
    m.appendMessage(assistant('hello'));
    await m.flush();
    let lines = await readLines(storage, path);
    assert.equal(lines.length, 4);
    assert.equal(lines[0].type, 'session');
    assert.equal(lines[0].version, 3);
    assert.deepEqual(lines.slice(1).map((l) => l.type), ['model_change', 'message', 'message']);
    const before = await storage.readText(path);
    m.appendMessage(user('more'));
    await m.flush();
    const after = await storage.readText(path);
    assert.ok(after.startsWith(before), 'incremental: existing bytes untouched');
    lines = await readLines(storage, path);
    assert.equal(lines.length, 5);
    assert.equal(lines[4].parentId, lines[3].id);
    await m.close();
  });

  test(`[${name}] writes are serialised in call order through one chain`, async () => {
    const { storage, dir } = make();
    const m = SessionManager.create('/work', { storage, sessionDir: dir });
    m.appendMessage(user('q'));
    m.appendMessage(assistant('a'));
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) ids.push(m.appendMessage(user(`u${i}`)));
    await m.flush();
    const lines = await readLines(storage, m.getSessionFile());
    assert.deepEqual(lines.slice(3).map((l) => l.id), ids);
    assert.deepEqual(m.getEntries().map((e) => e.id), lines.slice(1).map((l) => l.id));
    await m.close();
  });

  test(`[${name}] tree: parent = leaf, branch moves only the leaf, resetLeaf → new root, branchWithSummary`, async () => {
    const { storage, dir } = make();
    const m = SessionManager.create('/work', { storage, sessionDir: dir });
    const a = m.appendMessage(user('a'));
    const b = m.appendMessage(assistant('b'));
    const c = m.appendMessage(user('c'));
    assert.equal(m.getEntry(b)!.parentId, a);
    assert.equal(m.getLeafId(), c);
    const count = m.getEntries().length;
    m.branch(a);
    assert.equal(m.getEntries().length, count);
    assert.equal(m.getLeafId(), a);
    const d = m.appendMessage(assistant('d'));
    assert.equal(m.getEntry(d)!.parentId, a);
    assert.deepEqual(m.buildSessionContext().messages.map((x) => x.content), ['a', [{ type: 'text', text: 'd' }]]);
    m.resetLeaf();
    assert.equal(m.buildSessionContext().messages.length, 0);
    const r = m.appendMessage(user('root2'));
    assert.equal(m.getEntry(r)!.parentId, null);
    const s1 = m.branchWithSummary(null, 'from the start');
    assert.equal((m.getEntry(s1) as { fromId: string }).fromId, 'root');
    assert.equal(m.getEntry(s1)!.parentId, null);
    const s2 = m.branchWithSummary(b, 'elsewhere', { k: 1 });
    assert.equal((m.getEntry(s2) as { fromId: string }).fromId, b);
    assert.equal(m.getEntry(s2)!.parentId, b);
    assert.throws(() => m.branch('nope'));
    const lbl = m.appendLabelChange(a, 'start');
    assert.equal((m.getEntry(lbl) as { label?: string }).label, 'start');
    await m.flush();
    const onDisk = await readLines(storage, m.getSessionFile());
    assert.equal(onDisk.length, m.getEntries().length + 1);
    await m.close();
  });

  test(`[${name}] every append type writes its entry`, async () => {
    const { storage, dir } = make();
    const m = SessionManager.create('/work', { storage, sessionDir: dir });
    m.appendSessionInit({ systemPrompt: 's', task: 't', tools: ['read'] });
    m.appendMessage(assistant('x'));
    m.appendModelChange('a/b', 'small');
    m.appendThinkingLevelChange('high');
    m.appendCustomEntry('state', { n: 1 });
    m.appendCustomMessageEntry('note', 'hello', true);
    m.appendTtsrInjection(['r1']);
    m.appendModeChange('plan', { planFile: '/p' });
    const first = m.getEntries()[1]!.id;
    m.appendCompaction('sum', first, 100, { shortSummary: 's' });
    m.appendLabelChange(first, undefined);
    await m.flush();
    const types = (await readLines(storage, m.getSessionFile())).map((l) => l.type);
    assert.deepEqual(types, ['session', 'session_init', 'message', 'model_change', 'thinking_level_change', 'custom', 'custom_message', 'ttsr_injection', 'mode_change', 'compaction', 'label']);
    const ctx = m.buildSessionContext();
    assert.equal(ctx.thinkingLevel, 'high');
    assert.equal(ctx.mode, 'plan');
    assert.deepEqual(ctx.injectedTtsrRules, ['r1']);
    assert.equal(ctx.messages[0]!.role, 'compactionSummary');
    await m.close();
  });

  test(`[${name}] persistence errors are latched, logged once, and rethrown`, async () => {
    const { dir } = make();
    let fail = false;
    const storage =
      name === 'memory'
        ? new MemorySessionStorage({ beforeWrite: (op) => { if (fail && op === 'append') throw new Error('disk full'); } })
        : new FileSessionStorage({ beforeWrite: (op) => { if (fail && op === 'append') throw new Error('disk full'); } });
    const logs: string[] = [];
    const m = SessionManager.create('/work', { storage, sessionDir: dir, log: (s) => logs.push(s) });
    m.appendMessage(user('q'));
    m.appendMessage(assistant('a'));
    await m.flush();
    fail = true;
    m.appendMessage(user('lost'));
    await assert.rejects(m.flush(), /disk full/);
    fail = false;
    assert.throws(() => m.appendMessage(user('after')), /disk full/);
    await assert.rejects(m.flush(), /disk full/);
    await assert.rejects(m.setSessionName('x'), /disk full/);
    assert.equal(logs.length, 1);
    assert.match(logs[0]!, new RegExp(m.getSessionFile().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await m.close().catch(() => undefined); // the latched error again; the file handle is closed
  });

  test(`[${name}] Part C §1: a non-empty headerless file is an error and never overwritten`, async () => {
    const { storage, dir } = make();
    storage.ensureDirSync(dir);
    const p = join(dir, 'damaged.jsonl');
    const bytes = '{"type":"message","id":"aaaaaaaa","parentId":null,"message":{"role":"user","content":"x"}}\n';
    await storage.writeText(p, bytes);
    await assert.rejects(SessionManager.open(p, { storage }), SessionFileError);
    assert.equal(await storage.readText(p), bytes);
    const garbage = join(dir, 'garbage.jsonl');
    await storage.writeText(garbage, 'not json at all\n');
    await assert.rejects(SessionManager.open(garbage, { storage }), SessionFileError);
    assert.equal(await storage.readText(garbage), 'not json at all\n');
  });

  test(`[${name}] missing and zero-byte files initialise a new session (written with the first assistant)`, async () => {
    const { storage, dir } = make();
    storage.ensureDirSync(dir);
    const empty = join(dir, 'empty.jsonl');
    await storage.writeText(empty, '');
    const m = await SessionManager.open(empty, { storage, cwd: '/work' });
    assert.equal(m.getEntries().length, 0);
    m.appendMessage(user('q'));
    await m.flush();
    assert.equal(await storage.readText(empty), '');
    m.appendMessage(assistant('a'));
    await m.flush();
    const lines = await readLines(storage, empty);
    assert.equal(lines[0].type, 'session');
    assert.equal(lines[0].cwd, '/work');
    const missing = join(dir, 'missing.jsonl');
    const m2 = await SessionManager.open(missing, { storage });
    assert.equal(m2.getEntries().length, 0);
    assert.equal(storage.existsSync(missing), false);
    await m.close();
  });

  test(`[${name}] open: loads, leaf = last entry, appends continue the file`, async () => {
    const { storage, dir } = make();
    const m = SessionManager.create('/work', { storage, sessionDir: dir });
    m.appendMessage(user('q'));
    const a = m.appendMessage(assistant('a'));
    await m.close();
    const m2 = await SessionManager.open(m.getSessionFile(), { storage });
    assert.equal(m2.getLeafId(), a);
    const u = m2.appendMessage(user('again'));
    assert.equal(m2.getEntry(u)!.parentId, a);
    await m2.flush();
    assert.equal((await readLines(storage, m.getSessionFile())).length, 4);
    await m2.close();
  });

  test(`[${name}] setSessionName: sanitised, titleSource user, header line only; later appends still land`, async () => {
    const { storage, dir } = make();
    const m = SessionManager.create('/work', { storage, sessionDir: dir });
    m.appendMessage(user('q'));
    m.appendMessage(assistant('a'));
    await m.flush();
    const before = await storage.readText(m.getSessionFile());
    assert.equal(await m.setSessionName('  My\u001b[0m   title\n'), true);
    const after = await storage.readText(m.getSessionFile());
    assert.equal(after.slice(after.indexOf('\n')), before.slice(before.indexOf('\n')));
    const h = JSON.parse(after.slice(0, after.indexOf('\n')));
    assert.equal(h.title, 'My [0m title');
    assert.equal(h.titleSource, 'user');
    assert.equal(await m.setSessionName('auto one', 'auto'), false, 'auto never replaces a user title');
    await assert.rejects(m.setSessionName(' \u0007 '));
    m.appendMessage(user('after rename'));
    await m.flush();
    const lines = await readLines(storage, m.getSessionFile());
    assert.equal(lines.length, 4, 'the append went to the renamed file, not an orphaned inode');
    assert.equal(lines[3].message.content, 'after rename');
    await m.close();
  });

  test(`[${name}] rewriteEntries rewrites the file atomically from memory`, async () => {
    const { storage, dir } = make();
    const m = SessionManager.create('/work', { storage, sessionDir: dir });
    m.appendMessage(user('q'));
    m.appendMessage(assistant('a'));
    await m.flush();
    const es = m.getEntries().map((e) => (e.type === 'message' ? { ...e, message: { ...(e as { message: object }).message, edited: true } } : e));
    await m.rewriteEntries(es as never);
    const lines = await readLines(storage, m.getSessionFile());
    assert.ok(lines.slice(1).every((l) => l.message.edited === true));
    m.appendMessage(user('z'));
    await m.flush();
    assert.equal((await readLines(storage, m.getSessionFile())).length, 4);
    await m.close();
  });

  test(`[${name}] continueRecent: terminal breadcrumb first, then the newest mtime, else a new session`, async () => {
    const { storage, dir } = make();
    const crumbs = name === 'memory' ? '/crumbs' : join(dir, '..', 'crumbs');
    storage.ensureDirSync(crumbs);
    const fresh = await SessionManager.continueRecent('/work', { storage, sessionDir: dir, terminalId: 't1', breadcrumbsDir: crumbs });
    assert.equal(fresh.getEntries().length, 0);
    const older = SessionManager.create('/work', { storage, sessionDir: dir });
    older.appendMessage(assistant('old'));
    await older.close();
    await new Promise((r) => setTimeout(r, 20));
    const newer = SessionManager.create('/work', { storage, sessionDir: dir });
    newer.appendMessage(assistant('new'));
    await newer.close();
    if (name === 'file') {
      const t = new Date(Date.now() - 100_000);
      utimesSync(older.getSessionFile(), t, t);
    }
    const byMtime = await SessionManager.continueRecent('/work', { storage, sessionDir: dir, terminalId: 't1', breadcrumbsDir: crumbs });
    assert.equal(byMtime.getSessionFile(), newer.getSessionFile());
    await storage.writeText(join(crumbs, 't1'), `/work\n${older.getSessionFile()}\n`);
    const byCrumb = await SessionManager.continueRecent('/work', { storage, sessionDir: dir, terminalId: 't1', breadcrumbsDir: crumbs });
    assert.equal(byCrumb.getSessionFile(), older.getSessionFile());
    const otherCwd = await SessionManager.continueRecent('/work', { storage, sessionDir: dir, terminalId: 'nope', breadcrumbsDir: crumbs });
    assert.equal(otherCwd.getSessionFile(), newer.getSessionFile());
  });

  test(`[${name}] forkFrom copies the entries and records parentSession`, async () => {
    const { storage, dir } = make();
    const src = SessionManager.create('/work', { storage, sessionDir: dir });
    src.appendMessage(user('q'));
    src.appendMessage(assistant('a'));
    await src.close();
    const f = await SessionManager.forkFrom(src.getSessionFile(), '/work', { storage, sessionDir: dir });
    await f.flush();
    assert.notEqual(f.getSessionFile(), src.getSessionFile());
    const lines = await readLines(storage, f.getSessionFile());
    assert.equal(lines[0].parentSession, src.getSessionFile());
    assert.deepEqual(lines.slice(1).map((l) => l.id), src.getEntries().map((e) => e.id));
    await f.close();
  });
}

test('inMemory never writes to disk', async () => {
  const m = SessionManager.inMemory('/work');
  m.appendMessage(user('q'));
  m.appendMessage(assistant('a'));
  await m.flush();
  assert.equal(m.isPersisted(), false);
  assert.equal(existsSync(m.getSessionFile()), false);
  assert.equal(m.buildSessionContext().messages.length, 2);
  await m.setSessionName('t');
  assert.equal(m.getHeader().title, 't');
});

test('open migrates a v1 file and rewrites it at once, keeping an unparsable line in place (Part A + C §7)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-mgr-v1-'));
  const p = join(dir, 's.jsonl');
  copyFileSync(fixture('upstream', 'pi-large-session.v1.head25.jsonl'), p);
  chmodSync(p, 0o644); // the shared fixtures are read-only (0444), and a read-only file is never written
  const lines = readFileSync(p, 'utf8').split('\n');
  lines.splice(3, 0, 'this line is not JSON');
  writeFileSync(p, lines.join('\n'));
  const m = await SessionManager.open(p);
  assert.equal(m.getEntries().length, 24);
  const after = readFileSync(p, 'utf8').split('\n');
  assert.equal(after[3], 'this line is not JSON');
  assert.equal(JSON.parse(after[0]!).version, 3);
  const ents = after.filter((l, i) => i > 0 && l && l !== 'this line is not JSON').map((l) => JSON.parse(l));
  assert.deepEqual(ents.map((e) => e.id), m.getEntries().map((e) => e.id));
  assert.equal(ents[0].parentId, null);
  assert.equal(ents[1].parentId, ents[0].id);
  // reopening: nothing left to migrate, bytes stable
  const snapshot = readFileSync(p);
  await SessionManager.open(p);
  assert.deepEqual(readFileSync(p), snapshot);
});

test('rewriteMigrated: false leaves a v1 file untouched', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-mgr-v1b-'));
  mkdirSync(join(dir, 'x'));
  const p = join(dir, 'x', 's.jsonl');
  copyFileSync(fixture('upstream', 'pi-large-session.v1.head25.jsonl'), p);
  const before = readFileSync(p);
  const m = await SessionManager.open(p, { rewriteMigrated: false });
  assert.equal(m.getHeader().version, 3);
  assert.deepEqual(readFileSync(p), before);
});

test('open separates records glued on one line even with a space between them (the same layout as the guarded rewrite)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-mgr-glued-'));
  const p = join(dir, 's.jsonl');
  const lines = readFileSync(fixture('upstream', 'pi-session.v1.glued-records.jsonl'), 'utf8').split('\n');
  assert.ok(lines[10]!.includes('}{'), 'line 11 holds the glued pair');
  lines[10] = lines[10]!.replace('}{', '} {');
  writeFileSync(p, lines.join('\n'));
  const before = await loadSessionFile(p);
  assert.ok(before.diagnostics.some((d) => d.kind === 'glued-records'));
  const m = await SessionManager.open(p);
  const after = await loadSessionFile(p);
  assert.equal(after.entries.length, m.getEntries().length);
  assert.deepEqual(after.diagnostics.filter((d) => d.kind === 'glued-records'), [], 'the rewrite split the glued pair');
  assert.ok(readFileSync(p, 'utf8').split('\n').some((l) => l.endsWith('} ')), 'the space between the records is kept, before the new line break');
});

test('rewriteEntries refuses when the opened file had unreadable lines (they would be lost), leaving it untouched (Part C §7)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-mgr-unread-'));
  const p = join(dir, 's.jsonl');
  copyFileSync(fixture('real-v3', 'gjc-04-awesome-agent-ide.jsonl'), p); // line 44 has an invalid escape
  const before = readFileSync(p);
  const m = await SessionManager.open(p);
  await assert.rejects(m.rewriteEntries(m.getEntries()), (e: unknown) => e instanceof SessionFileError && /line 44 could not be read/.test(e.message));
  assert.deepEqual(readFileSync(p), before);
  // the refusal is not a latched persistence error: appends still work
  m.appendMessage(user('still appending'));
  await m.flush();
  assert.ok(readFileSync(p).length > before.length);
  assert.ok(readFileSync(p).subarray(0, before.length).equals(before));
  await m.close();
});

test('rewriteEntries names a run of unreadable lines by its range, and refuses over a record nested too deep or a torn fragment (issue 15)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sl-mgr-runs-'));
  const cases: [string, RegExp][] = [
    ['junk\n[1]\n\njunk\n', /lines 3–6 could not be read/],
    [`{"type":"custom","id":"d","parentId":"a","data":${'['.repeat(2000)}${']'.repeat(2000)}}\n`, /line 3 could not be read/],
    ['{"type":"custom","id":"b","parentId":"a"}{"type":"custom","id":"0\n', /line 3 could not be read/],
  ];
  for (const [k, [tail, message]] of cases.entries()) {
    const p = join(dir, `s${k}.jsonl`);
    writeFileSync(p, '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}\n{"type":"custom","id":"a","parentId":null}\n' + tail);
    const before = readFileSync(p);
    const m = await SessionManager.open(p);
    await assert.rejects(m.rewriteEntries(m.getEntries()), (e: unknown) => e instanceof SessionFileError && message.test(e.message), tail.slice(0, 40));
    assert.deepEqual(readFileSync(p), before);
  }
});
