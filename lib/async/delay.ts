/**
 * Waiting that a caller can cut short.
 *
 * @module
 */

/**
 * Waits `ms`, or less when `signal` aborts (it resolves then: the caller
 * checks the signal and decides what an early end means).
 *
 * @example
 * ```ts
 * import { delay } from "./delay.ts";
 * const stop = new AbortController();
 * stop.abort();
 * const t0 = performance.now();
 * await delay(10_000, stop.signal);
 * console.assert(performance.now() - t0 < 1_000);
 * ```
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
