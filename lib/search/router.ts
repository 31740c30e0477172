/**
 * The search router of the `search` tool: the `search` role of the
 * {@link RoleRouter} (configured provider order, fallback, breaker, cache) in
 * the foundation's shape — hits plus the record of every provider call as an
 * {@link Attempt}.
 *
 * Permissions: net access to the search upstreams (through the guarded fetch).
 *
 * @module
 */
import type { Config } from "../config/config.ts";
import type { Fetcher } from "../net/types.ts";
import { createRoleRouter, type FallbackEntry, type RoleRouter } from "./roles.ts";
import type { Attempt, SearchHit, SearchRequest } from "./types.ts";

/** Largest `max_results` one search may ask for. */
export const MAX_RESULTS_LIMIT = 100;

/** What a search answers: the hits and every backend call made for them. */
export interface SearchResponse {
  /** Deduplicated hits, at most `max_results`, within `domains` when given. */
  results: SearchHit[];
  /** Every backend call, in order, with its outcome and duration. */
  attempts: Attempt[];
  /** The provider that answered. */
  provider?: string;
  /** Providers that failed first, with their codes. */
  fallback_from?: FallbackEntry[];
  /** True when answered from the cache. */
  cached?: boolean;
  /** Age of a cached answer (seconds). */
  age_s?: number;
  /** What the provider changed in the request to fit its documented limits, when anything. */
  notices?: string[];
}

/** Runs searches under the configured provider order. */
export interface SearchRouter {
  /** Provider names in the order they are tried. */
  readonly backends: readonly string[];
  /**
   * Searches. Zero results resolve normally (last attempt `empty`). When every
   * provider fails, throws a {@link SearchFailure} carrying all attempts in
   * `attempts` and `details.attempts`. Bad requests throw `invalid_arguments`.
   */
  search(req: SearchRequest): Promise<SearchResponse>;
}

/**
 * Creates the router for a configuration, over `roles` (or a role router of
 * its own, without cache). By default the paid providers that have keys come
 * first, then SearXNG when `search.searxng_url` is set, then DuckDuckGo;
 * `search.search_order` (or the legacy `search.backend`) changes that.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createFetcher } from "../net/fetch.ts";
 * import { createSearchRouter } from "./router.ts";
 * const config = parseConfig();
 * const router = createSearchRouter(config, createFetcher(config.network));
 * const { results, attempts } = await router.search({
 *   query: "sqlite fts5 bm25",
 *   max_results: 5,
 *   domains: ["sqlite.org"],
 * });
 * ```
 */
export function createSearchRouter(
  config: Config,
  fetcher: Fetcher,
  roles: RoleRouter = createRoleRouter({ config, fetcher }),
): SearchRouter {
  return {
    get backends() {
      return roles.providers("search");
    },
    async search(req: SearchRequest): Promise<SearchResponse> {
      const answer = await roles.search({
        query: req.query,
        max_results: req.max_results,
        time_range: req.time_range,
        language: req.language,
        domains: req.domains,
        no_cache: req.no_cache,
        signal: req.signal,
      });
      return {
        results: answer.results,
        attempts: answer.attempts,
        provider: answer.provider,
        fallback_from: answer.fallback_from,
        cached: answer.cached,
        ...(answer.age_s !== undefined ? { age_s: answer.age_s } : {}),
        ...(answer.notices ? { notices: answer.notices } : {}),
      };
    },
  };
}
