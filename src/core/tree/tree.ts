// The tree index: one pass over the loaded entries builds everything a viewer asks of the
// id/parentId tree (spec Part A "Tree and leaf semantics", Part B §7, Part C §5).
//
// Why integer arrays instead of node objects: a 1M-entry session must index in a small multiple
// of its parse time and memory. Nodes are addressed by their position in `entries` (file order);
// parents, children and depths live in Int32Arrays (src/core/tree/treeState.ts, which builds them).
//
// Live sessions grow at the end, so the index can `append` (src/core/tree/treeAppend.ts); what an
// append cannot keep cheaply is recomputed on the first query that needs it, and what would change
// an existing node makes the append rebuild the whole index instead. Queries only tests ask (leaves
// under a node, common ancestors, …) are functions over this index in test/reference/treeQueries.ts.
import type { Diagnostic } from '../diagnostics';
import type { SessionEntry } from '../formats/xcsh/schemas';
import { appendToTree } from './treeAppend';
import { buildTreeState, idOf, lineAt, pathPositions, type TreeState } from './treeState';

export { EntryKind, entryKind } from './treeState';

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
  // ---- by position in `entries` (for walks over a whole 100k-entry tree without string keys) ----
  /** Positions of the roots, file order. */
  readonly rootPositions: readonly number[];
  /** Position of the effective parent, -1 for a root (or an unknown position). */
  parentAt(i: number): number;
  /** Position of the first child in file order, -1 for none. */
  firstChildAt(i: number): number;
  /** Position of the next sibling in file order, -1 for none. */
  nextSiblingAt(i: number): number;
  /** Root → entry (inclusive) as positions in `entries`, following effective parents. O(depth). Empty for an unknown id. */
  pathIndices(id: string): Int32Array;
  /** Every leaf (node without children), file order. */
  leaves(): string[];
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

/** A read-only Map view over the id table, so we keep one 1M-key index instead of two. */
class EntryMapView implements ReadonlyMap<string, SessionEntry> {
  readonly #state: () => TreeState;
  constructor(state: () => TreeState) {
    this.#state = state;
  }
  get size(): number {
    return this.#state().idx.size;
  }
  get(key: string): SessionEntry | undefined {
    const s = this.#state();
    const i = s.idx.get(key);
    return i === -1 ? undefined : s.entries[i];
  }
  has(key: string): boolean {
    return this.#state().idx.has(key);
  }
  /** [id, entry] in Map order: by first occurrence in the file, the last entry with the id. */
  *#pairs(): Generator<[string, SessionEntry]> {
    const s = this.#state();
    for (const [id, i] of s.idx.pairs(s.n, s.dupDiags.length > 0)) yield [id, s.entries[i]!];
  }
  forEach(cb: (value: SessionEntry, key: string, map: ReadonlyMap<string, SessionEntry>) => void, thisArg?: unknown): void {
    for (const [k, e] of this.#pairs()) cb.call(thisArg, e, k, this);
  }
  entries(): MapIterator<[string, SessionEntry]> {
    return this.#pairs() as unknown as MapIterator<[string, SessionEntry]>;
  }
  keys(): MapIterator<string> {
    function* gen(pairs: Generator<[string, SessionEntry]>): Generator<string> {
      for (const [k] of pairs) yield k;
    }
    return gen(this.#pairs()) as unknown as MapIterator<string>;
  }
  values(): MapIterator<SessionEntry> {
    function* gen(pairs: Generator<[string, SessionEntry]>): Generator<SessionEntry> {
      for (const [, e] of pairs) yield e;
    }
    return gen(this.#pairs()) as unknown as MapIterator<SessionEntry>;
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
  return new ArrayTreeIndex(entries, entryLines);
}

class ArrayTreeIndex implements TreeIndex {
  #s!: TreeState;
  #byId!: EntryMapView;
  #kindsView: Uint8Array | null = null;
  #diagnostics: Diagnostic[] | null = null;

  constructor(entries: readonly SessionEntry[], entryLines?: readonly number[]) {
    this.#build(entries, entryLines);
  }

  #build(entries: readonly SessionEntry[], entryLines?: readonly number[]): void {
    const s = buildTreeState(entries, entryLines);
    this.#s = s;
    this.#byId = new EntryMapView(() => this.#s);
    this.#changed();
  }

  /** Drops what is derived from the arrays (recomputed on demand). */
  #changed(): void {
    this.#kindsView = null;
    this.#diagnostics = null;
  }

  append(entries: readonly SessionEntry[], entryLines?: readonly number[]): 'appended' | 'rebuilt' {
    const from = this.#s.n;
    if (!appendToTree(this.#s, entries, entryLines)) {
      this.#build(entries, entryLines);
      return 'rebuilt';
    }
    if (this.#s.n !== from) this.#changed();
    return 'appended';
  }

  #at(id: string): number {
    return this.#s.idx.get(id);
  }

  #idAt(i: number): string | null {
    return idOf(this.#s.entries[i]!) ?? null;
  }

  get entries(): readonly SessionEntry[] {
    return this.#s.entries;
  }
  get byId(): ReadonlyMap<string, SessionEntry> {
    return this.#byId;
  }
  get roots(): readonly string[] {
    return this.#s.roots;
  }
  get rootPositions(): readonly number[] {
    return this.#s.rootIdx;
  }
  parentAt(i: number): number {
    return i >= 0 && i < this.#s.n ? this.#s.parent[i]! : -1;
  }
  firstChildAt(i: number): number {
    return i >= 0 && i < this.#s.n ? this.#s.firstChild[i]! : -1;
  }
  nextSiblingAt(i: number): number {
    return i >= 0 && i < this.#s.n ? this.#s.nextSibling[i]! : -1;
  }
  get defaultLeafId(): string | null {
    return this.#s.n > 0 ? this.#idAt(this.#s.n - 1) : null;
  }
  get labels(): ReadonlyMap<string, string> {
    return this.#s.labels;
  }
  get diagnostics(): readonly Diagnostic[] {
    const s = this.#s;
    return (this.#diagnostics ??= [...s.dupDiags, ...s.missingDiags, ...s.cycleDiags]);
  }
  get size(): number {
    return this.#s.size;
  }
  get kinds(): Uint8Array {
    const { kinds, n } = this.#s;
    return (this.#kindsView ??= kinds.length === n ? kinds : kinds.subarray(0, n));
  }

  indexOf(id: string): number {
    return this.#at(id);
  }
  get(id: string): SessionEntry | undefined {
    return this.#byId.get(id);
  }
  has(id: string): boolean {
    return this.#s.idx.has(id);
  }
  parentOf(id: string): string | null {
    const i = this.#at(id);
    if (i === -1) return null;
    const p = this.#s.parent[i]!;
    return p === -1 ? null : this.#idAt(p);
  }
  depth(id: string): number {
    const i = this.#at(id);
    return i === -1 ? -1 : this.#s.depth[i]!;
  }
  lineOf(id: string): number {
    const i = this.#at(id);
    return i === -1 ? 0 : lineAt(this.#s, i);
  }
  children(id: string): SessionEntry[] {
    const i = this.#at(id);
    const out: SessionEntry[] = [];
    if (i === -1) return out;
    const { firstChild, nextSibling, entries } = this.#s;
    for (let c = firstChild[i]!; c !== -1; c = nextSibling[c]!) out.push(entries[c]!);
    return out;
  }
  pathIndices(id: string): Int32Array {
    const i = this.#at(id);
    return i === -1 ? new Int32Array(0) : pathPositions(this.#s, i);
  }
  leaves(): string[] {
    const { n, shadowed, firstChild, entries } = this.#s;
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      if (shadowed[i] || firstChild[i] !== -1) continue;
      const id = idOf(entries[i]!);
      if (id !== undefined) out.push(id);
    }
    return out;
  }
}
