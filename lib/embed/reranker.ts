/**
 * The reranker of the ranking cascade, picked by `rank.rerank`, loaded once
 * per process and shared. Loading failures are remembered (and logged) so a
 * missing runtime costs one attempt, and callers fall back to the first stage.
 *
 * @module
 */
import { LruCache } from "../cache/lru_cache.ts";
import type { RankSection } from "../config/sections.ts";
import { getGleanerLogger } from "../log.ts";
import { withCache } from "./cached.ts";
import type { Embedder, EmbeddingCache } from "./types.ts";
import { createUseLiteEmbedder } from "./use_lite.ts";

const log = getGleanerLogger("rank", "embed");

/** A reranker, or why there is none. */
export type RerankerResult =
  | { embedder: Embedder; error?: undefined }
  | { embedder?: undefined; error: string };

const shared = new Map<string, Promise<RerankerResult>>();

/**
 * Passage vectors of the shared reranker kept in process in front of the store's cache (about
 * 20 MB of 512-d vectors): a question on pages read before then reads nothing from the store.
 *
 * @internal exported for tests only
 */
export const RERANKER_MEMORY_VECTORS = 10_000;
const memories = new Map<string, LruCache<string, Float32Array>>();

/**
 * Loads the configured reranker (`rank.rerank`), once per process and
 * setting. Resolves to `null` for `"none"`; never rejects: a failure gives
 * `{ error }`, and the next call with the same setting gets the same answer.
 * With `cache`, passage vectors are also read from and written to it, through
 * an in-process LRU of {@link RERANKER_MEMORY_VECTORS} vectors.
 *
 * @example
 * ```ts
 * import { parseConfig } from "@gleaner/gleaner";
 * import { sharedReranker } from "./reranker.ts";
 * const none = await sharedReranker(parseConfig({}).rank);
 * console.assert(none === null);
 * ```
 */
export function sharedReranker(
  rank: Pick<RankSection, "rerank" | "rerank_max_words">,
  cache?: EmbeddingCache,
): Promise<RerankerResult | null> {
  if (rank.rerank === "none") return Promise.resolve(null);
  const key = `${rank.rerank}:${rank.rerank_max_words}`;
  let loading = shared.get(key);
  if (!loading) {
    loading = createUseLiteEmbedder({ maxWords: rank.rerank_max_words }).then(
      (embedder): RerankerResult => ({ embedder }),
      (error): RerankerResult => {
        const message = error instanceof Error ? error.message : String(error);
        log.warn("reranker {kind} unavailable, ranking without it: {error}", {
          kind: rank.rerank,
          error: message,
        });
        return { error: message };
      },
    );
    shared.set(key, loading);
  }
  if (!cache) return loading;
  let memory = memories.get(key);
  if (!memory) memories.set(key, memory = new LruCache(RERANKER_MEMORY_VECTORS));
  return loading.then((r) =>
    r.embedder ? { embedder: withCache(r.embedder, cache, { memory }) } : r
  );
}
