// The tree index: one pass over the loaded entries builds everything a viewer asks of the
// id/parentId tree (spec Part A "Tree and leaf semantics", Part B §7, Part C §5).
//
// Why integer arrays instead of node objects: a 1M-entry session must index in a small multiple
// of its parse time and memory. Nodes are addressed by their position in `entries` (file order);
// parents, children and the Euler tour live in Int32Arrays. Everything is iterative — a linear
// chain of 1M entries is 1M deep, and recursion would overflow the stack.
//
// Leaves under a node: an Euler tour gives every node an interval [tin, tout] that contains
// exactly its subtree. Listing the leaves by tour position makes "the leaves whose path contains
// X" a contiguous slice, found by binary search — O(log n + answer), no per-node leaf lists.
import type { Diagnostic } from './diagnostics';
import type { SessionEntry } from './schemas';

export interface TreeIndex {
  /** The entries as given (file order). Shadowed duplicates stay here but are not tree nodes. */
  readonly entries: readonly SessionEntry[];
  /** id → entry; on duplicate ids the last one in file order wins. */
  readonly byId: ReadonlyMap<string, SessionEntry>;
  /** Root entry ids (parentId null/absent, missing parent, or a cut cycle), file order. */
  readonly roots: readonly string[];
  /** The default leaf: the last entry in file order (Part B §7), or null for no entries. */
  readonly defaultLeafId: string | null;
  /** targetId → label, resolved from `label` entries in file order (absent label clears). */
  readonly labels: ReadonlyMap<string, string>;
  /** Tree anomalies: duplicate-id, missing-parent, cycle. Lines come from `entryLines`. */
  readonly diagnostics: readonly Diagnostic[];
  /** Number of tree nodes (entries minus shadowed duplicates). */
  readonly size: number;

  /** Position of the winning entry with this id in `entries`, or -1. */
  indexOf(id: string): number;
  get(id: string): SessionEntry | undefined;
  has(id: string): boolean;
  /** The effective parent id in the tree (null for roots, including orphans and cut cycles). */
  parentOf(id: string): string | null;
  /** Depth from its root (roots are 0), or -1 for an unknown id. */
  depth(id: string): number;
  /** The 1-based file line of an entry when `entryLines` was given, else 0. */
  lineOf(id: string): number;
  /** Children in file order. O(children). */
  children(id: string): SessionEntry[];
  /** Root → entry (inclusive), following effective parents. O(depth). Empty for an unknown id. */
  pathToRoot(id: string): SessionEntry[];
  /** Like pathToRoot but positions in `entries`. */
  pathIndices(id: string): Int32Array;
  /** Every leaf (node without children), file order. */
  leaves(): string[];
  /** Ids of the leaves whose root→leaf path contains `id` (its own id when it is a leaf), in tree order. */
  leavesContaining(id: string): string[];
  /** The deepest entry that is an ancestor of (or equal to) both, or null when in different trees. O(depth). */
  commonAncestor(a: string, b: string): string | null;
  /** True when `ancestor` is on the root→`id` path (inclusive). O(1). */
  isAncestor(ancestor: string, id: string): boolean;
  /** The leaf with the greatest depth (first in file order on ties), or null. */
  deepestLeaf(): string | null;
  /** True when the entry at this position lost to a later duplicate of its id. */
  isShadowed(index: number): boolean;
  /** kinds[i] = the EntryKind of entries[i], classified once during indexing (see entryKind). */
  readonly kinds: Uint8Array;
}

/**
 * What buildSessionContext needs to know about an entry without touching it again. Computed in
 * the index pass: on a 1M-entry path, re-reading `type` (and `message.role`) of objects scattered
 * over the heap costs more than the rest of the context build.
 */
export const EntryKind = {
  Other: 0,
  Message: 1,
  AssistantMessage: 2,
  CustomMessage: 3,
  BranchSummary: 4,
  Compaction: 5,
  ThinkingLevel: 6,
  ModelChange: 7,
  TtsrInjection: 8,
  ModeChange: 9,
} as const;

export function entryKind(e: SessionEntry): number {
  switch (e.type) {
    case 'message': {
      const m = (e as { message?: { role?: unknown } }).message;
      return m && typeof m === 'object' && m.role === 'assistant' ? EntryKind.AssistantMessage : EntryKind.Message;
    }
    case 'custom_message':
      return EntryKind.CustomMessage;
    case 'branch_summary':
      return EntryKind.BranchSummary;
    case 'compaction':
      return EntryKind.Compaction;
    case 'thinking_level_change':
      return EntryKind.ThinkingLevel;
    case 'model_change':
      return EntryKind.ModelChange;
    case 'ttsr_injection':
      return EntryKind.TtsrInjection;
    case 'mode_change':
      return EntryKind.ModeChange;
    default:
      return EntryKind.Other;
  }
}

function idOf(e: SessionEntry): string | undefined {
  const id = (e as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

function parentIdOf(e: SessionEntry): string | null {
  const p = (e as { parentId?: unknown }).parentId;
  return typeof p === 'string' ? p : null;
}

/** A read-only Map view over id → position, so we keep one 1M-key map instead of two. */
class EntryMapView implements ReadonlyMap<string, SessionEntry> {
  readonly #idx: Map<string, number>;
  readonly #list: readonly SessionEntry[];
  constructor(idx: Map<string, number>, list: readonly SessionEntry[]) {
    this.#idx = idx;
    this.#list = list;
  }
  get size(): number {
    return this.#idx.size;
  }
  get(key: string): SessionEntry | undefined {
    const i = this.#idx.get(key);
    return i === undefined ? undefined : this.#list[i];
  }
  has(key: string): boolean {
    return this.#idx.has(key);
  }
  forEach(cb: (value: SessionEntry, key: string, map: ReadonlyMap<string, SessionEntry>) => void, thisArg?: unknown): void {
    for (const [k, i] of this.#idx) cb.call(thisArg, this.#list[i]!, k, this);
  }
  entries(): MapIterator<[string, SessionEntry]> {
    const list = this.#list;
    function* gen(idx: Map<string, number>): Generator<[string, SessionEntry]> {
      for (const [k, i] of idx) yield [k, list[i]!];
    }
    return gen(this.#idx) as unknown as MapIterator<[string, SessionEntry]>;
  }
  keys(): MapIterator<string> {
    return this.#idx.keys();
  }
  values(): MapIterator<SessionEntry> {
    const list = this.#list;
    function* gen(idx: Map<string, number>): Generator<SessionEntry> {
      for (const i of idx.values()) yield list[i]!;
    }
    return gen(this.#idx) as unknown as MapIterator<SessionEntry>;
  }
  [Symbol.iterator](): MapIterator<[string, SessionEntry]> {
    return this.entries();
  }
}

/**
 * Builds the tree index in a fixed number of linear passes. Never throws on bad data: anomalies
 * become diagnostics. `entryLines[i]` is the 1-based file line of `entries[i]` (from the loader).
 */
export function buildTreeIndex(entries: readonly SessionEntry[], entryLines?: readonly number[]): TreeIndex {
  const n = entries.length;
  const diagnostics: Diagnostic[] = [];
  const lineAt = (i: number): number => (entryLines && entryLines[i] !== undefined ? entryLines[i]! : 0);

  // Pass 1: id → position (last wins), labels, shadowed duplicates.
  const idx = new Map<string, number>();
  const shadowed = new Uint8Array(n);
  const labels = new Map<string, string>();
  const kinds = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    kinds[i] = entryKind(e);
    const id = idOf(e);
    if (id !== undefined) {
      const prev = idx.get(id);
      if (prev !== undefined) {
        shadowed[prev] = 1;
        diagnostics.push({
          line: lineAt(i),
          kind: 'duplicate-id',
          entryId: id,
          message: `entry id "${id}" is used again${lineAt(prev) ? ` (first at line ${lineAt(prev)})` : ''}; the later entry wins and the earlier one is left out of the tree`,
        });
      }
      idx.set(id, i);
    }
    if (e.type === 'label') {
      const target = (e as { targetId?: unknown }).targetId;
      const label = (e as { label?: unknown }).label;
      if (typeof target === 'string') {
        if (typeof label === 'string') labels.set(target, label);
        else labels.delete(target);
      }
    }
  }

  // Pass 2: resolve parents. -1 = root.
  const parent = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    if (shadowed[i]) continue;
    const e = entries[i]!;
    const pid = parentIdOf(e);
    if (pid === null) continue;
    const p = idx.get(pid);
    if (p === undefined) {
      diagnostics.push({
        line: lineAt(i),
        kind: 'missing-parent',
        entryId: idOf(e),
        message: `parentId "${pid}" names no entry; the entry is shown as a root (orphan)`,
      });
      continue;
    }
    parent[i] = p;
  }

  // Pass 3: break cycles. Walk up from each unvisited node; meeting a node already on the
  // current walk means a loop: the last node walked (whose parent is the repeat) becomes a root,
  // i.e. the walk stops at the first repeated id (Part C §5).
  const state = new Uint8Array(n); // 0 new, 1 on current walk, 2 done
  const stack = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (shadowed[i] || state[i] !== 0) continue;
    let top = 0;
    let j = i;
    while (j !== -1 && state[j] === 0) {
      state[j] = 1;
      stack[top++] = j;
      j = parent[j]!;
    }
    if (j !== -1 && state[j] === 1) {
      const last = stack[top - 1]!;
      const lastId = idOf(entries[last]!);
      parent[last] = -1;
      diagnostics.push({
        line: lineAt(last),
        kind: 'cycle',
        entryId: lastId,
        message:
          last === j
            ? `entry "${lastId}" is its own parent; the walk stops there and it is shown as a root`
            : `parentId chain loops back to "${idOf(entries[j]!)}"; the walk stops at the repeated id and "${lastId}" is shown as a root`,
      });
    }
    for (let k = 0; k < top; k++) state[stack[k]!] = 2;
  }

  // Pass 4: children lists in file order, roots.
  const firstChild = new Int32Array(n).fill(-1);
  const lastChild = new Int32Array(n).fill(-1);
  const nextSibling = new Int32Array(n).fill(-1);
  const rootIdx: number[] = [];
  let size = 0;
  for (let i = 0; i < n; i++) {
    if (shadowed[i]) continue;
    size++;
    const p = parent[i]!;
    if (p === -1) {
      rootIdx.push(i);
      continue;
    }
    if (firstChild[p] === -1) firstChild[p] = i;
    else nextSibling[lastChild[p]!] = i;
    lastChild[p] = i;
  }

  // Pass 5: iterative Euler tour (tin/tout) and depth.
  const tin = new Int32Array(n).fill(-1);
  const tout = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n).fill(-1);
  const order = new Int32Array(size); // order[t] = node with tin t
  let t = 0;
  for (const root of rootIdx) {
    let node = root;
    depth[node] = 0;
    for (;;) {
      tin[node] = t;
      order[t++] = node;
      const c = firstChild[node]!;
      if (c !== -1) {
        depth[c] = depth[node]! + 1;
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
        const s = nextSibling[node]!;
        if (s !== -1) {
          depth[s] = depth[node]!;
          node = s;
          break;
        }
        node = parent[node]!;
      }
      if (done) break;
    }
  }

  // Leaves by tour position, and in file order; the deepest leaf.
  let leafCount = 0;
  for (let k = 0; k < size; k++) if (firstChild[order[k]!] === -1) leafCount++;
  const leafTin = new Int32Array(leafCount);
  let li = 0;
  for (let k = 0; k < size; k++) if (firstChild[order[k]!] === -1) leafTin[li++] = k;
  let deepest = -1;
  for (let i = 0; i < n; i++) {
    if (shadowed[i] || firstChild[i] !== -1) continue;
    if (deepest === -1 || depth[i]! > depth[deepest]!) deepest = i;
  }

  const defaultLeafId = n > 0 ? (idOf(entries[n - 1]!) ?? null) : null;
  const byId = new EntryMapView(idx, entries);
  const roots = rootIdx.map((i) => idOf(entries[i]!)).filter((x): x is string => x !== undefined);

  const at = (id: string): number => {
    const i = idx.get(id);
    return i === undefined ? -1 : i;
  };
  const lowerBound = (v: number): number => {
    let lo = 0;
    let hi = leafTin.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (leafTin[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const pathIndices = (id: string): Int32Array => {
    const i = at(id);
    if (i === -1) return new Int32Array(0);
    const out = new Int32Array(depth[i]! + 1);
    let j = i;
    for (let k = out.length - 1; k >= 0; k--) {
      out[k] = j;
      j = parent[j]!;
    }
    return out;
  };

  return {
    entries,
    byId,
    roots,
    defaultLeafId,
    labels,
    diagnostics,
    size,
    indexOf: at,
    get: (id) => byId.get(id),
    has: (id) => idx.has(id),
    parentOf(id) {
      const i = at(id);
      if (i === -1) return null;
      const p = parent[i]!;
      return p === -1 ? null : (idOf(entries[p]!) ?? null);
    },
    depth(id) {
      const i = at(id);
      return i === -1 ? -1 : depth[i]!;
    },
    lineOf(id) {
      const i = at(id);
      return i === -1 ? 0 : lineAt(i);
    },
    children(id) {
      const i = at(id);
      const out: SessionEntry[] = [];
      if (i === -1) return out;
      for (let c = firstChild[i]!; c !== -1; c = nextSibling[c]!) out.push(entries[c]!);
      return out;
    },
    pathIndices,
    pathToRoot(id) {
      const p = pathIndices(id);
      const out = new Array<SessionEntry>(p.length);
      for (let k = 0; k < p.length; k++) out[k] = entries[p[k]!]!;
      return out;
    },
    leaves() {
      const out: string[] = [];
      for (let i = 0; i < n; i++) {
        if (shadowed[i] || firstChild[i] !== -1) continue;
        const id = idOf(entries[i]!);
        if (id !== undefined) out.push(id);
      }
      return out;
    },
    leavesContaining(id) {
      const i = at(id);
      if (i === -1) return [];
      const from = lowerBound(tin[i]!);
      const to = lowerBound(tout[i]! + 1);
      const out: string[] = [];
      for (let k = from; k < to; k++) {
        const leafId = idOf(entries[order[leafTin[k]!]!]!);
        if (leafId !== undefined) out.push(leafId);
      }
      return out;
    },
    commonAncestor(a, b) {
      let x = at(a);
      let y = at(b);
      if (x === -1 || y === -1) return null;
      while (depth[x]! > depth[y]!) x = parent[x]!;
      while (depth[y]! > depth[x]!) y = parent[y]!;
      while (x !== y) {
        x = parent[x]!;
        y = parent[y]!;
        if (x === -1 || y === -1) return null;
      }
      return idOf(entries[x]!) ?? null;
    },
    isAncestor(ancestor, id) {
      const x = at(ancestor);
      const y = at(id);
      if (x === -1 || y === -1) return false;
      return tin[x]! <= tin[y]! && tin[y]! <= tout[x]!;
    },
    deepestLeaf: () => (deepest === -1 ? null : (idOf(entries[deepest]!) ?? null)),
    isShadowed: (index) => shadowed[index] === 1,
    kinds,
  };
}
