// Issue 14, point 8: the polish a first hour runs into, each read from the real workbench — how
// rows are named (the words that tell them apart first; a session opening with "/mode" or holding
// no prompt named by what does tell it apart), one date format in tooltips and the editor, "1
// message" not "1 messages", the preview naming its leaf as the tree shows it, no gap before the
// version chip, the current filter checked in the filter menu, and a context menu on run rows.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import type { LoomNode, SessionNode } from '../../../src/extension/sessions/nodes';
import { box, chooseMenuItem, click, frameEval, frameText, harnessAvailable, keys, moveMouse, screenshot } from './harness';
import { activate, closeAllEditors, DEMO_SAMPLE, editorApp, placed, revealRow, sleep, until, VIEW_TYPE } from './util';

const sessionsRoot = () => path.join(os.homedir(), '.xcsh', 'agent', 'sessions');

describe('first-hour polish (issue 14.8)', function () {
  this.timeout(120_000);
  let api: SessionLoomApi;
  const provider = () => api.sessions.provider;
  const label = (n: LoomNode) => {
    const l = provider().getTreeItem(n).label;
    return typeof l === 'string' ? l : (l?.label ?? '');
  };

  before(async () => {
    api = await activate();
    await provider().setFilter('default');
    await provider().setSearch('');
  });
  afterEach(async () => {
    if (harnessAvailable()) await keys('Escape');
    await closeAllEditors();
  });

  it('names sessions that open with a slash command by their first real prompt, and prompt-less ones by their start', async () => {
    const pi = (await provider().getChildren()).find((p) => p.kind === 'project' && p.info.name === '--Users-badlogic-workspaces-pi-mono--');
    assert.ok(pi);
    const labels = ((await provider().getChildren(pi)) as SessionNode[]).map((s) => ({ file: path.basename(s.file), label: label(s) }));
    const of = (name: string) => labels.find((l) => l.file.includes(name))?.label ?? '';
    // pi-large-session opens with "/mode"; its excerpt too.
    assert.match(of('pi-large-session.v1.head25'), /^read packages\/coding-agent\/docs\/theme\.md in full/);
    for (const l of labels) {
      assert.notEqual(l.label, '/mode', `${l.file} is named by a slash command`);
      assert.doesNotMatch(l.label, /^[0-9a-f]{8}-[0-9a-f]{4}-/, `${l.file} is named by its id`);
    }
    // The compaction excerpts hold no user prompt at all: the time they started tells them apart.
    assert.match(of('pi-compact.v1.glued-compaction'), /^Session of Dec 24, 2025/);
  });

  it('puts the words that tell rows apart first: a project by its folder name, a run by its prompt', async () => {
    const tmp = (await provider().getChildren()).find((p) => p.kind === 'project' && p.info.name === '--home-user-tmp--')!;
    assert.equal(label(tmp), 'tmp');
    assert.match(String(provider().getTreeItem(tmp).description), /^\d+ sessions · \/home\/user$/);
    const demo = await provider().findSession(placed(DEMO_SAMPLE));
    const run = (await provider().getChildren(demo!)).find((n) => n.kind === 'run')!;
    assert.match(label(run), /^Add a `--json` flag to the `report` command/);
    assert.equal(provider().getTreeItem(run).description, '7 entries · current branch');
  });

  it('says "1 message", "1 msg", "path of 1 entry" for one', async () => {
    const dir = path.join(sessionsRoot(), '--work-loom-one--');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, '2026-03-03T08-00-00-000Z_0e0e000000000001.jsonl');
    const lines = [
      { type: 'session', version: 3, id: '0e0e000000000001', timestamp: '2026-03-03T08:00:00.000Z', cwd: '/work/loom-one' },
      { type: 'message', id: '0e0e0001', parentId: null, timestamp: '2026-03-03T08:00:01.000Z', message: { role: 'user', content: 'Only one message here' } },
    ];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await provider().fileChanged(file);
    const session = (await provider().findSession(file))!;
    await provider().getChildren(session);
    assert.match(String(provider().getTreeItem(session).description), /· 1 msg ·/);
    if (harnessAvailable()) {
      await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), VIEW_TYPE);
      const title = (await frameText(`${editorApp(file)} .sl-runtime-title`, { timeoutMs: 30_000 })).replace(/\s+/g, ' ');
      assert.match(title, /· 1 message ·/);
      assert.match(title, /path of 1 entry\b/);
      assert.doesNotMatch(title, /1 messages|1 entries/);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('formats the created date of the session tooltip exactly as the editor header does', async function () {
    if (!harnessAvailable()) this.skip();
    const file = placed(DEMO_SAMPLE);
    const session = (await provider().findSession(file))!;
    const resolved = await provider().resolveTreeItem(provider().getTreeItem(session), session);
    const tooltip = (resolved.tooltip as vscode.MarkdownString).value;
    const created = /created: ([^\n]+?)\s*(?:\n|$)/.exec(tooltip)?.[1];
    assert.ok(created, tooltip);
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), VIEW_TYPE);
    const header = await frameText(`${editorApp(file)} .sl-header-meta`, { timeoutMs: 30_000 });
    assert.ok(header.includes(`created ${created}`) || header.includes(`created\t${created}`) || header.replace(/\s+/g, ' ').includes(`created ${created}`), `tooltip "${created}" vs header ${JSON.stringify(header)}`);
  });

  it('names the leaf as the tree shows it, and says when the filter hides it', async function () {
    if (!harnessAvailable()) this.skip();
    const file = placed(DEMO_SAMPLE);
    // The default leaf is a `label` entry, which the default filter hides: its parent's row is selected.
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), VIEW_TYPE);
    const flat = (t: string) => t.replace(/\s+/g, ' ').trim();
    const title = flat(await frameText(`${editorApp(file)} .sl-runtime-title:has-text("Plan")`, { timeoutMs: 30_000 }));
    assert.doesNotMatch(title, /a1000013/, 'no id the tree does not show');
    assert.match(title, /^Context at\s+Plan: 1\. Add a \*\*Flags\*\* section/);
    assert.match(title, /and a label entry after it that the filter hides/);
    const selected = await frameText(`${editorApp(file)} .sl-tree-row.is-selected`);
    assert.match(selected, /^Plan: 1\. Add a \*\*Flags\*\*/);
    // A leaf the tree shows is named by its own row. (A hover left by an earlier test — a tab's or a
    // row's tooltip — would take the click: the pointer rests elsewhere first, until it is gone.)
    await moveMouse(2, 2);
    await sleep(700);
    await click(`${editorApp(file)} .sl-tree-row[data-entry-id="b2000004"]`);
    const other = flat(await frameText(`${editorApp(file)} .sl-runtime-title:has-text("git status")`, { timeoutMs: 15_000 }));
    assert.match(other, /^Context at\s+\$ git status --short ·/);
    await screenshot('polish-context-at');
  });

  it('shows no gap between a short title and the version chip', async function () {
    if (!harnessAvailable()) this.skip();
    // Its first prompt is "ls".
    const file = placed('pi-before-compaction.v1.bash-execution-tail.jsonl');
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), VIEW_TYPE);
    await frameText(`${editorApp(file)} .sl-title`, { timeoutMs: 30_000 });
    const gap = await frameEval<{ text: string; gap: number }>(
      `${editorApp(file)} .sl-title`,
      "const r = document.createRange(); r.selectNodeContents(el); const end = r.getBoundingClientRect().right; const chip = el.nextElementSibling.getBoundingClientRect().left; return { text: el.textContent, gap: chip - end };",
    );
    assert.equal(gap.text, 'ls');
    assert.ok(gap.gap <= 10, `${gap.gap.toFixed(0)}px between "${gap.text}" and the version chip`);
  });

  it('checks the current filter in the filter menu', async function () {
    if (!harnessAvailable()) this.skip();
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    for (const [mode, title] of [
      ['default', 'Default'],
      ['user-only', 'User Messages Only'],
    ] as const) {
      await provider().setFilter(mode);
      await sleep(300);
      // The Sessions view shares its container with Prompt History: its actions sit in its own
      // pane header (shown while the pointer is over it), not in the container's title bar.
      const header = await box('.pane-header[aria-label*="Sessions"]');
      await moveMouse(header.x + header.width / 2, header.y + header.height / 2);
      await click('.pane-header[aria-label*="Sessions"] .action-label[aria-label="Filter Branch Trees"], .part.sidebar .title-actions .action-label[aria-label="Filter Branch Trees"]');
      const items = await frameEval<string[]>('.context-view .monaco-menu', "return [...el.querySelectorAll('.action-menu-item .action-label')].map((a) => a.textContent.trim());");
      await screenshot(`polish-filter-menu-${mode}`);
      assert.deepEqual(items.filter((t) => t.startsWith('✓')), [`✓ ${title}`], items.join(' | '));
      assert.equal(items.length, 5, items.join(' | '));
      await keys('Escape');
    }
    await provider().setFilter('default');
  });

  it('gives run rows a context menu: Preview Context at End of Run, Copy Ids', async function () {
    if (!harnessAvailable()) this.skip();
    const file = placed(DEMO_SAMPLE);
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll');
    const session = (await provider().findSession(file))!;
    const run = (await provider().getChildren(session)).find((n) => n.kind === 'run');
    assert.ok(run && run.kind === 'run');
    const row = `.part.sidebar .monaco-list-row:has-text("${label(run)}"):has-text("7 entries")`;
    // VS Code drops a reveal whose row is redrawn meanwhile (the session's message count arriving): try again.
    for (let attempt = 0; ; attempt++) {
      await revealRow(api.sessions.treeView, run, { select: false, focus: false, expand: false });
      try {
        await frameText(row, { timeoutMs: 1500 });
        break;
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
    await click(row, { button: 'right' });
    const menu = await frameText('.context-view .monaco-menu', { timeoutMs: 10_000 });
    assert.match(menu, /Preview Context at End of Run/);
    assert.match(menu, /Copy Ids/);
    await screenshot('polish-run-menu');
    await chooseMenuItem('Copy Ids');
    await until(async () => (await vscode.env.clipboard.readText()) === (await provider().runEntryIds(run)).join('\n'), 'the run ids on the clipboard');
    await click(row, { button: 'right' });
    await chooseMenuItem('Preview Context at End of Run');
    await frameText(`${editorApp(file)} .sl-messages[data-leaf-id="${run.facts.lastId}"]`, { timeoutMs: 30_000 });
  });
});
