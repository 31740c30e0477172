/**
 * DuckDuckGo as a provider: keyless, on unless
 * `search.providers.duckduckgo.enabled` is `false`. The upstream formats (HTML
 * and lite result pages) are documented in `../duckduckgo.ts`.
 *
 * @module
 */
import { DUCKDUCKGO } from "../duckduckgo.ts";
import { keylessProvider } from "./keyless.ts";
import type { Provider } from "./types.ts";

/**
 * DuckDuckGo as a provider (keyless, on by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/config.ts";
 * import { duckduckgoProvider } from "./duckduckgo.ts";
 * console.assert(duckduckgoProvider.isConfigured(parseConfig({})));
 * ```
 */
export const duckduckgoProvider: Provider = keylessProvider(DUCKDUCKGO, "DuckDuckGo", () => true);
