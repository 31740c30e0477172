/**
 * One task at a time: a queue for read-modify-write sequences that must not
 * interleave (the config file and the running configuration of `PUT /config`).
 *
 * @module
 */

/**
 * Runs tasks one after another, in the order they were handed in; a task that
 * fails does not stop the ones after it.
 *
 * @example
 * ```ts
 * import { Mutex } from "./mutex.ts";
 * const mutex = new Mutex();
 * let value = 0;
 * const bump = () =>
 *   mutex.run(async () => {
 *     const seen = value;
 *     await new Promise((resolve) => setTimeout(resolve, 1));
 *     value = seen + 1;
 *   });
 * await Promise.all([bump(), bump(), bump()]);
 * console.assert(value === 3);
 * ```
 */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every task handed in before it has settled; answers what it answers. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(() => task());
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
