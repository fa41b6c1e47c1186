// The hand-off between the Sessions view and the session editor, in the real VS Code. The view's
// context menu runs the editor's commands with the tree node it was invoked on (VS Code passes
// the node, then the multi-selection), so these tests take real nodes from the registered
// provider and call the commands the same way; the editor's side is read through the webview DOM.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import { frameText, harnessAvailable } from './harness';

const EXTENSION_ID = 'session-loom.session-loom';
const VIEW_TYPE = 'sessionLoom.sessionEditor';
const DEMO = '2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Where the harness copied a sample into the fake home. */
function placed(sourceBaseName: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(os.homedir(), 'session-loom-test-manifest.json'), 'utf8')) as {
    projects: Record<string, { file: string; source: string }[]>;
  };
  for (const files of Object.values(manifest.projects)) for (const f of files) if (path.basename(f.source) === sourceBaseName) return f.file;
  throw new Error(`${sourceBaseName} is not in the test home`);
}

const app = (file: string) => `#app[data-session-file="${path.basename(file)}"][data-state="ready"]`;

/** Polls until `check` holds (tab changes land a moment after the command resolves). */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const activeInput = () => vscode.window.tabGroups.activeTabGroup.activeTab?.input;

function isSessionEditorOn(file: string): boolean {
  const input = activeInput();
  return input instanceof vscode.TabInputCustom && input.viewType === VIEW_TYPE && input.uri.fsPath === file;
}

describe('sessions view ↔ session editor hand-off', function () {
  this.timeout(120_000);
  let api: SessionLoomApi;
  const provider = () => api.sessions.provider;
  const demo = () => placed(DEMO);

  before(async () => {
    api = (await vscode.extensions.getExtension<SessionLoomApi>(EXTENSION_ID)!.activate())!;
    assert.ok(api?.sessions?.provider, 'activate() returns the sessions test hooks');
    provider().setFilter('default');
    provider().setSearch('');
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await sleep(200);
  });

  it('Open Session on a session node opens the session editor on its file', async () => {
    const session = await provider().findSession(demo());
    assert.ok(session, 'the demo sample is in the tree');
    await vscode.commands.executeCommand('sessionLoom.openSession', session, [session]);
    await until(() => isSessionEditorOn(demo()), `a session editor on ${demo()} (active: ${String((activeInput() as { uri?: vscode.Uri })?.uri)})`);
    if (harnessAvailable()) await frameText(`${app(demo())} .sl-messages`, { timeoutMs: 30_000 });
  });

  it('Open Raw JSONL on a session node opens the text editor on its file', async () => {
    const session = await provider().findSession(demo());
    assert.ok(session);
    await vscode.commands.executeCommand('sessionLoom.openRawJsonl', session, [session]);
    await until(() => {
      const input = activeInput();
      return input instanceof vscode.TabInputText && input.uri.fsPath === demo();
    }, 'a text editor tab on the demo sample');
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, demo());
  });

  it('Preview Context at This Entry on an entry node opens the editor with that entry as the leaf', async function () {
    if (!harnessAvailable()) this.skip();
    const file = demo();
    for (const entryId of ['b2000004', 'a100000c']) {
      // The first pass opens the editor (the selection waits for the webview), the second
      // reaches an editor that is already open.
      const node = await provider().nodeForEntry(file, entryId);
      assert.ok(node && node.kind === 'entry' && node.entryId === entryId, `entry node ${entryId}`);
      await vscode.commands.executeCommand('sessionLoom.previewContextAt', node, [node]);
      await until(() => isSessionEditorOn(file), 'the session editor on the demo sample');
      await frameText(`${app(file)} .sl-messages[data-leaf-id="${entryId}"]`, { timeoutMs: 30_000 });
      const selected = await frameText(`${app(file)} .sl-tree-row.is-selected[aria-selected="true"][data-entry-id="${entryId}"]`, { timeoutMs: 15_000 });
      assert.ok(selected.length > 0, `the tree row of ${entryId} is selected`);
    }
  });

  it('Reveal in Sessions (file, entry id) selects the entry node in the tree', async () => {
    const file = demo();
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    await vscode.commands.executeCommand('sessionLoom.revealInSessions', vscode.Uri.file(file), 'b2000004');
    await until(() => api.sessions.treeView.selection.some((n) => n.id === `${file}#b2000004`), `selection ${api.sessions.treeView.selection.map((n) => n.id).join(', ')}`);
    const sel = api.sessions.treeView.selection;
    assert.equal(sel.length, 1);
    assert.equal(sel[0]!.kind, 'entry');
  });
});
