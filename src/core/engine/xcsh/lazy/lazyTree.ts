// The lazy index's tree, by position: the same TreeState the eager index builds (treeState.ts,
// one builder), asked by position, plus the ForestSource the shared tree walk (visibleForest)
// reads — filters from the flags kept while streaming, the search from a bitset of matches.
import type { TreeFilterMode } from '../../../tree/treeView';
import { passesFilterFlags, type ForestSource } from '../../../tree/treeView';
import { computeTour, tourContains, type Tour } from '../../../tree/treeTour';
import type { LazyIndexData } from './lazyIndex';

export class LazyTree implements ForestSource {
  #tour: Tour | null = null;
  /** Matches of the last search (position → 1), set before a walk that searches. */
  searchBits: Uint8Array | null = null;

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
  hasIdAt(): boolean {
    // Every entry the lazy index holds has a string id (its scope rule).
    return true;
  }
  labelAt(i: number): string | undefined {
    return this.ix.labels.size === 0 ? undefined : this.ix.labels.get(this.idAt(i));
  }
  passesAt(i: number, mode: TreeFilterMode, isLeaf: boolean): boolean {
    return passesFilterFlags(this.ix.viewFlags[i]!, mode, mode === 'labelled-only' ? this.labelAt(i) : undefined, isLeaf);
  }
  matchesAt(i: number): boolean {
    return this.searchBits !== null && this.searchBits[i] === 1;
  }

  get defaultLeafPos(): number {
    return this.ix.n - 1;
  }
  get defaultLeafId(): string | null {
    return this.ix.n > 0 ? this.idAt(this.ix.n - 1) : null;
  }

  /** Root → position i (inclusive), as positions. */
  pathIndices(i: number): Int32Array {
    const { depth, parent } = this.ix.tree;
    const out = new Int32Array(depth[i]! + 1);
    let j = i;
    for (let k = out.length - 1; k >= 0; k--) {
      out[k] = j;
      j = parent[j]!;
    }
    return out;
  }

  isAncestorAt(x: number, y: number): boolean {
    return tourContains((this.#tour ??= computeTour(this.ix.tree)), x, y);
  }

  leafCount(): number {
    const { n, shadowed, firstChild } = this.ix.tree;
    let c = 0;
    for (let i = 0; i < n; i++) if (!shadowed[i] && firstChild[i] === -1) c++;
    return c;
  }
}
