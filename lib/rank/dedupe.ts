/**
 * Near-duplicate removal in rank order: token-set Jaccard for copies,
 * cosine between vectors for paraphrased repeats. The first (highest-ranked)
 * of a group is kept.
 *
 * @module
 */
import { memoByText } from "../cache/text_memo.ts";

/** Settings of {@link dedupe}. */
export interface DedupeOptions<T> {
  /** Text of an item. */
  text: (item: T) => string;
  /** Vector of an item, when available (unit length or not). */
  vector?: (item: T) => Float32Array | undefined;
  /** Jaccard at or above which an item is a near-copy (default 0.92). */
  jaccard?: number;
  /** Cosine at or above which an item is a paraphrased repeat (default 0.92). */
  cosine?: number;
}

/**
 * Set of lower-cased word tokens of a text.
 *
 * @example
 * ```ts
 * import { tokenSet } from "./dedupe.ts";
 * console.assert(tokenSet("A a b").size === 2);
 * ```
 */
export function tokenSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []);
}

/**
 * {@link tokenSet}, remembered for the passages seen lately: the same set for the same text, shared
 * by every caller (read it, never change it).
 *
 * @internal used by `select.ts`
 */
export const tokenSetOf: (text: string) => ReadonlySet<string> = memoByText(8_192, tokenSet);

/**
 * Jaccard similarity of two sets (1 for two empty sets).
 *
 * @example
 * ```ts
 * import { jaccard } from "./dedupe.ts";
 * console.assert(jaccard(new Set(["a", "b"]), new Set(["b", "c"])) === 1 / 3);
 * ```
 */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const t of small) if (large.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * Cosine similarity; 0 when a vector is missing, zero or not finite, or the
 * lengths differ.
 *
 * @example
 * ```ts
 * import { cosine } from "./dedupe.ts";
 * console.assert(cosine(new Float32Array([1, 0]), new Float32Array([2, 0])) === 1);
 * ```
 */
export function cosine(a?: Float32Array, b?: Float32Array): number {
  if (!a || !b || a.length !== b.length || a.length === 0) return 0;
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  const value = dot / Math.sqrt(na * nb);
  return Number.isFinite(value) ? value : 0;
}

/**
 * Keeps items (already in rank order) that are not near-copies or
 * paraphrased repeats of an item kept before them.
 *
 * @example
 * ```ts
 * import { dedupe } from "./dedupe.ts";
 * const kept = dedupe(["the tide rises", "The tide rises.", "ebb"], { text: (s) => s });
 * console.assert(kept.length === 2 && kept[0] === "the tide rises");
 * ```
 */
export function dedupe<T>(items: readonly T[], options: DedupeOptions<T>): T[] {
  const jaccardMin = options.jaccard ?? 0.92;
  const cosineMin = options.cosine ?? 0.92;
  const kept: { item: T; set: ReadonlySet<string>; vector?: Float32Array }[] = [];
  for (const item of items) {
    const set = tokenSetOf(options.text(item));
    const vector = options.vector?.(item);
    const repeat = kept.some((k) =>
      (Math.min(k.set.size, set.size) >= jaccardMin * Math.max(k.set.size, set.size) &&
        jaccard(k.set, set) >= jaccardMin) ||
      (vector && k.vector && cosine(k.vector, vector) >= cosineMin)
    );
    if (!repeat) kept.push({ item, set, vector });
  }
  return kept.map((k) => k.item);
}
