// The Sessions view in the real VS Code (issue 5): the tree through the registered provider's
// getChildren/getTreeItem, and every command on copies of fixture sessions in a project folder
// of the fake home (write tests never touch the fixtures or the other tests' files).
// Modals and input boxes are answered through the extension's injectable prompts.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { loadSessionFile, loadSessionFromText } from '../../../src/core/formats/xcsh/load';
import { migrateSession } from '../../../src/core/formats/xcsh/migrate';
import type { SessionLoomApi } from '../../../src/extension/extension';
import type { Prompts } from '../../../src/extension/commands/prompts';
import type { LoomNode, SessionNode } from '../../../src/extension/sessions/nodes';
import { box, click, drag, frameText, harnessAvailable, keys, moveMouse, screenshot } from './harness';
import { revealRow, until } from './util';

const EXTENSION_ID = 'session-loom.session-loom';
const fixtures = process.env.SESSION_LOOM_FIXTURES ?? path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures');
const sessionsRoot = () => path.join(os.homedir(), '.xcsh', 'agent', 'sessions');
const TEST_PROJECT = '--work-loom-it--';

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const hourAgo = () => new Date(Date.now() - 3600_000);

/** A small v3 session with a fork after `e`, a label on `e`, leaf `g`. */
function forkedSession(id: string): string {
  const t = (n: number) => `2026-01-05T10:${String(n).padStart(2, '0')}:00.000Z`;
  const msg = (eid: string, parentId: string | null, n: number, message: object) => ({ type: 'message', id: eid, parentId, timestamp: t(n), message });
  const lines = [
    { type: 'session', version: 3, id, timestamp: t(0), cwd: '/work/loom-it' },
    { type: 'model_change', id: 'aaaa0001', parentId: null, timestamp: t(0), model: 'anthropic/claude-sonnet-4-5' },
    msg('bbbb0002', 'aaaa0001', 1, { role: 'user', content: [{ type: 'text', text: 'Fix the JSONL parser so glued records are split' }] }),
    msg('cccc0003', 'bbbb0002', 2, { role: 'assistant', content: [{ type: 'toolCall', id: 't1', name: 'bash', arguments: { command: 'rg -n parseJsonl src' } }], provider: 'anthropic', model: 'claude-sonnet-4-5', usage: { input: 1200, output: 80, cacheRead: 0, cacheWrite: 0, cost: { total: 0.0048 } } }),
    msg('dddd0004', 'cccc0003', 3, { role: 'toolResult', toolCallId: 't1', toolName: 'bash', content: [{ type: 'text', text: 'src/core/jsonl.ts:219: export function parseJsonlLenient' }] }),
    msg('eeee0005', 'dddd0004', 4, { role: 'assistant', content: [{ type: 'text', text: 'The parser now splits }{ at record boundaries.' }], provider: 'anthropic', model: 'claude-sonnet-4-5' }),
    msg('hhhh0008', 'eeee0005', 5, { role: 'user', content: [{ type: 'text', text: 'Instead, only report glued records as diagnostics' }] }),
    msg('iiii0009', 'hhhh0008', 6, { role: 'assistant', content: [{ type: 'text', text: 'Done: glued lines are reported, not split.' }] }),
    msg('ffff0006', 'eeee0005', 7, { role: 'user', content: [{ type: 'text', text: 'Add a unit test for the torn tail too' }] }),
    { type: 'label', id: 'llll0010', parentId: 'ffff0006', timestamp: t(8), targetId: 'eeee0005', label: 'fix' },
    msg('gggg0007', 'llll0010', 9, { role: 'assistant', content: [{ type: 'text', text: 'Added a torn-tail case to test/unit/jsonl.test.ts.' }] }),
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** A v3 session of one linear run: the texts alternate user / assistant. */
function linearSession(id: string, texts: string[]): string {
  const t = (n: number) => `2026-01-06T09:${String(n).padStart(2, '0')}:00.000Z`;
  const lines: object[] = [{ type: 'session', version: 3, id, timestamp: t(0), cwd: '/work/loom-search' }];
  texts.forEach((text, i) => {
    const role = i % 2 === 0 ? 'user' : 'assistant';
    lines.push({ type: 'message', id: `${id.slice(-4)}${String(i).padStart(4, '0')}`, parentId: i === 0 ? null : `${id.slice(-4)}${String(i - 1).padStart(4, '0')}`, timestamp: t(i + 1), message: { role, content: [{ type: 'text', text }] } });
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

describe('sessions view', function () {
  this.timeout(120_000);
  let api: SessionLoomApi;
  const provider = () => api.sessions.provider;
  const original: Partial<Prompts> = {};
  let projectDir: string;
  let damagedInHome: string | undefined;
  let damagedHash = '';
  const calls: { confirm: { message: string; detail: string }[]; inputs: vscode.InputBoxOptions[]; errors: string[]; infos: string[] } = {
    confirm: [],
    inputs: [],
    errors: [],
    infos: [],
  };

  /** Answers the next prompts: confirm → `confirm`, input → `input`. */
  function answer(opts: { confirm?: string; input?: string }): void {
    const p = api.sessions.prompts;
    p.confirm = async (message, detail) => {
      calls.confirm.push({ message, detail });
      return opts.confirm;
    };
    p.input = async (options) => {
      calls.inputs.push(options);
      return opts.input;
    };
  }

  async function place(name: string, content: string | Buffer, mtime = hourAgo()): Promise<string> {
    const file = path.join(projectDir, name);
    fs.writeFileSync(file, content);
    fs.utimesSync(file, mtime, mtime);
    await provider().fileChanged(file);
    return file;
  }

  async function sessionNode(file: string): Promise<SessionNode> {
    const s = await provider().findSession(file);
    assert.ok(s, `no session node for ${file}`);
    return s;
  }

  const label = (n: LoomNode) => {
    const l = provider().getTreeItem(n).label;
    return typeof l === 'string' ? l : (l?.label ?? '');
  };

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionLoomApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    assert.ok(api?.sessions?.provider, 'activate() returns the sessions test hooks');
    Object.assign(original, api.sessions.prompts);
    const p = api.sessions.prompts;
    p.error = (m) => void calls.errors.push(m);
    p.info = (m) => void calls.infos.push(m);
    projectDir = path.join(sessionsRoot(), TEST_PROJECT);
    fs.mkdirSync(projectDir, { recursive: true });
    damagedInHome = fs
      .readdirSync(path.join(sessionsRoot(), '--home-user-tmp--'))
      .map((f) => path.join(sessionsRoot(), '--home-user-tmp--', f))
      .find((f) => path.basename(f).startsWith('gjc-01'));
    if (damagedInHome) damagedHash = sha(damagedInHome);
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
  });

  afterEach(() => {
    Object.assign(api.sessions.prompts, original, { error: api.sessions.prompts.error, info: api.sessions.prompts.info });
    provider().setFilter('default');
    provider().setSearch('');
  });

  after(() => {
    Object.assign(api.sessions.prompts, original);
  });

  it('lists projects by decoded cwd with their session counts', async () => {
    provider().refresh();
    const projects = await provider().getChildren();
    const tmp = projects.find((p) => p.kind === 'project' && p.info.name === '--home-user-tmp--');
    assert.ok(tmp, 'project --home-user-tmp-- is listed');
    const item = provider().getTreeItem(tmp);
    // The last part of the cwd first, then the count and the folder it is in (issue 14.8).
    assert.equal(item.label, 'tmp');
    const count = fs.readdirSync(path.join(sessionsRoot(), '--home-user-tmp--')).filter((f) => f.endsWith('.jsonl')).length;
    assert.equal(item.description, `${count} sessions · /home/user`);
    const sessions = await provider().getChildren(tmp);
    assert.equal(sessions.length, count);
  });

  it('nests a subagent session under its parent session, not beside it (view and CLI)', async () => {
    const projectDirDemo = path.join(sessionsRoot(), '--demo-project--');
    const parentFile = path.join(projectDirDemo, '2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl');
    const subFile = path.join(projectDirDemo, '2026-03-01T09-00-00-000Z_5d1e0c0ffee00001', '5d1e0c0ffee0a9e1.jsonl');
    assert.ok(fs.existsSync(subFile), 'the sample subagent session is in the fake home');
    provider().refresh();
    const project = (await provider().getChildren()).find((p) => p.kind === 'project' && p.info.name === '--demo-project--');
    assert.ok(project, 'project --demo-project-- is listed');
    assert.equal(provider().getTreeItem(project).description, '1 session · /demo', 'the subagent is not counted as a session of the project');
    const top = (await provider().getChildren(project)) as SessionNode[];
    assert.deepEqual(top.map((s) => s.file), [parentFile], 'only the parent session at project level');
    const kids = await provider().getChildren(top[0]!);
    const sub = kids.find((k): k is SessionNode => k.kind === 'session');
    assert.ok(sub, 'the subagent session is a child of its parent session');
    assert.equal(sub.file, subFile);
    assert.equal(provider().getParent(sub), top[0]);
    const item = provider().getTreeItem(sub);
    assert.match(item.contextValue ?? '', /\bsubagent\b/);
    assert.match(label(sub), /Find every caller of `report\(\)`/);
    // Its own children: the branch tree, starting with the session_init entry.
    const subKids = await provider().getChildren(sub);
    assert.ok(subKids.some((k) => k.kind === 'run' || k.kind === 'entry'), 'the subagent session shows its entries');

    // Copied just now, both rows say "live"; once the files are older, they no longer do, even
    // after the parent's and the project's children are listed again (they hold the metas).
    const then = new Date(Date.now() - 3 * 3600_000);
    for (const f of [subFile, parentFile]) {
      fs.utimesSync(f, then, then);
      await provider().fileChanged(f);
    }
    const parentAgain = ((await provider().getChildren(project)) as SessionNode[])[0]!;
    const subAgain = (await provider().getChildren(parentAgain)).find((k): k is SessionNode => k.kind === 'session')!;
    assert.doesNotMatch(String(provider().getTreeItem(parentAgain).description), /\blive\b/);
    assert.doesNotMatch(String(provider().getTreeItem(subAgain).description), /\blive\b/);
    assert.doesNotMatch(provider().getTreeItem(subAgain).contextValue ?? '', /\blive\b/);

    // The CLI links it to its parent too.
    const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
    const out = execFileSync(process.execPath, [cli, 'ls', '--root', sessionsRoot(), '--json'], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
    type Info = { path: string; isSubagent: boolean; parentPath?: string; parentSession: string | null };
    const groups = JSON.parse(out.toString('utf8')) as { project: string; sessions: Info[]; subagents: Record<string, Info[]> }[];
    const demo = groups.find((g) => g.project === '/demo/project');
    assert.ok(demo, 'the CLI lists /demo/project');
    assert.deepEqual(demo.sessions.map((s) => s.path), [parentFile]);
    const linked = demo.subagents[parentFile] ?? [];
    assert.deepEqual(linked.map((s) => s.path), [subFile]);
    assert.equal(linked[0]!.isSubagent, true);
    assert.equal(linked[0]!.parentPath, parentFile);
    assert.equal(linked[0]!.parentSession, '5d1e0c0ffee00001');
    assert.ok(!groups.some((g) => g.sessions.some((s) => s.path === subFile)), 'not listed as a top-level session anywhere');
  });

  it('marks v1 sessions as needing migration and header-less files as damaged', async () => {
    const pi = (await provider().getChildren()).find((p) => p.kind === 'project' && p.info.name === '--Users-badlogic-workspaces-pi-mono--');
    assert.ok(pi);
    const kids = (await provider().getChildren(pi)) as SessionNode[];
    assert.ok(kids.length > 0 && kids.every((s) => /\bneedsMigration\b/.test(provider().getTreeItem(s).contextValue ?? '')));
    if (damagedInHome) {
      const dmg = await sessionNode(damagedInHome);
      const ctx = provider().getTreeItem(dmg).contextValue ?? '';
      assert.match(ctx, /\bdamaged\b/);
      assert.match(ctx, /\brepairable\b/);
      assert.doesNotMatch(ctx, /\bwritable\b/);
      const children = await provider().getChildren(dmg);
      const diag = children.filter((c) => c.kind === 'diagnostic');
      assert.ok(diag.some((d) => d.kind === 'diagnostic' && d.diagnostic.kind === 'no-header'), 'no-header diagnostic row');
      assert.ok(children.some((c) => c.kind === 'run'), 'the readable entries still show');
    }
  });

  it('one icon rule: a session that reads with problems (glued records, a torn last line) shows a yellow warning once read, and offers Repair (issue 25)', async () => {
    const t = '2026-01-06T10:00:00.000Z';
    const lines = [
      { type: 'session', version: 3, id: 'f0000000000000b7', timestamp: t, cwd: '/work/icons' },
      { type: 'message', id: 'b7000001', parentId: null, timestamp: t, message: { role: 'user', content: 'Import the recipes' } },
      { type: 'message', id: 'b7000002', parentId: 'b7000001', timestamp: t, message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } },
      { type: 'message', id: 'b7000003', parentId: 'b7000002', timestamp: t, message: { role: 'user', content: 'Now the index page' } },
    ].map((l) => JSON.stringify(l));
    // Records 2 and 3 glued by a lost newline; the last one cut off mid-write (as the demo's damaged session).
    const file = await place('2026-01-06T10-00-00-000Z_f0000000000000b7.jsonl', `${lines[0]}\n${lines[1]}${lines[2]}\n${lines[3]!.slice(0, 50)}`);
    const session = await sessionNode(file);
    const icon = () => (provider().getTreeItem(session).iconPath as vscode.ThemeIcon);
    assert.equal(icon().id, 'comment-discussion', 'before it is read, the listing knows no problem');
    const children = await provider().getChildren(session);
    assert.deepEqual(children.filter((c) => c.kind === 'diagnostic').map((c) => (c.kind === 'diagnostic' ? c.diagnostic.kind : '')), ['glued-records', 'torn-tail']);
    await until(() => icon().id === 'warning', () => `the icon once read: ${icon().id}`);
    assert.equal((icon().color as vscode.ThemeColor).id, 'list.warningForeground');
    assert.match(provider().getTreeItem(session).contextValue ?? '', /\brepairable\b.*\bproblems\b/);
    if (harnessAvailable()) {
      await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
      await revealRow(provider().treeView!, session, { select: true, focus: true, expand: true });
      await screenshot('sessions-row-with-problems');
    }
  });

  it('shows the branch tree with linear runs collapsed, forks as children, label badges and the leaf', async () => {
    const file = await place('2026-01-05T10-00-00-000Z_f0000000000000a1.jsonl', forkedSession('f0000000000000a1'));
    const session = await sessionNode(file);
    assert.equal(label(session), 'Fix the JSONL parser so glued records are split');
    const top = await provider().getChildren(session);
    // A run row: its first prompt, its length in the description (issue 14.8).
    assert.deepEqual(top.map(label), ['Fix the JSONL parser so glued records are split']);
    assert.equal(provider().getTreeItem(top[0]!).description, '4 entries · current branch');
    const run = top[0]!;
    const inRun = await provider().getChildren(run);
    assert.deepEqual(inRun.map(label), [
      'Fix the JSONL parser so glued records are split',
      '→ bash rg -n parseJsonl src',
      'bash: src/core/jsonl.ts:219: export function parseJsonlLenient',
      '[fix] The parser now splits }{ at record boundaries.',
    ]);
    const fork = inRun[3]!;
    assert.equal(provider().getTreeItem(fork).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    assert.match(String(provider().getTreeItem(fork).description), /2 branches/);
    const branches = await provider().getChildren(fork);
    assert.deepEqual(branches.map(label), ['Add a unit test for the torn tail too', 'Instead, only report glued records as diagnostics']);
    assert.deepEqual(branches.map((b) => provider().getTreeItem(b).description), ['2 entries · current branch', '2 entries']);
    const active = await provider().getChildren(branches[0]!);
    const leafItem = provider().getTreeItem(active[1]!);
    assert.match(String(leafItem.description), /leaf/);
    assert.match(leafItem.contextValue ?? '', /\bleaf\b/);
    assert.equal(active[1]!.id, `${file}#gggg0007`);
    assert.equal(provider().getParent(active[1]!), branches[0]);
  });

  it('filters like /tree and searches with AND-ed tokens', async () => {
    const file = path.join(projectDir, '2026-01-05T10-00-00-000Z_f0000000000000a1.jsonl');
    const session = await sessionNode(file);
    const flatten = async (n: LoomNode): Promise<string[]> => {
      const out: string[] = [];
      for (const c of await provider().getChildren(n)) {
        if (c.kind === 'entry') out.push(c.entryId);
        out.push(...(await flatten(c)));
      }
      return out;
    };
    provider().setFilter('user-only');
    assert.deepEqual((await flatten(session)).sort(), ['bbbb0002', 'ffff0006', 'hhhh0008']);
    provider().setFilter('labelled-only');
    assert.deepEqual(await flatten(session), ['eeee0005']);
    provider().setFilter('all');
    assert.equal((await flatten(session)).length, 10);
    provider().setFilter('no-tools');
    assert.ok(!(await flatten(session)).includes('dddd0004'));
    provider().setFilter('default');
    await vscode.commands.executeCommand('sessionLoom.search', 'GLUED user');
    assert.deepEqual((await flatten(session)).sort(), ['bbbb0002', 'hhhh0008']);
    await vscode.commands.executeCommand('sessionLoom.clearSearch');
    assert.equal((await flatten(session)).length, 8);
  });

  it('relabel appends exactly one label entry, and an empty label clears it', async () => {
    const file = await place('relabel.jsonl', forkedSession('f0000000000000b2'));
    const before = fs.readFileSync(file);
    answer({ input: '  important ' });
    calls.inputs.length = 0;
    await vscode.commands.executeCommand('sessionLoom.relabelEntry', vscode.Uri.file(file), 'bbbb0002');
    // The input box names the entry by role and text, not only by its id.
    assert.equal(calls.inputs[0]?.title, 'Label of user entry bbbb0002');
    assert.match(calls.inputs[0]?.prompt ?? '', /^“Fix the JSONL parser.*” — an empty label clears the label\.$/);
    const after = fs.readFileSync(file);
    assert.ok(after.subarray(0, before.length).equals(before), 'existing bytes unchanged');
    const added = after.subarray(before.length).toString('utf8').split('\n').filter(Boolean);
    assert.equal(added.length, 1, 'exactly one line appended');
    const entry = JSON.parse(added[0]!);
    assert.equal(entry.type, 'label');
    assert.equal(entry.targetId, 'bbbb0002');
    assert.equal(entry.label, 'important');
    assert.equal(entry.parentId, 'gggg0007', 'parented on the leaf');
    assert.match(entry.id, /^[0-9a-f]{8}$/);
    const node = await provider().nodeForEntry(file, 'bbbb0002');
    assert.ok(node);
    assert.match(label(node), /^\[important\] Fix the JSONL parser/);

    answer({ input: '' });
    await vscode.commands.executeCommand('sessionLoom.relabelEntry', vscode.Uri.file(file), 'bbbb0002');
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const clear = JSON.parse(lines.at(-1)!);
    assert.equal(clear.type, 'label');
    assert.equal('label' in clear, false, 'a clearing label entry has no label field');
    assert.equal(lines.length, before.toString().split('\n').filter(Boolean).length + 2);
    assert.doesNotMatch(label((await provider().nodeForEntry(file, 'bbbb0002'))!), /^\[/);
  });

  it('relabel asks in a real input box that names the entry; Escape writes nothing', async function () {
    if (!harnessAvailable()) this.skip();
    const file = await place('relabel-ui.jsonl', forkedSession('f0000000000000b9'));
    const before = fs.readFileSync(file);
    const pending = vscode.commands.executeCommand('sessionLoom.relabelEntry', vscode.Uri.file(file), 'hhhh0008');
    // The widget stays in the DOM between uses: wait for this box's own title, not for the element.
    const widget = await frameText('.quick-input-widget .quick-input-title:has-text("Label of user entry")');
    assert.match(widget, /Label of user entry hhhh0008/);
    assert.match(await frameText('.quick-input-widget .quick-input-message:has-text("an empty label")'), /“Instead, only report glued records as diagnostics” — an empty label clears the label\./);
    await screenshot('relabel-input');
    await keys('Escape');
    assert.equal(await pending, undefined);
    assert.ok(fs.readFileSync(file).equals(before), 'Escape leaves the file as it was');
  });

  it('does not call a session live just because Session Loom wrote it; an external append does', async () => {
    const file = await place('own-write.jsonl', forkedSession('f0000000000000b7'));
    answer({ input: 'mine' });
    await vscode.commands.executeCommand('sessionLoom.relabelEntry', vscode.Uri.file(file), 'bbbb0002');
    const row = async () => provider().getTreeItem(await sessionNode(file));
    let item = await row();
    assert.doesNotMatch(String(item.description), /\blive\b/, `after our own relabel: ${item.description}`);
    assert.doesNotMatch(item.contextValue ?? '', /\blive\b/);
    assert.ok(item.iconPath instanceof vscode.ThemeIcon && item.iconPath.id !== 'pulse', 'no live icon after our own write');
    // Something else appends: now the file is live.
    const msg = { type: 'message', id: 'zzzz0099', parentId: 'gggg0007', timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'text', text: 'more' }] } };
    fs.appendFileSync(file, JSON.stringify(msg) + '\n');
    await provider().fileChanged(file);
    item = await row();
    assert.match(String(item.description), /\blive\b/, `after an external append: ${item.description}`);
  });

  it("shows a session's models, tokens and cost on hover before its file was ever read (resolveTreeItem)", async () => {
    const file = await place('tooltip.jsonl', forkedSession('f0000000000000b8'));
    provider().refresh();
    const node = await sessionNode(file);
    const item = provider().getTreeItem(node);
    // VS Code resolves only a tooltip left undefined: a metadata-only tooltip would stay forever.
    assert.equal(item.tooltip, undefined, 'the tooltip waits for resolveTreeItem');
    const resolved = await provider().resolveTreeItem(item, node);
    const md = resolved.tooltip;
    assert.ok(md instanceof vscode.MarkdownString, 'a Markdown tooltip');
    assert.match(md.value, /models: `anthropic\/claude-sonnet-4-5`|models: .*claude-sonnet-4-5/);
    assert.match(md.value, /tokens: /);
    assert.match(md.value, /cost: \$0\.0048/);
    assert.match(md.value, /diagnostics: 0/);
    // Once read, the row carries the full tooltip itself.
    const again = provider().getTreeItem(node);
    assert.ok(again.tooltip instanceof vscode.MarkdownString && /cost: /.test(again.tooltip.value));
  });

  it('set title sanitises, records titleSource user and rewrites only the header line', async () => {
    const file = await place('title.jsonl', forkedSession('f0000000000000c3'));
    const rest = fs.readFileSync(file, 'utf8').split('\n').slice(1).join('\n');
    answer({ input: ' Parser \u001b[31m fixes\n ' });
    await vscode.commands.executeCommand('sessionLoom.setSessionTitle', vscode.Uri.file(file));
    const text = fs.readFileSync(file, 'utf8');
    const header = JSON.parse(text.split('\n')[0]!);
    assert.equal(header.title, 'Parser [31m fixes');
    assert.equal(header.titleSource, 'user');
    assert.equal(text.split('\n').slice(1).join('\n'), rest, 'every byte after line 1 unchanged');
    assert.equal(label(await sessionNode(file)), 'Parser [31m fixes');
  });

  it('migrates a v1 fixture to v3 after a dry-run summary, with a backup, equal to the core migration', async () => {
    const source = path.join(fixtures, 'upstream', 'pi-large-session.v1.head25.jsonl');
    const bytes = fs.readFileSync(source);
    const file = await place('migrate-v1.jsonl', bytes);
    const session = await sessionNode(file);
    assert.match(provider().getTreeItem(session).contextValue ?? '', /\bneedsMigration\b/);
    calls.confirm.length = 0;
    answer({ confirm: 'Migrate' });
    await vscode.commands.executeCommand('sessionLoom.migrate', vscode.Uri.file(file));
    assert.equal(calls.confirm.length, 1);
    assert.match(calls.confirm[0]!.detail, /v1 → v3/);
    assert.match(calls.confirm[0]!.detail, /ids assigned/);
    assert.match(calls.confirm[0]!.detail, /entries touched/);

    const backups = fs.readdirSync(projectDir).filter((f) => f.startsWith('migrate-v1.jsonl.bak-'));
    assert.equal(backups.length, 1, 'one backup');
    assert.ok(fs.readFileSync(path.join(projectDir, backups[0]!)).equals(bytes), 'the backup holds the original bytes');

    const migrated = await loadSessionFile(file);
    assert.equal(migrated.originalVersion, 3);
    assert.equal(migrated.migration.entriesTouched, 0, 'nothing left to migrate');
    const expected = loadSessionFromText(bytes);
    const core = migrateSession(JSON.parse(bytes.toString('utf8').split('\n')[0]!), loadSessionFromText(bytes).entries);
    assert.equal(migrated.header?.version, 3);
    assert.equal(migrated.entries.length, expected.entries.length);
    // Ids are random: compare without them, then check the chain the core builds (linear, file order).
    const strip = (e: object) => {
      const { id: _id, parentId: _p, ...rest } = e as Record<string, unknown>;
      return rest;
    };
    assert.deepEqual(migrated.entries.map(strip), core.entries.map(strip));
    migrated.entries.forEach((e, i) => assert.equal(e.parentId ?? null, i === 0 ? null : migrated.entries[i - 1]!.id));
    assert.match(provider().getTreeItem(await sessionNode(file)).contextValue ?? '', /\bcurrent\b/);
  });

  it('migrates several selected sessions at once and says which were left unchanged (one looks live)', async () => {
    const bytes = fs.readFileSync(path.join(fixtures, 'upstream', 'pi-large-session.v1.head25.jsonl'));
    const calm = await place('multi-calm-v1.jsonl', bytes);
    const live = await place('multi-live-v1.jsonl', bytes);
    fs.utimesSync(live, new Date(), new Date());
    calls.confirm.length = 0;
    calls.infos.length = 0;
    // Confirm the dry run, decline "Write anyway" for the live file.
    api.sessions.prompts.confirm = async (message, detail) => {
      calls.confirm.push({ message, detail });
      return message.startsWith('Migrate 2 sessions') ? 'Migrate' : undefined;
    };
    const [a, b] = [await sessionNode(calm), await sessionNode(live)];
    await vscode.commands.executeCommand('sessionLoom.migrate', a, [a, b]);
    assert.equal(calls.confirm.length, 2, calls.confirm.map((c) => c.message).join(' | '));
    assert.match(calls.confirm[0]!.detail, /multi-calm-v1\.jsonl: v1 → v3/);
    assert.match(calls.confirm[0]!.detail, /multi-live-v1\.jsonl: v1 → v3/);
    assert.match(calls.confirm[1]!.message, /multi-live-v1\.jsonl looks live/);
    assert.ok(fs.readFileSync(live).equals(bytes), 'the live one is unchanged');
    const backup = fs.readdirSync(projectDir).find((f) => f.startsWith('multi-calm-v1.jsonl.bak-'));
    assert.ok(backup, 'a backup of the migrated one');
    const info = calls.infos.at(-1) ?? '';
    assert.match(info, /^Migrated 1 of 2 sessions to v3\./);
    assert.ok(info.includes(backup), `the backup is named: ${info}`);
    assert.match(info, /Not migrated \(left unchanged\): multi-live-v1\.jsonl\./);
    assert.match(provider().getTreeItem(await sessionNode(calm)).contextValue ?? '', /\bcurrent\b/);
    assert.match(provider().getTreeItem(await sessionNode(live)).contextValue ?? '', /\bneedsMigration\b/);
  });

  it('says when a configured sessions folder is missing or not a folder', async () => {
    const config = vscode.workspace.getConfiguration('sessionLoom');
    const before = config.inspect<string[]>('sessionRoots')?.globalValue;
    const missing = path.join(os.tmpdir(), 'loom-no-such-sessions-folder');
    const notAFolder = path.join(projectDir, '..', '..', 'not-a-folder.jsonl');
    fs.writeFileSync(notAFolder, '');
    try {
      await config.update('sessionRoots', [sessionsRoot(), missing, notAFolder], vscode.ConfigurationTarget.Global);
      provider().refresh();
      assert.ok((await provider().getChildren()).length > 0, 'the good root is still listed');
      assert.deepEqual(provider().rootProblems, [`${missing} does not exist`, `${notAFolder} is not a folder`]);
      assert.equal(
        provider().treeView?.message,
        `Sessions folder not found: ${missing} does not exist; ${notAFolder} is not a folder. Fix the sessionLoom.sessionRoots setting, or use "Add Sessions Folder…" in the … menu.`,
      );
    } finally {
      await config.update('sessionRoots', before, vscode.ConfigurationTarget.Global);
      fs.rmSync(notAFolder, { force: true });
      provider().refresh();
      await provider().getChildren();
    }
    assert.deepEqual(provider().rootProblems, []);
    assert.equal(provider().treeView?.message, undefined);
  });

  it('refuses to write a live-looking file unless the user chooses "Write anyway"', async () => {
    const file = await place('live.jsonl', forkedSession('f0000000000000d4'), new Date());
    const hash = sha(file);
    calls.confirm.length = 0;
    answer({ input: 'x', confirm: undefined });
    await vscode.commands.executeCommand('sessionLoom.relabelEntry', vscode.Uri.file(file), 'bbbb0002');
    assert.equal(calls.confirm.length, 1, 'asked once');
    assert.match(calls.confirm[0]!.message, /live\.jsonl looks live/);
    // The detail says why in words and names the file in full, without the CLI's "or force".
    assert.match(calls.confirm[0]!.detail, /^It was modified \d+\.\d s ago and may be open in a running agent\.\n\n/);
    assert.ok(calls.confirm[0]!.detail.endsWith(file), calls.confirm[0]!.detail);
    assert.doesNotMatch(calls.confirm[0]!.detail, /or force|refusing to write/);
    assert.equal(sha(file), hash, 'cancelled: unchanged');

    answer({ input: 'Parser', confirm: undefined });
    fs.utimesSync(file, new Date(), new Date());
    await vscode.commands.executeCommand('sessionLoom.setSessionTitle', vscode.Uri.file(file));
    assert.equal(sha(file), hash, 'title refused while live: unchanged');

    fs.utimesSync(file, new Date(), new Date());
    answer({ input: 'x', confirm: 'Write anyway' });
    await vscode.commands.executeCommand('sessionLoom.relabelEntry', vscode.Uri.file(file), 'bbbb0002');
    const last = JSON.parse(fs.readFileSync(file, 'utf8').trim().split('\n').at(-1)!);
    assert.equal(last.type, 'label');
    assert.equal(last.label, 'x');
  });

  it('never modifies a damaged file (real-v3 gjc-01), whatever the answers', async () => {
    const file = await place('gjc-01-copy.jsonl', fs.readFileSync(path.join(fixtures, 'real-v3', 'gjc-01-youtube-transcript-extraction.jsonl')));
    const hash = sha(file);
    const firstId = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!).id as string;
    calls.errors.length = 0;
    answer({ input: 'anything', confirm: 'Write anyway' });
    await vscode.commands.executeCommand('sessionLoom.relabelEntry', vscode.Uri.file(file), firstId);
    await vscode.commands.executeCommand('sessionLoom.setSessionTitle', vscode.Uri.file(file));
    answer({ input: 'anything', confirm: 'Migrate' });
    await vscode.commands.executeCommand('sessionLoom.migrate', vscode.Uri.file(file));
    assert.equal(sha(file), hash, 'byte-identical');
    assert.ok(calls.errors.filter((e) => /read-only|damaged/.test(e)).length >= 2, `refusals reported: ${calls.errors.join(' | ')}`);
    assert.ok(!fs.readdirSync(projectDir).some((f) => f.startsWith('gjc-01-copy.jsonl.bak')), 'no backup either');
  });

  it('repairs a damaged file into a new file next to it and leaves the original untouched', async () => {
    const file = await place('gjc-01-repair.jsonl', fs.readFileSync(path.join(fixtures, 'real-v3', 'gjc-01-youtube-transcript-extraction.jsonl')));
    const hash = sha(file);
    const damaged = await loadSessionFile(file);
    answer({ confirm: 'Repair' });
    const target = await vscode.commands.executeCommand<string>('sessionLoom.repairSession', vscode.Uri.file(file));
    assert.equal(target, path.join(projectDir, 'gjc-01-repair.repaired.jsonl'));
    assert.equal(sha(file), hash, 'original unchanged');
    const repaired = await loadSessionFile(target);
    assert.equal(repaired.readOnlyReason, null);
    assert.equal(repaired.header?.version, 3);
    assert.equal(repaired.header?.cwd, '/work/loom/it');
    assert.equal(repaired.entries.length, damaged.entries.length);
    assert.deepEqual(repaired.diagnostics.filter((d) => d.kind !== 'missing-parent' && d.kind !== 'blank'), []);
    const repairedNode = await sessionNode(target);
    const ctx = provider().getTreeItem(repairedNode).contextValue ?? '';
    assert.match(ctx, /\bcurrent\b/);
    assert.doesNotMatch(ctx, /\blive\b/, 'our own fresh file is not shown as live');
    assert.match(calls.infos.at(-1) ?? '', /wrote gjc-01-repair\.repaired\.jsonl \(\d+ entries\) next to the original, which is unchanged/);
    if (provider().treeView?.visible) assert.ok(provider().treeView!.selection.includes(repairedNode), 'the new file is selected in the view');

    // Glued records are split in the copy.
    const glued = await place('glued.jsonl', fs.readFileSync(path.join(fixtures, 'upstream', 'pi-session.v1.glued-records.jsonl')));
    const gluedHash = sha(glued);
    const gluedEntries = (await loadSessionFile(glued)).entries.length;
    const target2 = await vscode.commands.executeCommand<string>('sessionLoom.repairSession', vscode.Uri.file(glued));
    assert.equal(sha(glued), gluedHash);
    const fixed = await loadSessionFile(target2);
    assert.equal(fixed.entries.length, gluedEntries);
    assert.equal(gluedEntries, 17, 'the glued pair is split: 17 entries');
    assert.equal(fixed.diagnostics.filter((d) => d.kind === 'glued-records').length, 0);
  });

  it('updates a session on an external append without losing it', async () => {
    const file = await place('growing.jsonl', forkedSession('f0000000000000e5'));
    const session = await sessionNode(file);
    await provider().getChildren(session);
    const line = JSON.stringify({ type: 'message', id: 'jjjj0011', parentId: 'gggg0007', timestamp: '2026-01-05T10:10:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'One more thing' }] } });
    fs.appendFileSync(file, line + '\n');
    // The watcher is debounced; wait for it (or nudge it, as the command path does).
    const deadline = Date.now() + 8000;
    let found = false;
    while (!found && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 400));
      found = (await provider().nodeForEntry(file, 'jjjj0011'))?.entryId === 'jjjj0011';
    }
    if (!found) await provider().fileChanged(file);
    const node = await provider().nodeForEntry(file, 'jjjj0011');
    assert.equal(node?.entryId, 'jjjj0011');
    assert.match(String(provider().getTreeItem(node!).description), /leaf/);
    assert.equal(node!.session, session, 'the same session node (expanded rows stay expanded)');
  });

  it('copies entry ids and paths, and reveals an entry', async () => {
    const file = path.join(projectDir, '2026-01-05T10-00-00-000Z_f0000000000000a1.jsonl');
    assert.equal(await vscode.commands.executeCommand('sessionLoom.copyEntryId', vscode.Uri.file(file), 'eeee0005'), 'eeee0005');
    assert.equal(await vscode.env.clipboard.readText(), 'eeee0005');
    const session = await sessionNode(file);
    assert.equal(await vscode.commands.executeCommand('sessionLoom.copyPath', session), file);
    const revealed = await vscode.commands.executeCommand<LoomNode>('sessionLoom.revealEntry', vscode.Uri.file(file), 'gggg0007');
    assert.equal(revealed?.id, `${file}#gggg0007`);
    // Hidden by the filter: the nearest visible ancestor is selected.
    const hidden = await vscode.commands.executeCommand<LoomNode>('sessionLoom.revealEntry', vscode.Uri.file(file), 'llll0010');
    assert.equal(hidden?.id, `${file}#ffff0006`);
  });

  it('reveals an entry the search hides: the search is cleared, the filter shows everything, and the entry is selected', async () => {
    const file = path.join(projectDir, '2026-01-05T10-00-00-000Z_f0000000000000a1.jsonl');
    await provider().setSearch('zzz-nothing-matches-this');
    const revealed = await vscode.commands.executeCommand<LoomNode>('sessionLoom.revealEntry', vscode.Uri.file(file), 'gggg0007');
    assert.equal(revealed?.id, `${file}#gggg0007`);
    assert.equal(provider().query, '', 'the search was cleared');
    assert.equal(provider().filter, 'all');
    assert.deepEqual(
      api.sessions.treeView?.selection.map((n) => n.id),
      [`${file}#gggg0007`],
      'the entry row is selected',
    );
  });

  it('searches every session in the view, and clearing the search keeps what the user expanded', async function () {
    const dir = path.join(sessionsRoot(), '--work-loom-search--');
    fs.mkdirSync(dir, { recursive: true });
    const a = path.join(dir, '2026-01-06T09-00-00-000Z_5ea0c000000000a1.jsonl');
    const b = path.join(dir, '2026-01-06T08-00-00-000Z_5ea0c000000000b2.jsonl');
    fs.writeFileSync(a, linearSession('5ea0c000000000a1', ['Plan the quarterly cobalt migration', 'Here is a plan in three steps.', 'Start with step one', 'Step one is done.']));
    fs.writeFileSync(b, linearSession('5ea0c000000000b2', ['Tidy the changelog', 'The changelog mentions zanzibarite twice.', 'Remove the second one', 'Removed it.']));
    for (const f of [a, b]) {
      fs.utimesSync(f, hourAgo(), hourAgo());
      await provider().fileChanged(f);
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll').then(undefined, () => undefined);
    // Let the watcher's own events for the new files pass: a refresh during `reveal` cuts it short.
    await new Promise((r) => setTimeout(r, 1500));
    const tv = api.sessions.treeView;
    const Expanded = vscode.TreeItemCollapsibleState.Expanded;
    const entryIds = async (n: LoomNode): Promise<string[]> => {
      const out: string[] = [];
      for (const c of await provider().getChildren(n)) {
        if (c.kind === 'entry') out.push(c.entryId);
        out.push(...(await entryIds(c)));
      }
      return out;
    };

    // The user opens session A and its run; B is never opened (nor read).
    const sa = await sessionNode(a);
    const runA = (await provider().getChildren(sa)).find((n) => n.kind === 'run');
    assert.ok(runA, 'session A shows its run');
    const runLabel = label(runA);
    assert.equal(runLabel, 'Plan the quarterly cobalt migration');
    // The session row shows the same prompt: the run row is the one that counts entries.
    const runRow = `:has-text("${runLabel}"):has-text("4 entries")`;
    const expandedRun = `.monaco-list-row[aria-expanded="true"]${runRow}`;
    if (harnessAvailable()) {
      // As a user does: click the project, the session's twistie (a click on the session itself
      // opens it in the editor), the run.
      await click('.monaco-list-row[aria-expanded="false"]:has-text("loom-search")');
      await click('.monaco-list-row[aria-expanded="false"]:has-text("Plan the quarterly cobalt migration") .monaco-tl-twistie');
      await click(`.monaco-list-row[aria-expanded="false"]${runRow}`);
      await frameText(expandedRun, { timeoutMs: 10_000 });
      // The row shows expanded before the extension host hears of it; the search must start after.
      for (const deadline = Date.now() + 10_000; provider().getTreeItem(runA).collapsibleState !== Expanded; ) {
        assert.ok(Date.now() < deadline, 'the extension host never heard that the run was expanded');
        await new Promise((r) => setTimeout(r, 50));
      }
    } else {
      await revealRow(tv, runA, { expand: true, select: false, focus: false });
    }
    assert.equal(provider().models.peek(b), undefined, 'B was not read before the search');

    // A word only B's entries hold: B and its entry show, expanded; everything else is hidden.
    await vscode.commands.executeCommand('sessionLoom.search', 'ZANZIBARITE');
    const projects = await provider().getChildren();
    assert.deepEqual(projects.map((p) => (p.kind === 'project' ? p.info.name : p.kind)), ['--work-loom-search--']);
    const shown = await provider().getChildren(projects[0]);
    assert.deepEqual(shown.map((s) => (s.kind === 'session' ? s.file : s.kind)), [b]);
    const sb = shown[0] as SessionNode;
    const sbItem = provider().getTreeItem(sb);
    assert.match(String(sbItem.description), /^1 match · /);
    assert.equal(sbItem.collapsibleState, Expanded, 'a session with matches opens on its matches');
    assert.equal(provider().getTreeItem(projects[0]!).collapsibleState, Expanded);
    assert.match(String(provider().getTreeItem(projects[0]!).description), /^1 of 2 sessions · \/work$/);
    assert.deepEqual(await entryIds(sb), ['00b20001'], 'the matching entry, and only it');
    assert.match(tv.description ?? '', /“ZANZIBARITE” · 1 matching session$/);
    assert.equal(tv.message, tv.description, 'the status shows even where VS Code hides the description');
    if (harnessAvailable()) {
      await frameText('.monaco-list-row:has-text("The changelog mentions zanzibarite twice.")', { timeoutMs: 10_000 });
      // Wide enough for the view's description (what is searched, how many sessions match).
      const side = await box('.part.sidebar');
      const edge = { x: Math.round(side.x + side.width), y: Math.round(side.y + side.height / 2) };
      await drag(edge, { x: edge.x + 260, y: edge.y });
      try {
        await moveMouse(900, 700);
        await new Promise((r) => setTimeout(r, 500));
        const shot = await screenshot('sessions-search-result');
        assert.ok(fs.statSync(shot).size > 10_000);
      } finally {
        const now = await box('.part.sidebar');
        const x = Math.round(now.x + now.width);
        await drag({ x, y: edge.y }, { x: x - (now.width - side.width), y: edge.y });
      }
    }

    // The session title and first prompt match too.
    await vscode.commands.executeCommand('sessionLoom.search', 'quarterly cobalt');
    const byTitle = await provider().getChildren((await provider().getChildren())[0]);
    assert.deepEqual(byTitle.map((s) => (s.kind === 'session' ? s.file : s.kind)), [a]);
    assert.match(String(provider().getTreeItem(byTitle[0]!).description), /^(1 match|title matches) · /);

    // Stopped at once: nothing found, and the view says so.
    const stopped = provider().setSearch('zanzibarite');
    provider().search.stop();
    await stopped;
    assert.match(tv.description ?? '', /stopped after 0 of \d+ sessions: 0 found/);
    const none = await provider().getChildren();
    assert.equal(none.length, 1);
    assert.match(label(none[0]!), /^Search stopped after 0 of \d+ sessions/);

    // Cleared: everything is back, and the run the user had expanded is still expanded.
    await vscode.commands.executeCommand('sessionLoom.clearSearch');
    assert.equal(tv.description, undefined);
    assert.equal(tv.message, undefined);
    assert.ok((await provider().getChildren()).length > 1, 'every project is back');
    assert.ok((await provider().getChildren((await sessionNode(a)).parent)).length === 2, 'both sessions are back');
    assert.equal(provider().getTreeItem(runA).collapsibleState, Expanded, 'the expanded run comes back expanded');
    assert.equal(provider().getTreeItem(sa).collapsibleState, Expanded);
    if (harnessAvailable()) await frameText(expandedRun, { timeoutMs: 10_000 });

    // Collapse All is remembered too: a search and its clearing do not reopen what it closed.
    if (harnessAvailable()) {
      await click('.pane-header[aria-label*="Sessions"] .action-label.codicon-collapse-all, .part.sidebar .title-actions .codicon-collapse-all');
      await frameText('.monaco-list-row[aria-expanded="false"]:has-text("loom-search")', { timeoutMs: 10_000 });
      await vscode.commands.executeCommand('sessionLoom.search', 'ZANZIBARITE');
      await vscode.commands.executeCommand('sessionLoom.clearSearch');
      const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
      assert.equal(provider().getTreeItem(sa).collapsibleState, Collapsed, 'the session Collapse All closed stays closed');
      assert.equal(provider().getTreeItem(runA).collapsibleState, Collapsed, 'the run Collapse All closed stays closed');
      await frameText('.monaco-list-row[aria-expanded="false"]:has-text("loom-search")', { timeoutMs: 10_000 });
    }
  });

  it('takes screenshots of an expanded branch tree in dark and light themes', async function () {
    if (!harnessAvailable()) this.skip();
    // Its own project, so the write tests' fresh ("live") files do not crowd the picture.
    const demoDir = path.join(sessionsRoot(), '--work-loom-demo--');
    fs.mkdirSync(demoDir, { recursive: true });
    const file = path.join(demoDir, '2026-01-05T10-00-00-000Z_f0000000000000f6.jsonl');
    fs.writeFileSync(file, forkedSession('f0000000000000f6'));
    fs.utimesSync(file, hourAgo(), hourAgo());
    await provider().fileChanged(file);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll').then(undefined, () => undefined);
    const tv = api.sessions.treeView;
    const leaf = await provider().nodeForEntry(file, 'gggg0007');
    await revealRow(tv, leaf!, { select: true, focus: true, expand: true });
    const other = await provider().nodeForEntry(file, 'iiii0009');
    assert.ok(leaf && other, `entries found (filter ${provider().filter}, search "${provider().query}")`);
    await revealRow(tv, other.parent as LoomNode, { expand: true, select: false });
    await revealRow(tv, leaf!, { select: true, focus: true });
    await new Promise((r) => setTimeout(r, 800));
    const config = vscode.workspace.getConfiguration('workbench');
    try {
      await config.update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Global);
      await new Promise((r) => setTimeout(r, 1000));
      const dark = await screenshot('sessions-branch-tree-dark');
      assert.ok(fs.statSync(dark).size > 10_000);
      await config.update('colorTheme', 'Default Light Modern', vscode.ConfigurationTarget.Global);
      await new Promise((r) => setTimeout(r, 1000));
      const light = await screenshot('sessions-branch-tree-light');
      assert.ok(fs.statSync(light).size > 10_000);
    } finally {
      await config.update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('left the damaged file in the fake home byte-identical', function () {
    if (!damagedInHome) this.skip();
    assert.equal(sha(damagedInHome), damagedHash);
  });
});
