/**
 * The search router: picks the backend(s) for `search.backend`, falls back
 * on failure, applies the `domains` restriction, removes duplicates, caps the
 * count, and records every backend call as an {@link Attempt}.
 *
 * @module
 */
import type { Config } from "../config.ts";
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import type { Fetcher } from "../net/types.ts";
import { normalizeDomain, resultKey, siteHint, urlInDomains } from "./domains.ts";
import { createDuckDuckGoBackend } from "./duckduckgo.ts";
import { createSearxngBackend } from "./searxng.ts";
import {
  type Attempt,
  type SearchBackend,
  SearchFailure,
  type SearchHit,
  type SearchRequest,
} from "./types.ts";
import { toSearchFailure } from "./upstream.ts";

const log = getGleanerLogger("search");

/** Largest `max_results` one search may ask for. */
export const MAX_RESULTS_LIMIT = 100;

const TIME_RANGES = new Set(["day", "week", "month", "year"]);

/** What a search answers: the hits and every backend call made for them. */
export interface SearchResponse {
  /** Deduplicated hits, at most `max_results`, within `domains` when given. */
  results: SearchHit[];
  /** Every backend call, in order, with its outcome and duration. */
  attempts: Attempt[];
}

/** Runs searches under the configured backend policy. */
export interface SearchRouter {
  /** Backend names in the order they are tried. */
  readonly backends: readonly string[];
  /**
   * Searches. Zero results resolve normally (last attempt `empty`). When every
   * backend fails, throws the last {@link SearchFailure}, carrying all
   * attempts in `attempts` and `details.attempts`. Bad requests throw
   * `invalid_arguments`.
   */
  search(req: SearchRequest): Promise<SearchResponse>;
}

/** The backends tried for a configuration, in order. */
function backendsFor(config: Config): SearchBackend[] {
  const search = config.search;
  const ddg = createDuckDuckGoBackend(search);
  const searx = createSearxngBackend(search);
  switch (search.backend) {
    case "duckduckgo":
      return [ddg];
    case "searxng":
      // Without a URL the backend answers `invalid` naming search.searxng_url.
      return [searx];
    default:
      return search.searxng_url ? [searx, ddg] : [ddg];
  }
}

/** Validates a request; returns the normalised domains. */
function validate(req: SearchRequest): string[] {
  if (typeof req.query !== "string" || req.query.trim() === "") {
    throw new GleanerError("invalid_arguments", "query: must be a non-empty string", {
      details: { field: "query" },
    });
  }
  if (
    !Number.isInteger(req.max_results) || req.max_results < 1 ||
    req.max_results > MAX_RESULTS_LIMIT
  ) {
    throw new GleanerError(
      "invalid_arguments",
      `max_results: must be an integer from 1 to ${MAX_RESULTS_LIMIT}`,
      { details: { field: "max_results" } },
    );
  }
  if (req.time_range !== undefined && !TIME_RANGES.has(req.time_range)) {
    throw new GleanerError("invalid_arguments", "time_range: must be day, week, month or year", {
      details: { field: "time_range" },
    });
  }
  const domains = (req.domains ?? []).map((entry) => normalizeDomain(entry, "domains"));
  return [...new Set(domains)];
}

/** Keeps http(s) hits inside the domains, drops duplicates, caps the count. */
function refine(hits: SearchHit[], domains: string[], max: number): SearchHit[] {
  const seen = new Set<string>();
  const out: SearchHit[] = [];
  for (const hit of hits) {
    const key = resultKey(hit.url);
    if (!key || seen.has(key)) continue;
    if (domains.length > 0 && !urlInDomains(hit.url, domains)) continue;
    seen.add(key);
    out.push(hit);
    if (out.length >= max) break;
  }
  return out;
}

/**
 * Creates the router for a configuration. `auto` asks SearXNG when
 * `search.searxng_url` is set, DuckDuckGo otherwise, and the other one when
 * the first fails; an explicit backend is asked alone.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createFetcher } from "../net/fetch.ts";
 * import { createSearchRouter } from "./router.ts";
 * const config = parseConfig();
 * const router = createSearchRouter(config, createFetcher(config.network));
 * const { results, attempts } = await router.search({
 *   query: "sqlite fts5 bm25",
 *   max_results: 5,
 *   domains: ["sqlite.org"],
 * });
 * ```
 */
export function createSearchRouter(config: Config, fetcher: Fetcher): SearchRouter {
  const backends = backendsFor(config);
  return {
    backends: backends.map((backend) => backend.name),
    async search(req: SearchRequest): Promise<SearchResponse> {
      const domains = validate(req);
      const hint = siteHint(domains);
      const query = hint ? `${req.query.trim()} ${hint}` : req.query.trim();
      const upstreamReq: SearchRequest = { ...req, query, domains };
      const attempts: Attempt[] = [];
      let last: SearchFailure | undefined;
      for (const backend of backends) {
        const started = performance.now();
        try {
          const hits = await backend.search(upstreamReq, fetcher);
          const results = refine(hits, domains, req.max_results);
          const ms = Math.round(performance.now() - started);
          attempts.push({ backend: backend.name, outcome: results.length ? "ok" : "empty", ms });
          log.debug("{backend}: {count} results ({raw} before filtering) in {ms} ms", {
            backend: backend.name,
            count: results.length,
            raw: hits.length,
            ms,
          });
          return { results, attempts };
        } catch (error) {
          const ms = Math.round(performance.now() - started);
          last = toSearchFailure(error, backend.name);
          attempts.push({ backend: backend.name, outcome: last.outcome, ms });
          log.warn("{backend} failed ({outcome}): {message}", {
            backend: backend.name,
            outcome: last.outcome,
            message: last.message,
          });
          if (req.signal?.aborted) break;
        }
      }
      const failure = last ??
        new SearchFailure("unavailable", "search: no backend is configured", {
          code: "invalid_arguments",
        });
      throw new SearchFailure(failure.outcome, failure.message, {
        backend: failure.backend,
        code: failure.code,
        cause: failure.cause ?? failure,
        attempts,
        details: failure.details,
      });
    },
  };
}
