/**
 * A bounded map that forgets the least recently used entry first: the one
 * cache every module with a size limit uses (robots.txt and llms.txt per
 * origin, query expansions, USE-lite vectors, rendered token counts, the
 * browser proxy's verdicts). Time limits, where a cache has them, are the
 * caller's: store the expiry in the value.
 *
 * @example
 * ```ts
 * import { LruCache } from "./lru_cache.ts";
 * const cache = new LruCache<string, number>(2);
 * cache.set("a", 1);
 * cache.set("b", 2);
 * cache.get("a"); // "a" is now the most recent
 * cache.set("c", 3); // evicts "b"
 * console.assert(cache.has("a") && !cache.has("b") && cache.has("c"));
 * ```
 *
 * @module
 */

/** A map of at most `maxSize` entries; reading or writing an entry makes it the most recent. */
export class LruCache<K, V> {
  readonly #map = new Map<K, V>();

  /** A cache of at most `maxSize` entries (0 or less keeps nothing). */
  constructor(readonly maxSize: number) {}

  /** Number of entries. */
  get size(): number {
    return this.#map.size;
  }

  /** The value of `key` (and marks it most recent), or `undefined`. */
  get(key: K): V | undefined {
    if (!this.#map.has(key)) return undefined;
    const value = this.#map.get(key)!;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  /** True when `key` is held (without marking it). */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Stores `value` as the most recent entry, evicting the least recent beyond `maxSize`. */
  set(key: K, value: V): this {
    if (this.maxSize <= 0) return this;
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.maxSize) this.#map.delete(this.#map.keys().next().value!);
    return this;
  }

  /** Forgets `key`; true when it was held. */
  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  /** Forgets everything. */
  clear(): void {
    this.#map.clear();
  }
}
