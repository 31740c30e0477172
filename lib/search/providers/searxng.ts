/**
 * SearXNG as a provider, when `search.searxng_url` (or
 * `search.providers.searxng.base_url`) names an instance. Its search call
 * (`/search?format=json`: `results[]` with `url`, `title`, `content`,
 * `publishedDate`) is `searchSearxng` in `searxng_call.ts`. A search returns up to 50
 * results (five pages at most); `search.providers.searxng.default_language` is the language
 * asked when a search names none.
 *
 * @module
 */
import { searchSearxng, SEARXNG, SEARXNG_MAX_RESULTS, searxngUrl } from "./searxng_call.ts";
import { keylessProvider } from "./keyless.ts";
import type { Provider } from "./types.ts";

/**
 * SearXNG as a provider (when an instance URL is configured).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { searxngProvider } from "./searxng.ts";
 * console.assert(!searxngProvider.isConfigured(parseConfig({})));
 * ```
 */
export const searxngProvider: Provider = keylessProvider({
  name: SEARXNG,
  title: "SearXNG",
  configHint: "search.searxng_url",
  configured: (config) => Boolean(searxngUrl(config)),
  settings: ["searxng_url", "searxng_categories", "searxng_engines", "safesearch"],
  search: searchSearxng,
  maxResults: SEARXNG_MAX_RESULTS,
});
