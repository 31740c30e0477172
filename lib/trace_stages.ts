/**
 * Stage spans around the search router and each reading tier, and the counters
 * of cache lookups and tier outcomes (see `telemetry/mod.ts`); free when
 * telemetry is off. They wrap the router, the tiers and the cache at the
 * composition root (`gleaner.ts`), so `telemetry/` knows no domain folder.
 *
 * @module
 */
import type { Tier } from "./read/types.ts";
import type { SearchRouter } from "./search/router.ts";
import type { Cache } from "./store/types.ts";
import { telemetry } from "./telemetry/mod.ts";

/** The error code of a failure for a counter's attribute, never its message. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^[a-z_]{1,40}$/.test(code) ? code : "internal";
}

/**
 * The router with a `gleaner.search` span around each search, naming the
 * backend that answered and the result count (never the query).
 *
 * @example
 * ```ts
 * import { traceSearch } from "./trace_stages.ts";
 * const router = traceSearch({
 *   backends: ["demo"],
 *   search: () => Promise.resolve({ results: [], attempts: [] }),
 * });
 * const out = await router.search({ query: "q", max_results: 1 });
 * console.assert(out.results.length === 0);
 * ```
 */
export function traceSearch(router: SearchRouter): SearchRouter {
  return {
    get backends() {
      return router.backends;
    },
    search: (request) =>
      telemetry().span("search", "search", {}, async (span) => {
        const response = await router.search(request);
        const last = response.attempts.at(-1);
        span.set({
          "gleaner.results": response.results.length,
          ...(last ? { "gleaner.backend": last.backend } : {}),
        });
        return response;
      }),
  };
}

/**
 * The tier with a `gleaner.read.<tier>` span around each read (tier name and
 * outcome only, never the URL).
 *
 * @example
 * ```ts
 * import { traceTier } from "./trace_stages.ts";
 * import type { Tier } from "./read/types.ts";
 * const tier: Tier = {
 *   name: "http",
 *   scope: "shared",
 *   canHandle: () => true,
 *   read: () => Promise.resolve(undefined),
 * };
 * console.assert(traceTier(tier).name === "http" && traceTier(tier).scope === "shared");
 * ```
 */
export function traceTier(tier: Tier): Tier {
  return {
    name: tier.name,
    scope: tier.scope,
    // When the tier runs is the tier's own declaration: the span changes nothing of it.
    ...(tier.renders !== undefined ? { renders: tier.renders } : {}),
    ...(tier.renderAfter ? { renderAfter: tier.renderAfter } : {}),
    ...(tier.fallbackFor ? { fallbackFor: tier.fallbackFor } : {}),
    ...(tier.readsCopy !== undefined ? { readsCopy: tier.readsCopy } : {}),
    canHandle: (url, request) => tier.canHandle(url, request),
    read: (url, request, context) =>
      telemetry().span(`read.${tier.name}`, "read", { "gleaner.tier": tier.name }, async (span) => {
        let result: string;
        try {
          const page = await tier.read(url, request, context);
          result = page ? (page.thin ? "thin" : "page") : "passed";
          span.set({ "gleaner.read.result": result });
          return page;
        } catch (error) {
          result = codeOf(error);
          throw error;
        } finally {
          telemetry().count("read.tier.outcomes", {
            "gleaner.tier": tier.name,
            "gleaner.read.result": result!,
          });
        }
      }),
  };
}

/**
 * The cache with each lookup counted in `gleaner.cache.hits` or
 * `gleaner.cache.misses` by namespace (never the key); everything else passes
 * through unchanged.
 *
 * @example
 * ```ts
 * import { traceCache } from "./trace_stages.ts";
 * import { SqliteCache } from "./store/cache.ts";
 * import { openDatabase } from "./store/sqlite.ts";
 * const cache = traceCache(new SqliteCache(openDatabase(":memory:")));
 * console.assert((await cache.get("search", "absent")) === undefined);
 * ```
 */
export function traceCache(cache: Cache): Cache {
  return {
    async get<T>(...args: Parameters<Cache["get"]>): Promise<T | undefined> {
      const value = await cache.get<T>(...args);
      telemetry().count(value === undefined ? "cache.misses" : "cache.hits", {
        "gleaner.cache.namespace": args[0],
      });
      return value;
    },
    set: (ns, key, value) => cache.set(ns, key, value),
    delete: (ns, key) => cache.delete(ns, key),
    clear: (ns) => cache.clear(ns),
    sweep: () => cache.sweep(),
    stats: () => cache.stats(),
  };
}
