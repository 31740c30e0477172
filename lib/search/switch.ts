/**
 * The one switch that turns web search off for a deployment
 * (`search.enabled: false`): the role router refuses `search` and `answer`
 * with `search_disabled`, and the tool list leaves out every tool that
 * searches (`lib/tools/presentations.ts`). Reading pages stays.
 *
 * @module
 */
import type { SearchSection } from "../config/sections.ts";
import { GleanerError } from "../errors.ts";

/**
 * True when web search may run under `config` (`search.enabled`, on by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { searchEnabled } from "./switch.ts";
 * console.assert(searchEnabled(parseConfig({})));
 * console.assert(!searchEnabled(parseConfig({ search: { enabled: false } })));
 * ```
 */
export function searchEnabled(config: { search: SearchSection }): boolean {
  return config.search.enabled !== false;
}

/**
 * The error of a call that needs web search where the operator turned it off.
 *
 * @example
 * ```ts
 * import { searchDisabledError } from "./switch.ts";
 * console.assert(searchDisabledError("search").code === "search_disabled");
 * ```
 */
export function searchDisabledError(what: string): GleanerError {
  return new GleanerError(
    "search_disabled",
    `${what}: web search is turned off for this deployment (search.enabled: false)`,
    { details: { setting: "search.enabled" } },
  );
}

/**
 * Throws {@link searchDisabledError} when web search is off under `config`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { assertSearchEnabled } from "./switch.ts";
 * assertSearchEnabled(parseConfig({}), "search");
 * ```
 */
export function assertSearchEnabled(config: { search: SearchSection }, what: string): void {
  if (!searchEnabled(config)) throw searchDisabledError(what);
}
