// `npm run bench -- --layout [--sizes 100000,1000000]`: the editor's branch tree and the Sessions
// view (issue 23, "layout in windows") at 100k and 1M entries — the first window of a session
// reopened from its index cache, selecting another leaf, switching the filter, a live append of
// 100 entries then a window, a session expanded and an entry revealed in the Sessions view — each
// beside what the whole-layout engine did for the same request in the same run (the references
// kept under test/reference/: every row laid out per filter, the selected leaf's path marked in an
// entry-sized array per selection, runs walked entry by entry), and beside a bare
// read+split+JSON.parse of the file (as bench/run.ts), as ratios.
//
// Times are taken in this process (a gc() and a pause before each), each engine first in turn: per item (a
// filter, a leaf, an entry) the best of its repetitions, the median over the items, with the
// median of every run beside it — the machine this runs on is shared, and the best is what the
// code costs.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSession } from './generate';
import { IndexCache } from '../src/core/engine/xcsh/lazy/indexCache';
import { LazyXcshModel } from '../src/core/engine/xcsh/lazy/lazyModel';
import { LazyTree } from '../src/core/engine/xcsh/lazy/lazyTree';
import { BodyReader } from '../src/core/engine/xcsh/lazy/bodyReader';
import { rowDisplayOf } from '../src/core/engine/xcsh/lazy/lazyContext';
import type { TreeParams, TreeResult } from '../src/core/engine/model';
import type { TreeRow } from '../src/protocol/messages';
import { ViewFlag, type TreeFilterMode, type ViewEntry } from '../src/core/tree/treeView';
import { type ForestSource } from '../test/reference/treeView';
import { ForestRows } from '../src/core/engine/xcsh/treeRows';
import { layoutForest, rowOfEntry, selectLeafIn, type ForestLayout, type LeafSelection } from '../test/reference/forestLayout';
import { BranchQueries as WholeForestBranches } from '../test/reference/branchQueries';

const WINDOW = 200;
const APPEND = 100;
/**
 * A full collection before each timed request, as bench/run.ts does — an ordinary one: the bare
 * gc() is the memory-reducing kind, which also throws away optimised code, so the request after it
 * would run cold (it multiplied a 2 ms layout of 100k entries tenfold, the old layout's less).
 */
const gcHook = (globalThis as { gc?: (options?: { type: 'major' | 'minor' }) => void }).gc;
const gc = (): void => gcHook?.({ type: 'major' });

/** The lazy tree as the reference layout's walk reads it (visibleForest's ForestSource; no search here). */
function forestSource(t: LazyTree): ForestSource {
  return {
    n: t.n,
    rootPositions: t.rootPositions,
    indexOf: (id) => t.indexOf(id),
    parentAt: (i) => t.parentAt(i),
    firstChildAt: (i) => t.firstChildAt(i),
    nextSiblingAt: (i) => t.nextSiblingAt(i),
    hasIdAt: () => true,
    passesAt: (i, mode, isLeaf) => t.passesAt(i, mode, isLeaf),
    matchesAt: () => false,
  };
}

/** The engine's tree() before issue 23's windows: the whole layout per filter, the whole path per selection (same caches). */
class WholeLayoutTree {
  #layout: { key: string; layout: ForestLayout; leafPos?: number; flat?: ForestLayout & LeafSelection } | undefined;
  readonly #tree: LazyTree;
  readonly #src: ForestSource;
  readonly #bodies: BodyReader;
  constructor(readonly model: LazyXcshModel) {
    this.#tree = new LazyTree(model.index);
    this.#src = forestSource(this.#tree);
    this.#bodies = new BodyReader(model.index);
  }
  async tree(p: TreeParams): Promise<TreeResult> {
    const t = this.#tree;
    const leafPos = p.leafId === null ? t.defaultLeafPos : t.indexOf(p.leafId);
    const key = `${p.filter}\0${p.search}`;
    if (this.#layout?.key !== key) this.#layout = { key, layout: layoutForest(this.#src, p.filter, [], t.defaultLeafId) };
    const cache = this.#layout;
    if (cache.flat === undefined || cache.leafPos !== leafPos) {
      cache.flat = selectLeafIn(t, cache.layout, leafPos === -1 ? null : t.idAt(leafPos));
      cache.leafPos = leafPos;
    }
    const flat = cache.flat;
    const end = Math.min(flat.pos.length, p.start + p.count);
    const positions = p.start < end ? Array.from(flat.pos.subarray(p.start, end)) : [];
    const bodies = await this.#bodies.read(positions);
    const rows: TreeRow[] = positions.map((pos, k) => {
      const e = bodies[k]! as unknown as ViewEntry;
      return {
        entryId: e.id,
        depth: flat.depths[p.start + k]!,
        ...rowDisplayOf(bodies[k]!, t.ix.labels.get(e.id)),
        timestamp: typeof e.timestamp === 'string' ? e.timestamp : null,
        isLeaf: t.firstChildAt(pos) === -1,
        isDefaultLeaf: pos === t.defaultLeafPos,
        onPath: flat.onPath[pos] === 1,
        forks: flat.forks[p.start + k] === 1,
      };
    });
    return {
      total: flat.pos.length,
      hidden: flat.hidden,
      selectedIndex: flat.selectedIndex,
      leafHidden: leafPos !== -1 && flat.rowAt[leafPos] === -1,
      focusIndex: p.focusEntryId !== null && t.has(p.focusEntryId) ? rowOfEntry(t, flat, p.focusEntryId) : null,
      rows,
    };
  }
}

/** The Sessions view's queries before issue 23: over each query's whole visible forest (test/reference/branchQueries.ts). */
function wholeForestBranches(model: LazyXcshModel): WholeForestBranches {
  const t = new LazyTree(model.index);
  const bodies = new BodyReader(model.index);
  return new WholeForestBranches({
    ...forestSource(t),
    defaultLeafId: t.defaultLeafId,
    idAt: (i) => t.idAt(i),
    isUserAt: (i) => (model.index.viewFlags[i]! & ViewFlag.User) !== 0,
    labelOf: (id) => model.index.labels.get(id),
    entriesAt: async (ps) => (await bodies.read(ps)) as unknown as ViewEntry[],
  });
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  gc();
  // (and the collector's concurrent work after it done before the request starts)
  await new Promise((resolve) => setTimeout(resolve, 10));
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

const same = (a: unknown, b: unknown, what: string): void => {
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`layout bench: the windowed answer differs from the whole layout's (${what})`);
};

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** Both engines' times for one kind of request, per item (a filter, a leaf, an entry…). */
class Figure {
  readonly #items = new Map<string, { ours: number[]; old: number[] }>();
  #runs = 0;

  add(item: string, ours: number, old: number): void {
    const it = this.#items.get(item) ?? { ours: [], old: [] };
    it.ours.push(ours);
    it.old.push(old);
    this.#items.set(item, it);
  }

  /** Times both on the same request, each first in turn (what the first warms — the page cache, a body's bytes — the second gets), and checks they answer alike. */
  async pair(item: string, ours: () => Promise<unknown>, old: () => Promise<unknown>): Promise<void> {
    let a: unknown;
    let b: unknown;
    let tOurs = 0;
    let tOld = 0;
    if (this.#runs++ % 2 === 0) {
      tOurs = await timed(async () => (a = await ours()));
      tOld = await timed(async () => (b = await old()));
    } else {
      tOld = await timed(async () => (b = await old()));
      tOurs = await timed(async () => (a = await ours()));
    }
    same(a, b, item);
    this.add(item, tOurs, tOld);
  }

  /** Per item the best of its repetitions, the median of those over the items; and the median of every run. */
  summary(): { ours: number; old: number; oursAll: number; oldAll: number } {
    const items = [...this.#items.values()];
    return {
      ours: median(items.map((it) => Math.min(...it.ours))),
      old: median(items.map((it) => Math.min(...it.old))),
      oursAll: median(items.flatMap((it) => it.ours)),
      oldAll: median(items.flatMap((it) => it.old)),
    };
  }
}

/** The bare baseline of bench/run.ts: read the file, split lines, JSON.parse each. Best of `reps`. */
function bareParse(file: string, reps: number): number {
  let ms = Infinity;
  for (let k = 0; k < reps; k++) {
    gc();
    const t0 = performance.now();
    const text = readFileSync(file, 'utf8');
    let records = 0;
    for (const line of text.split('\n')) if (line !== '') records += JSON.parse(line) ? 1 : 0;
    ms = Math.min(ms, performance.now() - t0);
    if (records === 0) throw new Error('baseline: no records');
  }
  return ms;
}

/** The entry and the window the editor asks for after a selection, a filter change or an append. */
const request = (filter: TreeFilterMode, leafId: string | null, start = 0): TreeParams => ({ filter, search: '', leafId, focusEntryId: leafId, start, count: WINDOW });

const FILTERS: TreeFilterMode[] = ['no-tools', 'user-only', 'labelled-only', 'all', 'default'];

async function measureSize(dir: string, n: number): Promise<string[]> {
  const full = join(dir, `layout-${n}.jsonl`);
  const gen = generateSession(full, n);
  const mb = gen.bytes / 1048576;
  const reps = n <= 100_000 ? 7 : 5;
  process.stderr.write(`generated ${n} entries (${mb.toFixed(1)} MB, ${gen.branches} side branches); measuring the tree layout…\n`);
  const base = bareParse(full, n <= 100_000 ? 3 : 1);

  // The live file: all but the last reps × APPEND entries, appended APPEND at a time below.
  const bytes = readFileSync(full);
  const tail: number[] = [bytes.length]; // where each of the last reps × APPEND lines starts, and the end
  for (let k = 0; k < reps * APPEND; k++) tail.unshift(bytes.lastIndexOf(0x0a, tail[0]! - 2) + 1);
  const live = join(dir, `layout-${n}-live.jsonl`);
  writeFileSync(live, bytes.subarray(0, tail[0]));
  rmSync(full, { force: true });
  const cache = new IndexCache(join(dir, 'ixcache'), { minBytes: 0 });
  const first = await LazyXcshModel.open(live, { indexCache: cache });
  await first.refresh(); // once the cache is written
  first.dispose();
  const fig = {
    first: new Figure(),
    select: new Figure(),
    filter: new Figure(),
    append: new Figure(),
    appendTree: new Figure(),
    expand: new Figure(),
    reveal: new Figure(),
    engineLayout: new Figure(),
    engineSelect: new Figure(),
  };

  // First window, and the Sessions view's first expand (a session's top-level branch rows): a
  // model reopened from the index cache, nothing laid out yet.
  const dq = { filter: 'default' as const, search: '' };
  for (let k = 0; k < reps; k++) {
    const m = await LazyXcshModel.open(live, { indexCache: cache });
    const old = new WholeLayoutTree(m);
    await fig.first.pair('first window', () => m.tree(request('default', null)), () => old.tree(request('default', null)));
    m.dispose();
    const m2 = await LazyXcshModel.open(live, { indexCache: cache });
    const oldBranches = wholeForestBranches(m2);
    await fig.expand.pair('expand', () => m2.segments(dq, null), () => oldBranches.segments(dq, null));
    m2.dispose();
  }

  const model = await LazyXcshModel.open(live, { indexCache: cache });
  const tree = new LazyTree(model.index);
  const src = forestSource(tree);
  const leaves: number[] = [];
  for (let i = 0; i < model.index.n; i++) if (tree.firstChildAt(i) === -1) leaves.push(i);
  const probeLeaves = Array.from({ length: 8 }, (_, k) => leaves[Math.floor(((k + 0.5) * leaves.length) / 8)]!);
  const probeEntries = Array.from({ length: 8 }, (_, k) => tree.idAt(Math.floor(((k + 0.5) * model.index.n) / 8)));
  const whole = layoutForest(src, 'default', [], tree.defaultLeafId);
  const old = new WholeLayoutTree(model);
  const oldBranches = wholeForestBranches(model);
  await model.tree(request('default', null));
  await old.tree(request('default', null));
  await model.segments(dq, null);
  await oldBranches.segments(dq, null);

  for (let k = 0; k < reps; k++) {
    // Another leaf selected: the window the editor shows around its row.
    for (const leaf of probeLeaves) {
      const p = request('default', tree.idAt(leaf), Math.max(0, whole.rowAt[leaf]! - WINDOW / 2));
      await fig.select.pair(`select ${leaf}`, () => model.tree(p), () => old.tree(p));
    }
    // The Sessions view: an entry revealed (the segments down to it).
    for (const id of probeEntries) await fig.reveal.pair(`reveal ${id}`, () => model.revealPath(dq, id), () => oldBranches.revealPath(dq, id));
  }
  // Another filter: each in turn (the model keeps the rows of two).
  for (let k = 0; k < reps; k++) for (const f of FILTERS) await fig.filter.pair(`filter ${f}`, () => model.tree(request(f, null)), () => old.tree(request(f, null)));

  // The layout work alone (no bodies read): a filter laid out with its first window's shape, and a
  // selection with its window's path marks; the whole layout's functions on the same tree.
  const shapeOf = (rows: ForestRows, sel: ReturnType<ForestRows['select']>, start: number): number => {
    let h = 0;
    for (let r = start; r < Math.min(rows.rows, start + WINDOW); r++) h += rows.posAt(r) + rows.depthAt(r) + (rows.forksAt(r) ? 1 : 0) + (sel.onPath(r) ? 1 : 0);
    return h;
  };
  const wholeShape = (flat: ForestLayout & LeafSelection, start: number): number => {
    let h = 0;
    for (let r = start; r < Math.min(flat.pos.length, start + WINDOW); r++) h += flat.pos[r]! + flat.depths[r]! + flat.forks[r]! + flat.onPath[flat.pos[r]!]!;
    return h;
  };
  const laid = ForestRows.layout(tree.links, tree.shownBits('default', null), tree.defaultPath());
  for (let k = 0; k < reps; k++) {
    for (const f of FILTERS) {
      const fresh = new LazyTree(model.index); // its default path not yet found, as after an append
      await fig.engineLayout.pair(
        `layout ${f}`,
        async () => {
          const rows = ForestRows.layout(fresh.links, fresh.shownBits(f, null), fresh.defaultPath());
          return shapeOf(rows, rows.select(fresh.defaultLeafPos), 0);
        },
        async () => wholeShape(selectLeafIn(tree, layoutForest(src, f, [], tree.defaultLeafId), tree.defaultLeafId), 0),
      );
    }
    for (const leaf of probeLeaves) {
      const start = Math.max(0, whole.rowAt[leaf]! - WINDOW / 2);
      await fig.engineSelect.pair(`select ${leaf}`, async () => shapeOf(laid, laid.select(leaf), start), async () => wholeShape(selectLeafIn(tree, whole, tree.idAt(leaf)), start));
    }
  }

  // A live append of APPEND entries, then the window at the default leaf: ours the refresh and
  // tree(); the whole layout's tree() on the grown index after the same refresh.
  let extended = 0;
  const extend = ForestRows.prototype.extend;
  ForestRows.prototype.extend = function (this: ForestRows, ...args: Parameters<typeof extend>): boolean {
    const ok = extend.apply(this, args);
    if (ok) extended++;
    return ok;
  };
  try {
    for (let k = 0; k < reps; k++) {
      const before = (await model.tree(request('default', null))).total;
      appendFileSync(live, bytes.subarray(tail[k * APPEND], tail[(k + 1) * APPEND]));
      gc();
      const r0 = performance.now();
      const r = await model.refresh();
      const refreshMs = performance.now() - r0;
      if (r.kind !== 'appended' || r.summary.entryCount !== model.index.n) throw new Error(`layout bench: expected an append, got ${r.kind}`);
      const p = request('default', null, Math.max(0, before - WINDOW / 2));
      const grown = new WholeLayoutTree(model);
      let a: unknown;
      let b: unknown;
      const tOurs = await timed(async () => (a = await model.tree(p)));
      const tOld = await timed(async () => (b = await grown.tree(p)));
      same(a, b, 'append');
      fig.appendTree.add('append', tOurs, tOld);
      fig.append.add('append', refreshMs + tOurs, refreshMs + tOld);
    }
  } finally {
    ForestRows.prototype.extend = extend;
  }
  model.dispose();
  rmSync(live, { force: true });
  rmSync(join(dir, 'ixcache'), { recursive: true, force: true });

  const f1 = (x: number): string => x.toFixed(1);
  const f2 = (x: number): string => x.toFixed(2);
  const row = (name: string, f: Figure): string => {
    const s = f.summary();
    return `| ${n} | ${name} | ${f1(s.ours)} (${f1(s.oursAll)}) | ${f1(s.old)} (${f1(s.oldAll)}) | ${f2(s.ours / s.old)}× | ${f2(s.ours / base)}× | ${f2(s.old / base)}× |`;
  };
  return [
    row('first window (reopened, default filter)', fig.first),
    row(`another leaf selected (window of ${WINDOW} at its row; 8 leaves)`, fig.select),
    row('another filter (each of the 5)', fig.filter),
    row(`append ${APPEND} entries: refresh + window`, fig.append),
    row(`append ${APPEND} entries: the window after the refresh (rows extended in place ${extended} of ${reps} times)`, fig.appendTree),
    row('Sessions view: a session expanded (top-level branch rows, first ask)', fig.expand),
    row('Sessions view: an entry revealed (the segments down to it; 8 entries)', fig.reveal),
    row('layout work alone: a filter laid out + its first window (each of the 5)', fig.engineLayout),
    row(`layout work alone: a selection + its window of ${WINDOW} (8 leaves)`, fig.engineSelect),
    `| ${n} | bare read+split+JSON.parse of the ${f1(mb)} MB file | ${f1(base)} | | | 1.00× | |`,
  ];
}

export async function layoutBench(sizes: number[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'session-loom-layout-'));
  const lines: string[] = [];
  try {
    for (const n of sizes) lines.push(...(await measureSize(dir, n)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('\nEditor branch tree and Sessions view (issue 23, layout in windows), ms: per item the best of its repetitions, the median over the items (in parentheses: the median of every run)');
  console.log('| entries | request | windowed ms | whole layout ms | windowed / whole | windowed / bare parse | whole / bare parse |');
  console.log('|---:|---|---:|---:|---:|---:|---:|');
  for (const l of lines) console.log(l);
  console.log(
    'windowed = LazyXcshModel.tree / segments / revealPath (rows laid out once per filter, a selection climbed through its fork points, an append laid out in place when it grows the default line;\n' +
      'the Sessions view reads runs and reveals off the same rows); whole layout = the same requests through test/reference/forestLayout.ts and test/reference/branchQueries.ts\n' +
      '(every row per filter, the whole path per selection, a run walked entry by entry) over the same index and body reader.\n' +
      'Both answer the same (checked on every request). Requests that read bodies (all but "layout work alone") include reading the window\'s entries from disk, the same for both;\n' +
      'the append figures include the index refresh (a tail read), the same for both.',
  );
}
