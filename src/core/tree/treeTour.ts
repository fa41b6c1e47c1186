// The Euler tour of a tree (src/core/tree/treeState.ts): every node gets an interval [tin, tout]
// that contains exactly its subtree, so "is A an ancestor of B" is two comparisons (the session
// engine's LazyTree.isAncestor). Computed on the first query that needs it, and again after an
// append changed the tree.
import type { TreeState } from './treeState';

/** tin/tout per node: node x's subtree is the nodes whose tin lies in [tin[x], tout[x]]. */
export interface Tour {
  tin: Int32Array;
  tout: Int32Array;
}

/** Iterative Euler tour over the current nodes (roots in file order, children in file order). */
export function computeTour(s: TreeState): Tour {
  const { n, firstChild, nextSibling, parent } = s;
  const tin = new Int32Array(n).fill(-1);
  const tout = new Int32Array(n).fill(-1);
  let t = 0;
  for (const root of s.rootIdx) {
    let node = root;
    for (;;) {
      tin[node] = t;
      t++;
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
  return { tin, tout };
}

/** True when node x is on the root→y path (inclusive). */
export function tourContains(tour: Tour, x: number, y: number): boolean {
  const { tin, tout } = tour;
  return tin[x]! <= tin[y]! && tin[y]! <= tout[x]!;
}
