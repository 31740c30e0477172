/**
 * Search answers kept in the cache (namespace `search`, 1 h by default), so
 * the same question asked again costs no upstream call.
 *
 * @module
 */
import type { Cache } from "../store/types.ts";
import { getGleanerLogger } from "../log.ts";
import type { SearchResponse, SearchRouter } from "./router.ts";
import type { SearchRequest } from "./types.ts";

const log = getGleanerLogger("search");

/** The cache key of a request: everything that changes the answer. */
export function searchCacheKey(request: SearchRequest): string {
  return JSON.stringify([
    request.query.trim().toLowerCase(),
    [...(request.domains ?? [])].map((d) => d.toLowerCase()).sort(),
    request.time_range ?? "",
    request.language ?? "",
    request.max_results,
  ]);
}

/**
 * Wraps a router so successful, non-empty answers are cached; a cached
 * answer reports one attempt with backend `cache`.
 *
 * @example
 * ```ts ignore
 * import { withSearchCache } from "./cached.ts";
 * const router = withSearchCache(createSearchRouter(config, fetcher), store.cache);
 * ```
 */
export function withSearchCache(router: SearchRouter, cache: Cache): SearchRouter {
  return {
    backends: router.backends,
    async search(request) {
      const key = searchCacheKey(request);
      const hit = await cache.get<SearchResponse>("search", key).catch((error) => {
        log.debug("search cache unavailable: {error}", { error });
        return undefined;
      });
      if (hit) {
        return { results: hit.results, attempts: [{ backend: "cache", outcome: "ok", ms: 0 }] };
      }
      const answer = await router.search(request);
      if (answer.results.length > 0) {
        await cache.set("search", key, answer).catch((error) => {
          log.debug("search answer not cached: {error}", { error });
        });
      }
      return answer;
    },
  };
}
