import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { click, frameEval, frameText, harnessAvailable, keys, screenshot } from './harness';

const EXTENSION_ID = 'session-loom.session-loom';

interface Manifest {
  publisher: string;
  name: string;
  displayName: string;
  contributes: { commands: { command: string; title: string; category?: string }[]; views?: Record<string, { id: string }[]> };
}

describe('activation', () => {
  let extension: vscode.Extension<unknown>;
  let manifest: Manifest;

  before(async () => {
    const found = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(found, `extension ${EXTENSION_ID} is not loaded`);
    extension = found;
    manifest = extension.packageJSON as Manifest;
    await extension.activate();
  });

  it('runs inside VS Code 1.100', () => {
    console.log(`VS Code ${vscode.version} (${vscode.env.appName}, ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'} UI)`);
    assert.match(vscode.version, /^1\.100\./);
  });

  it('activates under the id publisher.name from package.json', () => {
    assert.equal(`${manifest.publisher}.${manifest.name}`, EXTENSION_ID);
    assert.equal(extension.isActive, true);
  });

  it('registers every contributed command, and contributes every sessionLoom.* command it registers', async () => {
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    // VS Code registers `<viewId>.focus`, `.open`, `.removeView`, … for every contributed view itself.
    const viewIds = Object.values(manifest.contributes.views ?? {}).flat().map((v) => v.id);
    // Our own commands may share a view's prefix (`sessionLoom.history.search` under the view
    // `sessionLoom.history`): only the ones we do not contribute are the workbench's.
    const ownedByWorkbench = (c: string) => !contributed.includes(c) && viewIds.some((id) => c.startsWith(`${id}.`));
    const registered = (await vscode.commands.getCommands(true))
      .filter((c) => c.startsWith('sessionLoom.') && !ownedByWorkbench(c))
      .sort();
    assert.deepEqual(contributed.filter((c) => !registered.includes(c)), [], 'contributed but not registered');
    assert.deepEqual(registered.filter((c) => !contributed.includes(c)), [], 'registered but not contributed');
  });

  it('resolves the manifest strings from package.nls.json (no %key% reaches the UI)', () => {
    // VS Code hands the extension its manifest with the %key% references already substituted.
    const unresolved = [manifest.displayName, ...manifest.contributes.commands.flatMap((c) => [c.title, c.category ?? ''])].filter((s) => /^%[\w.-]+%$/.test(s));
    assert.deepEqual(unresolved, []);
    assert.equal(manifest.displayName, 'Session Loom');
    assert.equal(manifest.contributes.commands.find((c) => c.command === 'sessionLoom.refresh')?.title, 'Refresh');
  });

  it('sees the fake home of the test run', function () {
    const home = process.env.SESSION_LOOM_TEST_HOME;
    if (!home) this.skip(); // only run.mjs provides a fake home
    assert.equal(os.homedir(), home);
    assert.ok(fs.existsSync(path.join(home, '.xcsh', 'agent', 'sessions')));
  });

  it('shows the sessions view with the projects of the fake home', async function () {
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    await vscode.commands.executeCommand('sessionLoom.refresh');
    if (!harnessAvailable()) this.skip();
    const sessionsDir = path.join(os.homedir(), '.xcsh', 'agent', 'sessions');
    // A project row names the last part of its cwd, then its count and the folder it is in.
    const projects = [
      { dir: '--Users-badlogic-workspaces-pi-mono--', name: 'pi-mono', where: '/Users/badlogic/workspaces' },
      { dir: '--home-user-tmp--', name: 'tmp', where: '/home/user' },
    ];
    for (const { dir, name, where } of projects) {
      const count = fs.readdirSync(path.join(sessionsDir, dir)).filter((f) => f.endsWith('.jsonl')).length;
      // The tree renders in the workbench page: wait until the row is drawn, then read it.
      const row = await frameText(`.monaco-list-row:has-text("${count} sessions · ${where}")`, { timeoutMs: 20_000 });
      assert.ok(row.startsWith(name), `row of ${dir}: ${JSON.stringify(row)}`);
    }
    const file = await screenshot('activation-view');
    assert.equal(path.basename(file), 'activation-view.png');
    assert.ok(fs.statSync(file).size > 10_000, `${file} looks empty`);
  });

  it('re-reads the sessions folder when Refresh in the view title is clicked', async function () {
    if (!harnessAvailable()) this.skip();
    const added = path.join(os.homedir(), '.xcsh', 'agent', 'sessions', '--added-by-test--');
    fs.mkdirSync(added, { recursive: true });
    const header = { type: 'session', version: 3, id: 'added', timestamp: new Date().toISOString(), cwd: '/added-by-test' };
    fs.writeFileSync(path.join(added, 'added.jsonl'), `${JSON.stringify(header)}\n`);
    try {
      await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
      await click('.part.sidebar .action-label[aria-label="Refresh"]:visible');
      assert.match(await frameText('.monaco-list-row:has-text("added-by-test")'), /1 session(?!s)/);
    } finally {
      fs.rmSync(added, { recursive: true, force: true });
      await vscode.commands.executeCommand('sessionLoom.refresh');
    }
  });

  it('lists Refresh in the command palette', async function () {
    if (!harnessAvailable()) this.skip();
    await keys('F1');
    try {
      // Type only once the palette's input has the focus: keys typed earlier land elsewhere.
      await frameEval('.quick-input-widget input:focus', 'return true;');
      await keys([], 'Session Loom: Refresh');
      assert.match(await frameText('.quick-input-list .monaco-list-row[aria-label*="Session Loom: Refresh"]'), /Session Loom: Refresh/);
    } finally {
      await keys('Escape');
    }
  });
});
