// The Sessions view's branch rows of Claude Code transcripts and Codex rollouts (issue 24: the same
// engine and UI as the others): segments, runEntries, revealPath and searchHit answer the tree the
// model's editor tree shows — the same entries, each under the entry it hangs from, the same row
// texts, the default leaf's line first — on the real fixtures of test/fixtures/claude-code and
// test/fixtures/codex, and on generated transcripts for what they lack (a rewind, a rollback, a
// run longer than a page).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClaudeModel } from '../../src/core/engine/claude/claudeModel';
import { CodexModel } from '../../src/core/engine/codex/codexModel';
import type { BranchQuery, BranchSegment, RunEntry, SessionModel } from '../../src/core/engine/model';
import { sessionReader } from '../../src/core/engine/openModel';
import { RUN_TITLE_MAX, shortenPreview } from '../../src/core/engine/xcsh/branchQueries';
import { RUN_PAGE } from '../../src/extension/sessions/branchNodes';
import type { TreeFilter, TreeRow } from '../../src/protocol/messages';
import { Build, disagreeingLeaves, text, toolUse, writeLines } from '../helpers/claudeBuild';
import * as cx from '../helpers/codexBuild';
import { fixture, fixtureFiles } from '../helpers/fixtures';

const FILTERS: TreeFilter[] = ['default', 'no-tools', 'user-only', 'labelled-only', 'all'];

const SPOTTER = fixture('claude-code', 'spotter', '258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const VIEWER_ROOTS = fixture('claude-code', 'claude-code-viewer', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
const VIEWER_INLINE = fixture('claude-code', 'claude-code-viewer', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');
const CODEX_IDE = fixture('codex', 'agentcmd', 'rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl');

interface Listed {
  id: string;
  /** The entry the row hangs from in the Sessions view (null: the session row). */
  parent: string | null;
  row: TreeRow;
  /** The run that lists it (null: a segment of its own) and its place there. */
  run: { firstId: string; at: number } | null;
}

/** Every entry row of the Sessions view's tree, walked as the view expands it (runs read in pages of RUN_PAGE). */
async function sessionsRows(m: SessionModel, q: BranchQuery): Promise<Listed[]> {
  const out: Listed[] = [];
  const visit = async (under: string | null): Promise<void> => {
    for (const seg of await m.segments!(q, under)) {
      if (seg.kind === 'entry') {
        out.push({ id: seg.id, parent: under, row: seg.row, run: null });
        if (seg.hasBranches) await visit(seg.id);
        continue;
      }
      const entries: RunEntry[] = [];
      while (entries.length < seg.count) {
        const page = await m.runEntries!(q, seg.firstId, entries.length, RUN_PAGE);
        assert.ok(page.length > 0 && page.length <= RUN_PAGE, `a page of run ${seg.firstId}`);
        entries.push(...page);
      }
      assert.equal(entries.length, seg.count, `run ${seg.firstId} holds what it says`);
      assert.equal(entries[0]!.id, seg.firstId);
      assert.equal(entries[entries.length - 1]!.id, seg.lastId);
      entries.forEach((e, k) => out.push({ id: e.id, parent: k === 0 ? under : entries[k - 1]!.id, row: e.row, run: { firstId: seg.firstId, at: k } }));
      const last = entries[entries.length - 1]!;
      if (last.hasBranches) await visit(last.id);
    }
  };
  await visit(null);
  return out;
}

async function editorRows(m: SessionModel, filter: TreeFilter, search: string): Promise<TreeRow[]> {
  return (await m.tree({ filter, search, leafId: null, focusEntryId: null, start: 0, count: 1_000_000 })).rows;
}

/** What both views show of a row, whatever its place: the Sessions view lays the rows out flat. */
const shownOf = (r: TreeRow) => ({ entryId: r.entryId, kind: r.kind, text: r.text, label: r.label, timestamp: r.timestamp, isLeaf: r.isLeaf, isDefaultLeaf: r.isDefaultLeaf });

/** Every listed row is revealed where it is listed; a hidden entry at the row the editor selects for it. */
async function checkReveal(m: SessionModel, q: BranchQuery, listed: readonly Listed[]): Promise<void> {
  for (const l of listed.filter((_, k) => k % Math.max(1, Math.floor(listed.length / 60)) === 0)) {
    const found = await m.revealPath!(q, l.id);
    assert.ok(found, `reveal ${l.id}`);
    assert.equal(found.target, l.id, `a shown entry is its own target (${l.id})`);
    const step = found.chain[found.chain.length - 1]!;
    if (l.run) assert.deepEqual([step.kind, step.firstId, step.at], ['run', l.run.firstId, l.run.at], `reveal ${l.id} through its run`);
    else assert.deepEqual([step.kind, step.firstId], ['entry', l.id]);
    for (let k = 1; k < found.chain.length; k++) assert.ok(listed.some((x) => x.id === found.chain[k]!.under), 'each step hangs from a listed entry');
  }
  assert.equal(await m.revealPath!(q, 'no-such-entry'), null);
}

// ---------- Claude Code ----------

/** The entry a record hangs from in the tree the editor shows: its nearest display ancestor the filter shows. */
function claudeParentOf(m: ClaudeModel, id: string, shown: ReadonlySet<string>): string | null {
  const { transcript: t, tree } = m.session;
  const pos = t.byUuid.get(id);
  if (pos === undefined) return null; // a side record: a root of its own
  for (let p = tree.displayParent[pos]!; p >= 0; p = tree.displayParent[p]!) {
    const uuid = t.records[p]!.uuid;
    if (shown.has(uuid)) return uuid;
  }
  return null;
}

async function checkClaude(m: ClaudeModel, searches: string[] = []): Promise<void> {
  const defaultLeaf = await m.defaultLeaf();
  for (const search of ['', ...searches]) {
    for (const filter of FILTERS) {
      const q = { filter, search };
      const what = `${filter} "${search}"`;
      const editor = await editorRows(m, filter, search);
      const listed = await sessionsRows(m, q);
      const shown = new Set(editor.map((r) => r.entryId));
      assert.equal(listed.length, editor.length, `${what}: the Sessions view lists every row of the editor's tree, once`);
      assert.deepEqual(new Set(listed.map((l) => l.id)), shown, `${what}: the same entries`);
      const byId = new Map(editor.map((r) => [r.entryId, r]));
      for (const l of listed) {
        assert.deepEqual(shownOf(l.row), shownOf(byId.get(l.id)!), `${what}: row ${l.id}`);
        assert.equal(l.parent, claudeParentOf(m, l.id, shown), `${what}: ${l.id} hangs from its nearest shown ancestor`);
      }
      assert.equal((await m.searchHit!(q)).entryMatches, editor.length, `${what}: the search's count`);
      // The default leaf's line is what the rows show first: following every first row from the
      // top passes through it (under "all", the hook lines written after it hang below it).
      if (defaultLeaf !== null && shown.has(defaultLeaf)) {
        const line: string[] = [];
        for (let under: string | null = null; ; ) {
          const first: BranchSegment | undefined = (await m.segments!(q, under))[0];
          if (!first) break;
          const seg: { id: string; hasBranches: boolean }[] = first.kind === 'entry' ? [first] : await m.runEntries!(q, first.firstId, 0, first.count);
          assert.ok(first.kind === 'entry' ? first.row.onPath : first.onActivePath, `${what}: the first row under ${under} is on the default leaf's line`);
          line.push(...seg.map((e) => e.id));
          const end = seg[seg.length - 1]!;
          if (!end.hasBranches) break;
          under = end.id;
        }
        assert.ok(line.includes(defaultLeaf), `${what}: the first line goes through the default leaf`);
        if (filter !== 'all') assert.equal(line[line.length - 1], defaultLeaf, `${what}: and ends there`);
      }
      await checkReveal(m, q, listed);
    }
  }
}

test('Claude Code: branch rows in the Sessions view are on for Claude Code and Codex sessions (their readers say so), still off for dsh logs', () => {
  assert.equal(sessionReader('claude').branchRowsInView, true);
  assert.equal(sessionReader('codex').branchRowsInView, true);
  assert.equal(sessionReader('dsh').branchRowsInView, false);
});

test('Claude Code (spotter, 18 parallel-tool side branches and an auto compaction): the Sessions rows are the editor tree under every filter and a search — same entries and rows, each under its shown display parent, the default leaf first', async () => {
  const m = await ClaudeModel.open(SPOTTER);
  try {
    const top = await m.segments!({ filter: 'default', search: '' }, null);
    // The compaction boundary starts a root of its own in the file, shown under its logical parent (A.5): one line from the top.
    assert.ok(top.length >= 1);
    await checkClaude(m, ['pytest']);
    // Forks: entries with more than one shown child, listed with their branch count.
    const listed = await sessionsRows(m, { filter: 'all', search: '' });
    const kids = new Map<string | null, number>();
    for (const l of listed) kids.set(l.parent, (kids.get(l.parent) ?? 0) + 1);
    assert.ok([...kids.values()].filter((n) => n > 1).length >= 18, 'the parallel results branch off their calls');
  } finally {
    m.dispose();
  }
});

test('Claude Code (claude-code-viewer, three roots and inline sidechains under their Task calls): the Sessions rows are the editor tree; the sidechain rows hang from the Task call', async () => {
  for (const file of [VIEWER_ROOTS, VIEWER_INLINE]) {
    const m = await ClaudeModel.open(file);
    try {
      await checkClaude(m, ['task']);
      const { tree, transcript } = m.session;
      const listed = await sessionsRows(m, { filter: 'all', search: '' });
      assert.ok(tree.inlineSidechains.length > 0);
      for (const s of tree.inlineSidechains) {
        const root = listed.find((l) => l.id === transcript.records[s.rootPos]!.uuid)!;
        assert.ok(root, 'the sidechain is listed');
        assert.match(root.row.label ?? '', /subagent/, 'labelled as the subagent it is');
        if (s.taskCallId) assert.notEqual(root.parent, null, 'nested under the entry holding its Task call, not at the top');
      }
    } finally {
      m.dispose();
    }
  }
});

test('Claude Code (every other fixture): the Sessions rows are the editor tree under every filter', async () => {
  const files = ['agent-history', 'agentcmd', 'spotter', 'yepanywhere'].flatMap((d) => fixtureFiles(`claude-code/${d}`)).filter((f) => f !== SPOTTER);
  assert.ok(files.length >= 5);
  for (const f of files) {
    const m = await ClaudeModel.open(f);
    try {
      await checkClaude(m);
    } finally {
      m.dispose();
    }
  }
});

test('Claude Code (a rewind, synthetic: no real fixture has one): the fork shows its two branches, the default leaf’s (2.1.112’s choice) first', async () => {
  const b = new Build();
  const m = await ClaudeModel.open(writeLines(disagreeingLeaves(b)));
  try {
    await checkClaude(m);
    const q = { filter: 'default' as const, search: '' };
    const top = await m.segments!(q, null);
    assert.equal(top.length, 1);
    assert.ok(top[0]!.kind === 'run' && top[0].firstId === 'u1' && top[0].lastId === 'a1' && top[0].title === 'first');
    const fork = await m.runEntries!(q, 'u1', 1, 1);
    assert.deepEqual([fork[0]!.id, fork[0]!.hasBranches, fork[0]!.branches], ['a1', true, 2]);
    const branches = await m.segments!(q, 'a1');
    assert.equal(await m.defaultLeaf(), 'a2');
    assert.deepEqual(
      branches.map((s) => (s.kind === 'run' ? [s.firstId, s.lastId, s.onActivePath] : [s.id])),
      [
        ['u2', 'a2', true],
        ['u2b', 'a2b', false],
      ],
    );
    assert.deepEqual(await m.revealPath!(q, 'a2b'), {
      target: 'a2b',
      chain: [
        { under: null, kind: 'run', firstId: 'u1', at: 1 },
        { under: 'a1', kind: 'run', firstId: 'u2b', at: 1 },
      ],
    });
  } finally {
    m.dispose();
  }
});

test(`Claude Code (generated, 1,500 records in one line): one run, read in pages of RUN_PAGE (${RUN_PAGE}), the editor's rows in order`, async () => {
  const b = new Build();
  const lines = [b.user('u0', null, 'start the long job')];
  for (let k = 1; k < 750; k++) {
    lines.push(b.assistant(`a${k}`, k === 1 ? 'u0' : `r${k - 1}`, `m${k}`, toolUse(`call${k}`)));
    lines.push(b.result(`r${k}`, `a${k}`, `call${k}`, `output ${k}`, { source: `a${k}` }));
  }
  lines.push(b.assistant('done', 'r749', 'mdone', text('all done')));
  const m = await ClaudeModel.open(writeLines(lines));
  try {
    const q = { filter: 'default' as const, search: '' };
    const [run] = await m.segments!(q, null);
    assert.ok(run?.kind === 'run');
    assert.equal(run.count, 1500);
    assert.ok(run.count > RUN_PAGE * 2, 'more than two pages');
    assert.equal(run.title, 'start the long job');
    const pages = [await m.runEntries!(q, run.firstId, 0, RUN_PAGE), await m.runEntries!(q, run.firstId, RUN_PAGE, RUN_PAGE), await m.runEntries!(q, run.firstId, 2 * RUN_PAGE, RUN_PAGE)];
    assert.deepEqual(
      pages.map((p) => p.length),
      [RUN_PAGE, RUN_PAGE, 1500 - 2 * RUN_PAGE],
    );
    const editor = await editorRows(m, 'default', '');
    assert.deepEqual(
      pages.flat().map((e) => e.id),
      editor.map((r) => r.entryId),
    );
    assert.equal(pages[2]![pages[2]!.length - 1]!.row.isDefaultLeaf, true);
    assert.deepEqual(await m.revealPath!(q, 'r600'), { target: 'r600', chain: [{ under: null, kind: 'run', firstId: 'u0', at: 1200 }] });
    await checkClaude(m);
  } finally {
    m.dispose();
  }
});

// ---------- Codex ----------

/**
 * The Codex editor tree (turns → records) as the Sessions view shows it: each top-level row with
 * rows below it is a run of those rows titled by it, one without is an entry row.
 */
async function checkCodex(m: CodexModel, searches: string[] = []): Promise<void> {
  for (const search of ['', ...searches]) {
    for (const filter of FILTERS) {
      const q = { filter, search };
      const what = `${filter} "${search}"`;
      const editor = await editorRows(m, filter, search);
      const segs = await m.segments!(q, null);
      let k = 0;
      let entries = 0;
      for (const seg of segs) {
        const head = editor[k++]!;
        assert.equal(head.depth, 0, `${what}: a top-level row`);
        const below: TreeRow[] = [];
        while (k < editor.length && editor[k]!.depth > 0) below.push(editor[k++]!);
        if (seg.kind === 'entry') {
          assert.equal(below.length, 0, `${what}: an entry segment has nothing below it`);
          assert.deepEqual(shownOf(seg.row), shownOf(head));
          assert.equal(seg.hasBranches, false);
          entries++;
          continue;
        }
        assert.equal(seg.title, shortenPreview(head.text, RUN_TITLE_MAX), `${what}: a run is titled by its turn`);
        assert.equal(seg.count, below.length, `${what}: the turn's rows`);
        assert.equal(seg.onActivePath, head.onPath, `${what}: the default leaf's turn is the current one`);
        const run = await m.runEntries!(q, seg.firstId, 0, seg.count + 5);
        assert.deepEqual(run.map((e) => shownOf(e.row)), below.map(shownOf), `${what}: the run's entries are the turn's rows`);
        assert.ok(run.every((e) => !e.hasBranches && e.branches === 0), 'a linear log: no forks');
        entries += run.length;
      }
      assert.equal(k, editor.length, `${what}: every editor row is shown`);
      assert.deepEqual(await m.segments!(q, editor[0]?.entryId ?? 'x'), [], 'nothing hangs below an entry');
      assert.equal((await m.searchHit!(q)).entryMatches, entries, `${what}: the search's count is the entry rows`);
      await checkReveal(m, q, await sessionsRows(m, q));
    }
  }
}

test('Codex (every real rollout): turns are runs of their records and the rest entry rows, exactly the editor tree under every filter and a search', async () => {
  const files = fixtureFiles('codex/agentcmd').concat(fixtureFiles('codex/agent-history'));
  assert.equal(files.length, 3);
  for (const f of files) {
    const m = await CodexModel.open(f, { codexHome: null });
    try {
      await checkCodex(m, ['shell']);
    } finally {
      m.dispose();
    }
  }
  const m = await CodexModel.open(CODEX_IDE, { codexHome: null });
  try {
    const q = { filter: 'default' as const, search: '' };
    const segs = await m.segments!(q, null);
    const runs = segs.filter((s) => s.kind === 'run');
    assert.equal(runs.length, 2, 'the two turns of the IDE session');
    assert.ok(runs.every((r) => r.kind === 'run' && r.title.startsWith('Turn ')));
    assert.deepEqual(
      runs.map((r) => r.kind === 'run' && r.onActivePath),
      [false, true],
      'the last turn holds the default leaf',
    );
    // A turn row of the editor is revealed at its last record (its context is the turn's).
    const editor = await editorRows(m, 'default', '');
    const at = editor.findIndex((r) => r.kind === 'turn');
    let end = at + 1;
    while (end < editor.length && editor[end]!.depth === 1) end++;
    assert.equal((await m.revealPath!(q, editor[at]!.entryId))?.target, editor[end - 1]!.entryId);
    // A record the filter hides is revealed at the nearest shown record before it in its turn.
    const shownIds = new Set(editor.map((r) => r.entryId));
    let prevShown: string | null = null;
    let hidden: [string, string] | undefined;
    for (const r of await editorRows(m, 'all', '')) {
      if (r.depth === 0) prevShown = null;
      else if (shownIds.has(r.entryId)) prevShown = r.entryId;
      else if (prevShown !== null) {
        hidden = [r.entryId, prevShown];
        break;
      }
    }
    assert.ok(hidden, 'the default filter hides a record inside a turn (a token count)');
    assert.equal((await m.revealPath!(q, hidden[0]))?.target, hidden[1]);
  } finally {
    m.dispose();
  }
});

test('Codex (a rollback, synthetic: no real rollout has one): the rolled-back turn stays a run, its rows labelled as the editor labels them', async () => {
  cx.resetClock();
  const dir = cx.tempDir();
  const file = cx.writeRollout(dir, 'rollout-rollback.jsonl', [
    cx.meta(),
    cx.event('task_started'),
    cx.user('first question'),
    cx.assistant('first answer'),
    cx.event('task_complete'),
    cx.event('task_started'),
    cx.user('second question'),
    cx.assistant('second answer'),
    cx.event('task_complete'),
    cx.rolledBack(1),
    cx.event('task_started'),
    cx.user('second question, asked again'),
    cx.assistant('a better answer'),
    cx.event('task_complete'),
  ]);
  const m = await CodexModel.open(file, { codexHome: null });
  try {
    await checkCodex(m, ['second']);
    const q = { filter: 'default' as const, search: '' };
    const runs = (await m.segments!(q, null)).filter((s) => s.kind === 'run');
    assert.equal(runs.length, 3);
    const second = await m.runEntries!(q, runs[1]!.kind === 'run' ? runs[1]!.firstId : '', 0, 10);
    assert.ok(second.some((e) => e.row.label === 'rolled back'), 'the rolled-back records say so');
    // A search through the index's ids shows those records only, in their turns.
    const ids = second.map((e) => e.id).slice(0, 1);
    const narrowed = await m.segments!({ filter: 'default', search: 'ignored', ids }, null);
    assert.equal(narrowed.length, 1);
    assert.ok(narrowed[0]!.kind === 'run' && narrowed[0].firstId === ids[0] && narrowed[0].count === 1);
  } finally {
    m.dispose();
  }
});

test(`Codex (generated, a turn of 1,300 records): the turn is one run read in pages of RUN_PAGE (${RUN_PAGE}), the editor's rows in order`, async () => {
  cx.resetClock();
  const lines = [cx.meta(), cx.event('task_started'), cx.user('run every test')];
  for (let k = 0; k < 650; k++) lines.push(cx.call(`c${k}`), cx.output(`c${k}`, `ok ${k}`));
  lines.push(cx.assistant('all green'), cx.event('task_complete'));
  const m = await CodexModel.open(cx.writeRollout(cx.tempDir(), 'rollout-long.jsonl', lines), { codexHome: null });
  try {
    const q = { filter: 'default' as const, search: '' };
    const run = (await m.segments!(q, null)).find((s) => s.kind === 'run');
    assert.ok(run?.kind === 'run');
    assert.ok(run.count > 2 * RUN_PAGE, 'more than two pages');
    const pages: RunEntry[][] = [];
    for (let start = 0; start < run.count; start += RUN_PAGE) pages.push(await m.runEntries!(q, run.firstId, start, RUN_PAGE));
    assert.deepEqual(
      pages.map((p) => p.length),
      [RUN_PAGE, RUN_PAGE, run.count - 2 * RUN_PAGE],
    );
    const editor = await editorRows(m, 'default', '');
    assert.deepEqual(
      pages.flat().map((e) => e.id),
      editor.filter((r) => r.depth === 1).map((r) => r.entryId),
    );
    // The call records show the assistant's tools icon, their outputs the tool result's.
    assert.deepEqual([pages[0]![1]!.role, pages[0]![1]!.callsTools, pages[0]![2]!.role], ['assistant', true, 'toolResult']);
    await checkCodex(m);
  } finally {
    m.dispose();
  }
});
