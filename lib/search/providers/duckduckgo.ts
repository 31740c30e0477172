/**
 * DuckDuckGo as a provider: keyless, on unless
 * `search.providers.duckduckgo.enabled` is `false`, one of the keyless web
 * engines the router spreads searches over (`../keyless_pool.ts`). Its search
 * call (the HTML page, the lite page as fallback) is `searchDuckDuckGo` in
 * `duckduckgo_call.ts`, its parsers `duckduckgo_parse.ts`. Pace: one call a
 * second (the `duckduckgo_search` library, `ddgs`' predecessor, slept 0.75 s
 * between its requests).
 *
 * @module
 */
import { searchDuckDuckGo } from "./duckduckgo_call.ts";
import { DUCKDUCKGO } from "./duckduckgo_page.ts";
import { keylessProvider } from "./keyless.ts";
import type { Provider } from "./types.ts";

/**
 * DuckDuckGo as a provider (keyless, on by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { duckduckgoProvider } from "./duckduckgo.ts";
 * console.assert(duckduckgoProvider.isConfigured(parseConfig({})));
 * ```
 */
export const duckduckgoProvider: Provider = keylessProvider({
  name: DUCKDUCKGO,
  title: "DuckDuckGo",
  configHint: "search.providers.duckduckgo.enabled",
  configured: () => true,
  settings: ["duckduckgo_html_url", "duckduckgo_lite_url", "region"],
  search: searchDuckDuckGo,
  engine: true,
  defaultRequestsPerSecond: 1,
});
