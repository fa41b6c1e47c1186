// Issue 14, point 1: a click on a Sessions row opens what it shows, the way the Explorer opens a
// file — a single click a preview editor (the focus stays in the view, the row stays collapsed and
// keeps its twistie), a double click or Enter a pinned one with the focus in it; a click on an entry
// row shows the context at that entry, in an editor already open too. Driven with the mouse and the
// keyboard in the real workbench, read back from its tabs and the webview's DOM.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import type { LoomNode } from '../../../src/extension/sessions/nodes';
import { click, frameText, harnessAvailable, keys, screenshot } from './harness';
import { activate, activeTab, clickRow, closeAllEditors, DEMO_SAMPLE, describeTabs, editorApp, focusIsIn, placed, revealRow, sessionEditorTab, showRow, sleep, until, webviewHasFocus } from './util';

const SESSION_ROW = '.part.sidebar .monaco-list-row:has-text("Add --json to report")';

describe('Sessions view: a click opens the session (issue 14.1)', function () {
  this.timeout(120_000);
  let api: SessionLoomApi;
  const provider = () => api.sessions.provider;
  const demo = () => placed(DEMO_SAMPLE);

  before(async function () {
    if (!harnessAvailable()) this.skip();
    api = await activate();
    await provider().setFilter('default');
    await provider().setSearch('');
  });
  afterEach(closeAllEditors);

  /** Shows the demo session's row, collapsed, with nothing selected around it. */
  async function showSessionRow(): Promise<void> {
    await closeAllEditors();
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll');
    const session = await provider().findSession(demo());
    assert.ok(session, 'the demo sample is listed');
    await revealRow(api.sessions.treeView, session, { select: false, focus: false, expand: false });
    await frameText(`${SESSION_ROW}[aria-expanded="false"]`, { timeoutMs: 10_000 });
  }

  it('a single click opens a preview editor and leaves the focus and the row as they were', async () => {
    await showSessionRow();
    await clickRow(SESSION_ROW);
    await until(() => sessionEditorTab(demo()) !== undefined, () => `a session editor on the demo (tabs: ${describeTabs()})`);
    assert.equal(sessionEditorTab(demo())!.isPreview, true, 'a preview editor (italic tab)');
    await frameText(`${editorApp(demo())} .sl-messages`, { timeoutMs: 30_000 });
    assert.equal(await focusIsIn('.part.sidebar'), true, 'the keyboard stays in the Sessions view');
    await frameText(`${SESSION_ROW}[aria-expanded="false"]`);
    await screenshot('row-click-preview');

    // The twistie still expands the row, and opens nothing more.
    await click(`${SESSION_ROW}[aria-expanded="false"] .monaco-tl-twistie`);
    await frameText(`${SESSION_ROW}[aria-expanded="true"]`, { timeoutMs: 10_000 });
    assert.equal(vscode.window.tabGroups.all.flatMap((g) => g.tabs).length, 1, describeTabs());
  });

  it('a double click opens it pinned, with the focus in the editor', async () => {
    await showSessionRow();
    await click(SESSION_ROW, { count: 2 });
    await until(() => sessionEditorTab(demo())?.isPreview === false, () => `a pinned session editor (tabs: ${describeTabs()})`);
    await frameText(`${editorApp(demo())} .sl-messages`, { timeoutMs: 30_000 });
    await until(() => webviewHasFocus(demo()), 'the focus in the session editor');
  });

  it('Enter on the focused row opens it pinned, with the focus in the editor', async () => {
    await showSessionRow();
    // Focus the row without opening it: select it through the view, then give the view the keyboard.
    const session = await provider().findSession(demo());
    await revealRow(api.sessions.treeView, session!, { select: true, focus: true, expand: false });
    await until(() => focusIsIn('.part.sidebar'), 'the focus in the Sessions view');
    assert.equal(activeTab(), undefined, `nothing open yet (tabs: ${describeTabs()})`);
    await keys('Enter');
    await until(() => sessionEditorTab(demo())?.isPreview === false, () => `a pinned session editor after Enter (tabs: ${describeTabs()})`);
    await until(() => webviewHasFocus(demo()), 'the focus in the session editor');
  });

  it('a click on an entry row selects its leaf in the editor, also in one already open behind another tab', async () => {
    const file = demo();
    // The editor is open (at the default leaf) but hidden behind another tab of its group.
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'sessionLoom.sessionEditor');
    try {
      await frameText(`${editorApp(file)} .sl-messages[data-leaf-id="a1000013"]`, { timeoutMs: 20_000 });
    } catch {
      // Setting the scene, not what is tested: in full runs on a loaded machine the workbench once
      // created this editor's webview without ever loading its page (no `ready` from it, the
      // editor's log silent). Opened again, as a user would.
      console.log(`[test] the session editor never loaded its page; tabs: ${describeTabs()}; opening it again`);
      await screenshot('row-click-entry-not-loaded');
      await closeAllEditors();
      await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'sessionLoom.sessionEditor');
      await frameText(`${editorApp(file)} .sl-messages[data-leaf-id="a1000013"]`, { timeoutMs: 30_000 });
    }
    const readme = vscode.Uri.file(path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'README.md'));
    await vscode.window.showTextDocument(readme, { preview: false });
    await sleep(300);

    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    for (const [entryId, text] of [
      ['b2000004', '$ git status --short'],
      ['a100000c', 'screenshot: Captured the terminal'],
    ] as const) {
      const node = await provider().nodeForEntry(file, entryId);
      assert.ok(node, `entry ${entryId} is in the tree`);
      const row = `.part.sidebar .monaco-list-row:has-text("${text}")`;
      await showRow(api.sessions.treeView, node as LoomNode, row, { select: false, focus: false, expand: true });
      await clickRow(row);
      await until(() => sessionEditorTab(file) !== undefined, () => `the session editor in front (tabs: ${describeTabs()})`);
      await frameText(`${editorApp(file)} .sl-messages[data-leaf-id="${entryId}"]`, { timeoutMs: 30_000 });
      await frameText(`${editorApp(file)} .sl-tree-row.is-selected[data-entry-id="${entryId}"]`, { timeoutMs: 15_000 });
      assert.equal(await focusIsIn('.part.sidebar'), true, 'a single click leaves the keyboard in the view');
    }
    await screenshot('row-click-entry');
  });

  // Issue 21.3: the click above was lost once in a loaded CI run. A redraw of a row (its relative
  // time ticking over, a message count, the file written) made VS Code drop the arguments of the
  // row commands below it in the extension host while the workbench still showed those rows: a
  // click then ran a command whose arguments were gone ("Actual command not found" in a
  // notification) and opened nothing. The rows' command now takes its row from the selection.
  it('a click on an entry row while its session row is being redrawn still opens the editor there', async () => {
    const file = demo();
    const text = '$ git status --short';
    const row = `.part.sidebar .monaco-list-row:has-text("${text}")`;
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    const node = await provider().nodeForEntry(file, 'b2000004');
    assert.ok(node, 'entry b2000004 is in the tree');
    await showRow(api.sessions.treeView, node as LoomNode, row, { select: false, focus: false, expand: true });
    await sleep(500);

    // A loaded machine, made on purpose: VS Code's redraw of the session row does not get the
    // session's rows back until the click has landed on the row drawn before it.
    const p = provider();
    const own = Object.getOwnPropertyDescriptor(p, 'getChildren');
    let redrawing = false;
    let clickLanded: () => void = () => undefined;
    const landed = new Promise<void>((resolve) => (clickLanded = resolve));
    p.getChildren = async (n?: LoomNode) => {
      if (n?.kind === 'session' && n.file === file) {
        redrawing = true;
        await landed;
      }
      return Object.getPrototypeOf(p).getChildren.call(p, n);
    };
    try {
      await provider().fileChanged(file); // the file was written: its session row is redrawn
      await until(() => redrawing, 'VS Code asking for the session\'s rows again');
      // The row sits near the view's edge and the list may still settle: a click that straddled a
      // re-layout selected nothing (seen once under load) and is made again, as a user would.
      await clickRow(row);
      clickLanded();
      await until(() => sessionEditorTab(file) !== undefined, () => `the session editor in front (tabs: ${describeTabs()})`);
      await frameText(`${editorApp(file)} .sl-tree-row.is-selected[data-entry-id="b2000004"]`, { timeoutMs: 30_000 });
    } finally {
      clickLanded();
      if (own) Object.defineProperty(p, 'getChildren', own);
      else delete (p as { getChildren?: unknown }).getChildren;
      await screenshot('row-click-during-redraw');
    }
  });
});
