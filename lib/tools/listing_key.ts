/**
 * The key under which a tool's listed schemas may come from the prebuilt
 * table (`listing_prebuilt.ts`) instead of being generated on every start:
 * the name of one of Gleaner's own static definitions (`TOOLS`), or the
 * variant key of a spec built for a configuration by `searchToolFor`,
 * `researchToolFor` or `searchAndSummarizeTool` (its name and the facts of
 * the configuration its schemas depend on). Kept apart from the spec: a copy
 * of a spec (`{ ...tool, input }`), or another tool of the same name (the
 * router's `search`), has no key and is listed from its own schemas.
 *
 * @module
 */
import type { AnyToolSpec } from "./spec.ts";

const keys = new WeakMap<AnyToolSpec, string>();

/**
 * Records that `tool`'s schemas were built from `facts` alone (JSON values) and returns it.
 *
 * @example
 * ```ts
 * import { listingKey, withListingVariant } from "./listing_key.ts";
 * import { scrapeUrlsTool } from "./scrape_urls.ts";
 * const tool = withListingVariant({ ...scrapeUrlsTool }, { profiles: ["dev"] });
 * console.assert(listingKey(tool) === 'scrape_urls {"profiles":["dev"]}');
 * console.assert(listingKey({ ...tool }) === undefined);
 * ```
 */
export function withListingVariant<T extends AnyToolSpec>(tool: T, facts: unknown): T {
  keys.set(tool, `${tool.name} ${JSON.stringify(facts)}`);
  return tool;
}

/**
 * Records each of `tools` (static definitions, whose schemas no configuration changes) under
 * its name, and returns them.
 *
 * @example
 * ```ts
 * import { listedByName, listingKey } from "./listing_key.ts";
 * import { scrapeUrlsTool } from "./scrape_urls.ts";
 * listedByName([scrapeUrlsTool]);
 * console.assert(listingKey(scrapeUrlsTool) === "scrape_urls");
 * ```
 */
export function listedByName<T extends AnyToolSpec>(tools: T[]): T[] {
  for (const tool of tools) keys.set(tool, tool.name);
  return tools;
}

/**
 * The key of `tool` in the prebuilt listing, as {@link withListingVariant} or
 * {@link listedByName} recorded it; `undefined` for any other spec (a provider's, role or
 * router tool, a copy), listed from its own schemas.
 *
 * @example
 * ```ts
 * import { listingKey } from "./listing_key.ts";
 * import { TOOLS } from "./mod.ts";
 * import { scrapeUrlsTool } from "./scrape_urls.ts";
 * console.assert(TOOLS.includes(scrapeUrlsTool) && listingKey(scrapeUrlsTool) === "scrape_urls");
 * console.assert(listingKey({ ...scrapeUrlsTool }) === undefined);
 * ```
 */
export function listingKey(tool: AnyToolSpec): string | undefined {
  return keys.get(tool);
}
