// Incremental append for the tree index (src/core/tree/tree.ts). Live sessions grow at the end
// (Part B §9): new nodes are linked in O(new entries) while every answer stays equal to a full
// rebuild. What would change an existing node (a duplicate id, a late parent of an orphan, a
// forward parent link that might close a cycle) needs a full rebuild instead; what an append
// cannot keep cheaply (the Euler tour, the deepest leaf) the index recomputes on demand.
import type { SessionEntry } from '../formats/xcsh/schemas';
import { applyLabel, entryKind, linkNode, missingParent, type TreeState } from './treeState';

function grownInt32(a: Int32Array, cap: number, n: number): Int32Array {
  const b = new Int32Array(cap);
  b.set(a.subarray(0, n));
  return b;
}

function grownUint8(a: Uint8Array, cap: number, n: number): Uint8Array {
  const b = new Uint8Array(cap);
  b.set(a.subarray(0, n));
  return b;
}

/**
 * Arrays get spare capacity only once the index is appended to: a session that is never followed
 * live costs exactly what a build does.
 */
function ensureCapacity(s: TreeState, n: number): void {
  if (n <= s.parent.length) return;
  const cap = n + Math.max(1024, n >> 3);
  const m = s.n;
  s.shadowed = grownUint8(s.shadowed, cap, m);
  s.kinds = grownUint8(s.kinds, cap, m);
  s.parent = grownInt32(s.parent, cap, m);
  s.depth = grownInt32(s.depth, cap, m);
  s.firstChild = grownInt32(s.firstChild, cap, m);
  s.nextSibling = grownInt32(s.nextSibling, cap, m);
  if (s.lastChild) s.lastChild = grownInt32(s.lastChild, cap, m);
}

/** The last child of every node, from the children lists (a build does not keep it). */
function ensureLastChild(s: TreeState): Int32Array {
  if (s.lastChild) return s.lastChild;
  const lastChild = new Int32Array(s.parent.length).fill(-1);
  const { n, shadowed, parent } = s;
  // Children are linked in file order, so the last one in file order is the last child.
  for (let i = 0; i < n; i++) if (!shadowed[i] && parent[i] !== -1) lastChild[parent[i]!] = i;
  s.lastChild = lastChild;
  return lastChild;
}

/**
 * Indexes `entries[s.n…]` in place. Returns false when a full rebuild is needed (the state is then
 * partly updated and must be rebuilt).
 */
export function appendToTree(s: TreeState, entries: readonly SessionEntry[], entryLines?: readonly number[]): boolean {
  const from = s.n;
  const n = entries.length;
  if (n < from) return false;
  s.entries = entries;
  s.lines = entryLines;
  if (n === from) return true;
  ensureCapacity(s, n);
  for (let i = from; i < n; i++) s.kinds[i] = entryKind(entries[i]!);
  if (!appendNodes(s, n)) return false;
  for (let i = from; i < n; i++) applyLabel(s.labels, entries[i]!);
  s.n = n;
  for (let i = from; i < n; i++) linkNode(s, i);
  return true;
}

/**
 * The lazy index's append: nodes `s.n…n-1` read through `s.idAt`/`s.parentIdAt`, their kinds
 * already in `s.kinds` (and labels already applied) by the caller. Same rules, same result as
 * appendToTree; false when a full rebuild is needed.
 */
export function appendTreeNodes(s: TreeState, n: number, kinds: Uint8Array): boolean {
  const from = s.n;
  if (n < from) return false;
  if (n === from) return true;
  ensureCapacity(s, n);
  s.kinds.set(kinds.subarray(from, n), from);
  if (!appendNodes(s, n)) return false;
  s.n = n;
  for (let i = from; i < n; i++) linkNode(s, i);
  return true;
}

/** Ids, then parents and depths of nodes s.n…n-1 (capacity ensured, kinds set). */
function appendNodes(s: TreeState, n: number): boolean {
  const from = s.n;
  ensureLastChild(s);
  // Ids first, so a parent later in the appended slice is known when links are resolved.
  for (let i = from; i < n; i++) {
    const id = s.idAt(i);
    if (id === undefined) continue;
    // A duplicate would shadow an indexed node; an id some orphan names would adopt it.
    if (s.idx.has(id) || s.missingParents.has(id)) return false;
    s.idx.set(id, i);
  }
  const { parent, lastChild } = s;
  for (let i = from; i < n; i++) {
    s.shadowed[i] = 0;
    parent[i] = -1;
    s.firstChild[i] = -1;
    lastChild![i] = -1;
    s.nextSibling[i] = -1;
    const pid = s.parentIdAt(i);
    if (pid !== null) {
      const p = s.idx.get(pid);
      if (p === -1) missingParent(s, i, pid);
      else if (p >= i) return false; // self or forward link: may close a cycle
      else parent[i] = p;
    }
    s.depth[i] = parent[i] === -1 ? 0 : s.depth[parent[i]!]! + 1;
  }
  return true;
}
