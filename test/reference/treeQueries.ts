// The reference (test-only, issue 23): questions about the tree index (src/core/tree/tree.ts) that
// only tests and the reference model ask — a path as entries, the leaves a path reaches, common
// ancestors, the deepest leaf, a shadowed duplicate — answered over the index's public, by-position
// API in plain walks (O(depth) or O(subtree)), so they also check that API.
import type { SessionEntry } from '../../src/core/formats/xcsh/schemas';
import type { TreeIndex } from '../../src/core/tree/tree';

const idAt = (index: TreeIndex, i: number): string | undefined => {
  const id = (index.entries[i] as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
};

/** Root → entry (inclusive), following effective parents. Empty for an unknown id. */
export function pathToRoot(index: TreeIndex, id: string): SessionEntry[] {
  return Array.from(index.pathIndices(id), (i) => index.entries[i]!);
}

/** Ids of the leaves whose root→leaf path contains `id` (its own id when it is a leaf), in tree order (children in file order). */
export function leavesContaining(index: TreeIndex, id: string): string[] {
  const start = index.indexOf(id);
  if (start === -1) return [];
  const out: string[] = [];
  const stack = [start];
  while (stack.length > 0) {
    const i = stack.pop()!;
    const first = index.firstChildAt(i);
    if (first === -1) {
      const leaf = idAt(index, i);
      if (leaf !== undefined) out.push(leaf);
      continue;
    }
    const kids: number[] = [];
    for (let c = first; c !== -1; c = index.nextSiblingAt(c)) kids.push(c);
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]!);
  }
  return out;
}

/** The deepest entry that is an ancestor of (or equal to) both, or null when in different trees. */
export function commonAncestor(index: TreeIndex, a: string, b: string): string | null {
  let x = index.indexOf(a);
  let y = index.indexOf(b);
  if (x === -1 || y === -1) return null;
  let dx = index.depth(a);
  let dy = index.depth(b);
  for (; dx > dy; dx--) x = index.parentAt(x);
  for (; dy > dx; dy--) y = index.parentAt(y);
  while (x !== y) {
    x = index.parentAt(x);
    y = index.parentAt(y);
    if (x === -1 || y === -1) return null;
  }
  return idAt(index, x) ?? null;
}

/** True when `ancestor` is on the root→`id` path (inclusive). */
export function isAncestor(index: TreeIndex, ancestor: string, id: string): boolean {
  const x = index.indexOf(ancestor);
  if (x === -1) return false;
  for (let y = index.indexOf(id); y !== -1; y = index.parentAt(y)) if (y === x) return true;
  return false;
}

/** True when the entry at this position lost to a later duplicate of its id. */
export function isShadowed(index: TreeIndex, i: number): boolean {
  if (i >= index.entries.length) return false;
  const id = idAt(index, i);
  return id !== undefined && index.indexOf(id) !== i;
}

/** The leaf with the greatest depth (first in file order on ties), or null. */
export function deepestLeaf(index: TreeIndex): string | null {
  let deepest: string | null = null;
  let depth = -1;
  for (const leaf of index.leaves()) {
    const d = index.depth(leaf);
    if (d > depth) {
      deepest = leaf;
      depth = d;
    }
  }
  return deepest;
}
