import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTreeIndex } from '../../src/core/tree/tree';
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import { commonAncestor, deepestLeaf, isAncestor, isShadowed, leavesContaining, pathToRoot } from '../reference/treeQueries';

const ts = '2026-02-16T10:20:30.000Z';
function msg(id: string, parentId: string | null, role = 'user', extra: Record<string, unknown> = {}): SessionEntry {
  return { type: 'message', id, parentId, timestamp: ts, message: { role, content: id, ...extra } } as SessionEntry;
}
function label(id: string, parentId: string | null, targetId: string, lbl?: string): SessionEntry {
  const e: Record<string, unknown> = { type: 'label', id, parentId, timestamp: ts, targetId };
  if (lbl !== undefined) e.label = lbl;
  return e as SessionEntry;
}

// a ─ b ─ c ─ d
//      └─ e ─ f
//          └─ g
// r (second root)
function sample(): SessionEntry[] {
  return [msg('a', null), msg('b', 'a'), msg('c', 'b'), msg('d', 'c'), msg('e', 'b'), msg('f', 'e'), msg('g', 'e'), msg('r', null)];
}

test('byId, roots in file order, children in file order, default leaf = last entry in file order', () => {
  const t = buildTreeIndex(sample());
  assert.equal(t.byId.get('c')?.id, 'c');
  assert.equal(t.byId.size, 8);
  assert.deepEqual(t.roots, ['a', 'r']);
  assert.deepEqual(t.children('b').map((e) => e.id), ['c', 'e']);
  assert.deepEqual(t.children('e').map((e) => e.id), ['f', 'g']);
  assert.deepEqual(t.children('d'), []);
  assert.equal(t.defaultLeafId, 'r');
  assert.equal(t.diagnostics.length, 0);
});

test('default leaf is the last entry in file order even when it is not the deepest', () => {
  const t = buildTreeIndex([msg('a', null), msg('b', 'a'), msg('c', 'b'), msg('x', 'a')]);
  assert.equal(t.defaultLeafId, 'x');
  assert.equal(deepestLeaf(t), 'c');
});

test('empty entries: no leaf, no roots', () => {
  const t = buildTreeIndex([]);
  assert.equal(t.defaultLeafId, null);
  assert.deepEqual(t.roots, []);
  assert.deepEqual(t.leaves(), []);
  assert.equal(deepestLeaf(t), null);
});

test('depth, parentOf, pathToRoot (root first)', () => {
  const t = buildTreeIndex(sample());
  assert.equal(t.depth('a'), 0);
  assert.equal(t.depth('g'), 3);
  assert.equal(t.depth('r'), 0);
  assert.equal(t.depth('nope'), -1);
  assert.equal(t.parentOf('g'), 'e');
  assert.equal(t.parentOf('a'), null);
  assert.deepEqual(pathToRoot(t, 'g').map((e) => e.id), ['a', 'b', 'e', 'g']);
  assert.deepEqual(pathToRoot(t, 'nope'), []);
});

test('parent given after the child in file order still links', () => {
  const t = buildTreeIndex([msg('c', 'p'), msg('p', null)]);
  assert.deepEqual(t.roots, ['p']);
  assert.equal(t.depth('c'), 1);
  assert.equal(t.diagnostics.length, 0);
});

test('leaves, leavesContaining, commonAncestor, isAncestor', () => {
  const t = buildTreeIndex(sample());
  assert.deepEqual(t.leaves(), ['d', 'f', 'g', 'r']);
  assert.deepEqual(leavesContaining(t, 'b'), ['d', 'f', 'g']);
  assert.deepEqual(leavesContaining(t, 'e'), ['f', 'g']);
  assert.deepEqual(leavesContaining(t, 'd'), ['d']);
  assert.deepEqual(leavesContaining(t, 'r'), ['r']);
  assert.deepEqual(leavesContaining(t, 'missing'), []);
  assert.equal(commonAncestor(t, 'd', 'g'), 'b');
  assert.equal(commonAncestor(t, 'f', 'g'), 'e');
  assert.equal(commonAncestor(t, 'e', 'g'), 'e');
  assert.equal(commonAncestor(t, 'd', 'r'), null);
  assert.equal(isAncestor(t, 'b', 'g'), true);
  assert.equal(isAncestor(t, 'c', 'g'), false);
  assert.equal(isAncestor(t, 'g', 'g'), true);
});

test('labels resolve in file order; a label entry without `label` clears it', () => {
  const t = buildTreeIndex([
    msg('a', null),
    label('l1', 'a', 'a', 'first'),
    label('l2', 'l1', 'a', 'second'),
    msg('b', 'l2'),
    label('l3', 'b', 'b', 'keep'),
    label('l4', 'l3', 'a'),
  ]);
  assert.equal(t.labels.get('a'), undefined);
  assert.equal(t.labels.has('a'), false);
  assert.equal(t.labels.get('b'), 'keep');
  const t2 = buildTreeIndex([msg('a', null), label('l1', 'a', 'a', 'x'), label('l2', 'l1', 'a', 'y')]);
  assert.equal(t2.labels.get('a'), 'y');
});

test('duplicate ids: the last wins, the earlier is out of the tree, a diagnostic with its line', () => {
  const entries = [msg('a', null), msg('b', 'a', 'user', { n: 1 }), msg('b', 'a', 'user', { n: 2 }), msg('c', 'b')];
  const t = buildTreeIndex(entries, [2, 3, 4, 5]);
  assert.equal((t.get("b") as unknown as { message: { n: number } }).message.n, 2);
  assert.equal(t.indexOf('b'), 2);
  assert.equal(isShadowed(t, 1), true);
  assert.deepEqual(t.children('a').map((e) => (e as unknown as { message: { n: number } }).message.n), [2]);
  assert.equal(t.size, 3);
  const d = t.diagnostics.filter((x) => x.kind === 'duplicate-id');
  assert.equal(d.length, 1);
  assert.equal(d[0]!.line, 4);
  assert.equal(d[0]!.entryId, 'b');
  assert.match(d[0]!.message, /line 3/);
});

test('missing parent: the orphan becomes a root, reported with its line', () => {
  const t = buildTreeIndex([msg('a', null), msg('b', 'ghost'), msg('c', 'b')], [2, 3, 4]);
  assert.deepEqual(t.roots, ['a', 'b']);
  assert.equal(t.depth('c'), 1);
  assert.deepEqual(t.diagnostics.map((d) => [d.kind, d.line, d.entryId]), [['missing-parent', 3, 'b']]);
});

test('self-parent: stops, becomes a root, reported as a cycle', () => {
  const t = buildTreeIndex([msg('a', 'a'), msg('b', 'a')]);
  assert.deepEqual(t.roots, ['a']);
  assert.deepEqual(pathToRoot(t, 'b').map((e) => e.id), ['a', 'b']);
  assert.equal(t.diagnostics.length, 1);
  assert.equal(t.diagnostics[0]!.kind, 'cycle');
  assert.equal(t.diagnostics[0]!.entryId, 'a');
});

test('cycle a→b→c→a: the walk stops at the first repeated id, no hang, one diagnostic', () => {
  // parents: a's parent is c, b's parent a, c's parent b; x hangs off c
  const t = buildTreeIndex([msg('a', 'c'), msg('b', 'a'), msg('c', 'b'), msg('x', 'c')]);
  const cyc = t.diagnostics.filter((d) => d.kind === 'cycle');
  assert.equal(cyc.length, 1);
  // Walking from a: a → c → b → (a repeats) — b's link is cut, b is the root.
  assert.deepEqual(t.roots, ['b']);
  assert.equal(cyc[0]!.entryId, 'b');
  assert.deepEqual(pathToRoot(t, 'x').map((e) => e.id), ['b', 'c', 'x']);
  assert.deepEqual(pathToRoot(t, 'a').map((e) => e.id), ['b', 'c', 'a']);
  assert.deepEqual(t.leaves(), ['a', 'x']);
  assert.deepEqual(leavesContaining(t, 'b'), ['a', 'x']);
});

test('a chain leading into a cycle is rooted at the cut, not reported twice', () => {
  const t = buildTreeIndex([msg('p', 'q'), msg('q', 'p'), msg('z', 'q'), msg('y', 'z')]);
  // p → q → p: q's link is cut; z and y hang below q.
  assert.equal(t.diagnostics.length, 1);
  assert.deepEqual(t.roots, ['q']);
  assert.equal(t.depth('y'), 2);
});

test('1M-deep linear chain: iterative build and queries (no recursion, no stack overflow)', () => {
  const n = 1_000_000;
  const entries = new Array<SessionEntry>(n);
  for (let i = 0; i < n; i++) {
    entries[i] = { type: 'custom', id: `e${i}`, parentId: i ? `e${i - 1}` : null, customType: 'x' } as SessionEntry;
  }
  // a side branch near the top
  entries.push({ type: 'custom', id: 'side', parentId: 'e10', customType: 'x' } as SessionEntry);
  const start = Date.now();
  const t = buildTreeIndex(entries);
  assert.equal(t.depth(`e${n - 1}`), n - 1);
  assert.equal(pathToRoot(t, `e${n - 1}`).length, n);
  assert.deepEqual(leavesContaining(t, 'e5'), [`e${n - 1}`, 'side']);
  assert.deepEqual(leavesContaining(t, 'e11'), [`e${n - 1}`]);
  assert.equal(commonAncestor(t, `e${n - 1}`, 'side'), 'e10');
  assert.equal(deepestLeaf(t), `e${n - 1}`);
  assert.equal(t.defaultLeafId, 'side');
  assert.ok(Date.now() - start < 20_000);
});

test('1M-long cycle terminates with one diagnostic', () => {
  const n = 1_000_000;
  const entries = new Array<SessionEntry>(n);
  for (let i = 0; i < n; i++) {
    entries[i] = { type: 'custom', id: `e${i}`, parentId: `e${(i + n - 1) % n}`, customType: 'x' } as SessionEntry;
  }
  const t = buildTreeIndex(entries);
  assert.equal(t.diagnostics.length, 1);
  assert.equal(t.roots.length, 1);
});

test('byId behaves like a ReadonlyMap', () => {
  const t = buildTreeIndex(sample());
  assert.deepEqual([...t.byId.keys()].slice(0, 3), ['a', 'b', 'c']);
  assert.equal([...t.byId.values()].length, 8);
  assert.equal([...t.byId].length, 8);
  let n = 0;
  t.byId.forEach(() => n++);
  assert.equal(n, 8);
});

test('queries do not scan the file: leavesContaining on a wide tree answers from the slice', () => {
  const entries: SessionEntry[] = [msg('root', null)];
  for (let i = 0; i < 50_000; i++) entries.push(msg(`l${i}`, 'root'));
  const t = buildTreeIndex(entries);
  assert.deepEqual(leavesContaining(t, 'l49999'), ['l49999']);
  assert.equal(leavesContaining(t, 'root').length, 50_000);
  assert.equal(t.children('root').length, 50_000);
});
