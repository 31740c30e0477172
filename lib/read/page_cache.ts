/**
 * The page cache as the cascade uses it: keyed by everything that changes
 * the answer, guarded by the network policy in force when it is read, and
 * never a reason for a read to fail.
 *
 * @module
 */
import type { NetworkSection } from "../config/sections.ts";
import { privateAllowed } from "../config/schema/network.ts";
import { isErrorCode } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { assertUrlAllowed } from "../net/address.ts";
import { createOutageGate } from "../store/outage.ts";
import type { Cache } from "../store/types.ts";
import type { Page, ReadRequest } from "./types.ts";
import { safeEndpoint } from "../config/redact.ts";

const log = getGleanerLogger("read", "cache");

/**
 * Pages with more Markdown than this (characters, ~250,000 tokens) are not
 * cached: serialising and storing one is a single synchronous step of
 * 100 ms or more on a small server (measured: a 3.3 MB page), during which
 * it answers nothing, and such pages are generated or hostile far more
 * often than read twice.
 *
 * @internal exported for tests only
 */
export const MAX_CACHED_MARKDOWN_CHARS = 1_000_000;

/** What is stored under a page key. */
export interface PageCacheEntry {
  /** The page as read. */
  page: Page;
  /**
   * Origins of the page (asked and final) that private addresses were
   * allowed for when it was read: it may have come from a private address,
   * so it is served only while they still are.
   */
  private_origins: string[];
}

/**
 * The cache key of a read: URL, render mode, target selector and the
 * selector waited for (a `render: "never"` read must not answer an `auto`
 * caller).
 *
 * @example
 * ```ts
 * import { pageCacheKey } from "./page_cache.ts";
 * const never = pageCacheKey({ url: "https://example.com/", render: "never" });
 * console.assert(never !== pageCacheKey({ url: "https://example.com/", render: "auto" }));
 * ```
 *
 * @internal exported for tests only
 */
export function pageCacheKey(request: ReadRequest): string {
  return JSON.stringify([
    "page/2",
    request.render ?? "auto",
    request.url,
    request.targetSelector ?? "",
    request.waitForSelector ?? "",
  ]);
}

/** A page cache bound to a configuration. */
export interface PageCache {
  /** The cached page for a read, when there is one the current policy may serve. */
  get(request: ReadRequest): Promise<Page | undefined>;
  /** Stores a page read under the current policy. */
  set(request: ReadRequest, page: Page): Promise<void>;
}

/**
 * Wraps the store's cache for pages (pages over
 * {@link MAX_CACHED_MARKDOWN_CHARS} are not stored). A failing cache (an unreachable
 * `store.cache_url`) degrades to uncached reads: the cache is left alone for
 * 30 s after a failure, warned about once a minute at most, and the read
 * goes on. An entry is served only when its URLs pass the current
 * static policy and every origin it was allowed to reach privately still is.
 *
 * @example
 * ```ts ignore
 * import { createPageCache } from "./page_cache.ts";
 * const pages = createPageCache(store.cache, config);
 * const hit = await pages.get({ url: "https://example.com/", render: "auto" });
 * ```
 */
export function createPageCache(
  cache: Cache | undefined,
  config: { network: NetworkSection },
  now: () => number = Date.now,
): PageCache {
  const gate = createOutageGate({ now });
  const unavailable = (action: string, error: unknown) => {
    if (gate.failed()) {
      log.warn("page cache unavailable ({action}), reading without it: {error}", {
        action,
        error: (error as { message?: string })?.message ?? String(error),
      });
    } else {
      log.debug("page cache unavailable ({action})", { action });
    }
  };
  const servable = (entry: PageCacheEntry): boolean => {
    if (
      !entry || typeof entry !== "object" || !entry.page || !Array.isArray(entry.private_origins)
    ) {
      return false;
    }
    if (!entry.private_origins.every((o) => privateAllowed(config.network, o))) return false;
    try {
      assertUrlAllowed(new URL(entry.page.finalUrl), config.network);
      return true;
    } catch {
      return false;
    }
  };
  return {
    async get(request) {
      if (!cache || !gate.open()) return undefined;
      let entry: PageCacheEntry | undefined;
      try {
        entry = await cache.get<PageCacheEntry>("pages", pageCacheKey(request), {
          maxAgeS: request.maxAgeS,
        });
      } catch (error) {
        if (isErrorCode(error, "invalid_arguments")) throw error;
        unavailable("lookup", error);
        return undefined;
      }
      if (entry === undefined) return undefined;
      if (!servable(entry)) {
        log.debug("cached page of {url} not served under the current network policy", {
          url: safeEndpoint(request.url),
        });
        return undefined;
      }
      return entry.page;
    },
    async set(request, page) {
      if (!cache || !gate.open()) return;
      if (page.markdown.length > MAX_CACHED_MARKDOWN_CHARS) {
        log.debug("page {url} not cached: {chars} characters of Markdown", {
          url: safeEndpoint(request.url),
          chars: page.markdown.length,
        });
        // An older copy must not be served instead of this read.
        await cache.delete("pages", pageCacheKey(request)).catch(() => false);
        return;
      }
      const origins = new Set<string>();
      for (const raw of [request.url, page.finalUrl]) {
        try {
          const origin = new URL(raw).origin;
          if (privateAllowed(config.network, origin)) origins.add(origin);
        } catch {
          // not a URL: nothing to remember
        }
      }
      const entry: PageCacheEntry = { page, private_origins: [...origins] };
      try {
        await cache.set("pages", pageCacheKey(request), entry);
      } catch (error) {
        unavailable("store", error);
      }
    },
  };
}
