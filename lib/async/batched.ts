/**
 * Calls of one batch operation made at the same moment, run as one call
 * ({@link Batched}): the memory service's group commit of saves and its
 * similarity checks go through it.
 *
 * @example
 * ```ts
 * import { Batched } from "./batched.ts";
 * const sizes: number[] = [];
 * const double = new Batched(async (items: number[]) => {
 *   sizes.push(items.length);
 *   return items.map((n) => n * 2);
 * }, 100);
 * const [a, b] = await Promise.all([double.run([1, 2]), double.run([3])]);
 * console.assert(a.join() === "2,4" && b.join() === "6" && sizes.join() === "3");
 * ```
 *
 * @module
 */
import { setImmediate } from "node:timers";

/** One caller waiting for its group. */
interface Waiting<I, O> {
  items: I[];
  resolve: (out: O[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Calls of one batch operation made at once, run as one call: the items of
 * every caller waiting when a batch starts (up to a limit), each caller
 * answered with its own slice of the results once the batch settled; a
 * failed batch is retried caller by caller, so a caller fails only for its
 * own items. `batch` must answer one result per item, in order.
 */
export class Batched<I, O> {
  #batch: (items: I[]) => Promise<O[]>;
  #maxItems: number;
  #queue: Waiting<I, O>[] = [];
  #running = false;
  #groups = 0;

  /** Runs `batch` over the items of callers waiting at once, at most `maxItems` items a batch. */
  constructor(batch: (items: I[]) => Promise<O[]>, maxItems: number) {
    this.#batch = batch;
    this.#maxItems = Math.max(1, maxItems);
  }

  /** Batches run (or attempted) so far. */
  get groups(): number {
    return this.#groups;
  }

  /**
   * Runs `items` with the callers waiting now; settles once that batch
   * settled (or, when it failed, once these items were tried on their own).
   */
  run(items: I[]): Promise<O[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.#queue.push({ items, resolve, reject });
      if (!this.#running) {
        this.#running = true;
        // One turn of the event loop: the callers of the same turn join.
        setImmediate(() => void this.#drain());
      }
    });
  }

  /** Runs batches until no caller waits. */
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#commit(this.#take());
    } finally {
      this.#running = false;
    }
  }

  /** The next batch: waiting callers in order, up to the item limit (at least one caller). */
  #take(): Waiting<I, O>[] {
    const group: Waiting<I, O>[] = [];
    let items = 0;
    while (this.#queue.length > 0) {
      const next = this.#queue[0];
      if (group.length > 0 && items + next.items.length > this.#maxItems) break;
      group.push(this.#queue.shift()!);
      items += next.items.length;
    }
    return group;
  }

  /** One batch for `group`; on failure, each caller of it alone. */
  async #commit(group: Waiting<I, O>[]): Promise<void> {
    this.#groups++;
    let out: O[];
    try {
      out = await this.#batch(group.flatMap((w) => w.items));
    } catch (error) {
      if (group.length === 1) {
        group[0].reject(error);
        return;
      }
      for (const waiting of group) await this.#alone(waiting);
      return;
    }
    let at = 0;
    for (const waiting of group) {
      waiting.resolve(out.slice(at, at + waiting.items.length));
      at += waiting.items.length;
    }
  }

  async #alone(waiting: Waiting<I, O>): Promise<void> {
    try {
      waiting.resolve(await this.#batch(waiting.items));
    } catch (error) {
      waiting.reject(error);
    }
  }
}
