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
//
// Live sessions grow at the end (Part B §9), so the index can `append`: new nodes are linked in
// O(new entries) while every answer stays equal to a full rebuild. What an append cannot keep
// cheaply (the Euler tour, the deepest leaf) is recomputed on the first query that needs it; what
// would change an existing node (a duplicate id, a late parent of an orphan, a forward parent
// link that might close a cycle) makes the append rebuild the whole index instead.
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
  /**
   * Indexes entries added at the end, in place. `entries` (and `entryLines`) are the whole, grown
   * lists — usually the same arrays the index was built from, pushed to; their first
   * `entries.length` positions known to the index must be unchanged. Answers afterwards equal
   * those of `buildTreeIndex(entries, entryLines)`; 'rebuilt' says a full rebuild was needed.
   */
  append(entries: readonly SessionEntry[], entryLines?: readonly number[]): 'appended' | 'rebuilt';
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
  readonly #list: () => readonly SessionEntry[];
  constructor(idx: Map<string, number>, list: () => readonly SessionEntry[]) {
    this.#idx = idx;
    this.#list = list;
  }
  get size(): number {
    return this.#idx.size;
  }
  get(key: string): SessionEntry | undefined {
    const i = this.#idx.get(key);
    return i === undefined ? undefined : this.#list()[i];
  }
  has(key: string): boolean {
    return this.#idx.has(key);
  }
  forEach(cb: (value: SessionEntry, key: string, map: ReadonlyMap<string, SessionEntry>) => void, thisArg?: unknown): void {
    const list = this.#list();
    for (const [k, i] of this.#idx) cb.call(thisArg, list[i]!, k, this);
  }
  entries(): MapIterator<[string, SessionEntry]> {
    const list = this.#list();
    function* gen(idx: Map<string, number>): Generator<[string, SessionEntry]> {
      for (const [k, i] of idx) yield [k, list[i]!];
    }
    return gen(this.#idx) as unknown as MapIterator<[string, SessionEntry]>;
  }
  keys(): MapIterator<string> {
    return this.#idx.keys();
  }
  values(): MapIterator<SessionEntry> {
    const list = this.#list();
    function* gen(idx: Map<string, number>): Generator<SessionEntry> {
      for (const i of idx.values()) yield list[i]!;
    }
    return gen(this.#idx) as unknown as MapIterator<SessionEntry>;
  }
  [Symbol.iterator](): MapIterator<[string, SessionEntry]> {
    return this.entries();
  }
}

/** The Euler tour: tin/tout per node, order[t] = node with tin t, leafTin = tour positions of leaves. */
interface Tour {
  tin: Int32Array;
  tout: Int32Array;
  order: Int32Array;
  leafTin: Int32Array;
}

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
 * Builds the tree index in a fixed number of linear passes. Never throws on bad data: anomalies
 * become diagnostics. `entryLines[i]` is the 1-based file line of `entries[i]` (from the loader).
 */
export function buildTreeIndex(entries: readonly SessionEntry[], entryLines?: readonly number[]): TreeIndex {
  return new ArrayTreeIndex(entries, entryLines);
}

/**
 * Arrays are allocated with spare capacity only once the index has been appended to: a session
 * that is never followed live costs exactly what it did before.
 */
class ArrayTreeIndex implements TreeIndex {
  #entries!: readonly SessionEntry[];
  #lines: readonly number[] | undefined;
  #n = 0;
  #idx!: Map<string, number>;
  #byId!: EntryMapView;
  #shadowed!: Uint8Array;
  #kinds!: Uint8Array;
  #kindsView: Uint8Array | null = null;
  #parent!: Int32Array;
  #depth!: Int32Array;
  #firstChild!: Int32Array;
  #lastChild!: Int32Array;
  #nextSibling!: Int32Array;
  #labels!: Map<string, string>;
  #rootIdx!: number[];
  #roots!: string[];
  #size = 0;
  /** Diagnostics in the order a full build emits them: duplicates, missing parents, cycles. */
  #dupDiags!: Diagnostic[];
  #missingDiags!: Diagnostic[];
  #cycleDiags!: Diagnostic[];
  #diagnostics: Diagnostic[] | null = null;
  /** parentIds that named no entry: an entry appended with one of these ids would adopt orphans. */
  #missingParents!: Set<string>;
  #tour: Tour | null = null;
  /** Position of the deepest leaf; -2 = not computed since the last change. */
  #deepest = -2;

  constructor(entries: readonly SessionEntry[], entryLines?: readonly number[]) {
    this.#build(entries, entryLines);
  }

  #lineAt(i: number): number {
    const l = this.#lines;
    return l && l[i] !== undefined ? l[i]! : 0;
  }

  #build(entries: readonly SessionEntry[], entryLines?: readonly number[]): void {
    const n = entries.length;
    this.#entries = entries;
    this.#lines = entryLines;
    this.#n = n;
    this.#kindsView = null;
    this.#diagnostics = null;
    this.#deepest = -2;
    this.#dupDiags = [];
    this.#missingDiags = [];
    this.#cycleDiags = [];
    this.#missingParents = new Set();

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
          this.#dupDiags.push(this.#duplicateDiag(id, i, prev));
        }
        idx.set(id, i);
      }
      applyLabel(labels, e);
    }
    this.#idx = idx;
    this.#byId = new EntryMapView(idx, () => this.#entries);
    this.#shadowed = shadowed;
    this.#labels = labels;
    this.#kinds = kinds;

    // Pass 2: resolve parents. -1 = root.
    const parent = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      if (shadowed[i]) continue;
      const e = entries[i]!;
      const pid = parentIdOf(e);
      if (pid === null) continue;
      const p = idx.get(pid);
      if (p === undefined) {
        this.#missingParent(e, i, pid);
        continue;
      }
      parent[i] = p;
    }
    this.#parent = parent;

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
        this.#cycleDiags.push({
          line: this.#lineAt(last),
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
    this.#firstChild = new Int32Array(n).fill(-1);
    this.#lastChild = new Int32Array(n).fill(-1);
    this.#nextSibling = new Int32Array(n).fill(-1);
    this.#rootIdx = [];
    this.#roots = [];
    this.#size = 0;
    for (let i = 0; i < n; i++) this.#link(i);

    // Pass 5: the Euler tour, which also gives every node its depth.
    this.#depth = new Int32Array(n).fill(-1);
    this.#tour = this.#computeTour(this.#depth);
  }

  #duplicateDiag(id: string, i: number, prev: number): Diagnostic {
    const firstLine = this.#lineAt(prev);
    return {
      line: this.#lineAt(i),
      kind: 'duplicate-id',
      entryId: id,
      message: `entry id "${id}" is used again${firstLine ? ` (first at line ${firstLine})` : ''}; the later entry wins and the earlier one is left out of the tree`,
    };
  }

  #missingParent(e: SessionEntry, i: number, pid: string): void {
    this.#missingParents.add(pid);
    this.#missingDiags.push({
      line: this.#lineAt(i),
      kind: 'missing-parent',
      entryId: idOf(e),
      message: `parentId "${pid}" names no entry; the entry is shown as a root (orphan)`,
    });
  }

  /** Adds node i (parent already resolved) as the last child of its parent, or as a root. */
  #link(i: number): void {
    if (this.#shadowed[i]) return;
    this.#size++;
    const p = this.#parent[i]!;
    if (p === -1) {
      this.#rootIdx.push(i);
      const id = idOf(this.#entries[i]!);
      if (id !== undefined) this.#roots.push(id);
      return;
    }
    if (this.#firstChild[p] === -1) this.#firstChild[p] = i;
    else this.#nextSibling[this.#lastChild[p]!] = i;
    this.#lastChild[p] = i;
  }

  /** Iterative Euler tour over the current nodes; writes depths into `depth` when given. */
  #computeTour(depth: Int32Array | null): Tour {
    const n = this.#n;
    const firstChild = this.#firstChild;
    const nextSibling = this.#nextSibling;
    const parent = this.#parent;
    const tin = new Int32Array(n).fill(-1);
    const tout = new Int32Array(n).fill(-1);
    const order = new Int32Array(this.#size);
    let t = 0;
    for (const root of this.#rootIdx) {
      let node = root;
      if (depth) depth[node] = 0;
      for (;;) {
        tin[node] = t;
        order[t++] = node;
        const c = firstChild[node]!;
        if (c !== -1) {
          if (depth) depth[c] = depth[node]! + 1;
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
            if (depth) depth[s] = depth[node]!;
            node = s;
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

  #ensureTour(): Tour {
    return (this.#tour ??= this.#computeTour(null));
  }

  #ensureCapacity(n: number): void {
    if (n <= this.#parent.length) return;
    const cap = n + Math.max(1024, n >> 3);
    const m = this.#n;
    this.#shadowed = grownUint8(this.#shadowed, cap, m);
    this.#kinds = grownUint8(this.#kinds, cap, m);
    this.#parent = grownInt32(this.#parent, cap, m);
    this.#depth = grownInt32(this.#depth, cap, m);
    this.#firstChild = grownInt32(this.#firstChild, cap, m);
    this.#lastChild = grownInt32(this.#lastChild, cap, m);
    this.#nextSibling = grownInt32(this.#nextSibling, cap, m);
  }

  append(entries: readonly SessionEntry[], entryLines?: readonly number[]): 'appended' | 'rebuilt' {
    const from = this.#n;
    const n = entries.length;
    const rebuild = (): 'rebuilt' => {
      this.#build(entries, entryLines);
      return 'rebuilt';
    };
    if (n < from) return rebuild();
    this.#entries = entries;
    this.#lines = entryLines;
    if (n === from) return 'appended';
    this.#ensureCapacity(n);
    // Ids first, so a parent later in the appended slice is known when links are resolved.
    for (let i = from; i < n; i++) {
      const id = idOf(entries[i]!);
      if (id === undefined) continue;
      // A duplicate would shadow an indexed node; an id some orphan names would adopt it.
      if (this.#idx.has(id) || this.#missingParents.has(id)) return rebuild();
      this.#idx.set(id, i);
    }
    const parent = this.#parent;
    for (let i = from; i < n; i++) {
      const e = entries[i]!;
      this.#kinds[i] = entryKind(e);
      this.#shadowed[i] = 0;
      parent[i] = -1;
      this.#firstChild[i] = -1;
      this.#lastChild[i] = -1;
      this.#nextSibling[i] = -1;
      const pid = parentIdOf(e);
      if (pid !== null) {
        const p = this.#idx.get(pid);
        if (p === undefined) this.#missingParent(e, i, pid);
        else if (p >= i) return rebuild(); // self or forward link: may close a cycle
        else parent[i] = p;
      }
      this.#depth[i] = parent[i] === -1 ? 0 : this.#depth[parent[i]!]! + 1;
    }
    for (let i = from; i < n; i++) applyLabel(this.#labels, entries[i]!);
    this.#n = n;
    for (let i = from; i < n; i++) this.#link(i);
    this.#kindsView = null;
    this.#diagnostics = null;
    this.#tour = null;
    this.#deepest = -2;
    return 'appended';
  }

  #at(id: string): number {
    const i = this.#idx.get(id);
    return i === undefined ? -1 : i;
  }

  #lowerBound(leafTin: Int32Array, v: number): number {
    let lo = 0;
    let hi = leafTin.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (leafTin[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  get entries(): readonly SessionEntry[] {
    return this.#entries;
  }
  get byId(): ReadonlyMap<string, SessionEntry> {
    return this.#byId;
  }
  get roots(): readonly string[] {
    return this.#roots;
  }
  get defaultLeafId(): string | null {
    return this.#n > 0 ? (idOf(this.#entries[this.#n - 1]!) ?? null) : null;
  }
  get labels(): ReadonlyMap<string, string> {
    return this.#labels;
  }
  get diagnostics(): readonly Diagnostic[] {
    return (this.#diagnostics ??= [...this.#dupDiags, ...this.#missingDiags, ...this.#cycleDiags]);
  }
  get size(): number {
    return this.#size;
  }
  get kinds(): Uint8Array {
    return (this.#kindsView ??= this.#kinds.length === this.#n ? this.#kinds : this.#kinds.subarray(0, this.#n));
  }

  indexOf(id: string): number {
    return this.#at(id);
  }
  get(id: string): SessionEntry | undefined {
    return this.#byId.get(id);
  }
  has(id: string): boolean {
    return this.#idx.has(id);
  }
  parentOf(id: string): string | null {
    const i = this.#at(id);
    if (i === -1) return null;
    const p = this.#parent[i]!;
    return p === -1 ? null : (idOf(this.#entries[p]!) ?? null);
  }
  depth(id: string): number {
    const i = this.#at(id);
    return i === -1 ? -1 : this.#depth[i]!;
  }
  lineOf(id: string): number {
    const i = this.#at(id);
    return i === -1 ? 0 : this.#lineAt(i);
  }
  children(id: string): SessionEntry[] {
    const i = this.#at(id);
    const out: SessionEntry[] = [];
    if (i === -1) return out;
    for (let c = this.#firstChild[i]!; c !== -1; c = this.#nextSibling[c]!) out.push(this.#entries[c]!);
    return out;
  }
  pathIndices(id: string): Int32Array {
    const i = this.#at(id);
    if (i === -1) return new Int32Array(0);
    const out = new Int32Array(this.#depth[i]! + 1);
    let j = i;
    for (let k = out.length - 1; k >= 0; k--) {
      out[k] = j;
      j = this.#parent[j]!;
    }
    return out;
  }
  pathToRoot(id: string): SessionEntry[] {
    const p = this.pathIndices(id);
    const out = new Array<SessionEntry>(p.length);
    for (let k = 0; k < p.length; k++) out[k] = this.#entries[p[k]!]!;
    return out;
  }
  leaves(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.#n; i++) {
      if (this.#shadowed[i] || this.#firstChild[i] !== -1) continue;
      const id = idOf(this.#entries[i]!);
      if (id !== undefined) out.push(id);
    }
    return out;
  }
  leavesContaining(id: string): string[] {
    const i = this.#at(id);
    if (i === -1) return [];
    const { tin, tout, order, leafTin } = this.#ensureTour();
    const from = this.#lowerBound(leafTin, tin[i]!);
    const to = this.#lowerBound(leafTin, tout[i]! + 1);
    const out: string[] = [];
    for (let k = from; k < to; k++) {
      const leafId = idOf(this.#entries[order[leafTin[k]!]!]!);
      if (leafId !== undefined) out.push(leafId);
    }
    return out;
  }
  commonAncestor(a: string, b: string): string | null {
    let x = this.#at(a);
    let y = this.#at(b);
    if (x === -1 || y === -1) return null;
    const depth = this.#depth;
    const parent = this.#parent;
    while (depth[x]! > depth[y]!) x = parent[x]!;
    while (depth[y]! > depth[x]!) y = parent[y]!;
    while (x !== y) {
      x = parent[x]!;
      y = parent[y]!;
      if (x === -1 || y === -1) return null;
    }
    return idOf(this.#entries[x]!) ?? null;
  }
  isAncestor(ancestor: string, id: string): boolean {
    const x = this.#at(ancestor);
    const y = this.#at(id);
    if (x === -1 || y === -1) return false;
    const { tin, tout } = this.#ensureTour();
    return tin[x]! <= tin[y]! && tin[y]! <= tout[x]!;
  }
  deepestLeaf(): string | null {
    if (this.#deepest === -2) {
      let deepest = -1;
      const depth = this.#depth;
      for (let i = 0; i < this.#n; i++) {
        if (this.#shadowed[i] || this.#firstChild[i] !== -1) continue;
        if (deepest === -1 || depth[i]! > depth[deepest]!) deepest = i;
      }
      this.#deepest = deepest;
    }
    return this.#deepest === -1 ? null : (idOf(this.#entries[this.#deepest]!) ?? null);
  }
  isShadowed(index: number): boolean {
    return index < this.#n && this.#shadowed[index] === 1;
  }
}

function applyLabel(labels: Map<string, string>, e: SessionEntry): void {
  if (e.type !== 'label') return;
  const target = (e as { targetId?: unknown }).targetId;
  const label = (e as { label?: unknown }).label;
  if (typeof target === 'string') {
    if (typeof label === 'string') labels.set(target, label);
    else labels.delete(target);
  }
}
