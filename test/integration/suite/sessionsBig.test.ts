// Issue 11 in the Sessions view: a big session expands without stalling the extension host (the
// view asks the model worker for its rows; the host never parses the file), a run of a hundred
// thousand entries shows in pages with a "Show N more…" row, and collapsing a session row while
// its load runs cancels the load in the worker.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { SessionLoomApi } from '../../../src/extension/extension';
import type { LoomNode, PeekNode, RunNode, SessionNode } from '../../../src/extension/sessions/nodes';
import { IndexCache } from '../../../src/core/engine/xcsh/lazy/indexCache';
import { frameText, harnessAvailable, screenshot } from './harness';
import { activate, relistSessions, revealRow, sleep, until } from './util';

const PROJECT = '--work-loom-big--';

describe('Sessions view: big sessions load in the model worker (issue 11)', function () {
  this.timeout(300_000);
  let api: SessionLoomApi;
  const provider = () => api.sessions.provider;
  const tv = () => api.sessions.treeView;
  const label = (n: LoomNode): string => {
    const l = provider().getTreeItem(n).label;
    return typeof l === 'string' ? l : (l?.label ?? '');
  };
  const dir = path.join(os.homedir(), '.xcsh', 'agent', 'sessions', PROJECT);

  /** Writes a bench session of `entries` entries into the project (by a process of its own, so its garbage is not this host's). */
  function generate(name: string, entries: number): string {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name);
    execFileSync(process.execPath, [path.join(__dirname, '..', 'generateSession.js'), file, String(entries)], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: 'ignore' });
    return file;
  }

  async function sessionNode(file: string): Promise<SessionNode> {
    await relistSessions(api);
    const s = await provider().findSession(file);
    assert.ok(s, `${file} is listed`);
    return s;
  }

  const heldHere = async (file: string): Promise<boolean> => (await api.sessions.models.held()).some((h) => h.path === file);

  before(async () => {
    api = await activate();
    await provider().setFilter('default');
    await provider().setSearch('');
    await vscode.commands.executeCommand('workbench.view.extension.sessionLoom');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * Expands a generated session while a timer in this extension host measures how late its event
   * loop runs (the figure to hold: max ≤ 50 ms, p99 ≤ 20 ms); prints the figures and fails only
   * on a gross stall, so a busy machine does not fail it.
   */
  async function expandBig(entries: number, name: string, sizeLabel: string): Promise<void> {
    const file = generate(name, entries);
    const size = fs.statSync(file).size;
    const session = await sessionNode(file);
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll');
    // The noise floor of this machine, measured the same way just before.
    const idle = monitorEventLoopDelay({ resolution: 10 });
    idle.enable();
    await sleep(3_000);
    idle.disable();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = Date.now();
    // As the user does: the row expands (VS Code asks the provider for its rows).
    await tv().reveal(session, { expand: true, select: false, focus: false });
    // Tail-first (issue 23): until the worker has read the file, the row shows that it is being
    // read and the latest messages of the branch it ends on, read from the end of the file.
    const early = provider().models.peek(file) ? null : await provider().getChildren(session);
    let firstRows = NaN;
    if (harnessAvailable()) {
      await frameText('.part.sidebar .monaco-list-row[aria-level="3"]', { timeoutMs: 60_000 });
      firstRows = Date.now() - t0;
    }
    assert.ok(early, 'the session is still being read when its row expands');
    assert.equal(early[0]?.kind, 'info');
    assert.match(label(early[0]!), /^Reading \d+(\.\d)? MB… its latest messages meanwhile$/);
    const peeked = early.filter((n): n is PeekNode => n.kind === 'peek');
    assert.ok(peeked.length >= 3, `${peeked.length} of its latest messages`);
    // (The file's end only: this host's event loop is being measured.)
    const fd = fs.openSync(file, 'r');
    const tail = Buffer.alloc(256 * 1024);
    const got = fs.readSync(fd, tail, 0, tail.length, Math.max(0, size - tail.length));
    fs.closeSync(fd);
    const lines = tail.toString('utf8', 0, got).trimEnd().split('\n');
    const lastId = (JSON.parse(lines[lines.length - 1]!) as { id: string }).id;
    // Newest first: the file's last entry, the default leaf, heads them.
    assert.equal(peeked[0]!.entryId, lastId);
    assert.ok(peeked[0]!.isLeaf && peeked.slice(1).every((p) => !p.isLeaf));
    // Each peeked message has its entry row's icon: an assistant message calling tools the tools icon (read from the file).
    type Tail = { id?: string; message?: { role?: string; content?: unknown } };
    const tailEntries = new Map<string, Tail>();
    for (const l of lines.slice(1)) {
      const e = JSON.parse(l) as Tail;
      if (typeof e.id === 'string') tailEntries.set(e.id, e);
    }
    const iconOf = (n: LoomNode): string => (provider().getTreeItem(n).iconPath as vscode.ThemeIcon).id;
    let withTools = 0;
    for (const p of peeked.slice(1)) {
      const m = tailEntries.get(p.entryId)?.message;
      assert.ok(m, `entry ${p.entryId} is in the file's last 256 KB`);
      const calls = m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b: { type?: string }) => b.type === 'toolCall');
      if (calls) withTools++;
      assert.equal(iconOf(p) === 'tools', calls, `the icon of ${p.entryId} (${m.role}): ${iconOf(p)}`);
    }
    assert.ok(withTools > 0, 'an assistant message that calls tools among the latest messages');
    if (harnessAvailable()) await screenshot(`sessions-big-session-reading-${sizeLabel}`);
    let rows: LoomNode[] = [];
    await until(async () => {
      rows = provider().models.peek(file) ? await provider().getChildren(session) : [];
      return rows.some((n) => n.kind === 'run' || n.kind === 'entry');
    }, 'the branch rows of the big session', 240_000);
    if (harnessAvailable()) await frameText('.part.sidebar .monaco-list-row[aria-level="3"]', { timeoutMs: 60_000 });
    const expanded = Date.now() - t0;
    // The longest run, expanded.
    const run = rows.filter((n): n is RunNode => n.kind === 'run').sort((a, b) => b.facts.count - a.facts.count)[0];
    assert.ok(run, `a run among ${rows.map((n) => n.kind).join(', ')}`);
    const t1 = Date.now();
    await tv().reveal(run, { expand: true, select: false, focus: false });
    const page = await provider().getChildren(run);
    const runRows = Date.now() - t1;
    delay.disable();
    const ms = (ns: number): string => (ns / 1e6).toFixed(1);
    console.log(
      `[perf] Sessions view, ${sizeLabel}-entry session (${(size / 1e6).toFixed(1)} MB): expand → first rows on screen (its latest messages, from the end of the file) ${firstRows} ms; → branch rows ${expanded} ms; expand its ${run.facts.count}-entry run → its rows ${runRows} ms; ` +
        `extension host event-loop delay: max ${ms(delay.max)} ms, p99 ${ms(delay.percentile(99))} ms, mean ${ms(delay.mean)} ms ` +
        `(idle host, 3 s just before: max ${ms(idle.max)} ms, p99 ${ms(idle.percentile(99))} ms)`,
    );
    assert.equal(page.length, Math.min(run.facts.count, 500) + (run.facts.count > 500 ? 1 : 0));
    if (harnessAvailable()) await screenshot('sessions-big-session-expanded');
    // The branch rows replaced the latest messages.
    assert.ok(!(await provider().getChildren(session)).some((n) => n.kind === 'peek' || n.kind === 'info'));
    // A click on one of those rows opened the editor at it (the default leaf's context).
    await vscode.commands.executeCommand('sessionLoom.openRow', peeked[1]);
    await until(() => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputCustom && t.input.uri.fsPath === file)), 'the session editor open at a peeked message', 60_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // The host thread never parses the session (the model worker does): a stall this long means
    // something loaded it on the host again.
    assert.ok(delay.max < 500e6, `the extension host's event loop stalled for ${ms(delay.max)} ms`);
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll');
    // Expanded again after a Refresh (which lets go of every session): its index comes from the
    // cache the first opening wrote (big sessions only: ≥ 16 MB), not from another pass.
    const cacheDir = api.sessions.models.indexCacheDir;
    assert.ok(cacheDir, 'the extension gives the worker an index cache folder');
    const cached = new IndexCache(cacheDir).fileFor(file);
    await until(() => fs.existsSync(cached), 'the index of the big session in the cache folder', 60_000);
    const relisted = await sessionNode(file);
    await until(async () => !(await heldHere(file)), 'the worker letting the session go', 60_000);
    // Marked old: an open that uses it marks it used; a full pass would write a new file (a new inode).
    fs.utimesSync(cached, new Date(0), new Date(0));
    const cachedIno = fs.statSync(cached).ino;
    await sleep(1_000);
    const again = monitorEventLoopDelay({ resolution: 10 });
    again.enable();
    const t2 = Date.now();
    await revealRow(tv(), relisted, { expand: true, select: false, focus: false });
    await until(async () => (provider().models.peek(file) ? await provider().getChildren(relisted) : []).some((n) => n.kind === 'run' || n.kind === 'entry'), 'the branch rows again', 240_000);
    if (harnessAvailable()) await frameText('.part.sidebar .monaco-list-row[aria-level="3"]', { timeoutMs: 60_000 });
    const expandedAgain = Date.now() - t2;
    again.disable();
    assert.equal(fs.statSync(cached).ino, cachedIno, 'the cache file was not written again');
    assert.ok(fs.statSync(cached).mtimeMs > 0, 'the open used the cached index (and marked it used)');
    console.log(`[perf] Sessions view, ${sizeLabel}-entry session expanded again (its index from the cache): branch rows ${expandedAgain} ms; host event-loop delay max ${ms(again.max)} ms, p99 ${ms(again.percentile(99))} ms`);
    assert.ok(again.max < 500e6, `the extension host's event loop stalled for ${ms(again.max)} ms`);
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll');
    // Let go of it: the next test measures its own.
    provider().models.release(file);
    fs.rmSync(file, { force: true });
  }

  it('expands a 100k-entry session without stalling the extension host (event-loop delay, expand → rows)', async () => {
    await expandBig(100_000, '2026-05-01T08-00-00-000Z_b1600000000000a1.jsonl', '100k');
  });

  // 459 MB: generated and expanded only when asked (SESSION_LOOM_PERF_1M=1), for the figures.
  (process.env.SESSION_LOOM_PERF_1M ? it : it.skip)('expands a 1M-entry session without stalling the extension host', async function () {
    this.timeout(900_000);
    await expandBig(1_000_000, '2026-05-01T09-00-00-000Z_b1600000000001m1.jsonl', '1M');
  });

  it('shows a run of 1,600 entries in pages of 500 with a "Show N more…" row, and reveals an entry deep in it', async () => {
    // One linear chain: the whole session is one run.
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, '2026-05-03T08-00-00-000Z_b1600000000000c3.jsonl');
    const id = (i: number) => `c3${String(i).padStart(6, '0')}`;
    const lines = [JSON.stringify({ type: 'session', version: 3, id: 'b1600000000000c3', timestamp: '2026-05-03T08:00:00.000Z', cwd: '/work/loom-big' })];
    for (let i = 0; i < 1600; i++) {
      const message = i % 2 === 0 ? { role: 'user', content: [{ type: 'text', text: `Question ${i} about the long run` }] } : { role: 'assistant', content: [{ type: 'text', text: `Answer ${i}` }] };
      lines.push(JSON.stringify({ type: 'message', id: id(i), parentId: i === 0 ? null : id(i - 1), timestamp: '2026-05-03T08:00:01.000Z', message }));
    }
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const session = await sessionNode(file);
    const [run] = (await provider().getChildren(session)).filter((n): n is RunNode => n.kind === 'run');
    assert.ok(run);
    assert.equal(label(run), 'Question 0 about the long run');
    assert.equal(provider().getTreeItem(run).description, '1600 entries · current branch');
    await revealRow(tv(), session, { expand: true, select: false, focus: false });
    await revealRow(tv(), run, { expand: true, select: false, focus: false });
    const page = await provider().getChildren(run);
    assert.equal(page.length, 501, 'a page of 500 entries and the "Show more" row');
    assert.deepEqual(page.slice(0, 3).map((n) => n.kind === 'entry' && n.entryId), [id(0), id(1), id(2)]);
    const more = page[500]!;
    assert.equal(more.kind, 'more');
    assert.equal(label(more), 'Show 500 more… (1.1k not shown)');
    const item = provider().getTreeItem(more);
    assert.equal(item.command?.command, 'sessionLoom.showMoreEntries', 'a click or Enter shows the next page');
    if (harnessAvailable()) {
      await revealRow(tv(), more, { select: false, focus: false });
      await frameText('.part.sidebar .monaco-list-row:has-text("Show 500 more")', { timeoutMs: 30_000 });
      await screenshot('sessions-run-show-more');
    }
    await vscode.commands.executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    const next = await provider().getChildren(run);
    assert.equal(next.length, 1001);
    assert.deepEqual(next.slice(0, 500), page.slice(0, 500), 'the first page stays, the same nodes');
    assert.equal(label(next[1000]!), 'Show 500 more… (600 not shown)');
    if (harnessAvailable()) {
      await revealRow(tv(), next[1000]!, { select: false, focus: false });
      await frameText('.part.sidebar .monaco-list-row:has-text("600 not shown")', { timeoutMs: 30_000 });
    }
    // Copy Ids: every id of the run, in order.
    assert.deepEqual(await provider().runEntryIds(run), Array.from({ length: 1600 }, (_, i) => id(i)));
    // Reveal an entry beyond the pages shown: the run shows the pages down to it.
    const node = await provider().nodeForEntry(file, id(1550));
    assert.equal(node?.entryId, id(1550));
    assert.equal(node?.parent, run);
    const all = await provider().getChildren(run);
    assert.equal(all.length, 1600, 'every page shown, no "more" row left');
    assert.ok(all.includes(node!));
    // And the view's own reveal selects it there (VS Code must know the run's new rows first).
    const fresh = path.join(dir, '2026-05-03T08-00-00-000Z_b1600000000000c4.jsonl');
    fs.writeFileSync(fresh, lines.map((l) => l.replace(/b1600000000000c3/g, 'b1600000000000c4').replace(/"c3(\d{6})"/g, '"c4$1"')).join('\n') + '\n');
    const freshSession = await sessionNode(fresh);
    const freshRun = (await provider().getChildren(freshSession)).find((n): n is RunNode => n.kind === 'run')!;
    await revealRow(tv(), freshSession, { expand: true, select: false, focus: false });
    await revealRow(tv(), freshRun, { expand: true, select: false, focus: false });
    await vscode.commands.executeCommand('sessionLoom.revealEntry', vscode.Uri.file(fresh), 'c4001400');
    await until(async () => tv().selection.some((n) => n.kind === 'entry' && n.entryId === 'c4001400'), 'the entry 1,400 rows down the run is selected in the view', 45_000);
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll');
  });

  it('collapsing a session row while its session loads cancels the load in the model worker; expanding it again loads it', async () => {
    const file = generate('2026-05-02T08-00-00-000Z_b1600000000000b2.jsonl', 300_000);
    const session = await sessionNode(file);
    assert.equal(await heldHere(file), false);
    // Expanded (selected and focused, so the list's own collapse command acts on it), and
    // collapsed as soon as the view has started the load: a 300k-entry load takes seconds.
    // (A reveal that expands resolves only once the rows are there: the list expands it instead.
    // The listing was just refreshed: a reveal racing the redraw is dropped, so try again.)
    for (let attempt = 0; !provider().models.isKnown(file); attempt++) {
      await tv().reveal(session, { expand: false, select: true, focus: true }).then(
        () => vscode.commands.executeCommand('list.expand'),
        () => undefined,
      );
      for (let i = 0; i < 50 && !provider().models.isKnown(file); i++) await sleep(50);
      assert.ok(attempt < 10, 'the view never started to open the session');
    }
    assert.equal(provider().models.peek(file), undefined, 'still loading');
    await vscode.commands.executeCommand('list.collapse');
    await until(async () => !(await heldHere(file)), 'the worker letting the cancelled load go', 30_000);
    assert.equal(provider().models.isKnown(file), false, 'the view forgot the cancelled load');
    // Expanded again: a new load, and the rows.
    await revealRow(tv(), session, { expand: true, select: false, focus: false });
    await until(async () => (await provider().getChildren(session)).some((n) => n.kind === 'run' || n.kind === 'entry'), 'the rows after expanding again', 240_000);
    assert.equal(await heldHere(file), true);
    assert.deepEqual(provider().models.holdsOf(file), ['expanded']);
    // "Collapse All" collapses every row through VS Code's own tree: the view hears of each and
    // stops holding the session (it stays open only as one of the few idle ones, to be let go).
    await vscode.commands.executeCommand('workbench.actions.treeView.sessionLoom.sessions.collapseAll');
    await until(async () => provider().models.holdsOf(file).length === 0, 'Collapse All releasing the expanded session', 10_000);
  });
});
