// Issue 13 in the real VS Code: New Session from Here (a fork opens in the editor with the
// context of the entry it was made from, the source byte-identical) and Copy Context.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import { openSessionDocument } from '../../../src/core/formats/xcsh/document';
import { frameEval, harnessAvailable, screenshot } from './harness';
import { activate, closeAllEditors, describeTabs, editorApp, sessionEditorTab, until } from './util';

const sha = (p: string): string => createHash('sha256').update(fs.readFileSync(p)).digest('hex');
const fixtures = process.env.SESSION_LOOM_FIXTURES ?? path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'fixtures');

describe('Export and fork (issue 13)', function () {
  this.timeout(180_000);
  let api: SessionLoomApi;
  let file: string;
  const infos: string[] = [];
  let restoreInfo: (() => void) | undefined;

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
    const pathIds = doc.tree.pathToRoot(doc.tree.defaultLeafId!).map((e) => e.id);
    const entryId = pathIds[Math.floor(pathIds.length * 0.75)]!;
    const expected = doc.context(entryId).messages.length;
    assert.ok(expected > 10 && expected !== doc.context().messages.length, `a distinct context (${expected})`);
    const before = sha(file);

    const forked = await vscode.commands.executeCommand<string>('sessionLoom.newSessionFromHere', vscode.Uri.file(file), entryId);
    assert.ok(forked && fs.existsSync(forked), `a fork was written (${String(forked)})`);
    assert.equal(path.dirname(forked), path.dirname(file), 'in the same project folder');
    assert.equal(sha(file), before, 'the source is never touched');
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
});
