import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entryPreview, formatCount, formatRelativeTime, formatSize, isLive, matchesSearch, passesFilterFlags, searchHaystack, tokenizeSearch, viewFlagsOf, type TreeFilterMode, type ViewEntry } from '../../src/core/tree/treeView';
import { computeVisibleTree, treeSourceFromIndex, nearestVisible, passesFilter as referencePassesFilter, runTitle, segmentsUnder } from '../reference/treeView';
import { buildTreeIndex } from '../../src/core/tree/tree';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { LazyXcshModel } from '../../src/core/engine/xcsh/lazy/lazyModel';
import { XcshModel as ReferenceModel } from '../reference/xcshModel';
import { assertSameAnswers, checkAgainstView, oldSessionFile } from '../helpers/modelParity';

/** The reference's filter on the entry, which the product's filter on the entry's bits must answer alike. */
function passesFilter(e: ViewEntry, mode: TreeFilterMode, label: string | undefined, isLeaf: boolean): boolean {
  const expected = referencePassesFilter(e, mode, label, isLeaf);
  assert.equal(passesFilterFlags(viewFlagsOf(e), mode, label, isLeaf), expected, `${mode}: the bits answer as the entry`);
  return expected;
}

/** Every tree this file builds by hand, asked of the product's engine too at the end. */
const handBuilt: ViewEntry[][] = [];
const indexEntries = (entries: ViewEntry[]) => {
  handBuilt.push(entries);
  return treeSourceFromIndex(buildTreeIndex(entries as SessionEntry[]));
};

const user = (id: string, parentId: string | null, text: string): ViewEntry => ({
  type: 'message',
  id,
  parentId,
  message: { role: 'user', content: [{ type: 'text', text }] },
});
const assistant = (id: string, parentId: string | null, text: string, extra: object = {}): ViewEntry => ({
  type: 'message',
  id,
  parentId,
  message: { role: 'assistant', content: text ? [{ type: 'text', text }] : [], ...extra },
});
const toolCall = (id: string, parentId: string | null, name: string, args: object): ViewEntry => ({
  type: 'message',
  id,
  parentId,
  message: { role: 'assistant', content: [{ type: 'toolCall', id: `c${id}`, name, arguments: args }] },
});
const toolResult = (id: string, parentId: string | null, text: string): ViewEntry => ({
  type: 'message',
  id,
  parentId,
  message: { role: 'toolResult', toolCallId: 'x', toolName: 'bash', content: [{ type: 'text', text }] },
});

// a → b → c → d ┬→ e → f → g (leaf)
//               └→ h → i
const forked: ViewEntry[] = [
  { type: 'model_change', id: 'a', parentId: null, model: 'anthropic/claude' },
  user('b', 'a', 'Fix the\nparser please'),
  toolCall('c', 'b', 'bash', { command: 'ls src' }),
  toolResult('d', 'c', 'core extension'),
  assistant('h', 'd', 'Alternative answer'),
  user('i', 'h', 'and then?'),
  assistant('e', 'd', 'The parser is fixed.'),
  user('f', 'e', 'Thanks, now tests'),
  { type: 'label', id: 'l1', parentId: 'f', targetId: 'e', label: 'good' },
  assistant('g', 'l1', 'Tests pass.'),
];

describe('treeSourceFromIndex', () => {
  it('builds roots, children, labels and the leaf in file order', () => {
    const src = indexEntries(forked);
    assert.deepEqual(src.index.roots, ['a']);
    assert.deepEqual(src.index.children('d').map((e) => e.id), ['h', 'e']);
    assert.equal(src.labelOf('e'), 'good');
    assert.equal(src.leafId, 'g');
  });

  it('clears a label with a label entry without `label`, and treats orphans and self-parents as roots', () => {
    const src = indexEntries([
      user('a', null, 'x'),
      { type: 'label', id: 'l1', parentId: 'a', targetId: 'a', label: 'one' },
      { type: 'label', id: 'l2', parentId: 'l1', targetId: 'a' },
      user('o', 'missing', 'orphan'),
      user('s', 's', 'self'),
    ]);
    assert.equal(src.labelOf('a'), undefined);
    assert.deepEqual(src.index.roots, ['a', 'o', 's']);
  });
});

describe('filters', () => {
  const src = indexEntries(forked);
  const visibleIds = (filter: Parameters<typeof computeVisibleTree>[1]['filter'], query = '') =>
    [...computeVisibleTree(src, { filter, tokens: tokenizeSearch(query) }).parent.keys()].sort();

  it('default hides settings entries (model change, label)', () => {
    assert.deepEqual(visibleIds('default'), ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
  });
  it('no-tools also hides tool results and tool-call-only assistant messages', () => {
    assert.deepEqual(visibleIds('no-tools'), ['b', 'e', 'f', 'g', 'h', 'i']);
  });
  it('user-only shows only user messages', () => {
    assert.deepEqual(visibleIds('user-only'), ['b', 'f', 'i']);
  });
  it('labelled-only shows only labelled entries', () => {
    assert.deepEqual(visibleIds('labelled-only'), ['e']);
  });
  it('all shows everything', () => {
    assert.equal(visibleIds('all').length, forked.length);
  });
  it('hides an empty assistant message unless it is the leaf or ended in error', () => {
    assert.equal(passesFilter(assistant('x', null, ''), 'default', undefined, false), false);
    assert.equal(passesFilter(assistant('x', null, ''), 'default', undefined, true), true);
    assert.equal(passesFilter(assistant('x', null, '', { stopReason: 'error' }), 'default', undefined, false), true);
    // Text that is only whitespace is no text; one non-blank block among blank ones is.
    assert.equal(passesFilter(assistant('x', null, ' \n\t '), 'default', undefined, false), false);
    const mixed: ViewEntry = { type: 'message', id: 'x', parentId: null, message: { role: 'assistant', content: [{ type: 'text', text: '  ' }, { type: 'text', text: ' ok ' }] } };
    assert.equal(passesFilter(mixed, 'default', undefined, false), true);
    const stringContent: ViewEntry = { type: 'message', id: 'x', parentId: null, message: { role: 'assistant', content: '   ' } };
    assert.equal(passesFilter(stringContent, 'default', undefined, false), false);
  });
  it('hidden entries pass their place to their children', () => {
    const tree = computeVisibleTree(src, { filter: 'user-only', tokens: [] });
    assert.equal(tree.parent.get('f'), 'b');
    assert.equal(tree.parent.get('i'), 'b');
    assert.equal(tree.hidden, forked.length - 3);
  });
});

describe('search', () => {
  it('tokenizes on whitespace, lower-cases and de-duplicates', () => {
    assert.deepEqual(tokenizeSearch('  Parser  FIX parser '), ['parser', 'fix']);
    assert.deepEqual(tokenizeSearch('   '), []);
  });
  it('ANDs the tokens over label, role and text, case-insensitively', () => {
    const e = forked[6]!; // assistant 'The parser is fixed.', labelled "good"
    const hay = searchHaystack(e, 'good');
    assert.equal(matchesSearch(hay, tokenizeSearch('GOOD parser')), true);
    assert.equal(matchesSearch(hay, tokenizeSearch('assistant fixed')), true);
    assert.equal(matchesSearch(hay, tokenizeSearch('good missing')), false);
  });
  it('filters the tree and keeps matches under their nearest visible ancestor', () => {
    const src = indexEntries(forked);
    const tree = computeVisibleTree(src, { filter: 'default', tokens: tokenizeSearch('user') });
    assert.deepEqual([...tree.parent.keys()].sort(), ['b', 'f', 'i']);
    assert.equal(nearestVisible(tree, src, 'g'), 'f');
    assert.equal(nearestVisible(tree, src, 'a'), undefined);
  });
});

describe('run collapsing', () => {
  const src = indexEntries(forked);
  const tree = computeVisibleTree(src, { filter: 'default', tokens: [] });

  it('collapses the linear chain up to the fork into one run', () => {
    assert.deepEqual(segmentsUnder(tree, null), [{ kind: 'run', ids: ['b', 'c', 'd'] }]);
  });
  it('puts the active branch first at a fork', () => {
    assert.deepEqual(segmentsUnder(tree, 'd'), [
      { kind: 'run', ids: ['e', 'f', 'g'] },
      { kind: 'run', ids: ['h', 'i'] },
    ]);
    assert.ok(tree.activePath.has('e') && !tree.activePath.has('h'));
  });
  it('puts the active branch first among several children and several roots, the rest in file order', () => {
    // roots r1, r2, r3 (the leaf is under r2); r2's children k1, k2, k3 (the leaf is under k3)
    const es: ViewEntry[] = [
      user('r1', null, 'one'),
      user('r2', null, 'two'),
      user('r3', null, 'three'),
      assistant('k1', 'r2', 'a'),
      assistant('k2', 'r2', 'b'),
      assistant('k3', 'r2', 'c'),
      user('z', 'k3', 'leaf'),
    ];
    const t = computeVisibleTree(indexEntries(es), { filter: 'default', tokens: [] });
    assert.deepEqual(t.children.get(null), ['r2', 'r1', 'r3']);
    assert.deepEqual(t.children.get('r2'), ['k3', 'k1', 'k2']);
    assert.equal(t.children.get('z'), undefined, 'a visible leaf has no children list');
  });
  it('keeps a single entry as an entry node', () => {
    const single = computeVisibleTree(indexEntries([user('x', null, 'hi')]), { filter: 'default', tokens: [] });
    assert.deepEqual(segmentsUnder(single, null), [{ kind: 'entry', id: 'x' }]);
  });
  it('titles a run with its first user text on one line (the row shows its length beside it)', () => {
    assert.equal(runTitle(src, ['b', 'c', 'd']), 'Fix the parser please');
    assert.equal(runTitle(src, ['h', 'i']), 'and then?');
  });
  it('survives cycles without hanging', () => {
    const cyc = indexEntries([user('a', 'b', 'x'), user('b', 'a', 'y')]);
    const t = computeVisibleTree(cyc, { filter: 'all', tokens: [] });
    assert.equal(t.parent.size, 2); // the core cuts the cycle: one becomes a root
  });
});

describe('previews', () => {
  it('shows tool calls, tool results, bash and settings entries on one line', () => {
    assert.equal(entryPreview(forked[2]!), '→ bash ls src');
    assert.equal(entryPreview(forked[3]!), 'bash: core extension');
    assert.equal(entryPreview(forked[0]!), 'model: anthropic/claude');
    assert.equal(entryPreview({ type: 'model_change', id: 'm', provider: 'anthropic', modelId: 'opus' }), 'model: anthropic/opus');
    assert.equal(entryPreview({ type: 'weird_future_type', id: 'w' }), 'weird_future_type');
    assert.equal(entryPreview(user('u', null, 'x'.repeat(300)), 20), `${'x'.repeat(19)}…`);
  });
});

describe('formatting', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('formats relative times', () => {
    assert.equal(formatRelativeTime(now - 10_000, now), 'just now');
    assert.equal(formatRelativeTime(now - 5 * 60_000, now), '5 min ago');
    assert.equal(formatRelativeTime(now - 3 * 3600_000, now), '3 h ago');
    assert.equal(formatRelativeTime(now - 24 * 3600_000, now), 'yesterday');
    assert.equal(formatRelativeTime(now - 4 * 86400_000, now), '4 days ago');
    assert.equal(formatRelativeTime(Date.parse('2025-01-02T00:00:00Z'), now), '2025-01-02');
  });
  it('formats sizes and counts', () => {
    assert.equal(formatSize(999), '999 B');
    assert.equal(formatSize(1536), '1.5 KB');
    assert.equal(formatSize(2_370_492), '2.3 MB');
    assert.equal(formatCount(950), '950');
    assert.equal(formatCount(1234), '1.2k');
    assert.equal(formatCount(1_400_000), '1.4M');
  });
  it('calls a file live when modified in the last minute', () => {
    assert.equal(isLive(now - 59_000, now), true);
    assert.equal(isLive(now - 61_000, now), false);
  });
});

// The rules above are the reference's (test/reference/treeView.ts, the whole-tree walks); the
// product lays out its trees in the engine (ForestRows and the Sessions-view queries of the lazy
// model). Every tree built by hand above — forks, several roots, orphans, self-parents, labels set
// and cleared, cycles, a single entry — written as a v3 file, is asked of the engine: its tree rows
// under every filter and a search at every entry as the leaf, as the reference model gives them,
// and its Sessions-view segments, run pages, reveal paths and search counts, as the view's own
// functions compute them.
describe('the product\'s engine', () => {
  it('lays out every hand-built tree above as the reference does', async () => {
    assert.ok(handBuilt.length >= 5, `the trees were collected (${handBuilt.length})`);
    const blobDir = join(tmpdir(), 'sl-no-blobs');
    const seen = new Set<string>();
    for (const entries of handBuilt) {
      const text = [{ type: 'session', version: 3, id: 'tree-case', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work/tree' }, ...entries.map((e) => ({ timestamp: '2026-01-01T00:00:00.000Z', ...e }))]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n';
      if (seen.has(text)) continue;
      seen.add(text);
      const file = oldSessionFile(text, 'sl-tree-case-');
      const reference = await ReferenceModel.open(file, { blobDir });
      const engine = await LazyXcshModel.open(file, { blobDir });
      try {
        const ids = entries.map((e) => e.id as string);
        await assertSameAnswers(reference, engine, { leaves: ids, searches: ['parser', 'user'], window: 50 });
        await checkAgainstView(reference, ['parser', 'user fix'], engine);
      } catch (e) {
        throw new Error(`tree ${entries.map((x) => `${String(x.id)}←${String(x.parentId)}`).join(' ')}: ${(e as Error).message}`);
      } finally {
        reference.dispose();
        engine.dispose();
      }
    }
    assert.ok(seen.size >= 4, `${seen.size} distinct trees`);
  });
});
