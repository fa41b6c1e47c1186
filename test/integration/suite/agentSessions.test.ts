// Claude Code and Codex sessions in the Sessions view of the real VS Code (issue 24): the agents'
// default folders of the fake home (test/helpers/agentHome.mjs, placed by workspace.mjs) are
// listed as projects by the records' cwd, subagents, the compaction helper and a Codex fork nest
// under their session, every row says which agent wrote it and that it is read-only, a row opens
// the session editor, and a session expands into its branch rows (a Codex rollout: its turns),
// whose entry rows open the editor at their entry.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { execFileSync } from 'node:child_process';
import { peekClaudeTail } from '../../../src/core/engine/claude/claudePeek';
import type { SessionLoomApi } from '../../../src/extension/extension';
import type { EntryNode, LoomNode, ProjectNode, RunNode, SessionNode } from '../../../src/extension/sessions/nodes';
import { frameEval, frameText, harnessAvailable, screenshot } from './harness';
import { activate, clickRow, closeAllEditors, describeTabs, editorApp, relistSessions, revealRow, sessionEditorTab, showRow, until, useTheme } from './util';

interface Agents {
  claude: Record<'root' | 'spotter' | 'spotterAgent' | 'spotterCompact' | 'short' | 'two', string>;
  codex: Record<'parent' | 'fork' | 'zst' | 'archivedRollout', string>;
}

function agents(): Agents {
  return (JSON.parse(fs.readFileSync(path.join(os.homedir(), 'session-loom-test-manifest.json'), 'utf8')) as { agents: Agents }).agents;
}

describe('Claude Code and Codex sessions in the Sessions view (issue 24)', function () {
  this.timeout(180_000);
  let api: SessionLoomApi;
  const provider = () => api.sessions.provider;
  const project = async (label: string): Promise<ProjectNode> => {
    const projects = (await provider().getChildren()) as LoomNode[];
    const p = projects.find((x): x is ProjectNode => x.kind === 'project' && x.info.label === label);
    assert.ok(p, `a project ${label} among ${projects.map((x) => (x.kind === 'project' ? x.info.label : x.kind)).join(', ')}`);
    return p;
  };
  const tooltip = async (node: SessionNode): Promise<string> => {
    const item = await provider().resolveTreeItem(provider().getTreeItem(node), node);
    return item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : String(item.tooltip);
  };

  before(async () => {
    api = await activate();
    await provider().setFilter('default');
    await provider().setSearch('');
    await relistSessions(api);
  });
  after(async () => {
    await vscode.workspace.getConfiguration('sessionLoom').update('builtInRoots', undefined, vscode.ConfigurationTarget.Global);
    await closeAllEditors();
  });

  it('lists the Claude Code projects by cwd, each session with its subagent and compaction helper nested, read-only', async () => {
    const a = agents();
    const gqc = await project('/home/USER/projects/spotter-worktrees/spotter-gqc');
    const [session, ...others] = (await provider().getChildren(gqc)) as SessionNode[];
    assert.equal(others.length, 0);
    assert.equal(session!.file, a.claude.spotter);
    const item = provider().getTreeItem(session!);
    assert.equal(typeof item.label === 'string' ? item.label : item.label?.label, 'Implement spotter-gqc');
    assert.match(String(item.description), /Claude Code, read-only/);
    assert.match(String(item.contextValue), /\bclaude\b.*\breadOnly\b/);
    assert.doesNotMatch(String(item.contextValue), /\bwritable\b|\brepairable\b/);
    const tip = await tooltip(session!);
    assert.match(tip, /written by Claude Code 2\.1\.39: a Claude Code transcript, read-only \(Session Loom never writes it\)/);
    assert.match(tip, /cwd: `\/home\/USER\/projects\/spotter-worktrees\/spotter-gqc`/);
    const all = await provider().getChildren(session!);
    // Its subagents first, then its branch rows (runs and forks), as for an xcsh session.
    const kinds = all.map((n) => n.kind);
    assert.deepEqual(kinds.slice(0, 2), ['session', 'session'], `the row's children: ${kinds.join(', ')}`);
    assert.ok(kinds.length > 2 && kinds.slice(2).every((k) => k === 'run' || k === 'entry'), `branch rows after the subagents: ${kinds.join(', ')}`);
    const kids = all.filter((n): n is SessionNode => n.kind === 'session');
    assert.deepEqual(kids.map((k) => k.file).sort(), [a.claude.spotterAgent, a.claude.spotterCompact].sort());
    const agentItem = provider().getTreeItem(kids.find((k) => k.file === a.claude.spotterAgent)!);
    assert.equal((agentItem.iconPath as vscode.ThemeIcon).id, 'hubot');
    assert.match(await tooltip(kids.find((k) => k.file === a.claude.spotterCompact)!), /compaction helper/);
    // the row's message count is its model's (not 0 from counting xcsh entries)
    const short = ((await provider().getChildren(await project('/home/marco/projects/spotter'))) as SessionNode[]).find((s) => s.file === a.claude.short)!;
    await until(() => /\d+ msgs?\b/.test(String(provider().getTreeItem(short).description)), 'a message count on short.jsonl', 30_000);
    assert.match(String(provider().getTreeItem(short).description), /\b5 msgs\b/);
    assert.equal(provider().getTreeItem(short).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed, 'a session without subagents expands into its branch rows');
    // a summary written into another session's file titles this one
    const two = ((await provider().getChildren(await project('/Users/jnarowski/Dev/sourceborn/src/agent-workflows-monorepo-v2'))) as SessionNode[]).find((s) => s.file === a.claude.two)!;
    const twoLabel = provider().getTreeItem(two).label;
    assert.equal(typeof twoLabel === 'string' ? twoLabel : twoLabel?.label, 'Screenshot review of the agent workflows UI');
  });

  it('lists the Codex rollouts of the day folders as a project by cwd, the fork under its parent, the .jsonl.zst one named from session_index.jsonl, the archived one too', async () => {
    const a = agents();
    const p = await project('/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2');
    const sessions = (await provider().getChildren(p)) as SessionNode[];
    assert.deepEqual(sessions.map((s) => s.file), [a.codex.zst, a.codex.parent]);
    const zstLabel = provider().getTreeItem(sessions[0]!).label;
    assert.equal(typeof zstLabel === 'string' ? zstLabel : zstLabel?.label, 'Agent CLI SDK autonomous run');
    const parent = sessions[1]!;
    const forks = (await provider().getChildren(parent)).filter((n): n is SessionNode => n.kind === 'session');
    assert.deepEqual(forks.map((f) => f.file), [a.codex.fork]);
    const forkItem = provider().getTreeItem(forks[0]!);
    assert.equal((forkItem.iconPath as vscode.ThemeIcon).id, 'repo-forked');
    assert.match(String(forkItem.description), /Codex, read-only/);
    const tip = await tooltip(forks[0]!);
    assert.match(tip, /written by Codex 0\.40\.0: an OpenAI Codex CLI rollout, read-only/);
    assert.match(tip, /forked from thread `01997ea4-a70d-7da3-8c20-c736db82a7c5`/);
    await project('/tmp/agent-history-real-agent/codex/workspace');
  });

  it('opens a Claude Code row and a Codex row in the session editor; shows the nested rows (screenshot)', async function () {
    const a = agents();
    const gqc = await project('/home/USER/projects/spotter-worktrees/spotter-gqc');
    const [session] = (await provider().getChildren(gqc)) as SessionNode[];
    const codexProject = await project('/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2');
    const codexParent = ((await provider().getChildren(codexProject)) as SessionNode[])[1]!;
    if (harnessAvailable()) {
      const view = provider().treeView!;
      await revealRow(view, gqc, { expand: 1 });
      await revealRow(view, session!, { expand: 1, select: false });
      await revealRow(view, codexProject, { expand: 1 });
      await revealRow(view, codexParent, { expand: 1, select: false });
      await new Promise((r) => setTimeout(r, 1500));
      await screenshot('sessions-claude-codex-rows');
    }
    for (const file of [a.claude.short, a.codex.parent]) {
      const node = await provider().findSession(file);
      assert.ok(node, `a row for ${file}`);
      await vscode.commands.executeCommand('sessionLoom.openRow', node);
      await until(() => sessionEditorTab(file) !== undefined, `the session editor on ${path.basename(file)}`, 30_000);
    }
    assert.equal(fs.readFileSync(a.claude.short).length, fs.statSync(a.claude.short).size);
  });

  it('expands a Claude Code and a Codex session into their branch rows; a click on an entry row opens the editor at that entry (screenshots dark and light)', async function () {
    const a = agents();
    await closeAllEditors();
    const title = (n: LoomNode): string => {
      const l = provider().getTreeItem(n).label;
      return typeof l === 'string' ? l : (l?.label ?? '');
    };
    // short.jsonl: one line from the prompt to the default leaf, a run of its 7 shown records.
    const short = (await provider().findSession(a.claude.short))!;
    const claudeRows = await provider().getChildren(short);
    assert.deepEqual(claudeRows.map((n) => n.kind), ['run'], `short.jsonl's rows: ${claudeRows.map((n) => n.kind).join(', ')}`);
    const claudeRun = claudeRows[0] as RunNode;
    assert.equal(title(claudeRun), 'mix phx.server doesnt seem to start');
    assert.match(String(provider().getTreeItem(claudeRun).description), /7 entries · current branch/);
    const claudeEntries = (await provider().getChildren(claudeRun)) as EntryNode[];
    assert.equal(claudeEntries.length, 7);
    assert.match(title(claudeEntries[1]!), /^Let me check the project structure/);
    assert.equal((provider().getTreeItem(claudeEntries[2]!).iconPath as vscode.ThemeIcon).id, 'tools', 'an assistant line calling a tool');
    // The Codex rollout: its fork, the records before the first turn, then a run per turn.
    const parent = (await provider().findSession(a.codex.parent))!;
    const codexRows = await provider().getChildren(parent);
    assert.deepEqual(codexRows.map((n) => n.kind), ['session', 'entry', 'entry', 'run', 'run'], `the Codex rows: ${codexRows.map((n) => n.kind).join(', ')}`);
    const turns = codexRows.filter((n): n is RunNode => n.kind === 'run');
    assert.match(title(turns[0]!), /^Turn 1: When I load the dashboard, I see 4 queries/);
    assert.match(String(provider().getTreeItem(turns[1]!).description), /3 entries · current branch/);
    const turnOne = (await provider().getChildren(turns[0]!)) as EntryNode[];
    assert.equal(turnOne[1]!.entryId, 'L8');

    const cases = [
      { file: a.claude.short, entryId: claudeEntries[1]!.entryId, text: 'Let me check the project structure' },
      { file: a.codex.parent, entryId: 'L8', text: 'Analyzing dashboard query necessity' },
    ];
    if (!harnessAvailable()) {
      for (const c of cases) {
        await vscode.commands.executeCommand('sessionLoom.openRow', await provider().nodeForEntry(c.file, c.entryId));
        await until(() => sessionEditorTab(c.file) !== undefined, `the session editor on ${path.basename(c.file)}`, 30_000);
      }
      return;
    }
    const view = provider().treeView!;
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll');
    for (const c of cases) {
      const node = await provider().nodeForEntry(c.file, c.entryId);
      assert.ok(node, `entry ${c.entryId} of ${path.basename(c.file)} is in the Sessions view`);
      await showRow(view, node as LoomNode, `.part.sidebar .monaco-list-row:has-text("${c.text}")`, { select: false, focus: false, expand: true });
    }
    // A theme is applied some time after the setting changes: each screenshot waits for the workbench to wear it.
    const workbench = vscode.workspace.getConfiguration('workbench');
    const themeBefore = workbench.inspect<string>('colorTheme')?.globalValue;
    for (const [theme, dark] of [
      ['Default Dark Modern', true],
      ['Default Light Modern', false],
    ] as const) {
      await useTheme(theme);
      await screenshot(`sessions-agent-branch-rows-${dark ? 'dark' : 'light'}`);
    }
    await workbench.update('colorTheme', themeBefore, vscode.ConfigurationTarget.Global);
    for (const c of cases) {
      const before = fs.readFileSync(c.file);
      const node = await provider().nodeForEntry(c.file, c.entryId);
      const row = `.part.sidebar .monaco-list-row:has-text("${c.text}")`;
      await showRow(view, node as LoomNode, row, { select: false, focus: false, expand: true });
      await clickRow(row);
      await until(() => sessionEditorTab(c.file) !== undefined, () => `the session editor on ${path.basename(c.file)} (tabs: ${describeTabs()})`, 30_000);
      await frameText(`${editorApp(c.file)} .sl-messages[data-leaf-id="${c.entryId}"]`, { timeoutMs: 30_000 });
      await frameText(`${editorApp(c.file)} .sl-tree-row.is-selected[data-entry-id="${c.entryId}"]`, { timeoutMs: 15_000 });
      await screenshot(`sessions-agent-entry-click-${path.basename(c.file).slice(0, 12)}`);
      assert.ok(fs.readFileSync(c.file).equals(before), 'the file is never written');
    }
  });

  it('a big Claude Code transcript paints the latest messages of its conversation first, read from the end of the file, then its full view (the same first paint as an xcsh session)', async function () {
    this.timeout(300_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-claude-big-'));
    const file = path.join(dir, 'claude-big.jsonl');
    try {
      // ~160 MB: its full read takes longer than the page's load, so the peek has a moment to show.
      execFileSync(process.execPath, [path.join(__dirname, '..', 'generateClaude.js'), file, String(160 * 1048576)], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: 'ignore' });
      const peek = await peekClaudeTail(file);
      assert.ok(peek && peek.messages.length === 12, 'the transcript has a peek');
      await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'sessionLoom.sessionEditor');
      const app = editorApp(file, false);
      // The peek's rows, newest last, the default leaf's message last.
      // (and the header naming the agent, read-only, as the full view's does; read in one step: the full view replaces the peek)
      const { last, header } = await frameEval<{ last: string; header: string }>(
        `${app} .sl-peek .sl-peek-list .sl-msg[data-peek-index="-1"][data-entry-id="${peek.leafId}"]`,
        'return { last: el.innerText, header: el.closest(".sl-peek").querySelector(".sl-header").innerText };',
        null,
        { timeoutMs: 60_000 },
      );
      assert.ok(last.length > 0);
      assert.match(header, /Claude Code[\s\S]*read-only/);
      if (harnessAvailable()) await screenshot('claude-big-peek');
      // Replaced by the full view at the same leaf.
      await frameText(`${editorApp(file)} .sl-messages .sl-msg[data-index][data-entry-id="${peek.leafId}"]`, { timeoutMs: 240_000 });
      await until(async () => (await frameText(app)).length > 0 && !(await frameText(app)).includes('The latest messages on the current branch'), 'the peek gone once the full view painted', 30_000);
    } finally {
      await closeAllEditors();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("Copy Resume Command on a Claude Code row and a Codex row copies the agent's own command; their menus offer it", async () => {
    const a = agents();
    const cases = [
      { file: a.claude.short, expected: 'cd /home/marco/projects/spotter && claude --resume 55604662-cf2a-4331-851a-ec234028f8ca' },
      { file: a.codex.parent, expected: 'cd /Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2 && codex resume 01997ea4-a70d-7da3-8c20-c736db82a7c5' },
    ];
    for (const c of cases) {
      const node = await provider().findSession(c.file);
      assert.ok(node, `a row for ${c.file}`);
      // The row's menu item shows where its `when` clause (package.json) matches the row's flags.
      assert.match(String(provider().getTreeItem(node).contextValue), /\b(writable|resumable)\b/);
      const before = fs.readFileSync(c.file);
      await vscode.env.clipboard.writeText('');
      await vscode.commands.executeCommand('sessionLoom.copyResumeCommand', node);
      assert.equal(await vscode.env.clipboard.readText(), c.expected);
      assert.deepEqual(fs.readFileSync(c.file), before, 'only read');
    }
  });

  it('sessionLoom.builtInRoots turns an agent\'s folder off', async () => {
    await vscode.workspace.getConfiguration('sessionLoom').update('builtInRoots', { claude: false }, vscode.ConfigurationTarget.Global);
    await relistSessions(api);
    const labels = ((await provider().getChildren()) as LoomNode[]).map((x) => (x.kind === 'project' ? x.info.label : ''));
    assert.ok(!labels.includes('/home/marco/projects/spotter'), labels.join(', '));
    assert.ok(labels.includes('/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2'));
    await vscode.workspace.getConfiguration('sessionLoom').update('builtInRoots', undefined, vscode.ConfigurationTarget.Global);
    await relistSessions(api);
    assert.ok(((await provider().getChildren()) as LoomNode[]).some((x) => x.kind === 'project' && x.info.label === '/home/marco/projects/spotter'));
  });
});
