// The Euler tour of the tree index (src/core/tree/tree.ts): every node gets an interval [tin, tout]
// that contains exactly its subtree. Listing the leaves by tour position makes "the leaves whose
// path contains X" a contiguous slice, found by binary search — O(log n + answer), no per-node
// leaf lists — and "is A an ancestor of B" two comparisons.
//
// Computed on the first query that needs it (loading and the context build do not), and again
// after an append changed the tree.
import type { TreeState } from './treeState';

/** tin/tout per node, order[t] = node with tin t, leafTin = tour positions of leaves. */
export interface Tour {
  tin: Int32Array;
  tout: Int32Array;
  order: Int32Array;
  leafTin: Int32Array;
}

/** Iterative Euler tour over the current nodes (roots in file order, children in file order). */
export function computeTour(s: TreeState): Tour {
  const { n, firstChild, nextSibling, parent } = s;
  const tin = new Int32Array(n).fill(-1);
  const tout = new Int32Array(n).fill(-1);
  const order = new Int32Array(s.size);
  let t = 0;
  for (const root of s.rootIdx) {
    let node = root;
    for (;;) {
      tin[node] = t;
      order[t++] = node;
      const c = firstChild[node]!;
      if (c !== -1) {
        node = c;
        continue;
      }
      // Ascend until a node with a next sibling, closing intervals on the way.
      let done = false;
      for (;;) {
        tout[node] = t - 1;
        if (node === root) {
          done = true;
          break;
        }
        const sib = nextSibling[node]!;
        if (sib !== -1) {
          node = sib;
          break;
        }
        node = parent[node]!;
      }
      if (done) break;
    }
  }
  let leafCount = 0;
  for (let k = 0; k < t; k++) if (firstChild[order[k]!] === -1) leafCount++;
  const leafTin = new Int32Array(leafCount);
  let li = 0;
  for (let k = 0; k < t; k++) if (firstChild[order[k]!] === -1) leafTin[li++] = k;
  return { tin, tout, order, leafTin };
}

function lowerBound(a: Int32Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Positions (in `entries`) of the leaves in node i's subtree, in tour order. */
export function leavesUnder(tour: Tour, i: number): number[] {
  const { tin, tout, order, leafTin } = tour;
  const from = lowerBound(leafTin, tin[i]!);
  const to = lowerBound(leafTin, tout[i]! + 1);
  const out: number[] = [];
  for (let k = from; k < to; k++) out.push(order[leafTin[k]!]!);
  return out;
}

/** True when node x is on the root→y path (inclusive). */
export function tourContains(tour: Tour, x: number, y: number): boolean {
  const { tin, tout } = tour;
  return tin[x]! <= tin[y]! && tin[y]! <= tout[x]!;
}
