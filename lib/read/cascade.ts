/**
 * The reading cascade: each tier in order, skipped when it does not apply or
 * when domain memory says it fails there; the browser steps in when the HTTP
 * result is thin; every read says which tier produced it.
 *
 * @module
 */
import type { Config } from "../config.ts";
import { GleanerError, toGleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import type { Fetcher } from "../net/types.ts";
import type { Cache, DomainStats } from "../store/mod.ts";
import type { Page, ReadContext, ReadRequest, Tier, TierName } from "./types.ts";

const log = getGleanerLogger("read");

/** Failures no other tier may work around (policy, not luck). */
const FINAL_CODES = new Set(["blocked_url", "robots_disallowed", "invalid_arguments", "too_large"]);

/** What the cascade is built from. */
export interface ReaderDeps {
  /** Configuration. */
  config: Config;
  /** Guarded fetcher. */
  fetcher: Fetcher;
  /** Tiers after the cache, in order. */
  tiers: Tier[];
  /** Page cache (namespace `pages`). */
  cache?: Cache;
  /** Per-domain tier memory. */
  domains?: DomainStats;
  /** Extracts HTML pages off the main thread (the tiers' {@link ReadContext.extract}). */
  extract?: ReadContext["extract"];
  /** Forced tier decisions per URL (operator rules): true = force on, false = force off. */
  tierRule?: (url: URL, tier: TierName) => boolean | undefined;
}

/** Reads pages through the cascade. */
export interface Reader {
  /** Reads one URL; throws `GleanerError` with a stable code when no tier can. */
  read(request: ReadRequest): Promise<Page>;
}

/** Parses a URL a caller gave, or fails with `invalid_arguments`. */
export function parsePageUrl(raw: string): URL {
  try {
    const url = new URL(raw);
    url.hash = "";
    return url;
  } catch {
    throw new GleanerError(
      "invalid_arguments",
      `url: not a valid absolute URL: ${raw.slice(0, 200)}`,
    );
  }
}

/**
 * Creates a reader over the given tiers.
 *
 * @example
 * ```ts ignore
 * import { createReader } from "./cascade.ts";
 * const reader = createReader({ config, fetcher, tiers: [httpTier, browserTier] });
 * const page = await reader.read({ url: "https://example.com/" });
 * console.log(page.tier, page.title);
 * ```
 */
export function createReader(deps: ReaderDeps): Reader {
  const context: ReadContext = {
    config: deps.config,
    fetcher: deps.fetcher,
    ...(deps.extract ? { extract: deps.extract } : {}),
  };

  async function record(url: URL, tier: TierName, ok: boolean, reason?: string) {
    try {
      await deps.domains?.record(url.hostname, tier, ok, reason);
    } catch (error) {
      log.debug("domain memory not updated: {error}", { error });
    }
  }

  async function allowed(url: URL, tier: Tier, request: ReadRequest): Promise<boolean> {
    const forced = deps.tierRule?.(url, tier.name);
    if (forced !== undefined) return forced;
    if (!tier.canHandle(url, request)) return false;
    if (!deps.domains) return true;
    try {
      return !(await deps.domains.shouldSkip(url.hostname, tier.name));
    } catch {
      return true;
    }
  }

  return {
    async read(request) {
      const url = parsePageUrl(request.url);
      const render = request.render ?? deps.config.read.render;
      const effective: ReadRequest = { ...request, url: url.href, render };
      if (deps.cache && !request.noCache) {
        const cached = await deps.cache.get<Page>("pages", cacheKey(effective), {
          maxAgeS: request.maxAgeS,
        });
        if (cached) return { ...cached, url: request.url, tier: "cache" };
      }
      let lastError: GleanerError | undefined;
      let thinPage: Page | undefined;
      // In `auto` mode the browser steps in only when HTTP was thin, refused, or skipped for this domain.
      let browserWanted = render === "always";
      for (const tier of deps.tiers) {
        if (tier.name === "browser" && (render === "never" || !browserWanted)) continue;
        if (tier.name === "wayback" && !(lastError && WAYBACK_CODES.has(lastError.code))) continue;
        if (!(await allowed(url, tier, effective))) {
          if (tier.name === "http") browserWanted = true;
          continue;
        }
        request.signal?.throwIfAborted();
        try {
          const page = await tier.read(url, effective, context);
          if (!page) continue;
          if (tier.name === "http" && render === "auto" && page.thin) {
            await record(url, tier.name, false, "thin");
            thinPage = page;
            browserWanted = true;
            continue;
          }
          await record(url, tier.name, true);
          await deps.cache?.set("pages", cacheKey(effective), page).catch(() => {});
          return page;
        } catch (error) {
          const failure = toGleanerError(error, `reading ${url.href}`);
          if (failure.code === "internal") {
            log.warn("{tier} failed on {url}: {error}", { tier: tier.name, url: url.href, error });
          }
          await record(url, tier.name, false, failure.code);
          if (FINAL_CODES.has(failure.code)) throw failure;
          if (tier.name === "http" && BROWSER_CODES.has(failure.code)) browserWanted = true;
          lastError = failure;
        }
      }
      // The browser could not do better: the thin page is still the best answer.
      if (thinPage) return thinPage;
      throw lastError ??
        new GleanerError("unsupported_content", `no reader could read ${url.href}`);
    },
  };
}

/** HTTP failures a real browser may get past. */
const BROWSER_CODES = new Set(["unauthorized", "rate_limited", "unsupported_content"]);

/** Failures an archived copy may stand in for. */
const WAYBACK_CODES = new Set(["not_found", "provider_unavailable", "timeout", "unauthorized"]);

function cacheKey(request: ReadRequest): string {
  const selector = request.targetSelector ? `#${request.targetSelector}` : "";
  return `${request.render === "always" ? "browser:" : ""}${request.url}${selector}`;
}
