// Issue 14, point 5: numbers in the Sessions view that changed or went stale. A session's message
// count is the same before and after it is read, and the same in the editor's header; relative
// times ("just now", "1 min ago") move on by themselves, redrawing only their rows.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import type { LoomNode, SessionNode } from '../../../src/extension/sessions/nodes';
import { frameText, harnessAvailable } from './harness';
import { activate, closeAllEditors, editorApp, placed, revealRow, until, VIEW_TYPE } from './util';

describe('Sessions view: numbers that hold and times that move on (issue 14.5)', function () {
  this.timeout(120_000);
  let api: SessionLoomApi;
  const provider = () => api.sessions.provider;
  const description = (n: LoomNode) => String(provider().getTreeItem(n).description ?? '');

  before(async () => {
    api = await activate();
    await provider().setFilter('default');
    await provider().setSearch('');
  });
  after(closeAllEditors);

  it('shows the same message count before the session is read, after, and in the editor (a file with an unreadable line)', async () => {
    // gjc-04 has a line with a bad escape: a line scan counted it (144), the session holds 143.
    const file = placed('gjc-04-awesome-agent-ide.jsonl');
    provider().refresh();
    const session = (await provider().findSession(file)) as SessionNode;
    assert.ok(session);
    assert.equal(provider().models.peek(file), undefined, 'not read yet');
    description(session); // asks for the count
    await until(() => /\d+ msgs?\b/.test(description(session)), () => `a count in "${description(session)}"`, 30_000);
    const before = /(\d+) msgs?\b/.exec(description(session))![1];
    assert.equal(provider().models.peek(file), undefined, 'counting did not keep the session loaded');
    await provider().getChildren(session); // the user expands it: now it is read
    assert.ok(provider().models.peek(file), 'read now');
    const after = /(\d+) msgs?\b/.exec(description(session))?.[1];
    assert.equal(after, before, 'the count did not change once the session was read');
    assert.equal(before, '143');
    if (harnessAvailable()) {
      await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), VIEW_TYPE);
      const header = await frameText(`${editorApp(file)} .sl-header-meta`, { timeoutMs: 30_000 });
      assert.match(header, /messages\s*143\b/, header);
    }
  });

  it('moves "just now" on to "1 min ago" by itself, redrawing that row only', async function () {
    if (!harnessAvailable()) this.skip();
    const dir = path.join(os.homedir(), '.xcsh', 'agent', 'sessions', '--work-loom-clock--');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, '2026-03-01T12-00-00-000Z_c10c000000000001.jsonl');
    const header = { type: 'session', version: 3, id: 'c10c000000000001', timestamp: '2026-03-01T12:00:00.000Z', cwd: '/work/loom-clock', title: 'A session the clock moves on' };
    fs.writeFileSync(file, `${JSON.stringify(header)}\n`);
    // Written 35 s ago: "just now" for another 10 s, then "1 min ago".
    const then = new Date(Date.now() - 35_000);
    fs.utimesSync(file, then, then);
    provider().refresh();
    const session = await provider().findSession(file);
    assert.ok(session);
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    await revealRow(api.sessions.treeView, session, { select: false, focus: false, expand: false });
    const row = '.part.sidebar .monaco-list-row:has-text("A session the clock moves on")';
    assert.match(await frameText(row, { timeoutMs: 10_000 }), /just now/);
    await new Promise((r) => setTimeout(r, 1000)); // the watcher's own events for the new file pass
    const fired: (LoomNode | undefined)[] = [];
    const sub = provider().onDidChangeTreeData((n) => fired.push(n ?? undefined));
    try {
      await until(async () => /1 min ago/.test(await frameText(row)), 'the row to say "1 min ago" without a refresh', 40_000);
    } finally {
      sub.dispose();
    }
    assert.ok(fired.includes(session), 'the row was redrawn');
    assert.ok(!fired.includes(undefined), 'the tree was not redrawn from the top');
    fs.rmSync(dir, { recursive: true, force: true });
    provider().refresh();
  });
});
