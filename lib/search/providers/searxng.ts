/**
 * SearXNG as a provider, when `search.searxng_url` (or
 * `search.providers.searxng.base_url`) names an instance. The upstream format
 * (`/search?format=json`: `results[]` with `url`, `title`, `content`,
 * `publishedDate`) is documented in `../searxng.ts`.
 *
 * @module
 */
import { SEARXNG } from "../searxng.ts";
import { keylessProvider, searxngUrl } from "./keyless.ts";
import type { Provider } from "./types.ts";

/**
 * SearXNG as a provider (when an instance URL is configured).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/config.ts";
 * import { searxngProvider } from "./searxng.ts";
 * console.assert(!searxngProvider.isConfigured(parseConfig({})));
 * ```
 */
export const searxngProvider: Provider = keylessProvider(
  SEARXNG,
  "SearXNG",
  (config) => Boolean(searxngUrl(config)),
);
