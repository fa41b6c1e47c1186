// A map that keeps at most `max` entries, the least recently used going first: the models' caches
// of computed contexts and the editor's kept places.

export class LruMap<K, V> {
  readonly #map = new Map<K, V>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.#map.size;
  }

  /** The value of `key`, now the most recently used. */
  get(key: K): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }

  /** Sets `key` as the most recently used; the least recently used goes past `max`. */
  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value as K);
  }

  /** The value of `key`, made (and kept) when there is none. */
  getOrMake(key: K, make: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const made = make();
    this.set(key, made);
    return made;
  }

  clear(): void {
    this.#map.clear();
  }
}
