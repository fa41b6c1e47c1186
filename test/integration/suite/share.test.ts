// Issue 13 in the real VS Code: New Session from Here (a fork opens in the editor with the
// context of the entry it was made from, the source byte-identical) and Copy Context.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import { openSessionDocument } from '../../reference/document';
import { click, frameEval, harnessAvailable, screenshot } from './harness';
import { chartPoints } from '../../../src/protocol/chartData';
import { openSessionModel } from '../../../src/core/engine/openModel';
import { allMessages } from '../../../src/core/export/contextMarkdown';
import { readSessionName } from '../../../src/core/sessionName';
import { activate, closeAllEditors, describeTabs, editorApp, sessionEditorTab, until } from './util';
import { pathToRoot } from '../../reference/treeQueries';

const sha = (p: string): string => createHash('sha256').update(fs.readFileSync(p)).digest('hex');
const fixtures = process.env.SESSION_LOOM_FIXTURES ?? path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures');

describe('Export and fork (issue 13)', function () {
  this.timeout(180_000);
  let api: SessionLoomApi;
  let file: string;
  const infos: string[] = [];
  let restoreInfo: (() => void) | undefined;
  let forkedFile = '';
  let forkedAt = '';

  before(async () => {
    api = await activate();
    const dir = path.join(os.homedir(), '.xcsh', 'agent', 'sessions', '--work-loom-share--');
    fs.mkdirSync(dir, { recursive: true });
    file = path.join(dir, '2026-02-01T10-00-00-000Z_share0000000001.jsonl');
    fs.copyFileSync(path.join(fixtures, 'upstream-full', 'pi-before-compaction.jsonl'), file);
    fs.chmodSync(file, 0o644);
    const old = new Date(Date.now() - 120_000);
    fs.utimesSync(file, old, old);
    api.sessions.provider.refresh();
    const original = api.sessions.prompts.info;
    api.sessions.prompts.info = (message: string) => void infos.push(message);
    restoreInfo = () => (api.sessions.prompts.info = original);
  });
  after(async () => {
    restoreInfo?.();
    await closeAllEditors();
  });

  it('New Session from Here writes a fork that opens with the context of that entry; the source is byte-identical', async () => {
    const doc = await openSessionDocument(file);
    // an entry half way down the default path, past the compaction: a real choice, not the last entry
    const pathIds = pathToRoot(doc.tree, doc.tree.defaultLeafId!).map((e) => e.id);
    const entryId = pathIds[Math.floor(pathIds.length * 0.75)]!;
    const expected = doc.context(entryId).messages.length;
    assert.ok(expected > 10 && expected !== doc.context().messages.length, `a distinct context (${expected})`);
    const before = sha(file);

    const forked = await vscode.commands.executeCommand<string>('sessionLoom.newSessionFromHere', vscode.Uri.file(file), entryId);
    assert.ok(forked && fs.existsSync(forked), `a fork was written (${String(forked)})`);
    assert.equal(path.dirname(forked), path.dirname(file), 'in the same project folder');
    assert.equal(sha(file), before, 'the source is never touched');
    forkedFile = forked;
    forkedAt = entryId;
    assert.match(infos.at(-1) ?? '', /New Session from Here: wrote .*; .* is unchanged/);

    await until(() => sessionEditorTab(forked) !== undefined, () => `the fork's editor is active (tabs: ${describeTabs()})`, 30_000);
    if (harnessAvailable()) {
      const shown = async (): Promise<string> => frameEval<string>(`${editorApp(forked)} [data-message-count]`, 'return el.dataset.messageCount;', null, { timeoutMs: 30_000 });
      await until(async () => (await shown().catch(() => '')) === String(expected), () => `the fork's editor shows ${expected} messages`, 60_000);
      await screenshot('fork-new-session');
    }
    const fork = await openSessionDocument(forked);
    assert.equal(fork.context().messages.length, expected);
    assert.equal(fork.loaded.header?.parentSession, doc.loaded.header?.id);
    const node = await api.sessions.provider.findSession(forked);
    assert.ok(node, 'the fork is a row of the Sessions view');
  });

  it('Copy Context puts the Markdown of the context at an entry on the clipboard, one heading per message', async () => {
    const doc = await openSessionDocument(file);
    const leaf = doc.tree.defaultLeafId!;
    await vscode.commands.executeCommand('sessionLoom.copyContext', vscode.Uri.file(file), leaf);
    const md = await vscode.env.clipboard.readText();
    assert.equal(md.split('\n').filter((l) => /^## \d+\. /.test(l)).length, doc.context(leaf).messages.length);
  });

  it('Compare with Leaf: a session and its fork line up, the first message after the shared ones on the same line', async () => {
    assert.ok(forkedFile, 'the fork of the first test');
    const doc = await openSessionDocument(file);
    const fork = await openSessionDocument(forkedFile);
    const shared = fork.context().messages.length;
    const r = await vscode.commands.executeCommand<{ shared: number; left: vscode.Uri; right: vscode.Uri; divergenceLine: { left: number | null; right: number | null } }>(
      'sessionLoom.compareWithLeaf',
      vscode.Uri.file(forkedFile),
      fork.tree.defaultLeafId,
      { file, leafId: doc.tree.defaultLeafId },
    );
    assert.ok(r, 'compared');
    assert.equal(r.shared, shared, `the fork made at ${forkedAt} shares all its ${shared} messages`);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff, `a diff editor (tabs: ${describeTabs()})`);
    assert.equal((tab.input as vscode.TabInputTextDiff).modified.toString(), r.right.toString());
    // Named by the sessions (issue 25), not by two leaf ids.
    const [forkName, sourceName] = [await readSessionName(forkedFile, 40), await readSessionName(file, 40)];
    assert.match(forkName, /^Fork of /);
    assert.equal(tab.label, `${forkName} ↔ ${sourceName} (${shared} shared messages)`);
    const right = (await vscode.workspace.openTextDocument(r.right)).getText().split('\n');
    const left = (await vscode.workspace.openTextDocument(r.left)).getText();
    assert.ok(r.divergenceLine.right !== null);
    assert.match(right[r.divergenceLine.right - 1]!, new RegExp(`^## ${shared + 1}\\. `), 'the first message the fork does not have');
    assert.match(left, new RegExp(`^> … ${shared} shared messages`, 'm'));
    assert.equal(r.divergenceLine.left, null, 'the fork has nothing after the shared messages');
    if (harnessAvailable()) {
      await until(() => vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === r.right.toString()), 'the diff is shown', 20_000);
      await screenshot('compare-with-leaf');
    }
  });

  it('Open Diff on an edit tool call opens a native diff editor: its old text left, its new text right', async () => {
    const doc = await openSessionDocument(file);
    let found: { entryId: string; callId: string; oldText: string; newText: string } | undefined;
    for (const e of doc.loaded.entries) {
      const m = (e as { message?: { role?: string; content?: unknown } }).message;
      if (m?.role !== 'assistant' || !Array.isArray(m.content)) continue;
      const call = (m.content as { type?: string; name?: string; id?: string; arguments?: { oldText?: string; newText?: string } }[]).find((b) => b.type === 'toolCall' && b.name === 'edit');
      if (call?.arguments?.oldText && call.arguments.newText && call.arguments.oldText.length < 30_000) {
        found = { entryId: e.id, callId: call.id!, oldText: call.arguments.oldText, newText: call.arguments.newText };
        break;
      }
    }
    assert.ok(found, 'the fixture has an edit call');
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>('sessionLoom.openToolDiff', vscode.Uri.file(file), found.entryId, found.callId);
    assert.ok(uris && uris.length === 2);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff, `a diff editor (tabs: ${describeTabs()})`);
    assert.equal((await vscode.workspace.openTextDocument(uris[0]!)).getText(), found.oldText);
    assert.equal((await vscode.workspace.openTextDocument(uris[1]!)).getText(), found.newText);
    if (harnessAvailable()) {
      await until(() => vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === uris[1]!.toString()), 'the diff is shown', 20_000);
      await screenshot('tool-call-diff');
    }
  });

  it('Open Diff and Open Output keep a session opened as a preview tab open (it is pinned), instead of replacing it (issue 25)', async () => {
    await closeAllEditors();
    const doc = await openSessionDocument(file);
    const editEntry = doc.loaded.entries.find((e) => {
      const m = (e as { message?: { role?: string; content?: unknown } }).message;
      return m?.role === 'assistant' && Array.isArray(m.content) && (m.content as { type?: string; name?: string }[]).some((b) => b.type === 'toolCall' && b.name === 'edit');
    })!;
    const resultEntry = doc.loaded.entries.find((e) => (e as { message?: { role?: string } }).message?.role === 'toolResult')!;
    assert.ok(editEntry && resultEntry, 'the fixture has an edit call and a tool result');
    const sessionTabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputCustom && t.input.uri.fsPath === file);
    for (const [command, entryId] of [
      ['sessionLoom.openToolDiff', editEntry.id],
      ['sessionLoom.openToolOutput', resultEntry.id],
    ] as const) {
      await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'sessionLoom.sessionEditor', { preview: true });
      await until(() => sessionEditorTab(file) !== undefined, `the session editor is active (tabs: ${describeTabs()})`);
      assert.ok(sessionEditorTab(file)!.isPreview, `${command}: the session opened as a preview tab (tabs: ${describeTabs()})`);
      await vscode.commands.executeCommand(command, vscode.Uri.file(file), entryId);
      await until(() => !(vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputCustom), `${command} opened its own tab (tabs: ${describeTabs()})`);
      const kept = sessionTabs();
      assert.equal(kept.length, 1, `${command}: the session tab is still open (tabs: ${describeTabs()})`);
      assert.equal(kept[0]!.isPreview, false, `${command}: the session tab is pinned (tabs: ${describeTabs()})`);
      if (harnessAvailable() && command === 'sessionLoom.openToolDiff') await screenshot('tool-diff-keeps-session-tab');
      await closeAllEditors();
    }
  });

  it('Open Diff on an edit whose result carries details.diff (the agent writes a patch, not old/new text): the changed lines in a native diff editor', async () => {
    const dir = path.join(os.homedir(), '.xcsh', 'agent', 'sessions', '--work-loom-share--');
    const real = path.join(dir, '2026-02-01T11-00-00-000Z_share0000000002.jsonl');
    fs.copyFileSync(path.join(fixtures, 'real-v3', 'gjc-04-awesome-agent-ide.jsonl'), real);
    fs.chmodSync(real, 0o644);
    const doc = await openSessionDocument(real);
    const result = doc.loaded.entries.find((e) => typeof (e as { message?: { details?: { diff?: unknown } } }).message?.details?.diff === 'string')!;
    const diff = (result as unknown as { message: { details: { diff: string } } }).message.details.diff;
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>('sessionLoom.openToolDiff', vscode.Uri.file(real), result.id);
    assert.ok(uris && uris.length === 2);
    assert.ok(vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff, `a diff editor (tabs: ${describeTabs()})`);
    const left = (await vscode.workspace.openTextDocument(uris[0]!)).getText().split('\n');
    const right = (await vscode.workspace.openTextDocument(uris[1]!)).getText().split('\n');
    const lines = diff.split('\n').map((l) => /^([ +-])\s*\d+\|(.*)$/.exec(l)).filter((m): m is RegExpExecArray => m !== null && m[2] !== '...');
    for (const m of lines) {
      if (m[1] !== '+') assert.ok(left.includes(m[2]!), `left has ${m[2]}`);
      if (m[1] !== '-') assert.ok(right.includes(m[2]!), `right has ${m[2]}`);
    }
    assert.notEqual(left.join('\n'), right.join('\n'));
    if (harnessAvailable()) {
      await until(() => vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === uris[1]!.toString()), 'the diff is shown', 20_000);
      await screenshot('tool-result-diff');
    }
  });

  it('Open Output shows a tool result whole in a read-only document whose language follows the tool: a read of a .md file is Markdown, a bash run a log', async () => {
    const real = path.join(os.homedir(), '.xcsh', 'agent', 'sessions', '--work-loom-share--', '2026-02-01T11-00-00-000Z_share0000000002.jsonl');
    const doc = await openSessionDocument(real);
    type Msg = { role?: string; toolName?: string; toolCallId?: string; content?: { type?: string; text?: string; name?: string; id?: string; arguments?: { path?: string } }[] };
    const msgs = doc.loaded.entries.map((e) => ({ id: e.id, m: (e as { message?: Msg }).message }));
    const readPaths = new Map<string, string>();
    for (const { m } of msgs) for (const b of m?.role === 'assistant' ? (m.content ?? []) : []) if (b.type === 'toolCall' && b.name === 'read' && b.arguments?.path) readPaths.set(b.id!, b.arguments.path);
    const text = (m: Msg): string => (m.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n');
    const read = msgs.find(({ m }) => m?.role === 'toolResult' && m.toolName === 'read' && /\.md$/.test(readPaths.get(m.toolCallId ?? '') ?? ''))!;
    // the longest bash output: the one a user would open in an editor of its own
    const bash = msgs.filter(({ m }) => m?.role === 'toolResult' && m.toolName === 'bash').sort((a, b) => text(b.m!).length - text(a.m!).length)[0]!;
    assert.ok(read && bash, 'the fixture has a read of a .md file and a bash result');
    for (const [entry, language] of [
      [read, 'markdown'],
      [bash, 'log'],
    ] as const) {
      const uri = await vscode.commands.executeCommand<vscode.Uri>('sessionLoom.openToolOutput', vscode.Uri.file(real), entry.id);
      assert.ok(uri, 'a document opened');
      const opened = await vscode.workspace.openTextDocument(uri);
      assert.equal(opened.getText(), text(entry.m!), 'the whole output, not the clipped row');
      assert.equal(opened.languageId, language);
      assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), uri.toString());
    }
    if (harnessAvailable()) await screenshot('tool-output-document');
  });

  it('the context-size chart shows one point per turn of the branch; a click on a point shows its message', async function () {
    if (!harnessAvailable()) return this.skip();
    const model = await openSessionModel(file);
    const info = await model.context(await model.defaultLeaf());
    const msgs = await allMessages(model, info.leafId, info.messageCount);
    const cut: Awaited<ReturnType<typeof model.cutEntries>> = [];
    for (let s = 0; s < (info.compaction?.cutCount ?? 0); s += 500) cut.push(...(await model.cutEntries(info.leafId, s, 500)));
    const points = chartPoints(info, msgs, cut);
    model.dispose();
    await closeAllEditors();
    await vscode.commands.executeCommand('sessionLoom.openSession', vscode.Uri.file(file));
    const chart = `${editorApp(file)} .sl-chart`;
    await until(async () => (await frameEval<string | null>(chart, 'return el.dataset.points;', null, { timeoutMs: 30_000 }).catch(() => null)) === String(points.length), `a chart of ${points.length} points`, 60_000);
    const target = points.filter((p) => p.messageIndex !== null)[3]!;
    // a click on the chart where the point is (the nearest turn is taken)
    const dot = `${editorApp(file)} .sl-chart-dot[data-message-index="${target.messageIndex}"]`;
    const at = await frameEval<{ x: number; y: number }>(dot, 'const svg = el.ownerSVGElement.getBoundingClientRect(); return { x: svg.width * Number(el.getAttribute("cx")) / 600, y: svg.height / 2 };');
    await click(`${editorApp(file)} .sl-chart-svg`, { position: at });
    const row = `${editorApp(file)} .sl-msg[data-index="${target.messageIndex}"]`;
    await until(async () => (await frameEval<boolean>(row, 'const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight;', null, { timeoutMs: 10_000 }).catch(() => false)), 'the message of the point is shown', 20_000);
    await screenshot('context-chart');
  });
});
