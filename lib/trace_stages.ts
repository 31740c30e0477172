/**
 * Stage spans around the search router and each reading tier (see
 * `telemetry/mod.ts`); free when telemetry is off. They wrap the router and the
 * tiers at the composition root (`gleaner.ts`), so `telemetry/` knows no domain folder.
 *
 * @module
 */
import type { Tier } from "./read/types.ts";
import type { SearchRouter } from "./search/router.ts";
import { telemetry } from "./telemetry/mod.ts";

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
 * const tier: Tier = { name: "http", canHandle: () => true, read: () => Promise.resolve(undefined) };
 * console.assert(traceTier(tier).name === "http");
 * ```
 */
export function traceTier(tier: Tier): Tier {
  return {
    name: tier.name,
    // When the tier runs is the tier's own declaration: the span changes nothing of it.
    ...(tier.renders !== undefined ? { renders: tier.renders } : {}),
    ...(tier.renderAfter ? { renderAfter: tier.renderAfter } : {}),
    ...(tier.fallbackFor ? { fallbackFor: tier.fallbackFor } : {}),
    ...(tier.readsCopy !== undefined ? { readsCopy: tier.readsCopy } : {}),
    canHandle: (url, request) => tier.canHandle(url, request),
    read: (url, request, context) =>
      telemetry().span(`read.${tier.name}`, "read", { "gleaner.tier": tier.name }, async (span) => {
        const page = await tier.read(url, request, context);
        span.set({ "gleaner.read.result": page ? (page.thin ? "thin" : "page") : "passed" });
        return page;
      }),
  };
}
