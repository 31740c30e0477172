/**
 * The contract of web search: a request and the hits. The record of each
 * provider call the router keeps (`Attempt`) and the failure a provider call
 * throws (`SearchFailure`) are in `../net/upstream_failure.ts`. The providers
 * themselves implement `Provider` (`providers/types.ts`).
 *
 * @module
 */
import type { TimeRange } from "./time_range.ts";

/** One web search. */
export interface SearchRequest {
  /** What to search for. */
  query: string;
  /** Only results published within this range. */
  time_range?: TimeRange;
  /** Preferred result language (`en`, `de`, `pt-BR`, …). */
  language?: string;
  /** Most results returned. */
  max_results: number;
  /** Only results on these domains (a domain includes its subdomains). */
  domains?: string[];
  /** Skip the cache (the fresh answer is still stored). */
  no_cache?: boolean;
  /**
   * A domain profile (`dev`, `homelab` or one of `search.domain_profiles`): its preferred
   * domains are raised, its excluded ones dropped.
   */
  domain_profile?: string;
  /**
   * Rewrite the query with the configured language model first (`llm.*`); default
   * `llm.expand_always` (off).
   */
  expand?: boolean;
  /**
   * SearXNG's category for this search (`general`, `news`, `it`, `science`); `news` also asks
   * the other providers' news indexes.
   */
  category?: "general" | "news" | "it" | "science";
  /** SearXNG engines for this search (`wikipedia`, `github`, …); empty: the configured ones. */
  engines?: string[];
  /** Cancels the search. */
  signal?: AbortSignal;
}

/** One search result. */
export interface SearchHit {
  /** Title as the engine shows it. */
  title: string;
  /** The target URL (never an engine redirect). */
  url: string;
  /** The engine's snippet, plain text. */
  snippet: string;
  /** Publication date when the engine gives one (ISO 8601 when parseable). */
  published?: string;
  /** The provider that found it (`duckduckgo`, `searxng`, `exa`, …). */
  source: string;
}
