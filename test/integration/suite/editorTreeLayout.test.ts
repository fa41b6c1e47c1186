// Issue 14, point 2: selecting an entry on another branch of the editor's branch tree must not
// move any row. The selected path is highlighted instead, and the list does not scroll, so the
// row the user clicked stays under the pointer. Read from the webview's DOM in the real VS Code.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { click, frameEval, frameText, harnessAvailable, moveMouse, screenshot } from './harness';
import { activate, closeAllEditors, editorApp, sleep, VIEW_TYPE } from './util';

/**
 * A long main line (150 entries) with a side branch of 6 entries forking at its 41st entry,
 * written before the rest of the main line (so the default leaf, the last entry, ends the main line).
 */
function longForkedSession(): string {
  const t0 = Date.parse('2026-02-02T10:00:00.000Z');
  const lines: object[] = [{ type: 'session', version: 3, id: '7ee1a40000000001', timestamp: new Date(t0).toISOString(), cwd: '/work/tree-layout' }];
  let n = 0;
  const entry = (id: string, parentId: string | null, i: number, branch: string) => {
    const role = i % 2 === 0 ? 'user' : 'assistant';
    const text = role === 'user' ? `${branch} step ${i}: change the parser` : `${branch} step ${i} is done.`;
    const message = role === 'user' ? { role, content: [{ type: 'text', text }] } : { role, content: [{ type: 'text', text }], provider: 'anthropic', model: 'claude-sonnet-4-5' };
    lines.push({ type: 'message', id, parentId, timestamp: new Date(t0 + ++n * 1000).toISOString(), message });
  };
  const main = (i: number) => `a${String(i).padStart(7, '0')}`;
  const side = (i: number) => `b${String(i).padStart(7, '0')}`;
  for (let i = 0; i <= 40; i++) entry(main(i), i === 0 ? null : main(i - 1), i, 'Main');
  for (let i = 0; i < 6; i++) entry(side(i), i === 0 ? main(40) : side(i - 1), i, 'Side');
  for (let i = 41; i < 150; i++) entry(main(i), main(i - 1), i, 'Main');
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

type RowPlace = { id: string; top: number; indent: number }[];

describe('session editor: the branch tree holds still when the selection moves (issue 14.2)', function () {
  this.timeout(120_000);

  before(async function () {
    if (!harnessAvailable()) this.skip();
    await activate();
  });
  after(closeAllEditors);

  it('a click on a row of another branch highlights its path; no row moves, the clicked one stays under the pointer', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-tree-layout-'));
    const file = path.join(dir, 'tree-layout.jsonl');
    fs.writeFileSync(file, longForkedSession());
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), VIEW_TYPE);
    const tree = `${editorApp(file)} .sl-tree-list`;
    await frameText(`${editorApp(file)} .sl-messages[data-leaf-id="a0000149"]`, { timeoutMs: 30_000 });
    // The side branch sits after its fork point, one level deeper; bring it to the middle.
    await frameText(`${tree} .sl-tree-row[data-entry-id]`);
    await frameEval(tree, "el.scrollTop = 30 * 24 - el.clientHeight / 2 + 12 * 24; return true;");
    const target = 'b0000003';
    await frameText(`${tree} .sl-tree-row[data-entry-id="${target}"]`, { timeoutMs: 10_000 });
    await sleep(300);
    const rows = (): Promise<RowPlace> =>
      frameEval<RowPlace>(tree, "return [...el.querySelectorAll('.sl-tree-row[data-entry-id]')].map((r) => ({ id: r.dataset.entryId, top: Math.round(r.getBoundingClientRect().top), indent: r.querySelector('.sl-indent').getBoundingClientRect().width })).sort((a, b) => a.top - b.top);");
    const before = await rows();
    const clicked = before.find((r) => r.id === target);
    assert.ok(clicked, `the side-branch row is on screen: ${before.map((r) => r.id).join(' ')}`);
    assert.ok(clicked.indent > 0, 'the side branch is indented');
    await screenshot('editor-branch-switch-before');

    await click(`${tree} .sl-tree-row[data-entry-id="${target}"]`);
    await frameText(`${editorApp(file)} .sl-messages[data-leaf-id="${target}"]`, { timeoutMs: 30_000 });
    await frameText(`${tree} .sl-tree-row.is-selected[data-entry-id="${target}"]`, { timeoutMs: 10_000 });
    await sleep(300);
    const after = await rows();
    assert.deepEqual(after, before, 'every row on screen keeps its place and indentation');
    const under = await frameEval<string | null>(
      `${tree} .sl-tree-row[data-entry-id="${target}"]`,
      'const r = el.getBoundingClientRect(); const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return hit?.closest(".sl-tree-row")?.dataset.entryId ?? null;',
    );
    assert.equal(under, target, 'the clicked row is still under the pointer');
    // The selected path is highlighted: the side branch up to the click, and the main line up to the fork.
    const path0 = await frameEval<string[]>(tree, "return [...el.querySelectorAll('.sl-tree-row.on-path')].map((r) => r.dataset.entryId);");
    for (const id of ['a0000040', 'b0000000', 'b0000003']) assert.ok(path0.includes(id), `${id} is on the highlighted path`);
    for (const id of ['b0000004', 'a0000041']) assert.ok(!path0.includes(id), `${id} is not on the highlighted path`);
    await moveMouse(5, 5);
    await screenshot('editor-branch-switch-after');
  });
});
