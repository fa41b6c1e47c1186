// deepseek-harness logs in the real VS Code (issue 10): the Sessions view lists a dsh root holding
// a raw and a zstd log and a dsh SQLite store; opening one shows its context with the message count
// the CLI reports; an interrupted log shows its synthetic closers marked. The world comes from
// test/helpers/dshWorld.ts (built into the fake home by workspace.mjs).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import type { ProjectNode, SessionNode } from '../../../src/extension/sessions/nodes';
import { frameText, harnessAvailable, screenshot } from './harness';
import { activate, closeAllEditors, EXTENSION_ID, until, useTheme, VIEW_TYPE } from './util';

interface DshWorld {
  root: string;
  raw: string;
  zstd: string;
  interrupted: string;
  store: string;
}

function world(): DshWorld {
  return (JSON.parse(fs.readFileSync(path.join(os.homedir(), 'session-loom-test-manifest.json'), 'utf8')) as { dsh: DshWorld }).dsh;
}

function cli(...args: string[]): { messages: unknown[] } {
  const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
  const out = execFileSync(process.execPath, [path.join(ext.extensionPath, 'dist', 'cli.js'), ...args], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out.toString('utf8')) as { messages: unknown[] };
}

const app = (file: string) => `#app[data-session-file="${path.basename(file)}"][data-state="ready"]`;

/** The message count the preview's title states ("… · 5 messages · …"). */
async function previewCount(file: string): Promise<number> {
  const text = await frameText(`${app(file)} .sl-runtime-title`, { timeoutMs: 30_000 });
  const m = /(\d+) messages?\b/.exec(text);
  assert.ok(m, text);
  return Number(m[1]);
}

describe('deepseek-harness logs (issue 10)', function () {
  this.timeout(180_000);
  let api: SessionLoomApi;
  const provider = () => api.sessions.provider;

  before(async () => {
    api = await activate();
    await provider().setFilter('default');
    await provider().setSearch('');
    await vscode.workspace.getConfiguration('sessionLoom').update('dshStores', [world().store], vscode.ConfigurationTarget.Global);
    provider().refresh();
  });
  after(async () => {
    await vscode.workspace.getConfiguration('sessionLoom').update('dshStores', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Global);
    await closeAllEditors();
  });

  it('lists the raw and zstd logs under their project (the header cwd) and the store as a row of its own', async () => {
    const w = world();
    const projects = (await provider().getChildren()) as ProjectNode[];
    const project = projects.find((p) => p.kind === 'project' && p.info.label === '/work/dsh-demo');
    assert.ok(project, `a /work/dsh-demo project among ${projects.map((p) => p.kind === 'project' ? p.info.label : p.kind).join(', ')}`);
    const sessions = (await provider().getChildren(project)) as SessionNode[];
    const files = sessions.map((s) => s.file);
    for (const f of [w.raw, w.zstd, w.interrupted]) assert.ok(files.includes(f), `${f} listed`);
    for (const s of sessions) {
      assert.equal(s.meta.format, 'dsh');
      const item = provider().getTreeItem(s);
      assert.match(String(item.contextValue), /\bdsh\b/);
      assert.doesNotMatch(String(item.contextValue), /\bwritable\b/, 'a dsh row offers no write command');
    }
    const store = projects.find((p) => p.kind === 'project' && p.info.dir === w.store);
    assert.ok(store, 'the dsh store is a row');
    const stored = (await provider().getChildren(store)) as SessionNode[];
    assert.deepEqual(stored.map((s) => s.meta.store?.session), ['dsh-stored']);
    // the row's message count comes from a full read, as the editor's header
    const zstdRow = sessions.find((s) => s.file === w.zstd)!;
    await until(() => /\d+ msgs?\b/.test(String(provider().getTreeItem(zstdRow).description)), 'a message count on the zstd row', 30_000);
    assert.match(String(provider().getTreeItem(zstdRow).description), /\b5 msgs\b/);
  });

  it('opens a zstd log: the preview shows as many messages as `session-loom context`, the compaction replacement first', async function () {
    if (!harnessAvailable()) this.skip();
    const w = world();
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(w.zstd), VIEW_TYPE);
    assert.equal(await previewCount(w.zstd), cli('context', w.zstd).messages.length);
    const header = await frameText(`${app(w.zstd)} .sl-header`);
    assert.match(header, /\bdsh\b/);
    assert.match(header, /Complete/);
    const band = await frameText(`${app(w.zstd)} .sl-band`);
    assert.match(band, /1 entry not sent/);
    await screenshot('dsh-editor-compaction-dark');
    await useTheme('Default Light Modern');
    await screenshot('dsh-editor-compaction-light');
    await useTheme('Default Dark Modern');
  });

  it('opens a session of the dsh store from its row', async function () {
    if (!harnessAvailable()) this.skip();
    const w = world();
    const store = ((await provider().getChildren()) as ProjectNode[]).find((p) => p.kind === 'project' && p.info.dir === w.store)!;
    const [session] = (await provider().getChildren(store)) as SessionNode[];
    await vscode.commands.executeCommand('sessionLoom.openRow', session);
    assert.equal(await previewCount(w.store), cli('context', w.store, '--session', 'dsh-stored').messages.length);
  });

  it('shows an interrupted log with its synthetic closers marked, in the tree and in the context', async function () {
    if (!harnessAvailable()) this.skip();
    const w = world();
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(w.interrupted), VIEW_TYPE);
    assert.equal(await previewCount(w.interrupted), cli('context', w.interrupted).messages.length);
    const header = await frameText(`${app(w.interrupted)} .sl-header`);
    assert.match(header, /Interrupted/);
    const messages = await frameText(`${app(w.interrupted)} .sl-messages`);
    assert.match(messages, /synthetic/);
    const tree = await frameText(`${app(w.interrupted)} .sl-tree-list`);
    assert.match(tree, /synthetic/);
    await screenshot('dsh-editor-interrupted-dark');
  });
});
