/**
 * The second stage of the ranking cascade: the cheap rankers (BM25 + static
 * embeddings) put the units in order, a better and slower encoder reorders
 * only the top K, and the two orders of those K are fused (weighted RRF).
 * The reordered K stay above the rest, whose scores are untouched.
 *
 * @module
 */
import { fuseRankings } from "./fusion.ts";
import { cosine } from "../embed/vector.ts";
import type { Embedder } from "../embed/types.ts";

/** Options of {@link rerankTop}. */
export interface RerankOptions {
  /** The encoder that reorders (e.g. USE-lite). */
  embedder: Embedder;
  /** Units reordered (default 80). */
  topK?: number;
  /** Weight of the encoder's order against the first stage's (default 0.8). */
  weight?: number;
  /** RRF constant (default 60). */
  rrfK?: number;
  /**
   * The query's vector from `embedder`, or its promise: a caller that starts the query's
   * embedding before the first stage runs (the encoder works in its own thread) passes it here,
   * so the query is embedded once and its cost overlaps the first stage.
   */
  queryVector?: Float32Array | Promise<Float32Array>;
  /** Cancels embedding. */
  signal?: AbortSignal;
}

/**
 * Reorders the first `topK` of `ranked` (best first, scores 0..1) by the
 * encoder's cosine to the query, fused with their first-stage order. Returns
 * a new list: the reordered top, rescaled into `[score of the first unit
 * left out, 1]`, then the rest unchanged. Throws when the embedder does.
 *
 * @example
 * ```ts ignore
 * import { rerankTop } from "./rerank.ts";
 * import { createUseLiteEmbedder } from "../embed/use_lite.ts";
 * const embedder = await createUseLiteEmbedder();
 * const ranked = [{ text: "Bread needs yeast.", score: 1 }, { text: "The tower is 330 m high.", score: 0.9 }];
 * const out = await rerankTop("how tall is the tower", ranked, (r) => r.text, { embedder, weight: 1 });
 * console.assert(out[0].item.text.startsWith("The tower"));
 * ```
 */
export async function rerankTop<T extends { score: number }>(
  query: string,
  ranked: readonly T[],
  text: (item: T) => string,
  options: RerankOptions,
): Promise<{ item: T; score: number }[]> {
  const k = Math.max(0, Math.floor(options.topK ?? 80));
  const weight = Math.min(1, Math.max(0, options.weight ?? 0.8));
  const top = ranked.slice(0, k);
  const rest = ranked.slice(k).map((item) => ({ item, score: item.score }));
  if (top.length < 2) return [...top.map((item) => ({ item, score: item.score })), ...rest];
  // Both requests are queued at once: the encoder's queue runs them back to back.
  const [queryVector, vectors] = await Promise.all([
    options.queryVector ??
      options.embedder.embedQueries([query], options.signal).then(([vector]) => vector),
    options.embedder.embedDocuments(top.map(text), options.signal),
  ]);
  const dense = top.map((_, i) => [cosine(queryVector, vectors[i]), i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]).map(([, i]) => i);
  const fused = fuseRankings([
    { order: top.map((_, i) => i), weight: 1 - weight },
    { order: dense, weight },
  ], options.rrfK ?? 60);
  const floor = rest.length ? Math.min(1, Math.max(0, rest[0].score)) : 0;
  return [
    ...fused.map(({ key, score }) => ({ item: top[key], score: floor + (1 - floor) * score })),
    ...rest,
  ];
}
