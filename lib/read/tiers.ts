/**
 * The default tier list of the cascade, in order, and what must be closed.
 *
 * @module
 */
import type { ReadConfig } from "./types.ts";
import type { Env } from "../config/env.ts";
import type { GuardedFetcher } from "../net/fetch.ts";
import type { DomainStats } from "../store/types.ts";
import { createBrowserReadTier } from "./tiers/browser.ts";
import { createGithubTier } from "./tiers/github.ts";
import { httpTier, inlineOptions } from "./tiers/http.ts";
import { type BodyExtractor, createExtractPool, type HtmlExtractor } from "../extract/pool.ts";
import { createLlmsTxtTier } from "./tiers/llms_txt.ts";
import { createFirecrawlTier, firecrawlClient } from "./tiers/firecrawl.ts";
import { createCrawl4aiTier } from "./tiers/crawl4ai.ts";
import { waybackTier } from "./tiers/wayback.ts";
import { youtubeTier } from "./tiers/youtube.ts";
import { redditTier } from "./tiers/reddit.ts";
import { histerTier } from "./tiers/hister.ts";
import { createKiwixTier } from "./tiers/kiwix.ts";
import type { Tier } from "./types.ts";
import type { BrowserTierStats } from "./browser/browser.ts";

/**
 * What of the operator's own tiers (scope `operator`) one reader may use: in
 * hosted mode a tenant's reader gets neither unless the operator maps the
 * user (`read.hister_users`, `read.github_token_users`); the operator gets both.
 */
export interface OperatorTierGrants {
  /** The Hister tier: the operator's browsing history (when `read.hister_url` is set). */
  hister: boolean;
  /** The GitHub tier with `read.github_token` (else it reads anonymously). */
  githubToken: boolean;
}

/** Every operator tier granted: what the operator's own reader uses. */
export const ALL_OPERATOR_TIERS: Readonly<OperatorTierGrants> = { hister: true, githubToken: true };

/** The tiers after the cache, and a close function for the ones that hold resources. */
export interface TierSet {
  /** Tiers in cascade order: every configured tier, the operator's included. */
  tiers: Tier[];
  /**
   * The same cascade for a reader with `grants`: an operator tier not granted
   * is left out (Hister) or replaced by its anonymous form (GitHub without the
   * token), so no tier of scope `operator` is in it unless granted. The same
   * tier objects as {@link TierSet.tiers} (the browser and the extraction
   * threads are shared).
   */
  tiersFor(grants: OperatorTierGrants): Tier[];
  /** HTML extraction in worker threads under `read.extract_timeout_ms` (give it to the reader). */
  extract: HtmlExtractor;
  /** The same threads for fetched HTML bodies, decoded there too (give it to the reader). */
  extractBody: BodyExtractor;
  /** Releases the browser and the extraction threads. */
  close(): Promise<void>;
  /** Starts the extraction threads ahead of the first read. */
  warm(): void;
  /** The browser's counters, or `undefined` before the first browser read. */
  browserStats(): BrowserTierStats | undefined;
}

/**
 * Builds the default cascade: kiwix (when configured), github (with
 * `read.github_token` when set), youtube, reddit (fast paths for their own
 * URLs), hister (when `read.hister_url` is set), firecrawl and crawl4ai (each only when its URL is set:
 * `read.firecrawl_url`, `read.crawl4ai_url`), llms.txt, http (with structured
 * and PDF bodies), browser, wayback (opt-in), and the extraction threads they
 * share.
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
  config: ReadConfig,
  deps: {
    fetcher: GuardedFetcher;
    domains?: DomainStats;
    /** The entry point's environment snapshot (the browser tier's profiles and Chromium's environment). */
    env?: Env;
  },
): TierSet {
  const browser = createBrowserReadTier(config, { robots: deps.fetcher.robots, env: deps.env });
  const llmsTxt = createLlmsTxtTier({ domains: deps.domains });
  // The reading services, when configured, read ahead of the built-in tiers; the fast paths
  // (their own URLs only) and the user's own history come first, and Kiwix first of all: the
  // operator's offline copy beats the live site.
  const services: Tier[] = [
    ...(config.read.firecrawl_url
      ? [createFirecrawlTier({ robots: deps.fetcher.robots, client: firecrawlClient(config) })]
      : []),
    ...(config.read.crawl4ai_url ? [createCrawl4aiTier({ robots: deps.fetcher.robots })] : []),
  ];
  const kiwix = createKiwixTier(config);
  const anonymousGithub = createGithubTier();
  const ownGithub = config.read.github_token
    ? createGithubTier({ token: config.read.github_token })
    : anonymousGithub;
  const hister = config.read.hister_url ? histerTier : undefined;
  const cascade = (grants: OperatorTierGrants): Tier[] => [
    ...(kiwix ? [kiwix] : []),
    grants.githubToken ? ownGithub : anonymousGithub,
    youtubeTier,
    redditTier,
    // The browsing history only when configured (absent from the cascade otherwise).
    ...(hister && grants.hister ? [hister] : []),
    ...services,
    llmsTxt,
    httpTier,
    browser,
    waybackTier,
  ];
  const tiers = cascade(ALL_OPERATOR_TIERS);
  const pool = createExtractPool({
    workers: config.read.extract_workers,
    timeoutMs: config.read.extract_timeout_ms,
    options: inlineOptions(config),
  });
  return {
    tiers,
    tiersFor: cascade,
    extract: pool.extract,
    extractBody: pool.extractBody,
    warm: pool.warm,
    browserStats: () => browser.stats(),
    async close() {
      llmsTxt.clear();
      await browser.close();
      await pool.close();
    },
  };
}
