/**
 * Web search through providers only (the keyless DuckDuckGo and SearXNG, and
 * those users hold keys for: Brave, Exa, Tavily, Parallel, Gemini, Jina,
 * Keenable), behind a role router (`search`, `answer`, `contents`) that falls back when a
 * provider is out of credit, rate limited or down, restricts domains,
 * dedupes, caches and records every provider call.
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
export * from "./time_range.ts";
export {
  DUCKDUCKGO,
  DUCKDUCKGO_TIME_RANGE,
  type DuckDuckGoPage,
  duckduckgoPages,
  duckduckgoRegion,
  searchDuckDuckGo,
  unwrapDuckDuckGoUrl,
} from "./providers/duckduckgo_call.ts";
export { parseDuckDuckGoHtml, parseDuckDuckGoLite } from "./providers/duckduckgo_parse.ts";
export {
  parseSearxngJson,
  searchSearxng,
  SEARXNG,
  searxngHits,
  type SearxngQuerySettings,
  type SearxngResponse,
  type SearxngResult,
  searxngSearchUrl,
  searxngUrl,
} from "./providers/searxng_call.ts";
export {
  createSearchRouter,
  MAX_RESULTS_LIMIT,
  type SearchResponse,
  type SearchRouter,
} from "./router.ts";
export { safeEndpoint } from "./upstream.ts";
export * from "./providers/mod.ts";
export {
  createRoleRouter,
  type FallbackEntry,
  type RoleAnswerRequest,
  type RoleAnswerResponse,
  type RoleContentsRequest,
  type RoleContentsResponse,
  type RoleMeta,
  type RoleRouter,
  type RoleRouterOptions,
  type RoleSearchRequest,
  type RoleSearchResponse,
  searchKey,
} from "./roles.ts";
export { type Breaker, createBreaker, type ProviderHealth } from "./breaker.ts";
