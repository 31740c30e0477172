/**
 * SearXNG as a provider, when `search.searxng_url` (or
 * `search.providers.searxng.base_url`) names an instance. Its search call
 * (`/search?format=json`: `results[]` with `url`, `title`, `content`,
 * `publishedDate`) is `searchSearxng` in `searxng_call.ts`.
 *
 * @module
 */
import { searchSearxng, SEARXNG, searxngUrl } from "./searxng_call.ts";
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
  search: searchSearxng,
});
