/**
 * Weighted reciprocal rank fusion, normalized so that an item ranked first
 * by every ranker scores 1.0, and the relevance labels derived from it.
 *
 * @module
 */

/** One ranking to fuse: item keys best first, and the ranker's weight. */
export interface WeightedRanking<K> {
  /** Keys, best first. Items absent from a ranking get nothing from it. */
  order: readonly K[];
  /** Weight of this ranker (e.g. bm25 0.5, dense 0.5). */
  weight: number;
}

/** Relevance label of a fused score. */
export type Relevance = "high" | "medium" | "low";

/**
 * Fuses rankings with weighted RRF: `Σ w / (k + rank)`, divided by the
 * maximum attainable `Σ w / (k + 1)`. Returns keys with their 0..1 score,
 * best first (ties keep first-seen order).
 *
 * @example
 * ```ts
 * import { fuseRankings } from "./fusion.ts";
 * const fused = fuseRankings([
 *   { order: ["a", "b"], weight: 0.5 },
 *   { order: ["a", "c"], weight: 0.5 },
 * ]);
 * console.assert(fused[0].key === "a" && fused[0].score === 1);
 * ```
 */
export function fuseRankings<K>(
  rankings: readonly WeightedRanking<K>[],
  k = 60,
): { key: K; score: number }[] {
  const active = rankings.filter((r) => r.weight > 0 && Number.isFinite(r.weight));
  const max = active.reduce((sum, r) => sum + r.weight / (k + 1), 0);
  const scores = new Map<K, number>();
  for (const { order, weight } of active) {
    const seen = new Set<K>();
    order.forEach((key, index) => {
      if (seen.has(key)) return;
      seen.add(key);
      scores.set(key, (scores.get(key) ?? 0) + weight / (k + index + 1));
    });
  }
  if (max <= 0) return [];
  return [...scores].map(([key, s]) => ({ key, score: Math.min(1, s / max) }))
    .sort((a, b) => b.score - a.score);
}

/**
 * Relevance label: high ≥ 0.90, medium ≥ 0.75, else low.
 *
 * @example
 * ```ts
 * import { relevanceOf } from "./fusion.ts";
 * console.assert(relevanceOf(0.95) === "high" && relevanceOf(0.8) === "medium");
 * ```
 */
export function relevanceOf(score: number): Relevance {
  return score >= 0.9 ? "high" : score >= 0.75 ? "medium" : "low";
}
