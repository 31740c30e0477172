/**
 * A value computed once per pair of objects and forgotten with them: the
 * settings slice a provider or a read tier receives is cut once per pair of
 * configuration sections (its own section and `network`).
 *
 * @example
 * ```ts
 * import { memoizeByPair } from "./pair_memo.ts";
 * let made = 0;
 * const join = memoizeByPair((a: { x: number }, b: { y: number }) => ({ sum: a.x + b.y, n: ++made }));
 * const a = { x: 1 }, b = { y: 2 };
 * console.assert(join(a, b) === join(a, b) && made === 1 && join(a, { y: 2 }).n === 2);
 * ```
 *
 * @module
 */

/**
 * `make(first, second)`, computed on the first call for that pair of objects
 * and answered from memory after; entries are held weakly, so a pair no one
 * else holds is forgotten.
 */
export function memoizeByPair<A extends object, B extends object, V>(
  make: (first: A, second: B) => V,
): (first: A, second: B) => V {
  const byFirst = new WeakMap<A, WeakMap<B, V>>();
  return (first, second) => {
    let bySecond = byFirst.get(first);
    if (!bySecond) byFirst.set(first, bySecond = new WeakMap());
    if (!bySecond.has(second)) bySecond.set(second, make(first, second));
    return bySecond.get(second)!;
  };
}
