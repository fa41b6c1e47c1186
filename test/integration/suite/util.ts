// Small helpers the issue-14 suites share (the older suites keep their own copies).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import { DOUBLE_CLICK_MS } from '../../../src/extension/sessions/openGesture';
import { click, frameEval, frameText, harnessAvailable, screenshot } from './harness';

export const EXTENSION_ID = 'session-loom.session-loom';
export const VIEW_TYPE = 'sessionLoom.sessionEditor';
export const DEMO_SAMPLE = '2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function activate(): Promise<SessionLoomApi> {
  const api = await vscode.extensions.getExtension<SessionLoomApi>(EXTENSION_ID)!.activate();
  assert.ok(api?.sessions?.provider, 'activate() returns the sessions test hooks');
  return api;
}

/** Where the harness copied a fixture (or sample) into the fake home. */
export function placed(sourceBaseName: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(os.homedir(), 'session-loom-test-manifest.json'), 'utf8')) as {
    projects: Record<string, { file: string; source: string }[]>;
  };
  for (const files of Object.values(manifest.projects)) for (const f of files) if (path.basename(f.source) === sourceBaseName) return f.file;
  throw new Error(`${sourceBaseName} is not in the test home`);
}

/** Polls until `check` holds; fails with `what` (a function: it may describe the state it saw). */
export async function until(check: () => boolean | Promise<boolean>, what: string | (() => string), timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(100);
  }
}

/**
 * `treeView.reveal`, tried again for up to 20 s while VS Code refuses it because the view is still
 * being redrawn (a refresh, a file change, a grown run: "Data tree node not found", seen under load
 * in CI). A refusal that lasts is thrown.
 */
export async function revealRow<T>(treeView: vscode.TreeView<T>, node: T, options: { select?: boolean; focus?: boolean; expand?: boolean | number }): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await treeView.reveal(node, options);
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await sleep(300);
    }
  }
}

/**
 * `revealRow`, until the row it reveals is drawn (`rowSelector`, a Playwright selector of the
 * workbench). VS Code can drop a reveal's expansions without a word when a redraw races it (seen
 * with rowClicks.test.ts run alone, in a window whose Sessions view had just been shown: the
 * reveal resolved, a subagent row's message count arrived meanwhile, and the runs under the
 * session stayed collapsed): the reveal is made again then.
 */
export async function showRow<T>(treeView: vscode.TreeView<T>, node: T, rowSelector: string, options: { select?: boolean; focus?: boolean; expand?: boolean | number }): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await revealRow(treeView, node, options);
    try {
      await frameText(rowSelector, { timeoutMs: 3_000 });
      return;
    } catch (e) {
      if (attempt === 4) throw e;
      console.log(`[test] reveal ${attempt} did not draw ${rowSelector}: revealing again`);
    }
  }
}

/**
 * Refreshes the Sessions view and waits until VS Code has listed its top level again: a reveal
 * that races that redraw can leave a row drawn expanded with none of its rows shown (seen in
 * code-server 1.100; every later reveal under that row then selects nothing).
 */
export async function relistSessions(api: SessionLoomApi): Promise<void> {
  const p = api.sessions.provider;
  p.refresh();
  await p.whenListed(20_000);
  await sleep(300);
}

export const activeTab = (): vscode.Tab | undefined => vscode.window.tabGroups.activeTabGroup.activeTab;

/** The active tab, when it is the session editor on `file`. */
export function sessionEditorTab(file: string): vscode.Tab | undefined {
  const tab = activeTab();
  const input = tab?.input;
  return input instanceof vscode.TabInputCustom && input.viewType === VIEW_TYPE && input.uri.fsPath === file ? tab : undefined;
}

export function describeTabs(): string {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => `${t.label}${t.isPreview ? ' (preview)' : ''}${t.isActive ? ' *' : ''}`)).join(', ') || '(no tabs)';
}

/** Whether the keyboard focus of the workbench is inside the part matching `selector` (".part.sidebar", ".part.editor"). */
export function focusIsIn(selector: string): Promise<boolean> {
  return frameEval<boolean>(selector, 'return el.contains(document.activeElement);');
}

/** Whether the session editor's webview showing `file` has the keyboard (webviews live in frames of their own). */
export function webviewHasFocus(file: string): Promise<boolean> {
  return frameEval<boolean>(editorApp(file, false), 'return document.hasFocus();');
}

export async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  // Until the workbench has let every tab go: a test that opens the same file next must get a new
  // editor, not one still being closed (seen on a loaded machine: the reopened editor never painted).
  for (let i = 0; i < 50 && vscode.window.tabGroups.all.some((g) => g.tabs.length > 0); i++) await sleep(100);
  await sleep(200);
}

/** The session editor's webview app, once it shows `file` (and is ready, unless `ready` is false). */
export const editorApp = (file: string, ready = true): string => `#app[data-session-file="${path.basename(file)}"]${ready ? '[data-state="ready"]' : ''}`;

/**
 * Clicks a row of the Sessions view until the click lands: the row selected. A click whose
 * mouse-down and mouse-up fall on different rows, the rows redrawn and moved between the two (a
 * row's time ticking over, a message count arriving: under load the two are far apart), selects
 * nothing and opens nothing (seen: the pointer over another row afterwards, no row selected). A
 * user clicks again, and so does this — after the double-click time, or the second click would
 * pin the editor.
 */
export async function clickRow(row: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await click(row);
    try {
      await frameText(`${row}[aria-selected="true"]`, { timeoutMs: 2_000 });
      return;
    } catch (e) {
      if (attempt === 3) throw e;
      console.log(`[test] click ${attempt} on ${row} selected nothing: clicking again`);
      await screenshot(`row-click-missed-${attempt}`);
      await sleep(DOUBLE_CLICK_MS + 100);
    }
  }
}

/** The workbench's class for each theme the tests use (`.monaco-workbench`), and a webview body's. */
const THEME_CLASS = { 'Default Dark Modern': 'vs-dark', 'Default Light Modern': 'vs', 'Default High Contrast': 'hc-black' } as const;
const WEBVIEW_CLASS = { 'Default Dark Modern': 'vscode-dark', 'Default Light Modern': 'vscode-light', 'Default High Contrast': 'vscode-high-contrast' } as const;

/** A function body over `el` and `arg` (true for a light theme): whether `el`'s background reads as that theme's (a transparent one passes). */
const LIGHTNESS_MATCHES = `
  const m = /rgba?\\((\\d+), (\\d+), (\\d+)(?:, ([\\d.]+))?/.exec(getComputedStyle(el).backgroundColor);
  if (!m || m[4] === '0') return true;
  return (0.299 * m[1] + 0.587 * m[2] + 0.114 * m[3] > 128) === arg;`;

/**
 * Sets the colour theme and waits until the workbench wears it (VS Code applies a theme some time
 * after the setting changes: a screenshot taken after a fixed pause could show the old one) — its
 * class, and the colour of its side bar (else its status bar) — and so does the active session
 * editor, if one is (its page's body class and background: VS Code posts a webview its new
 * variables later). CI's "light" screenshots once showed a dark workbench after its class had
 * changed; the checks are made on elements known to be there (no probe that can time out and
 * skip them under load), and what they saw is logged.
 */
export async function useTheme(theme: keyof typeof THEME_CLASS): Promise<void> {
  await vscode.workspace.getConfiguration('workbench').update('colorTheme', theme, vscode.ConfigurationTarget.Global);
  if (!harnessAvailable()) return sleep(1000);
  const light = theme === 'Default Light Modern';
  // (the part whose colour is checked, and logged)
  const PART = "el.querySelector('.part.sidebar') ?? el.querySelector('.part.statusbar')";
  const workbench = `if (!el.classList.contains(arg.cls)) return false;
    const part = ${PART};
    if (!part) return true;
    el = part; arg = arg.light;${LIGHTNESS_MATCHES}`;
  await until(async () => (await frameEval<boolean>('.monaco-workbench', workbench, { cls: THEME_CLASS[theme], light })) === true, `the workbench in ${theme}`, 20_000);
  const seen = [`workbench ${await frameEval<string>('.monaco-workbench', `return getComputedStyle(${PART} ?? el).backgroundColor;`)}`];
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputCustom && input.viewType === VIEW_TYPE) {
    const page = `#app[data-session-file="${path.basename(input.uri.fsPath)}"]`;
    const body = `const b = el.ownerDocument.body; if (!b.classList.contains(arg.cls)) return false; el = b; arg = arg.light;${LIGHTNESS_MATCHES}`;
    await until(async () => (await frameEval<boolean>(page, body, { cls: WEBVIEW_CLASS[theme], light })) === true, `the session editor in ${theme}`, 20_000);
    seen.push(`editor ${await frameEval<string>(page, 'const b = el.ownerDocument.body; return b.className + " " + getComputedStyle(b).backgroundColor;')}`);
  }
  console.log(`[test] theme ${theme}: ${seen.join('; ')}`);
  await sleep(400);
}
