// id → position for the tree index: an open-addressing hash table (linear probing) over one
// Int32Array of positions, keyed by the entries' own `id` strings (or a lazy index's packed ids).
//
// Why not a Map<string, number>: for n ids a Map holds ~30 bytes per slot on the JS heap, and
// while it grows it rehashes into ever larger tables, leaving the old ones as garbage — together
// the largest allocation of the whole index. This table is 4 bytes per slot, off the JS heap,
// sized once for a build (load ≤ 1/2) and doubled only when an append outgrows it.
import { fnv1a } from '../fnv';

/** The id of the node at a position (undefined: it has none): entries' `id`s, or a packed id list. */
export type IdAt = (i: number) => string | undefined;

function capacityFor(n: number): number {
  let cap = 16;
  while (cap < n * 2) cap *= 2;
  return cap;
}

export class IdTable {
  /** The ids that are the keys, read by position (reads the grown list after an append). */
  readonly idAt: IdAt;
  /** slots[k] = position of the entry whose id hashes to (or probed past) k; -1 = empty. */
  #slots: Int32Array;
  #size = 0;

  /** `expected` = how many ids are about to be set (the table never rehashes below that). */
  constructor(idAt: IdAt, expected: number) {
    this.idAt = idAt;
    this.#slots = new Int32Array(capacityFor(expected)).fill(-1);
  }

  /** The table as it is, for the index cache (indexCache.ts): positions by slot, and how many ids. */
  parts(): { slots: Int32Array; size: number } {
    return { slots: this.#slots, size: this.#size };
  }

  /** The table `parts()` gave, over the same ids. Null when the slots cannot be a table's (not a power of two, over-full). */
  static fromParts(idAt: IdAt, slots: Int32Array, size: number): IdTable | null {
    const cap = slots.length;
    if (cap < 16 || (cap & (cap - 1)) !== 0 || !Number.isInteger(size) || size < 0 || size * 2 > cap) return null;
    const t = new IdTable(idAt, 0);
    t.#slots = slots;
    t.#size = size;
    return t;
  }

  /** Distinct ids. */
  get size(): number {
    return this.#size;
  }

  /** The slot holding `id`, or the empty slot where it would go. */
  #find(id: string): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    const idAt = this.idAt;
    let k = fnv1a(id) & mask;
    for (;;) {
      const i = slots[k]!;
      if (i === -1 || idAt(i) === id) return k;
      k = (k + 1) & mask;
    }
  }

  /** Position of the entry with this id (the last set), or -1. */
  get(id: string): number {
    return this.#slots[this.#find(id)]!;
  }

  has(id: string): boolean {
    return this.get(id) !== -1;
  }

  /** Maps `id` (which must be `entries[i].id`) to position i; returns the position it replaces, or -1. */
  set(id: string, i: number): number {
    let k = this.#find(id);
    const prev = this.#slots[k]!;
    if (prev === -1) {
      if ((this.#size + 1) * 2 > this.#slots.length) {
        this.#grow();
        k = this.#find(id);
      }
      this.#size++;
    }
    this.#slots[k] = i;
    return prev;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Int32Array(old.length * 2).fill(-1);
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let k = 0; k < old.length; k++) {
      const i = old[k]!;
      if (i === -1) continue;
      let s = fnv1a(this.idAt(i)!) & mask;
      while (slots[s] !== -1) s = (s + 1) & mask;
      slots[s] = i;
    }
  }

  /**
   * [id, position] pairs in the order a Map would give: by each id's first occurrence in
   * `entries[0, n)`, with the position of its last one. `repeats` says some id occurs twice.
   */
  *pairs(n: number, repeats: boolean): Generator<[string, number]> {
    const seen = repeats ? new Set<string>() : null;
    for (let i = 0; i < n; i++) {
      const id = this.idAt(i);
      if (id === undefined) continue;
      if (seen) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      yield [id, this.get(id)];
    }
  }
}
