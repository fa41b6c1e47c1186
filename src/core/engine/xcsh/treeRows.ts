// The branch tree as rows (issue 23, "layout in windows"): a filter and search (treeView.ts: what
// each filter hides, the empty-assistant exemption of the default leaf, ordering by the default
// leaf) laid out depth-first (rowWalk.ts) so the editor's webview can window it, and the Sessions
// view reads its runs, children and reveal paths off the same rows (branchQueries.ts). A linear
// run stays at one indentation; only side branches indent, so a 1M-entry chain is a flat list
// instead of a 1M-deep staircase.
//
// At a fork the first visible child (the default leaf's line when it runs through here, else the
// oldest branch) continues at the same indentation; the other branches are listed right after the
// fork point, one level deeper, and then the main line resumes. The layout never depends on the
// selection (issue 14): selecting an entry on another branch only highlights its path, no row
// moves, and the row the user clicked stays under the pointer.
//
// What costs what, for a session of n entries:
// - laying out a filter and search: one walk over the tree's typed arrays, once per filter (a few
//   tens of ms at 1M entries), no per-entry objects; a live append that only grows the default
//   leaf's line (what an agent writes) lays out just the new entries (extend);
// - a window of rows: read from the rows' arrays, O(window);
// - a selection (select): its path as one range of rows per indentation level, found by climbing
//   from the leaf's row through the fork points of its side branches (O(nesting · log)), so
//   "is this row on the path" is two comparisons and no entry-sized array is made per click;
// - the Sessions view's children, run ends and run starts: binary searches among the side
//   branches (O(children + log)), never a walk along a run.
import { Column } from './lazy/columns';
import { walkRows, type RowSink, type ShownBits, type TreeLinks } from './rowWalk';

export type { ShownBits, TreeLinks } from './rowWalk';

/** The selected leaf over a layout: its path's rows, and the row selected. */
export interface RowSelection {
  /** The row of the leaf, or of its nearest ancestor the filter shows; null when none shows. */
  readonly selectedIndex: number | null;
  /** Whether the filter or search hides the leaf itself. */
  readonly leafHidden: boolean;
  /** Whether the entry of `row` is on the path from the root to the selected leaf. */
  onPath(row: number): boolean;
}

const NO_SELECTION: RowSelection = { selectedIndex: null, leafHidden: false, onPath: () => false };

/** Room for `n` values at the least, with an eighth to spare (what a live session appends). */
const roomFor = (n: number): number => n + Math.max(1024, n >> 3);

/**
 * The rows' arrays: written by the layout walk (its RowSink), read by ForestRows.
 *
 * Positions are in file order; rows in layout order. An entry the filter hides has no row: rowOf
 * keeps, for it, -2 - the position of its nearest shown ancestor (-1 when none shows, and for
 * positions the walk never reaches).
 */
class RowStore implements RowSink {
  rows = 0;
  /** Row → position. */
  pos: Int32Array;
  /** Row → depth << 1 | (1 when the row starts a side branch). */
  depthFork: Int32Array;
  /** Position → its row (≥ 0), or its nearest shown ancestor as above. */
  rowOf: Int32Array;
  /** Row of the first root's line (depth 0), -1 while there is none. */
  topRow = -1;
  /**
   * The rows that start a side branch, per depth (depth ≥ 1), in row order; the row of each one's
   * fork point (-1 for a root listed beside the first root's line); where each one's rows end
   * (exclusive: it, its line and everything hanging off them).
   */
  heads: Column<Int32Array>[] = [];
  forkRows: Column<Int32Array>[] = [];
  ends: Column<Int32Array>[] = [];

  constructor(capacityRows: number, n: number) {
    this.pos = new Int32Array(capacityRows);
    this.depthFork = new Int32Array(capacityRows);
    this.rowOf = new Int32Array(roomFor(n)).fill(-1);
  }

  emit(x: number, depth: number, fork: 0 | 1, forkRow: number): number {
    const row = this.rows++;
    if (row === this.pos.length) {
      const cap = roomFor(row);
      const pos = new Int32Array(cap);
      pos.set(this.pos);
      this.pos = pos;
      const df = new Int32Array(cap);
      df.set(this.depthFork);
      this.depthFork = df;
    }
    this.pos[row] = x;
    this.depthFork[row] = (depth << 1) | fork;
    this.rowOf[x] = row;
    if (depth === 0 && this.topRow === -1) this.topRow = row;
    if (fork === 1) {
      while (this.heads.length <= depth) {
        this.heads.push(new Column(Int32Array, 16));
        this.forkRows.push(new Column(Int32Array, 16));
        this.ends.push(new Column(Int32Array, 16));
      }
      this.heads[depth]!.push(row);
      this.forkRows[depth]!.push(forkRow);
      this.ends[depth]!.push(-1);
    }
    return row;
  }

  closeSide(depth: number, head: number): void {
    this.ends[depth]!.set(countAtOrBefore(this.heads[depth]!, head) - 1, this.rows);
  }

  /** Room for positions up to n (an append), the new ones reached by no walk yet. */
  growTo(n: number): void {
    if (this.rowOf.length >= n) return;
    const grown = new Int32Array(roomFor(n)).fill(-1);
    grown.set(this.rowOf);
    this.rowOf = grown;
  }
}

/** The rows of one filter and search over one session (see the file comment). */
export class ForestRows {
  /** How many entries the filter and search hide. */
  hidden = 0;
  /** Entries the rows cover (positions 0…n-1): an append lays out positions from here on. */
  n = 0;
  readonly #s: RowStore;

  private constructor(capacityRows: number, n: number) {
    this.#s = new RowStore(capacityRows, n);
    this.n = n;
  }

  /** Rows laid out. */
  get rows(): number {
    return this.#s.rows;
  }

  /**
   * Lays out the whole forest. `shown` covers positions from 0; `onDefaultPath` marks the entries
   * on the path to the default leaf (1), which come first among their siblings.
   */
  static layout(t: TreeLinks, shown: Uint8Array, onDefaultPath: Uint8Array): ForestRows {
    let visible = 0;
    for (let i = 0; i < t.n; i++) visible += shown[i]!;
    const rows = new ForestRows(roomFor(visible), t.n);
    rows.#walk(t, { bits: shown, base: 0 }, { bits: onDefaultPath, base: 0 }, t.rootPositions, -1);
    return rows;
  }

  /**
   * Lays out the entries appended since (positions `this.n`…`t.n - 1`, `shown` covering them from
   * `this.n`) when all of them descend from the previous default leaf, whose visibility did not
   * change, and nothing the rows list hangs below it: the new rows then all come after the old
   * ones, which stay as they are. False (the rows unchanged) when the session grew otherwise, or
   * when the caller's filter or search may see old entries differently — lay it out again then.
   * `oldLeafShown`: whether the filter still shows the previous default leaf now that it is not
   * the default leaf (the empty-assistant exemption is the default leaf's only).
   */
  extend(t: TreeLinks, shown: ShownBits, oldLeafShown: boolean): boolean {
    const from = this.n;
    const oldLeaf = from - 1;
    if (t.n < from || oldLeaf < 0) return false;
    if (t.n === from) return true;
    for (let p = from; p < t.n; p++) {
      const parent = t.parent[p]!;
      if ((parent < from && parent !== oldLeaf) || parent >= p) return false;
    }
    const s = this.#s;
    const v = s.rowOf[oldLeaf]!;
    if (oldLeafShown !== v >= 0) return false;
    // The new entries hang below the old leaf's nearest shown ancestor (or the top): that must be
    // the last row, i.e. nothing shown below it yet, for the new rows to follow the old ones.
    const anchor = v >= 0 ? oldLeaf : v === -1 ? -1 : -2 - v;
    if (anchor === -1 ? s.rows !== 0 : s.rowOf[anchor] !== s.rows - 1) return false;
    // The new default leaf's line, among the new entries (they all descend from the old leaf).
    const newPath = new Uint8Array(t.n - from);
    for (let p = t.n - 1; p >= from; p = t.parent[p]!) newPath[p - from] = 1;
    const starts: number[] = [];
    for (let c = t.firstChild[oldLeaf]!; c !== -1; c = t.nextSibling[c]!) if (c >= from) starts.push(c);
    s.growTo(t.n);
    this.n = t.n;
    // (No side branch's end moves: the last row is always on the first root's line, at depth 0 —
    // the layout ends with that line — so the new rows are in no side branch laid out before.)
    this.#walk(t, shown, { bits: newPath, base: from }, starts, anchor);
    return true;
  }

  /** Position of the entry at `row`. */
  posAt(row: number): number {
    return this.#s.pos[row]!;
  }
  depthAt(row: number): number {
    return this.#s.depthFork[row]! >> 1;
  }
  /** Whether `row` starts a side branch (one level deeper than its fork point). */
  forksAt(row: number): boolean {
    return (this.#s.depthFork[row]! & 1) === 1;
  }
  /** The row of the entry at `pos`, or -1 when the filter or search hides it. */
  rowAt(pos: number): number {
    const v = pos >= 0 && pos < this.n ? this.#s.rowOf[pos]! : -1;
    return v >= 0 ? v : -1;
  }
  /** The row of the entry at `pos`, or of its nearest ancestor the filter shows; null when none shows. */
  nearestRow(pos: number): number | null {
    if (pos < 0 || pos >= this.n) return null;
    const rowOf = this.#s.rowOf;
    const v = rowOf[pos]!;
    return v >= 0 ? v : v === -1 ? null : rowOf[-2 - v]!;
  }

  /** The selection of the leaf at `leafPos` (-1: none). */
  select(leafPos: number): RowSelection {
    const row = this.nearestRow(leafPos);
    if (row === null) return leafPos < 0 ? NO_SELECTION : { selectedIndex: null, leafHidden: true, onPath: () => false };
    // The shown entries on the leaf's path are the leaf's row and its shown ancestors: at each
    // depth one run of the line the path follows, from where that line starts (a side branch's
    // first row, or the first root's line) to where the path leaves it (a fork point) — the rows
    // of that depth in between are exactly that run's entries (its side branches are deeper).
    const s = this.#s;
    const top = this.depthAt(row);
    const lo = new Int32Array(top + 1).fill(-1);
    const hi = new Int32Array(top + 1).fill(-1);
    for (let r = row, d = top; ; d--) {
      hi[d] = r;
      if (d === 0) {
        lo[0] = s.topRow;
        break;
      }
      const k = countAtOrBefore(s.heads[d]!, r) - 1;
      lo[d] = s.heads[d]!.get(k);
      r = s.forkRows[d]!.get(k);
      if (r === -1) break; // a root listed beside the first root's line: nothing above it
    }
    return {
      selectedIndex: row,
      leafHidden: this.rowAt(leafPos) === -1,
      onPath: (r: number): boolean => {
        const d = this.depthAt(r);
        return d <= top && lo[d] !== -1 && lo[d]! <= r && r <= hi[d]!;
      },
    };
  }

  // ---- the Sessions view's branch tree over the same rows (branchQueries.ts) ----
  // There an entry's children are its shown children in the same order — its line's next entry
  // first, then its side branches — and a run (a chain of only children) is a block of consecutive
  // rows at one depth, none but the first starting a side branch: each answer is a few binary
  // searches among the side branches, whatever the length of the runs.

  /** The depth of the side branches of `row` (-1: the top, whose side branches are the roots after the first). */
  #below(row: number): number {
    return row === -1 ? 1 : this.depthAt(row) + 1;
  }

  /** The side branches of the entry at `row` (-1: the top): [from, to) among those one level deeper. */
  #sidesOf(row: number): [number, number] {
    const d = this.#below(row);
    const heads = this.#s.heads[d];
    if (!heads) return [0, 0];
    const forks = this.#s.forkRows[d]!;
    const from = countAtOrBefore(heads, row);
    let to = from;
    while (to < heads.length && forks.get(to) === row) to++;
    return [from, to];
  }

  /** The row that goes on with the line of `row` (-1: the top's first root), or -1 when none does. */
  #mainOf(row: number, [from, to]: [number, number]): number {
    const s = this.#s;
    if (row === -1) return s.topRow;
    const d = this.depthAt(row);
    const next = to > from ? s.ends[d + 1]!.get(to - 1) : row + 1;
    return next < s.rows && s.depthFork[next] === d << 1 ? next : -1;
  }

  /** The rows of the shown children of `row` (-1: the top's), the one going on with its line first, then its side branches. */
  childRows(row: number): number[] {
    const sides = this.#sidesOf(row);
    const main = this.#mainOf(row, sides);
    const out = main === -1 ? [] : [main];
    for (let k = sides[0]; k < sides[1]; k++) out.push(this.#s.heads[this.#below(row)]!.get(k));
    return out;
  }

  /** How many shown children the entry at `row` has. */
  childCount(row: number): number {
    const sides = this.#sidesOf(row);
    return (this.#mainOf(row, sides) === -1 ? 0 : 1) + sides[1] - sides[0];
  }

  /** The last row of the run from `row` on: while an entry has just one shown child, the next row is that child. */
  runEnd(row: number): number {
    const s = this.#s;
    const d = this.depthAt(row);
    // The line ends where the side branch it belongs to ends (at depth 0, with the rows) …
    let end = d === 0 ? s.rows - 1 : s.ends[d]!.get(countAtOrBefore(s.heads[d]!, row) - 1) - 1;
    // … or earlier, at its first entry with side branches.
    const below = s.heads[d + 1];
    if (below) {
      const k = countAtOrBefore(below, row);
      if (k < below.length) end = Math.min(end, s.forkRows[d + 1]!.get(k));
    }
    return end;
  }

  /** The first row of the run `row` is in, and the row of the run's parent (-1: the top). */
  runStart(row: number): { start: number; parent: number } {
    const s = this.#s;
    const d = this.depthAt(row);
    let start = s.topRow;
    let parent = -1;
    if (d > 0) {
      const k = countAtOrBefore(s.heads[d]!, row) - 1;
      start = s.heads[d]!.get(k);
      parent = s.forkRows[d]!.get(k);
    }
    // After the line's last entry with side branches before `row`, the run starts at that entry's child.
    const below = s.heads[d + 1];
    if (below) {
      const k = countAtOrBefore(below, row) - 1;
      if (k >= 0 && below.get(k) > start) {
        start = s.ends[d + 1]!.get(k);
        parent = s.forkRows[d + 1]!.get(k);
      }
    }
    return { start, parent };
  }

  /** Lays out the entries below `anchor` (a shown position, -1: the top) reached from `starts` (rowWalk.ts). */
  #walk(t: TreeLinks, shown: ShownBits, onPath: ShownBits, starts: readonly number[], anchor: number): void {
    const s = this.#s;
    const row = anchor === -1 ? -1 : s.rowOf[anchor]!;
    this.hidden += walkRows(t, shown, onPath, starts, { pos: anchor, row, depth: anchor === -1 ? 0 : this.depthAt(row) }, s.rowOf, s);
  }
}

/** How many values of an ascending column are ≤ v: the index of the first one above v. */
function countAtOrBefore(c: Column<Int32Array>, v: number): number {
  let lo = 0;
  let hi = c.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (c.get(mid) <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
