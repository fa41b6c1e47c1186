// The session editor's display pipeline under plain node: the windows the webview gets must
// list exactly the messages of buildSessionContext, pass the protocol schemas, and mark the
// compaction segments; the branch tree rows keep the main line flat.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BlobStore } from '../../src/core/formats/xcsh/blobs';
import { buildSessionContext } from '../reference/context';
import { ContextWindows } from '../reference/contextWindows';
import { loadSnapshot } from '../reference/snapshot';
import { flattenTree, treeRows } from '../reference/treeRows';
import { Requests } from '../../src/protocol/messages';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { buildTreeIndex, type TreeIndex } from '../../src/core/tree/tree';
import { tokenizeSearch, TREE_FILTER_MODES, type TreeFilterMode } from '../../src/core/tree/treeView';
import { computeVisibleTree, nearestVisible, treeSourceFromIndex } from '../reference/treeView';
import { FIXTURE_EXPECTATIONS } from '../cli/fixture-expectations';
import { REPO_ROOT, fixture } from '../helpers/fixtures';

const demo = join(REPO_ROOT, 'samples/sessions/--demo-project--/2026-03-01T09-00-00-000Z_5d1e0c0ffee00001.jsonl');
const blobs = new BlobStore(join(REPO_ROOT, 'test-results', 'no-blobs'));

describe('session editor windows', () => {
  it('windows list the context messages in order, with segments around the compaction', async () => {
    const snap = await loadSnapshot(demo, blobs, 1);
    const w = new ContextWindows(snap);
    const info = Requests.getContext.result.parse(w.context(null));
    const ctx = buildSessionContext(snap.loaded.entries, undefined, snap.index);
    assert.equal(info.messageCount, ctx.messages.length);
    const { items } = Requests.getMessages.result.parse({ revision: 1, items: w.messages(null, 0, 100) });
    assert.deepEqual(items.map((m) => m.entryId), ctx.messageSources);
    assert.deepEqual(items.map((m) => m.role), ctx.messages.map((m) => m.role));
    assert.deepEqual(items.map((m) => m.segment), ['summary', 'kept', 'kept', 'kept', 'kept', 'after', 'after']);
    assert.equal(info.compaction?.cutCount, ctx.cutEntryIds.length);
    const cut = w.cutEntries(null, 0, 100);
    assert.deepEqual(cut.map((c) => c.entryId), ctx.cutEntryIds);
    const call = items.find((m) => m.role === 'assistant')!.blocks.find((b) => b.kind === 'toolCall');
    assert.ok(call && call.kind === 'toolCall' && call.resultIndex === 3, 'the screenshot call points at its result');
    assert.ok(items[items.length - 1]!.cumulativeTokensEst >= items[0]!.tokensEst);
    assert.deepEqual(w.locate(null, 'a100000a'), { messageIndex: 1, cutIndex: null });
    assert.deepEqual(w.locate(null, 'a1000003'), { messageIndex: null, cutIndex: 2 }); // after model_change and thinking_level_change
  });

  it('the branch tree keeps the main line at depth 0 and indents side branches', async () => {
    const snap = await loadSnapshot(demo, blobs, 1);
    const flat = flattenTree(snap.index, 'all', '', snap.index.defaultLeafId);
    const rows = treeRows(snap.index, flat, 0, 1000);
    assert.equal(rows.length, snap.loaded.entries.length);
    const branch = rows.find((r) => r.entryId === 'b2000001')!;
    assert.equal(branch.depth, 1);
    assert.equal(branch.forks, true);
    assert.ok(rows.filter((r) => r.onPath).every((r) => r.depth === 0));
    assert.equal(flat.selectedIndex, rows.findIndex((r) => r.entryId === snap.index.defaultLeafId));
  });

  it('real compaction fixture: windows match the context and validate', async () => {
    const snap = await loadSnapshot(fixture('real-v3', 'gjc-03-raddit-dashboard-pr.jsonl'), blobs, 1);
    const w = new ContextWindows(snap);
    const info = w.context(null);
    const all: unknown[] = [];
    for (let s = 0; s < info.messageCount; s += 40) all.push(...Requests.getMessages.result.parse({ revision: 1, items: w.messages(null, s, 40) }).items);
    assert.equal(all.length, info.messageCount);
    assert.equal((all[0] as { role: string }).role, 'compactionSummary');
    assert.ok(info.compaction && info.compaction.cutCount > 0);
  });
});

// ---- the editor's flattened tree against the Sessions view's visible tree ----

/**
 * The rows as the Sessions view's computeVisibleTree (its id-keyed maps) shows the visible tree,
 * flattened with the editor's rule (a fork's first child continues the line, the others follow
 * one level deeper): a plain reference for flattenTree's position-based flattening. The rows are
 * those of the default leaf, as in the Sessions view; the selected `leaf` only picks the selected
 * row and the highlighted path (issue 14: selecting never moves a row).
 */
function referenceRows(index: TreeIndex, filter: TreeFilterMode, search: string, leaf: string | null) {
  const src = treeSourceFromIndex(index);
  const tree = computeVisibleTree(src, { filter, tokens: tokenizeSearch(search) });
  const rows: { id: string; depth: number; forks: boolean }[] = [];
  const stack: [string, number, boolean][] = [];
  const push = (kids: readonly string[], depth: number) => {
    if (kids.length === 0) return;
    stack.push([kids[0]!, depth, false]);
    for (let i = kids.length - 1; i >= 1; i--) stack.push([kids[i]!, depth + 1, true]);
  };
  push(tree.children.get(null) ?? [], 0);
  while (stack.length > 0) {
    const [id, depth, forks] = stack.pop()!;
    rows.push({ id, depth, forks });
    push(tree.children.get(id) ?? [], depth);
  }
  const target = leaf === null || !index.has(leaf) ? undefined : nearestVisible(tree, src, leaf);
  const onPath = new Set<string>();
  for (let id: string | null = leaf !== null && index.has(leaf) ? leaf : null; id !== null && !onPath.has(id); id = index.parentOf(id)) onPath.add(id);
  return { rows, hidden: tree.hidden, selected: target === undefined ? null : rows.findIndex((r) => r.id === target), onPath };
}

function assertSameRows(index: TreeIndex, filter: TreeFilterMode, search: string, leaf: string | null, what: string): void {
  const ref = referenceRows(index, filter, search, leaf);
  const flat = flattenTree(index, filter, search, leaf);
  const got = flat.ids.map((id, i) => ({ id, depth: flat.depths[i]!, forks: flat.forks[i] === 1 }));
  assert.deepEqual(got, ref.rows, `${what}: rows`);
  assert.equal(flat.hidden, ref.hidden, `${what}: hidden`);
  assert.equal(flat.selectedIndex, ref.selected, `${what}: selected row`);
  for (const [i, id] of flat.ids.entries()) {
    assert.equal(flat.rowAt[index.indexOf(id)], i, `${what}: rowAt`);
    assert.equal(flat.onPath[index.indexOf(id)] === 1, ref.onPath.has(id), `${what}: onPath of ${id}`);
  }
}

// Random trees (forks, hidden runs, orphans, duplicate ids) for the property tests below.
const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
const entryArb = fc.record({
  id: fc.constantFrom(...ids),
  parent: fc.option(fc.constantFrom(...ids, 'missing'), { nil: null }),
  kind: fc.constantFrom('user', 'assistant-text', 'assistant-empty', 'assistant-tools', 'toolResult', 'model_change', 'label'),
  word: fc.constantFrom('alpha', 'beta', ''),
});

type RandomEntry = typeof entryArb extends fc.Arbitrary<infer T> ? T : never;

function randomEntries(raw: RandomEntry[]): SessionEntry[] {
  return raw.map((r, n): SessionEntry => {
    const base = { id: r.id, parentId: r.parent, timestamp: `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z` };
    const text = r.word ? [{ type: 'text', text: `${r.word} ${n}` }] : [];
    switch (r.kind) {
      case 'user':
        return { ...base, type: 'message', message: { role: 'user', content: text } } as unknown as SessionEntry;
      case 'assistant-text':
        return { ...base, type: 'message', message: { role: 'assistant', content: text } } as unknown as SessionEntry;
      case 'assistant-empty':
        return { ...base, type: 'message', message: { role: 'assistant', content: [] } } as unknown as SessionEntry;
      case 'assistant-tools':
        return { ...base, type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id: 't', name: 'bash', arguments: {} }] } } as unknown as SessionEntry;
      case 'toolResult':
        return { ...base, type: 'message', message: { role: 'toolResult', toolCallId: 't', content: text } } as unknown as SessionEntry;
      case 'model_change':
        return { ...base, type: 'model_change', model: 'm' } as unknown as SessionEntry;
      default:
        return { ...base, type: 'label', targetId: ids[n % ids.length]!, label: r.word || undefined } as unknown as SessionEntry;
    }
  });
}

describe('editor branch tree rows', () => {
  const files = [demo, ...FIXTURE_EXPECTATIONS.map((x) => fixture(...x.file.split('/')))];
  it('equal the Sessions view visible tree on every fixture, filter, a search and several leaves', async () => {
    for (const file of files) {
      const snap = await loadSnapshot(file, blobs, 1);
      const index = snap.index;
      const leaves = index.leaves();
      const picks = [index.defaultLeafId, leaves[0] ?? null, leaves[Math.floor(leaves.length / 2)] ?? null, null, 'no-such-entry'];
      // an inner entry as the "leaf" too (the editor can select any entry)
      if (index.entries.length > 3) picks.push(index.entries[Math.floor(index.entries.length / 3)]!.id);
      for (const filter of TREE_FILTER_MODES) {
        for (const leaf of picks) assertSameRows(index, filter, '', leaf, `${file} ${filter} @${leaf}`);
        assertSameRows(index, filter, 'the', index.defaultLeafId, `${file} ${filter} search`);
      }
    }
  });

  it('equal the Sessions view visible tree on random trees (forks, hidden runs, orphans, duplicates)', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 14 }), fc.constantFrom(...TREE_FILTER_MODES), fc.constantFrom('', 'alpha', 'user beta'), fc.nat(), (raw, filter, search, pick) => {
        const entries = randomEntries(raw);
        const index = buildTreeIndex(entries);
        const all = [...new Set(entries.map((e) => e.id))];
        const leaf = all.length === 0 || pick % 5 === 0 ? null : all[pick % all.length]!;
        assertSameRows(index, filter, search, leaf, `random ${filter} "${search}" @${leaf}`);
      }),
      { numRuns: 400 },
    );
  });

  it('keep every row in place whichever leaf is selected: only the highlight moves (issue 14.2)', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { minLength: 1, maxLength: 14 }), fc.constantFrom(...TREE_FILTER_MODES), fc.nat(), fc.nat(), (raw, filter, a, b) => {
        const index = buildTreeIndex(randomEntries(raw));
        const all = [...new Set(index.entries.map((e) => e.id))];
        const rows = (leaf: string) => {
          const flat = flattenTree(index, filter, '', leaf);
          return { ids: flat.ids, depths: [...flat.depths], forks: [...flat.forks], hidden: flat.hidden };
        };
        assert.deepEqual(rows(all[a % all.length]!), rows(all[b % all.length]!));
      }),
      { numRuns: 400 },
    );
  });
});
