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
