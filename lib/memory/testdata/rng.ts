/**
 * A deterministic pseudo-random generator (mulberry32) for tests and
 * benchmarks of the memory store: the same seed gives the same vectors.
 *
 * @module
 */

/**
 * Numbers in [0, 1) from `seed`, always the same sequence for the same seed.
 *
 * @example
 * ```ts
 * import { rng } from "./rng.ts";
 * console.assert(rng(7)() === rng(7)());
 * ```
 */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One item of `xs`, chosen by `random`.
 *
 * @example
 * ```ts
 * import { pick, rng } from "./rng.ts";
 * console.assert(["a", "b"].includes(pick(rng(1), ["a", "b"])));
 * ```
 */
export function pick<T>(random: () => number, xs: readonly T[]): T {
  return xs[Math.floor(random() * xs.length)];
}

/**
 * Shuffles `xs` in place (Fisher–Yates, last index first) and returns it: the same seed gives the
 * same order.
 *
 * @example
 * ```ts
 * import { rng, shuffle } from "./rng.ts";
 * console.assert(shuffle(rng(3), [1, 2, 3]).join() === shuffle(rng(3), [1, 2, 3]).join());
 * ```
 */
export function shuffle<T>(random: () => number, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}
