/**
 * A deadline on a promise: the answer of `work` if it settles within `ms`,
 * else what `onTimeout` returns (or throws). The timer is always cleared, and
 * work that finishes after its deadline can be disposed of (a connection
 * that opened too late is closed rather than leaked).
 *
 * The work itself is not cancelled: pass it an `AbortSignal` for that.
 *
 * @example
 * ```ts
 * import { withDeadline } from "./deadline.ts";
 * const slow = new Promise<string>((resolve) => setTimeout(() => resolve("late"), 50));
 * const answer = await withDeadline(slow, 1, () => "fallback");
 * console.assert(answer === "fallback");
 * console.assert(await withDeadline(Promise.resolve(1), 1_000, () => 0) === 1);
 * ```
 *
 * @module
 */

/** Options of {@link withDeadline}. */
export interface DeadlineOptions<T> {
  /** Receives the value of work that resolved after its deadline (to close or free it). */
  settledLate?: (value: T) => void;
}

/**
 * `work`'s outcome when it settles within `ms`; otherwise the result of
 * `onTimeout` (a rejection when it throws).
 */
export async function withDeadline<T, L = never>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => L,
  options: DeadlineOptions<T> = {},
): Promise<T | L> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const deadline = new Promise<L>((resolve, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    if (timedOut && options.settledLate) work.then(options.settledLate, () => {});
  }
}
