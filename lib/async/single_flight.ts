/**
 * One load at a time per key: callers asking for a key whose load is under
 * way share its promise instead of starting another (robots.txt and llms.txt
 * per origin). The key is free again as soon as the load settles, so a
 * failure is not remembered here.
 *
 * @example
 * ```ts
 * import { SingleFlight } from "./single_flight.ts";
 * const flights = new SingleFlight<string, number>();
 * let loads = 0;
 * const load = () => Promise.resolve(++loads);
 * const [a, b] = await Promise.all([flights.run("k", load), flights.run("k", load)]);
 * console.assert(a === 1 && b === 1 && loads === 1);
 * ```
 *
 * @module
 */

/** Shares the pending load of a key among its callers. */
export class SingleFlight<K, V> {
  readonly #pending = new Map<K, Promise<V>>();

  /** The pending load of `key`, or a new one started with `load`. */
  run(key: K, load: () => Promise<V>): Promise<V> {
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = load().finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** Number of loads under way. */
  get size(): number {
    return this.#pending.size;
  }
}
