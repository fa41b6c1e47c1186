// The lazy index's tree, by position: the same TreeState the eager index builds (treeState.ts,
// one builder), asked by position, plus what the row layout of both tree views (treeRows.ts)
// reads — the tree's arrays, and what a filter shows from the flags kept while streaming, with
// a search's matches as a bitset.
import type { TreeFilterMode } from '../../../tree/treeView';
import { passesFilterFlags } from '../../../tree/treeView';
import { computeTour, tourContains, type Tour } from '../../../tree/treeTour';
import { pathPositions } from '../../../tree/treeState';
import type { TreeLinks } from '../treeRows';
import type { LazyIndexData } from './lazyIndex';

export class LazyTree {
  #tour: Tour | null = null;

  constructor(readonly ix: LazyIndexData) {}

  get n(): number {
    return this.ix.n;
  }
  get rootPositions(): readonly number[] {
    return this.ix.tree.rootIdx;
  }
  indexOf(id: string): number {
    return this.ix.tree.idx.get(id);
  }
  has(id: string): boolean {
    return this.indexOf(id) !== -1;
  }
  idAt(i: number): string {
    return this.ix.ids.at(i) ?? '';
  }
  parentAt(i: number): number {
    return i >= 0 && i < this.ix.n ? this.ix.tree.parent[i]! : -1;
  }
  firstChildAt(i: number): number {
    return i >= 0 && i < this.ix.n ? this.ix.tree.firstChild[i]! : -1;
  }
  nextSiblingAt(i: number): number {
    return i >= 0 && i < this.ix.n ? this.ix.tree.nextSibling[i]! : -1;
  }
  depthAt(i: number): number {
    return this.ix.tree.depth[i]!;
  }
  labelAt(i: number): string | undefined {
    return this.ix.labels.size === 0 ? undefined : this.ix.labels.get(this.idAt(i));
  }
  passesAt(i: number, mode: TreeFilterMode, isLeaf: boolean): boolean {
    return passesFilterFlags(this.ix.viewFlags[i]!, mode, mode === 'labelled-only' ? this.labelAt(i) : undefined, isLeaf);
  }

  /** The tree's arrays, for the row layout. */
  get links(): TreeLinks {
    const t = this.ix.tree;
    return { n: this.ix.n, rootPositions: t.rootIdx, parent: t.parent, firstChild: t.firstChild, nextSibling: t.nextSibling };
  }

  /**
   * passesAt of positions [from, n) as bits, bits[p - from], and-ed with `matches` (a search's
   * matches, or the search index's, by position) when given: the filter's rule read once per flag
   * value, not once per entry; a label looked up only where the filter reads one.
   */
  shownBits(mode: TreeFilterMode, matches: Uint8Array | null, from = 0): Uint8Array {
    const n = this.ix.n;
    const flags = this.ix.viewFlags;
    const out = new Uint8Array(Math.max(0, n - from));
    const leaf = this.defaultLeafPos;
    if (mode === 'labelled-only') {
      if (from === 0) {
        for (const [id, label] of this.ix.labels) {
          const p = this.indexOf(id);
          if (p !== -1 && passesFilterFlags(flags[p]!, mode, label, p === leaf)) out[p] = 1;
        }
      } else {
        for (let p = from; p < n; p++) out[p - from] = this.passesAt(p, mode, p === leaf) ? 1 : 0;
      }
    } else {
      const pass = new Uint8Array(256);
      for (let f = 0; f < 256; f++) pass[f] = passesFilterFlags(f, mode, undefined, false) ? 1 : 0;
      for (let p = from; p < n; p++) out[p - from] = pass[flags[p]!]!;
      if (leaf >= from) out[leaf - from] = this.passesAt(leaf, mode, true) ? 1 : 0;
    }
    if (matches) for (let p = from; p < n; p++) out[p - from] &= matches[p]!;
    return out;
  }

  #defaultPath: Uint8Array | null = null;
  /** 1 for the entries on the path from the root to the default leaf (the layout lists them first). */
  defaultPath(): Uint8Array {
    if (this.#defaultPath) return this.#defaultPath;
    const on = new Uint8Array(this.ix.n);
    for (let i = this.defaultLeafPos; i !== -1; i = this.parentAt(i)) on[i] = 1;
    return (this.#defaultPath = on);
  }

  get defaultLeafPos(): number {
    return this.ix.n - 1;
  }
  get defaultLeafId(): string | null {
    return this.ix.n > 0 ? this.idAt(this.ix.n - 1) : null;
  }

  /** Root → position i (inclusive), as positions. */
  pathIndices(i: number): Int32Array {
    return pathPositions(this.ix.tree, i);
  }

  isAncestorAt(x: number, y: number): boolean {
    return tourContains((this.#tour ??= computeTour(this.ix.tree)), x, y);
  }

  /**
   * How many leaves the tree has. `before`: the count when the tree had only its first `before.n`
   * entries and grew by appends since (in place: old entries only gain children), so only the new
   * entries are looked at — a live session's refresh does not count a 1M-entry tree again.
   */
  leafCount(before?: { n: number; leaves: number }): number {
    const { n, shadowed, firstChild, parent } = this.ix.tree;
    if (!before) {
      let c = 0;
      for (let i = 0; i < n; i++) if (!shadowed[i] && firstChild[i] === -1) c++;
      return c;
    }
    let c = before.leaves;
    for (let i = before.n; i < n; i++) {
      if (shadowed[i]) continue;
      if (firstChild[i] === -1) c++;
      // An old entry's first child among the new ones: that entry was a leaf.
      const q = parent[i]!;
      if (q !== -1 && q < before.n && firstChild[q] === i && !shadowed[q]) c--;
    }
    return c;
  }
}
