// Claude Code transcripts and Codex rollouts in the session editor, in the real VS Code (issue 24):
// the preview shows what the model sees from the real fixtures (copied out of the repository, the
// Claude session with its subagents folder), says "messages only" where the system prompt would
// be, shows the compaction boundary as for xcsh and the model's notes, and no xcsh-only chip;
// export, compare and the chart work; a write is refused with a sentence and writes nothing.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import { openSessionModel } from '../../../src/core/engine/openModel';
import { click, frameEval, frameText, harnessAvailable, screenshot } from './harness';
import { activate, closeAllEditors, describeTabs, editorApp, sessionEditorTab, until, useTheme, VIEW_TYPE } from './util';

const fixtures = process.env.SESSION_LOOM_FIXTURES ?? path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures');
const CLAUDE_ID = '258c7280-ae70-4798-800f-63464d01a85d';
const CODEX_NAME = 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl';
const MESSAGES_ONLY = 'messages only — system prompt and tools are not recorded by this agent';

const sha = (p: string): string => createHash('sha256').update(fs.readFileSync(p)).digest('hex');

/** What the model answers in this process (the editor's worker must show the same). */
async function contextOf(file: string, leafId: string | null = null): Promise<{ leafId: string | null; messageCount: number; points: number }> {
  const model = await openSessionModel(file);
  try {
    const info = await model.context(leafId ?? (await model.defaultLeaf()));
    return { leafId: info.leafId, messageCount: info.messageCount, points: (await model.chart(info.leafId)).points.length };
  } finally {
    model.dispose();
  }
}

/** Opens `file` in the session editor and waits until its preview shows `messageCount` messages. */
async function openAndWait(file: string, messageCount: number): Promise<void> {
  await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), VIEW_TYPE);
  const list = `${editorApp(file)} .sl-messages`;
  await until(async () => (await frameEval<string | null>(list, 'return el.dataset.messageCount;', null, { timeoutMs: 60_000 }).catch(() => null)) === String(messageCount), `the preview of ${path.basename(file)} shows ${messageCount} messages`, 90_000);
}

describe('Claude Code and Codex sessions in the editor (issue 24)', function () {
  this.timeout(240_000);
  let api: SessionLoomApi;
  let claude = '';
  let codex = '';
  const before0 = new Map<string, string>();

  before(async () => {
    api = await activate();
    // Outside the agents' roots: the Sessions view's counts stay as the other suites expect them.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-foreign-'));
    const project = path.join(dir, 'claude', 'projects', '-home-USER-projects-spotter');
    fs.cpSync(path.join(fixtures, 'claude-code', 'spotter', `${CLAUDE_ID}.jsonl`), path.join(project, `${CLAUDE_ID}.jsonl`));
    fs.cpSync(path.join(fixtures, 'claude-code', 'spotter', CLAUDE_ID), path.join(project, CLAUDE_ID), { recursive: true });
    claude = path.join(project, `${CLAUDE_ID}.jsonl`);
    const day = path.join(dir, 'codex', 'sessions', '2025', '09', '24');
    fs.mkdirSync(day, { recursive: true });
    codex = path.join(day, CODEX_NAME);
    fs.copyFileSync(path.join(fixtures, 'codex', 'agentcmd', CODEX_NAME), codex);
    for (const f of [claude, codex]) before0.set(f, sha(f));
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Global);
    await closeAllEditors();
  });

  it('a Claude Code transcript: the context after the compaction boundary, the band of what it cut, "messages only" and the notes; no xcsh chip; the header names the agent', async function () {
    if (!harnessAvailable()) this.skip();
    const expected = await contextOf(claude);
    assert.equal(expected.messageCount, 115, 'the fixture README: 115 rows (100 API messages) after the boundary');
    await openAndWait(claude, expected.messageCount);
    const app = editorApp(claude);
    const runtime = await frameText(`${app} .sl-runtime`);
    assert.match(runtime, new RegExp(MESSAGES_ONLY));
    assert.match(runtime, /Permission mode:\s*bypassPermissions/);
    assert.match(runtime, /claude-opus-4-6/);
    assert.doesNotMatch(runtime, /TTSR rules/, 'no xcsh-only chip');
    assert.doesNotMatch(runtime, /Service tier|MCP tools|Active context/);
    // the notes: the API message count, and what Claude Code 2.1.39 would have lost
    const notes = await frameText(`${app} .sl-context-notes`);
    assert.match(notes, /The model receives 100 messages/);
    assert.match(notes, /9 records off the walked line are recovered by the parallel tool-result rule of Claude Code 2\.1\.112; Claude Code 2\.1\.39 and the Agent SDK lose them/);
    // the compaction as for xcsh: the summary first, then the band of the entries it cut
    assert.match(await frameText(`${app} .sl-band`), /229 entries not sent — summarised by compaction/);
    const messages = await frameText(`${app} .sl-messages`);
    assert.match(messages, /Message 1 of 115: compactionSummary[\s\S]*167k tokens before[\s\S]*Full summary sent to the model/, 'the summary first, folded as for xcsh');
    assert.match(messages, /Compaction d46d6800-2f43-4360-ba84-c1de9c1ecbae — messages after it/, 'the boundary marker');
    assert.match(messages, /Continuing with gqc\.6 — I need to add tests for the close_review_session event/, 'the first answer after the compaction');
    const header = await frameText(`${app} .sl-header`);
    assert.match(header, /Claude Code/);
    assert.match(header, /read-only/);
    assert.doesNotMatch(header, /no header|\bcost\b/, 'no xcsh version chip, no cost (none is recorded)');
    await screenshot('claude-editor-dark');
    await useTheme('Default Light Modern');
    await screenshot('claude-editor-light');
    await useTheme('Default Dark Modern');
  });

  it('a Task call links to its subagent\'s transcript: the link opens it in an editor of its own', async function () {
    if (!harnessAvailable()) this.skip();
    const sub = path.join(path.dirname(claude), CLAUDE_ID, 'subagents', 'agent-a881341.jsonl');
    const expected = await contextOf(sub);
    await openAndWait(claude, 115);
    const app = editorApp(claude);
    // the call is row 45 of 115: scroll the virtual list until its link is drawn
    const link = `${app} .sl-session-link`;
    await until(
      async () => frameEval<boolean>(`${app} .sl-messages`, 'if (el.querySelector(".sl-session-link")) return true; el.scrollTop += el.clientHeight / 2; return false;'),
      'the subagent link is drawn',
      30_000,
    );
    assert.match(await frameText(link), /Open the subagent session \(a881341\)/);
    await frameEval<null>(link, 'el.scrollIntoView({ block: "center" }); return null;');
    await screenshot('claude-subagent-link-dark');
    await click(link);
    await until(() => sessionEditorTab(sub) !== undefined, () => `the subagent's editor is active (tabs: ${describeTabs()})`, 30_000);
    await until(async () => (await frameEval<string | null>(`${editorApp(sub)} .sl-messages`, 'return el.dataset.messageCount;', null, { timeoutMs: 60_000 }).catch(() => null)) === String(expected.messageCount), `the subagent's ${expected.messageCount} messages`, 60_000);
  });

  it('a Codex rollout: its replayed items, "messages only", the unverified image-input note; the agent\'s mode named as Codex names it', async function () {
    if (!harnessAvailable()) this.skip();
    const expected = await contextOf(codex);
    assert.equal(expected.messageCount, 54, 'the spec B.6: 54 API items');
    await openAndWait(codex, expected.messageCount);
    const app = editorApp(codex);
    const runtime = await frameText(`${app} .sl-runtime`);
    assert.match(runtime, new RegExp(MESSAGES_ONLY));
    assert.match(runtime, /Collaboration mode:/);
    assert.match(runtime, /gpt-5-codex/);
    assert.doesNotMatch(runtime, /TTSR rules/);
    assert.match(await frameText(`${app} .sl-context-notes`), /the log does not record whether the model took image input \(assumed it did; unverified\)/);
    assert.match(await frameText(`${app} .sl-messages`), /environment_context/);
    const header = await frameText(`${app} .sl-header`);
    assert.match(header, /Codex/);
    assert.doesNotMatch(header, /no header|\bcost\b/);
    await screenshot('codex-editor-dark');
  });

  it('the chart reads the usage recorded per assistant message, for both agents', async function () {
    if (!harnessAvailable()) this.skip();
    for (const file of [claude, codex]) {
      const expected = await contextOf(file);
      assert.ok(expected.points > 5, `${path.basename(file)}: usage on its assistant messages`);
      await openAndWait(file, expected.messageCount);
      const chart = `${editorApp(file)} .sl-chart`;
      await until(async () => (await frameEval<string | null>(chart, 'return el.dataset.points;', null, { timeoutMs: 30_000 }).catch(() => null)) === String(expected.points), `a chart of ${expected.points} points`, 60_000);
    }
    await screenshot('codex-editor-chart-dark');
  });

  it('Copy Context gives the Markdown of the context, "messages only" said; Compare with Leaf lines up two leaves of each', async () => {
    for (const file of [claude, codex]) {
      const { messageCount } = await contextOf(file);
      await vscode.commands.executeCommand('sessionLoom.copyContext', vscode.Uri.file(file), null);
      const md = await vscode.env.clipboard.readText();
      assert.ok(md.includes(MESSAGES_ONLY), `${path.basename(file)}: the export says what the log does not record`);
      assert.equal(md.split('\n').filter((l) => /^## \d+\. /.test(l)).length, messageCount, 'one heading per message');
    }
    // an earlier leaf: a record half way down the context, whose context is the start of the default one
    const model = await openSessionModel(claude);
    const leaf = await model.defaultLeaf();
    const [mid] = await model.messages(leaf, 60, 1);
    model.dispose();
    const r = await vscode.commands.executeCommand<{ shared: number }>('sessionLoom.compareWithLeaf', vscode.Uri.file(claude), leaf, { file: claude, leafId: mid!.entryId });
    assert.ok(r && r.shared > 50, `shared messages: ${r?.shared}`);
    assert.ok(vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff, `a diff editor (tabs: ${describeTabs()})`);
    const c = await vscode.commands.executeCommand<{ shared: number }>('sessionLoom.compareWithLeaf', vscode.Uri.file(codex), 'L112', { file: codex, leafId: 'L60' });
    assert.ok(c && c.shared > 10, `shared Codex items: ${c?.shared}`);
    if (harnessAvailable()) await screenshot('claude-compare');
  });

  it('New Session from Here refuses another agent\'s log with a sentence saying why, and nothing is written', async () => {
    const errors: string[] = [];
    const original = api.sessions.prompts.error;
    api.sessions.prompts.error = (m: string) => void errors.push(m);
    try {
      const listing = (f: string) => fs.readdirSync(path.dirname(f)).sort();
      const files = [claude, codex].map(listing);
      await vscode.commands.executeCommand('sessionLoom.newSessionFromHere', vscode.Uri.file(claude), null);
      await vscode.commands.executeCommand('sessionLoom.newSessionFromHere', vscode.Uri.file(codex), 'L60');
      assert.deepEqual(errors, ['New Session from Here: a Claude Code transcript is read-only: it cannot be forked', 'New Session from Here: an OpenAI Codex CLI rollout is read-only: it cannot be forked']);
      assert.deepEqual([claude, codex].map(listing), files, 'no file was written beside them');
    } finally {
      api.sessions.prompts.error = original;
    }
    for (const [f, h] of before0) assert.equal(sha(f), h, `${path.basename(f)} is byte-identical after everything this suite did`);
  });
});
