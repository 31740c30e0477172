/**
 * The search router of the `search` tool: the `search` role of the
 * {@link RoleRouter} (configured provider order, fallback, breaker, cache) in
 * the foundation's shape — hits plus the record of every provider call as an
 * {@link Attempt}.
 *
 * Permissions: net access to the search upstreams (through the guarded fetch).
 *
 * @module
 */
import { LruCache } from "../cache/lru_cache.ts";
import { GleanerError, toGleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import type { Fetcher } from "../net/types.ts";
import { createBreaker } from "./breaker.ts";
import { type DomainProfile, resolveDomainProfile } from "./domain_profiles.ts";
import { type Llm, llmFromConfig, rewriteQuery } from "./llm.ts";
import { orderHits, rerankerFromConfig, type ResultReranker } from "./rerank.ts";
import {
  createRoleRouter,
  type FallbackEntry,
  type RoleRouter,
  type RoleSearchRequest,
} from "./roles.ts";
import type { SearchHit, SearchRequest } from "./types.ts";
import type { Attempt } from "../net/upstream_failure.ts";
import type { ProviderConfig } from "./providers/types.ts";
import type { LlmSection } from "../config/sections.ts";

const log = getGleanerLogger("search", "quality");

/** Largest `max_results` one search may ask for. */
const MAX_RESULTS_LIMIT = 100;

/** What a search answers: the hits and every backend call made for them. */
export interface SearchResponse {
  /** Deduplicated hits, at most `max_results`, within `domains` when given. */
  results: SearchHit[];
  /** Every backend call, in order, with its outcome and duration. */
  attempts: Attempt[];
  /** The provider that answered (keyless engines asked together: their names joined by `+`). */
  provider?: string;
  /** Providers that failed first, with their codes. */
  fallback_from?: FallbackEntry[];
  /** True when answered from the cache. */
  cached?: boolean;
  /** Age of a cached answer (seconds). */
  age_s?: number;
  /**
   * What changed on the way, when anything: the provider fitting the request to its documented
   * limits, a reranker or query rewrite that failed (and what was done instead).
   */
  notices?: string[];
  /** The query the language model wrote and the providers were asked (`expand`). */
  rewritten_query?: string;
  /**
   * With `search.rerank_url`: `true` when the reranker's order was used, `false` when it failed
   * and the provider's order was kept (`notices` says why).
   */
  reranked?: boolean;
}

/** Runs searches under the configured provider order. */
export interface SearchRouter {
  /** Provider names in the order they are tried. */
  readonly backends: readonly string[];
  /**
   * Searches. Zero results resolve normally (last attempt `empty`). When every
   * provider fails, throws a {@link SearchFailure} carrying all attempts in
   * `attempts` and `details.attempts`. Bad requests throw `invalid_arguments`.
   */
  search(req: SearchRequest): Promise<SearchResponse>;
}

/**
 * What the search role is asked for `req`: the (rewritten) `query`, `pool` results
 * (deeper when they are reordered), the category's topic and the profile's excluded domains.
 */
function roleSearchRequest(
  req: SearchRequest,
  query: string,
  pool: number,
  profile: DomainProfile | undefined,
): RoleSearchRequest {
  return {
    query,
    max_results: Number.isInteger(req.max_results) ? pool : req.max_results,
    time_range: req.time_range,
    language: req.language,
    domains: req.domains,
    ...(req.category ? { categories: [req.category] } : {}),
    ...(req.category === "news" ? { topic: "news" as const } : {}),
    ...(req.engines?.length ? { engines: req.engines } : {}),
    ...(profile && profile.exclude.length > 0 ? { exclude_domains: [...profile.exclude] } : {}),
    no_cache: req.no_cache,
    signal: req.signal,
  };
}

/**
 * Creates the router for a configuration, over `roles` (or a role router of
 * its own, without cache). By default the paid providers that have keys come
 * first, then SearXNG when `search.searxng_url` is set, then DuckDuckGo;
 * `search.search_order` (or the legacy `search.backend`) changes that.
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
export function createSearchRouter(
  config: ProviderConfig & { llm: LlmSection },
  fetcher: Fetcher,
  roles: RoleRouter = createRoleRouter({ config, fetcher }),
): SearchRouter {
  const reranker: ResultReranker | undefined = rerankerFromConfig(config, fetcher);
  // Query rewrites use their own (smaller) model when `llm.rewrite_model` names one.
  const llm: Llm | undefined = llmFromConfig({
    llm: { ...config.llm, model: config.llm.rewrite_model ?? config.llm.model },
  }, fetcher);
  // A reranker or model that keeps failing is left alone for a while, as providers are
  // (search.breaker_failures, search.breaker_cooldown_ms): searches do not wait for it.
  // The providers' breaker policy (search/breaker.ts): refused keys and spent credit open at
  // once, a rate limit for its Retry-After.
  const breaker = createBreaker({
    failures: config.search.breaker_failures,
    cooldownMs: config.search.breaker_cooldown_ms,
  });
  const failed = (key: "reranker" | "llm", failure: GleanerError) => {
    const retry = Number(failure.details?.retry_after_s);
    breaker.failure(key, failure.code, Number.isFinite(retry) && retry > 0 ? retry : undefined);
  };
  /** Rewrites already made (the model answers at temperature 0: the same query, the same line). */
  const rewrites = new LruCache<string, string>(256);
  return {
    get backends() {
      return roles.providers("search");
    },
    async search(req: SearchRequest): Promise<SearchResponse> {
      const profile = req.domain_profile === undefined
        ? undefined
        : resolveDomainProfile(config, req.domain_profile);
      const notes: string[] = [];
      let query = req.query;
      let rewritten: string | undefined;
      // `llm.expand_always` rewrites every query the call does not exempt (`expand: false`).
      if (req.expand ?? (config.llm.expand_always && llm !== undefined)) {
        if (!llm) {
          throw new GleanerError(
            "invalid_arguments",
            "expand: needs a language model (set llm.url and llm.model)",
            { details: { field: "expand" } },
          );
        }
        const key = typeof req.query === "string" ? req.query.trim() : "";
        if (key !== "" && rewrites.has(key)) {
          rewritten = rewrites.get(key)!;
          query = rewritten;
        } else if (key !== "" && breaker.isOpen("llm")) {
          notes.push(
            "the query rewrite was skipped (the model is cooling down after failures); the original query was searched",
          );
        } else if (key !== "") {
          try {
            rewritten = await rewriteQuery(llm, req.query, req.signal);
            breaker.success("llm");
            rewrites.set(key, rewritten);
            query = rewritten;
          } catch (error) {
            if (req.signal?.aborted) throw error;
            const failure = toGleanerError(error, "llm");
            failed("llm", failure);
            log.warn("query rewrite failed, searching the original query: {error}", {
              error: failure.message,
            });
            notes.push(
              `the query rewrite failed (${failure.code}); the original query was searched`,
            );
          }
        }
      }
      // Reordering picks from a deeper pool, so that dropped and lowered results leave room.
      const reorder = reranker !== undefined || profile !== undefined;
      const pool = reorder ? Math.min(MAX_RESULTS_LIMIT, req.max_results * 2) : req.max_results;
      const answer = await roles.search(roleSearchRequest(req, query, pool, profile));
      let results = answer.results;
      let relevance: number[] | undefined;
      let reranked: boolean | undefined;
      if (reranker && results.length > 1 && breaker.isOpen("reranker")) {
        reranked = false;
        notes.push(
          "the reranker was skipped (cooling down after failures); results keep the provider's order",
        );
      } else if (reranker && results.length > 1) {
        try {
          relevance = await reranker.rerank(
            req.query,
            results.map((hit) => `${hit.title}\n${hit.snippet}`),
            req.signal,
          );
          reranked = true;
          breaker.success("reranker");
        } catch (error) {
          if (req.signal?.aborted) throw error;
          const failure = toGleanerError(error, "reranker");
          failed("reranker", failure);
          log.warn("reranker failed, keeping the provider's order: {error}", {
            error: failure.message,
          });
          reranked = false;
          notes.push(`the reranker failed (${failure.code}); results keep the provider's order`);
        }
      }
      if (relevance || profile) {
        results = orderHits(results, {
          relevance,
          recencyWeight: config.search.rerank_recency_weight,
          prefer: profile?.prefer,
          boost: profile?.boost,
        });
      }
      const notices = [...(answer.notices ?? []), ...notes];
      return {
        results: results.slice(0, req.max_results),
        attempts: answer.attempts,
        provider: answer.provider,
        fallback_from: answer.fallback_from,
        cached: answer.cached,
        ...(answer.age_s !== undefined ? { age_s: answer.age_s } : {}),
        ...(notices.length > 0 ? { notices } : {}),
        ...(rewritten !== undefined ? { rewritten_query: rewritten } : {}),
        ...(reranked !== undefined ? { reranked } : {}),
      };
    },
  };
}
