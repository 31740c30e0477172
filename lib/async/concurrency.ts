/**
 * Bounded concurrency for batches: results in input order, at most `limit`
 * tasks running at once.
 *
 * @module
 */

/**
 * Maps `items` through `task` with at most `limit` running at once.
 *
 * @example
 * ```ts
 * import { mapConcurrent } from "./concurrency.ts";
 * const doubled = await mapConcurrent([1, 2, 3], 2, (n) => Promise.resolve(n * 2));
 * console.assert(doubled.join() === "2,4,6");
 * ```
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
