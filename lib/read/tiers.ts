/**
 * The default tier list of the cascade, in order, and what must be closed.
 *
 * @module
 */
import type { Config } from "../config.ts";
import type { GuardedFetcher } from "../net/fetch.ts";
import type { DomainStats } from "../store/types.ts";
import { createBrowserReadTier } from "./browser_tier.ts";
import { githubTier } from "./github.ts";
import { httpTier } from "./http.ts";
import { createLlmsTxtTier } from "./llms_txt.ts";
import { waybackTier } from "./wayback.ts";
import type { Tier } from "./types.ts";

/** The tiers after the cache, and a close function for the ones that hold resources. */
export interface TierSet {
  /** Tiers in cascade order. */
  tiers: Tier[];
  /** Releases the browser. */
  close(): Promise<void>;
}

/**
 * Builds the default cascade: github, llms.txt, http (with structured and PDF
 * bodies), browser, wayback (opt-in).
 *
 * @example
 * ```ts ignore
 * import { defaultTiers } from "./tiers.ts";
 * const { tiers, close } = defaultTiers(config, { fetcher });
 * console.log(tiers.map((t) => t.name));
 * await close();
 * ```
 */
export function defaultTiers(
  config: Config,
  deps: { fetcher: GuardedFetcher; domains?: DomainStats },
): TierSet {
  const browser = createBrowserReadTier(config, { robots: deps.fetcher.robots });
  const llmsTxt = createLlmsTxtTier({ domains: deps.domains });
  const tiers: Tier[] = [githubTier, llmsTxt, httpTier, browser, waybackTier];
  return {
    tiers,
    async close() {
      llmsTxt.clear();
      await browser.close();
    },
  };
}
