// Growable typed columns for the lazy index (one value per entry, file order), and packed
// strings. Why not JS arrays of numbers and strings: a 1M-entry session's index must stay a small
// fraction of its file (issue 11: settled ≤ 0.25×), and a JS string per id costs ~30 bytes of
// heap against the 8 bytes of an id's text.
import { fnv1a } from '../../../fnv';

type TypedArray = Float64Array | Int32Array | Uint32Array | Uint8Array;
type Ctor<T extends TypedArray> = new (n: number) => T;

/** A typed array that grows by doubling; `view()` is the filled part. */
export class Column<T extends TypedArray> {
  #a: T;
  length = 0;
  constructor(
    private readonly ctor: Ctor<T>,
    capacity = 1024,
  ) {
    this.#a = new ctor(capacity);
  }
  /** A column holding `a` (its length), to push more to: an index that grows by a tail read. */
  static of<T extends TypedArray>(ctor: Ctor<T>, a: T): Column<T> {
    const c = new Column(ctor, a.length + Math.max(1024, a.length >> 3));
    c.#a.set(a as never);
    c.length = a.length;
    return c;
  }
  /** A column over `a` itself (full: the next push copies it to a bigger one): an index read back from the cache. */
  static over<T extends TypedArray>(ctor: Ctor<T>, a: T): Column<T> {
    const c = new Column(ctor, 0);
    c.#a = a;
    c.length = a.length;
    return c;
  }
  get capacity(): number {
    return this.#a.length;
  }
  /** Room for `n` values in one allocation (the lazy index sizes its columns from the file's size). */
  reserve(n: number): void {
    if (n <= this.#a.length) return;
    const b = new this.ctor(n);
    b.set(this.#a.subarray(0, this.length) as never);
    this.#a = b;
  }
  push(v: number): void {
    if (this.length === this.#a.length) {
      const b = new this.ctor(Math.max(16, this.#a.length * 2));
      b.set(this.#a as never);
      this.#a = b;
    }
    this.#a[this.length++] = v;
  }
  get(i: number): number {
    return this.#a[i]!;
  }
  set(i: number, v: number): void {
    this.#a[i] = v;
  }
  /**
   * The filled part. Spare room of up to an eighth stays behind it (a view, no copy): copying a
   * column of a 1M-entry index to its exact length frees the bigger one, and the C allocator
   * keeps such freed blocks as resident memory. Beyond that, copied to exactly its length.
   */
  trimmed(): T {
    if (this.#a.length - this.length <= this.length >> 3) return this.#a.subarray(0, this.length) as T;
    const b = new this.ctor(this.length);
    b.set(this.#a.subarray(0, this.length) as never);
    this.#a = b;
    return b;
  }
}

/**
 * Strings packed per block of BLOCK entries: each block is one joined string, and `ends[i]` is
 * where string i ends inside its block. Reading one back slices the block (a copy of a few bytes
 * for an 8-character id). A missing string (null) is an empty range with `nulls[i] = 1`.
 */
const BLOCK_SHIFT = 12;
const BLOCK = 1 << BLOCK_SHIFT;

export class PackedStrings {
  readonly #blocks: string[] = [];
  #pending: string[] = [];
  #pendingLen = 0;
  #ends = new Column(Uint32Array);
  #nulls = new Column(Uint8Array);

  get length(): number {
    return this.#ends.length;
  }

  reserve(n: number): void {
    this.#ends.reserve(n);
    this.#nulls.reserve(n);
  }

  push(s: string | null): void {
    if (s === null) this.#nulls.push(1);
    else {
      this.#nulls.push(0);
      this.#pending.push(s);
      this.#pendingLen += s.length;
    }
    this.#ends.push(this.#pendingLen);
    if ((this.#ends.length & (BLOCK - 1)) === 0) this.#seal();
  }

  #seal(): void {
    this.#blocks.push(this.#pending.join(''));
    this.#pending = [];
    this.#pendingLen = 0;
  }

  /** Ends the pushes that came before (a block still open is joined; pushes may go on after). */
  #block(b: number): string {
    if (b < this.#blocks.length) return this.#blocks[b]!;
    if (this.#pending.length > 1) this.#pending = [this.#pending.join('')];
    return this.#pending[0] ?? '';
  }

  at(i: number): string | null {
    if (this.#nulls.get(i) === 1) return null;
    const start = (i & (BLOCK - 1)) === 0 ? 0 : this.#ends.get(i - 1);
    return this.#block(i >>> BLOCK_SHIFT).slice(start, this.#ends.get(i));
  }

  /** Whether string i equals `s`, without making a string. */
  equals(i: number, s: string): boolean {
    if (this.#nulls.get(i) === 1) return false;
    const start = (i & (BLOCK - 1)) === 0 ? 0 : this.#ends.get(i - 1);
    const end = this.#ends.get(i);
    if (end - start !== s.length) return false;
    return this.#block(i >>> BLOCK_SHIFT).startsWith(s, start);
  }

  /** What the strings are made of, for the index cache (indexCache.ts): the open block joined as the last one. */
  parts(): { blocks: string[]; ends: Uint32Array; nulls: Uint8Array } {
    const blocks = this.#blocks.slice();
    if (this.#ends.length & (BLOCK - 1)) blocks.push(this.#block(this.#blocks.length));
    return { blocks, ends: this.#ends.trimmed(), nulls: this.#nulls.trimmed() };
  }

  /** The strings `parts()` gave (pushes may go on after). Null when the parts do not fit together. */
  static fromParts(parts: { blocks: string[]; ends: Uint32Array; nulls: Uint8Array }): PackedStrings | null {
    const { blocks, ends, nulls } = parts;
    const n = ends.length;
    if (nulls.length !== n || blocks.length !== Math.ceil(n / BLOCK)) return null;
    const p = new PackedStrings();
    const full = n >>> BLOCK_SHIFT;
    for (let b = 0; b < blocks.length; b++) {
      const last = Math.min(n, (b + 1) * BLOCK) - 1;
      if (typeof blocks[b] !== 'string' || ends[last] !== blocks[b]!.length) return null;
      if (b < full) p.#blocks.push(blocks[b]!);
    }
    if (full < blocks.length) {
      p.#pending = [blocks[full]!];
      p.#pendingLen = blocks[full]!.length;
    }
    p.#ends = Column.over(Uint32Array, ends as Uint32Array<ArrayBuffer>);
    p.#nulls = Column.over(Uint8Array, nulls as Uint8Array<ArrayBuffer>);
    return p;
  }

  /** Bytes held (for the bench's bytes-per-entry figure): two per UTF-16 unit, at most. */
  approxBytes(): number {
    let chars = this.#pendingLen;
    for (const b of this.#blocks) chars += b.length;
    return chars + this.#ends.length * 5;
  }
}

/** Interned strings: one copy each, addressed by a small number. */
export class Interner {
  readonly list: string[] = [];
  readonly #map = new Map<string, number>();
  /** The interner that gave `list` (codes are positions in it). */
  static of(list: readonly string[]): Interner {
    const it = new Interner();
    for (const s of list) it.code(s);
    return it;
  }
  code(s: string): number {
    let c = this.#map.get(s);
    if (c === undefined) {
      c = this.list.length;
      this.list.push(s);
      this.#map.set(s, c);
    }
    return c;
  }
}

/** FNV-1a over UTF-16 units, never 0 (0 means "none" in a hash column). */
export function hash32(s: string): number {
  const h = fnv1a(s);
  return h === 0 ? 1 : h;
}
