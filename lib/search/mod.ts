/**
 * Keyless web search: DuckDuckGo (HTML page, lite fallback) and SearXNG
 * behind a router that falls back, restricts domains, dedupes and records
 * every backend call.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createFetcher } from "../net/fetch.ts";
 * import { createSearchRouter } from "./mod.ts";
 * const config = parseConfig();
 * const router = createSearchRouter(config, createFetcher(config.network));
 * const { results, attempts } = await router.search({ query: "deno", max_results: 5 });
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./domains.ts";
export {
  createDuckDuckGoBackend,
  DUCKDUCKGO,
  DUCKDUCKGO_TIME_RANGE,
  type DuckDuckGoPage,
  duckduckgoRegion,
  type DuckDuckGoSettings,
  parseDuckDuckGoHtml,
  parseDuckDuckGoLite,
  unwrapDuckDuckGoUrl,
} from "./duckduckgo.ts";
export {
  createSearxngBackend,
  parseSearxngJson,
  SEARXNG,
  searxngHits,
  type SearxngResponse,
  type SearxngResult,
  searxngSearchUrl,
  type SearxngSettings,
} from "./searxng.ts";
export {
  createSearchRouter,
  MAX_RESULTS_LIMIT,
  type SearchResponse,
  type SearchRouter,
} from "./router.ts";
export { safeEndpoint, toSearchFailure } from "./upstream.ts";
