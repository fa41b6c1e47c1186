// Issue 12 in the real VS Code: the Prompt History view over a history.db the real sqlite3 CLI
// wrote (rows left in the WAL by a writer killed before it checkpointed), its search and Open in
// Session; and the Sessions view's search through the index worker, from a result row to the
// session editor at that entry. Screenshots in dark and light themes.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import type { HistoryNode } from '../../../src/extension/history/historyView';
import type { LoomNode, SessionNode } from '../../../src/extension/sessions/nodes';
import { click, frameEval, frameText, harnessAvailable, moveMouse, screenshot } from './harness';
import { activate, closeAllEditors, editorApp, revealRow, sleep, until, useTheme } from './util';

const sessionsRoot = () => path.join(os.homedir(), '.xcsh', 'agent', 'sessions');
const historyDb = () => path.join(os.homedir(), '.xcsh', 'agent', 'history.db');
const CWD = '/work/loom-history';
const PROJECT = '--work-loom-history--';
// Noon yesterday (local time, as the view groups days): the prompts T0 and T0 + 10 min fall on one
// day whenever the suite runs (three hours before now split them across midnight between 00:00 and 03:10).
const T0 = (() => {
  const d = new Date();
  d.setDate(d.getDate() - 1);
  d.setHours(12, 0, 0, 0);
  return Math.floor(d.getTime() / 1000);
})();
const iso = (s: number) => new Date(s * 1000).toISOString();
const sq = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Runs sql in Debian's sqlite3, then SIGKILLs it: committed rows stay in the WAL, never checkpointed. */
async function sqliteKilledAfter(db: string, sql: string): Promise<void> {
  const child = spawn('/usr/bin/sqlite3', [db], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('sqlite3 did not answer')), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('__READY__')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('error', reject);
    child.stdin.write(`${sql}\nSELECT '__READY__';\n`);
  });
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGKILL');
  await exited;
}

function sessionWith(id: string, prompts: { text: string; at: number }[], extra: string): string {
  const lines: object[] = [{ type: 'session', version: 3, id, timestamp: iso(prompts[0]!.at - 10), cwd: CWD }];
  let parent: string | null = null;
  prompts.forEach((p, i) => {
    const u = `${id.slice(-4)}u${String(i).padStart(3, '0')}`;
    const a = `${id.slice(-4)}a${String(i).padStart(3, '0')}`;
    lines.push({ type: 'message', id: u, parentId: parent, timestamp: iso(p.at), message: { role: 'user', content: [{ type: 'text', text: p.text }] } });
    lines.push({ type: 'message', id: a, parentId: u, timestamp: iso(p.at + 5), message: { role: 'assistant', content: [{ type: 'text', text: i === 0 ? extra : `Done ${i}.` }], provider: 'anthropic', model: 'claude-sonnet-4-5' } });
    parent = a;
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

describe('prompt history and indexed search (issue 12)', function () {
  this.timeout(180_000);
  let api: SessionLoomApi;
  let sessionFile = '';

  before(async () => {
    api = await activate();
    const dir = path.join(sessionsRoot(), PROJECT);
    fs.mkdirSync(dir, { recursive: true });
    sessionFile = path.join(dir, `${iso(T0).replace(/[:.]/g, '-')}_5ea12c000000a001.jsonl`);
    fs.writeFileSync(
      sessionFile,
      sessionWith('5ea12c000000a001', [
        { text: 'Explain the gallium watchdog', at: T0 },
        { text: 'Now make the watchdog restart itself', at: T0 + 600 },
      ], 'The gallium watchdog polls every second; its quaternion cache'),
    );
    await api.sessions.provider.fileChanged(sessionFile);
    fs.rmSync(historyDb(), { force: true });
    for (const s of ['-wal', '-shm']) fs.rmSync(historyDb() + s, { force: true });
    await sqliteKilledAfter(
      historyDb(),
      `PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
       CREATE TABLE IF NOT EXISTS history (id INTEGER PRIMARY KEY AUTOINCREMENT, prompt TEXT NOT NULL, created_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s','now') AS INTEGER)), cwd TEXT);
       CREATE INDEX IF NOT EXISTS idx_history_created_at ON history(created_at DESC);
       CREATE VIRTUAL TABLE IF NOT EXISTS history_fts USING fts5(prompt, content='history', content_rowid='id');
       CREATE TRIGGER IF NOT EXISTS history_ai AFTER INSERT ON history BEGIN INSERT INTO history_fts(rowid, prompt) VALUES (new.id, new.prompt); END;
       INSERT INTO history(prompt, created_at, cwd) VALUES (${sq('Explain the gallium watchdog')}, ${T0}, ${sq(CWD)});
       INSERT INTO history(prompt, created_at, cwd) VALUES (${sq('Now make the watchdog restart itself')}, ${T0 + 600}, ${sq(CWD)});
       INSERT INTO history(prompt, created_at, cwd) VALUES (${sq('A prompt whose session was deleted')}, ${T0 - 86400 * 2}, ${sq(CWD)});
       INSERT INTO history(prompt, created_at, cwd) VALUES (${sq('Tidy the changelog of another project')}, ${T0 - 86400}, '/work/elsewhere');`,
    );
    assert.ok(fs.statSync(`${historyDb()}-wal`).size > 0, 'the rows are only in the WAL');
  });

  afterEach(async () => {
    await api.history.provider.setQuery('');
    await api.history.provider.setCwd(undefined);
    await api.sessions.provider.setSearch('');
  });

  it('lists the prompts newest first, grouped by day, with the rows still in the WAL', async () => {
    const h = api.history.provider;
    await h.reload();
    assert.equal(h.problem, undefined, h.problem);
    const days = await h.getChildren();
    assert.ok(days.length >= 3, `days: ${days.length}`);
    assert.ok(days.every((d) => d.kind === 'day'));
    const first = await h.getChildren(days[0]);
    const labels = first.map((n) => String((h.getTreeItem(n).label as vscode.TreeItemLabel).label));
    assert.deepEqual(labels.slice(0, 2), ['Now make the watchdog restart itself', 'Explain the gallium watchdog']);
    // Project filter
    await h.setCwd('/work/elsewhere');
    const other = await h.getChildren();
    assert.equal(other.length, 1);
    assert.equal((await h.getChildren(other[0]))[0]!.kind, 'prompt');
    assert.match(api.history.treeView.description ?? '', /elsewhere/);
  });

  it('searches through the FTS5 index (prefix words), copies a prompt, and opens the session at its message', async () => {
    const h = api.history.provider;
    await vscode.commands.executeCommand('sessionLoom.history.search', 'watch');
    const hits = await h.getChildren();
    assert.equal(h.usedFts, true);
    assert.deepEqual(hits.map((n) => (n.kind === 'prompt' ? n.entry.prompt : n.kind)).sort(), ['Explain the gallium watchdog', 'Now make the watchdog restart itself']);
    const item = h.getTreeItem(hits[0]!);
    assert.ok((item.label as vscode.TreeItemLabel).highlights!.length > 0, 'the matching word is highlighted');
    assert.match(api.history.treeView.description ?? '', /“watch” · 2 prompts/);
    const copied = await vscode.commands.executeCommand<string>('sessionLoom.history.copyPrompt', hits[0]);
    assert.equal(await vscode.env.clipboard.readText(), copied);

    const restart = hits.find((n) => n.kind === 'prompt' && n.entry.prompt.startsWith('Now make')) as Extract<HistoryNode, { kind: 'prompt' }>;
    await closeAllEditors();
    const at = await vscode.commands.executeCommand<{ file: string; entryId: string } | undefined>('sessionLoom.history.openInSession', restart);
    assert.deepEqual(at, { file: sessionFile, entryId: 'a001u001' });
    if (harnessAvailable()) {
      await frameText(`${editorApp(sessionFile)} .sl-messages[data-leaf-id="a001u001"]`, { timeoutMs: 30_000 });
      await frameText(`${editorApp(sessionFile)} .sl-tree-row.is-selected[data-entry-id="a001u001"]`, { timeoutMs: 15_000 });
    }

    // A prompt whose session is gone: said plainly, nothing opens.
    const infos: string[] = [];
    const p = api.sessions.prompts;
    const info = p.info;
    p.info = (m) => void infos.push(m);
    try {
      await h.setQuery('deleted');
      const gone = (await h.getChildren())[0]!;
      assert.equal(await vscode.commands.executeCommand('sessionLoom.history.openInSession', gone), undefined);
      assert.match(infos[0] ?? '', /No session under the sessions roots holds this prompt any more/);
    } finally {
      p.info = info;
    }
  });

  it('a damaged history database is one clear sentence in the view, not an error', async () => {
    const h = api.history.provider;
    const saved = fs.readFileSync(historyDb());
    const wal = fs.readFileSync(`${historyDb()}-wal`);
    try {
      fs.writeFileSync(historyDb(), 'not a database at all\n'.repeat(50));
      fs.rmSync(`${historyDb()}-wal`);
      await h.reload();
      assert.match(api.history.treeView.message ?? '', /is not an SQLite database/);
      assert.deepEqual(await h.getChildren(), []);
    } finally {
      fs.writeFileSync(historyDb(), saved);
      fs.writeFileSync(`${historyDb()}-wal`, wal);
      await h.reload();
    }
    assert.equal(api.history.treeView.message, undefined);
  });

  it('the Sessions view searches through the index: phrase and role filter, result row → editor at that entry', async () => {
    const provider = api.sessions.provider;
    await vscode.commands.executeCommand('sessionLoom.search', '"gallium watchdog" role:assistant');
    assert.equal(provider.search.usedIndex, true, 'the index answered (not a scan)');
    const projects = await provider.getChildren();
    const project = projects.find((p) => p.kind === 'project' && p.info.name === PROJECT);
    assert.ok(project, `the project is shown: ${projects.map((p) => p.kind).join(', ')}`);
    const sessions = await provider.getChildren(project);
    const session = sessions.find((s) => s.kind === 'session' && s.file === sessionFile) as SessionNode;
    assert.ok(session);
    assert.match(String(provider.getTreeItem(session).description), /^1 match · /);
    const flatten = async (n: LoomNode): Promise<LoomNode[]> => {
      const out: LoomNode[] = [];
      for (const c of await provider.getChildren(n)) out.push(c, ...(await flatten(c)));
      return out;
    };
    const entries = (await flatten(session)).filter((n) => n.kind === 'entry');
    assert.deepEqual(entries.map((e) => (e.kind === 'entry' ? e.entryId : '')), ['a001a000']);
    const item = provider.getTreeItem(entries[0]!);
    assert.ok(((item.label as vscode.TreeItemLabel).highlights ?? []).length > 0, 'the match is highlighted');
    await closeAllEditors();
    if (harnessAvailable()) {
      await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
      await revealRow(api.sessions.treeView, entries[0]!, { select: false, focus: true, expand: true });
      const row = '.part.sidebar .monaco-list-row:has-text("quaternion cache")';
      await frameText(row, { timeoutMs: 10_000 });
      await moveMouse(900, 700);
      await sleep(300);
      await screenshot('search-indexed-result');
      await click(row);
      await frameText(`${editorApp(sessionFile)} .sl-messages[data-leaf-id="a001a000"]`, { timeoutMs: 30_000 });
      // The jump shows its target (issue 25): the hit's message in view, flashed, the phrase marked in it.
      const hit = `${editorApp(sessionFile)} .sl-msg[data-jumped][data-entry-id="a001a000"]`;
      assert.match(await frameText(`${hit} mark.sl-hit`, { timeoutMs: 15_000 }), /^gallium watchdog$/i);
      const where = await frameEval<{ top: number; bottom: number; listTop: number; listBottom: number }>(
        hit,
        "const r = el.getBoundingClientRect(); const l = el.closest('.sl-messages').getBoundingClientRect(); return { top: r.top, bottom: r.bottom, listTop: l.top, listBottom: l.bottom };",
      );
      assert.ok(where.top < where.listBottom && where.bottom > where.listTop, `the hit's message (${where.top.toFixed(0)}–${where.bottom.toFixed(0)}) is on screen (${where.listTop.toFixed(0)}–${where.listBottom.toFixed(0)})`);
      await screenshot('search-hit-jump');
    } else {
      await vscode.commands.executeCommand('sessionLoom.previewContextAt', vscode.Uri.file(sessionFile), 'a001a000');
    }
    // The index follows the file: an appended entry is found by the next search.
    fs.appendFileSync(sessionFile, JSON.stringify({ type: 'message', id: 'a001z999', parentId: 'a001a001', timestamp: iso(T0 + 900), message: { role: 'user', content: [{ type: 'text', text: 'Add a xylophone alarm' }] } }) + '\n');
    await provider.fileChanged(sessionFile);
    await vscode.commands.executeCommand('sessionLoom.search', 'xylophone');
    const again = await provider.getChildren();
    assert.ok(again.some((p) => p.kind === 'project' && p.info.name === PROJECT), 'the appended entry is found');
  });

  it('the first build of the index shows results as it goes, the newest sessions first, before it ends', async function () {
    this.timeout(240_000);
    // Sessions under roots of their own: an index no search has built yet (one per set of roots).
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-first-build-'));
    const project = path.join(root, '--work-first-build--');
    fs.mkdirSync(project);
    const N = 240;
    const files: string[] = [];
    const matching: string[] = [];
    const base = Date.UTC(2026, 5, 1);
    for (let i = 0; i < N; i++) {
      const id = `f1b${String(i).padStart(13, '0')}`;
      const at = base + i * 3_600_000;
      const lines: object[] = [{ type: 'session', version: 3, id, timestamp: new Date(at).toISOString(), cwd: '/work/first-build', title: `Build session ${i}` }];
      let parent: string | null = null;
      for (let m = 0; m < 120; m++) {
        const eid = `${String(i).padStart(4, '0')}${String(m).padStart(4, '0')}`;
        const word = i % 3 === 0 && m === 60 ? ' the ptarmigan nests here' : '';
        const text = `Step ${m} of session ${i}: reading the parser, the lexer and the renderer once more${word}. `.repeat(8);
        lines.push({ type: 'message', id: eid, parentId: parent, timestamp: new Date(at + m * 1000).toISOString(), message: { role: m % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }] } });
        parent = eid;
      }
      const file = path.join(project, `${new Date(at).toISOString().replace(/[:.]/g, '-')}_${id}.jsonl`);
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      fs.utimesSync(file, new Date(at), new Date(at));
      files.push(file);
      if (i % 3 === 0) matching.push(file);
    }
    const config = vscode.workspace.getConfiguration('sessionLoom');
    const before = config.inspect<string[]>('sessionRoots')?.globalValue;
    const provider = api.sessions.provider;
    try {
      await config.update('sessionRoots', [root], vscode.ConfigurationTarget.Global);
      provider.refresh();
      await until(async () => (await provider.findSession(files[0]!)) !== undefined, 'the new root is listed');
      await closeAllEditors();
      await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
      // Watched as a user sees it: the view's matches while its status still says "searching".
      const seen: { scanned: number; total: number; found: string[] }[] = [];
      let ended = false;
      const search = Promise.resolve(vscode.commands.executeCommand('sessionLoom.search', 'ptarmigan')).finally(() => {
        ended = true;
      });
      while (!ended) {
        const s = provider.search.status;
        if (s?.state === 'running' && s.scanned < s.total) {
          const found = matching.filter((f) => provider.search.hitOf(f) !== undefined);
          if (found.length > 0) {
            seen.push({ scanned: s.scanned, total: s.total, found });
            // The user stops the build here (the view's Stop button): what it indexed stays searched.
            if (seen.length === 1) await vscode.commands.executeCommand('sessionLoom.stopSearch');
          }
        }
        await sleep(5);
      }
      await search;
      assert.ok(seen.length > 0, 'results showed while the first build ran');
      const first = seen[0]!;
      console.log(`[search] first results while building: ${first.found.length} of ${matching.length} matching sessions after ${first.scanned} of ${first.total} read`);
      assert.ok(first.found.length < matching.length, 'before every session was indexed');
      // Newest first: what showed first is the newest of the matching sessions.
      assert.deepEqual(first.found, matching.slice(matching.length - first.found.length));
      const stopped = provider.search.status!;
      assert.equal(stopped.state, 'stopped');
      const kept = matching.filter((f) => provider.search.hitOf(f) !== undefined);
      assert.ok(kept.length >= first.found.length && kept.length < matching.length, `stopped with ${kept.length} of ${matching.length}`);
      assert.deepEqual(kept, matching.slice(matching.length - kept.length), 'stopped: the newest matching sessions, searched in what the build indexed');
      assert.equal(stopped.matched, kept.length);
      await revealRow(api.sessions.treeView, (await provider.findSession(matching[matching.length - 1]!))!, { select: false, focus: false, expand: false });
      await frameText(`.part.sidebar .monaco-list-row:has-text("Build session ${N - 1 - ((N - 1) % 3)}")`, { timeoutMs: 10_000 });
      await moveMouse(900, 700);
      await sleep(300);
      await screenshot('search-first-build-stopped');
      // Searched again, the build goes on from where it stopped, and every match is found.
      await vscode.commands.executeCommand('sessionLoom.search', 'ptarmigan');
      assert.equal(provider.search.status?.state, 'done');
      assert.equal(provider.search.status?.matched, matching.length);
      assert.ok(matching.every((f) => provider.search.hitOf(f) !== undefined), 'the end result has every matching session');
    } finally {
      await provider.setSearch('');
      await config.update('sessionRoots', before, vscode.ConfigurationTarget.Global);
      provider.refresh();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('takes screenshots of the Prompt History view in dark and light themes', async function () {
    if (!harnessAvailable()) this.skip();
    await closeAllEditors();
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
    await vscode.commands.executeCommand('sessionLoom.history.focus');
    await api.history.provider.setQuery('watch');
    await until(async () => (await api.history.provider.getChildren()).length === 2, 'two results');
    await frameText('.part.sidebar .monaco-list-row:has-text("gallium watchdog")', { timeoutMs: 10_000 });
    await moveMouse(900, 700);
    const config = vscode.workspace.getConfiguration('workbench');
    try {
      await useTheme('Default Dark Modern');
      assert.ok(fs.statSync(await screenshot('history-search-dark')).size > 10_000);
      await api.history.provider.setQuery('');
      await sleep(500);
      await useTheme('Default Light Modern');
      assert.ok(fs.statSync(await screenshot('history-days-light')).size > 10_000);
    } finally {
      await config.update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
