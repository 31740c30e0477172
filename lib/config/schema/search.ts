/**
 * The `search` section: web search, its providers, rerankers and domain profiles.
 *
 * @module
 */
import { z } from "zod";
import { secret } from "./secret.ts";
import { operatorOnly, shared } from "../setting.ts";

/** Settings of one search provider (`search.providers.<name>`). */
export const ProviderSettingsSchema: z.ZodObject<{
  enabled: z.ZodOptional<z.ZodBoolean>;
  api_key: z.ZodOptional<z.ZodString>;
  base_url: z.ZodOptional<z.ZodString>;
  timeout_ms: z.ZodOptional<z.ZodNumber>;
  max_results: z.ZodOptional<z.ZodNumber>;
  requests_per_second: z.ZodOptional<z.ZodNumber>;
  model: z.ZodOptional<z.ZodString>;
  deep_model: z.ZodOptional<z.ZodString>;
  deep_research: z.ZodOptional<z.ZodBoolean>;
  deep_research_agent: z.ZodOptional<z.ZodString>;
  deep_research_wait_ms: z.ZodOptional<z.ZodNumber>;
  deep_research_poll_ms: z.ZodOptional<z.ZodNumber>;
  run_timeout_ms: z.ZodOptional<z.ZodNumber>;
  run_wait_ms: z.ZodOptional<z.ZodNumber>;
  run_poll_ms: z.ZodOptional<z.ZodNumber>;
  default_language: z.ZodOptional<z.ZodString>;
}, z.core.$strict> = z.strictObject({
  /** Keyless providers answer only when `true`; `false` turns any provider off. */
  enabled: z.boolean().optional(),
  /**
   * The provider's API key (a secret; read through `providerApiKey`). The older
   * `search.<name>_api_key` is still read, and its environment names stay.
   */
  api_key: secret(),
  /** API base URL (tests point it at loopback). */
  base_url: z.string().url().optional(),
  /**
   * Timeout of one call (default: the longer of `search.timeout_ms` and the call's documented
   * time, Jina's reader 30000, TinyFish's fetch 120000).
   */
  timeout_ms: z.number().int().positive().optional(),
  /** Most results asked of the provider in one call. */
  max_results: z.number().int().positive().max(100).optional(),
  /**
   * Requests per second sent at most (queued before sending); replaces the provider's documented
   * rate (Jina's reader 20 a minute keyless, Keenable 1,000 an hour keyless, TinyFish 30 a minute).
   */
  requests_per_second: z.number().positive().optional(),
  /** Model of providers that run one (Gemini: the model of quick answers). */
  model: z.string().min(1).optional(),
  /** Model of deep answers (Gemini). */
  deep_model: z.string().min(1).optional(),
  /**
   * Gemini: `deep` answers run the Deep Research agent (Interactions API, background mode)
   * instead of `deep_model`; a run still going when `deep_research_wait_ms` is over answers
   * `in_progress` with its `interaction_id`, which resumes it.
   */
  deep_research: z.boolean().optional(),
  /** Gemini: the Deep Research agent (default `deep-research-preview-04-2026`). */
  deep_research_agent: z.string().min(1).max(200).optional(),
  /** Gemini: how long one call polls a Deep Research run before answering `in_progress` (default 45000). */
  deep_research_wait_ms: z.number().int().min(0).max(600_000).optional(),
  /** Gemini: the pause between two polls of a Deep Research run (default 10000). */
  deep_research_poll_ms: z.number().int().min(10).max(600_000).optional(),
  /**
   * TinyFish: how long one `tinyfish_run` call polls an agent run before answering
   * `in_progress` with its `run_id` (default 45000: under an MCP client's 60 s).
   */
  run_timeout_ms: z.number().int().min(0).max(3_600_000).optional(),
  /**
   * Parallel: how long starting a research, enrich or dataset run (or asking its status) polls
   * before answering `in_progress` with the run id (default 5000).
   */
  run_wait_ms: z.number().int().min(0).max(600_000).optional(),
  /**
   * The pause between two polls of a run: TinyFish's agent runs (default 2000), Parallel's
   * research, enrich and dataset runs (default 1000).
   */
  run_poll_ms: z.number().int().min(10).max(600_000).optional(),
  /** SearXNG: the language asked (`language=`) when a search names none (`en`, `de`, `pt-BR`, `all`). */
  default_language: z.string().min(2).max(10).optional(),
});

function safeJsonObject(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One domain profile (`search.domain_profiles.<name>`). */
export const DomainProfileSchema: z.ZodObject<{
  prefer: z.ZodDefault<z.ZodArray<z.ZodString>>;
  exclude: z.ZodDefault<z.ZodArray<z.ZodString>>;
  boost: z.ZodDefault<z.ZodNumber>;
}, z.core.$strict> = z.strictObject({
  /** Domains (subdomains included) whose results are raised. */
  prefer: z.array(z.string()).max(100).default([]),
  /** Domains (subdomains included) whose results are dropped. */
  exclude: z.array(z.string()).max(100).default([]),
  /** How far a preferred result is raised, as a share of the score range (1: always first). */
  boost: z.number().min(0).max(1).default(0.25),
});

/** Settings of web search. */
export const SearchSchema: z.ZodObject<{
  enabled: z.ZodDefault<z.ZodBoolean>;
  backend: z.ZodDefault<
    z.ZodEnum<{
      auto: "auto";
      duckduckgo: "duckduckgo";
      searxng: "searxng";
    }>
  >;
  pin_backend: z.ZodDefault<z.ZodBoolean>;
  searxng_url: z.ZodOptional<z.ZodString>;
  duckduckgo_html_url: z.ZodDefault<z.ZodString>;
  duckduckgo_lite_url: z.ZodDefault<z.ZodString>;
  region: z.ZodDefault<z.ZodString>;
  searxng_categories: z.ZodDefault<z.ZodArray<z.ZodString>>;
  searxng_engines: z.ZodDefault<z.ZodArray<z.ZodString>>;
  safesearch: z.ZodDefault<z.ZodNumber>;
  timeout_ms: z.ZodDefault<z.ZodNumber>;
  max_results: z.ZodDefault<z.ZodNumber>;
  brave_api_key: z.ZodOptional<z.ZodString>;
  exa_api_key: z.ZodOptional<z.ZodString>;
  tavily_api_key: z.ZodOptional<z.ZodString>;
  jina_api_key: z.ZodOptional<z.ZodString>;
  keenable_api_key: z.ZodOptional<z.ZodString>;
  parallel_api_key: z.ZodOptional<z.ZodString>;
  gemini_api_key: z.ZodOptional<z.ZodString>;
  tinyfish_api_key: z.ZodOptional<z.ZodString>;
  querit_api_key: z.ZodOptional<z.ZodString>;
  seltz_api_key: z.ZodOptional<z.ZodString>;
  providers: z.ZodDefault<
    z.ZodPreprocess<z.ZodRecord<z.ZodString, typeof ProviderSettingsSchema>, unknown>
  >;
  search_order: z.ZodDefault<z.ZodArray<z.ZodString>>;
  answer_order: z.ZodDefault<z.ZodArray<z.ZodString>>;
  contents_order: z.ZodDefault<z.ZodArray<z.ZodString>>;
  fallback_on_empty: z.ZodDefault<z.ZodBoolean>;
  keyless_engines_per_query: z.ZodDefault<z.ZodNumber>;
  breaker_failures: z.ZodDefault<z.ZodNumber>;
  breaker_cooldown_ms: z.ZodDefault<z.ZodNumber>;
  presentation: z.ZodDefault<
    z.ZodEnum<{
      default: "default";
      roles: "roles";
      all_tools: "all_tools";
      one_provider: "one_provider";
      deep_research: "deep_research";
      router: "router";
    }>
  >;
  presentation_provider: z.ZodOptional<z.ZodString>;
  rerank_url: z.ZodOptional<z.ZodString>;
  rerank_api_key: z.ZodOptional<z.ZodString>;
  rerank_model: z.ZodDefault<z.ZodString>;
  rerank_recency_weight: z.ZodDefault<z.ZodNumber>;
  rerank_timeout_ms: z.ZodDefault<z.ZodNumber>;
  domain_profiles: z.ZodDefault<
    z.ZodPreprocess<z.ZodRecord<z.ZodString, typeof DomainProfileSchema>, unknown>
  >;
}, z.core.$strip> = z.object({
  /**
   * `false` turns web search off for this deployment: the tools that search (`search`,
   * `research`, `search_and_summarize`, `web_search_tool`, `web_answer_tool`, the router's
   * `search`, providers' own search, answer and run tools) are not declared, and a call that
   * reaches web search anyway (a library call, a REST path of such a tool) fails with
   * `search_disabled`. Reading pages (`scrape_urls`, `web_contents_tool`, `crawl_site`) stays.
   */
  enabled: operatorOnly(z.boolean().default(true)),
  /** Which backend answers: `auto` = SearXNG when configured, else DuckDuckGo, the other on failure. */
  backend: shared(z.enum(["auto", "duckduckgo", "searxng"]).default("auto")),
  /**
   * Ask only `backend` (no fallback). Unpinned, `backend: "searxng"` falls back to DuckDuckGo
   * when SearXNG fails (down, 5xx, rate limited, blocked).
   */
  pin_backend: shared(z.boolean().default(false)),
  /** Base URL of a SearXNG instance (JSON format enabled). */
  searxng_url: operatorOnly(z.string().url().optional(), { env: ["GLEANER_SEARXNG_URL"] }),
  /** DuckDuckGo HTML endpoint. */
  duckduckgo_html_url: operatorOnly(z.string().url().default("https://html.duckduckgo.com/html/")),
  /** DuckDuckGo lite endpoint (fallback). */
  duckduckgo_lite_url: operatorOnly(z.string().url().default("https://lite.duckduckgo.com/lite/")),
  /** Default region (`kl`) for DuckDuckGo; the other keyless engines read its country and language. */
  region: shared(z.string().default("us-en")),
  /** SearXNG categories asked for (comma-separated in the request). */
  searxng_categories: shared(z.array(z.string()).default(["general"])),
  /** SearXNG engines asked for; empty = the instance's defaults. */
  searxng_engines: shared(z.array(z.string()).default([])),
  /** Safe search level sent to SearXNG, Mojeek, Brave's HTML page and Yahoo: 0 off, 1 moderate, 2 strict. */
  safesearch: shared(z.number().int().min(0).max(2).default(1)),
  /** Timeout for one upstream search call. */
  timeout_ms: shared(z.number().int().positive().default(10_000)),
  /**
   * Results a search asks for when the call gives no `max_results` (`search`, `research`,
   * `search_and_summarize`, `web_search_tool`); a call's own value wins.
   */
  max_results: shared(z.number().int().min(1).max(20).default(10), { live: true }),
  /** Brave Search API key (optional backend). */
  brave_api_key: secret({ env: ["BRAVE_SEARCH_API_KEY", "BRAVE_API_KEY"] }),
  /** Exa API key (search, find-similar, contents, answer). */
  exa_api_key: secret({ env: ["EXA_API_KEY"] }),
  /** Tavily API key (search, extract, answers). */
  tavily_api_key: secret({ env: ["TAVILY_API_KEY"] }),
  /** Jina API key (reader and search; optional for the reader). */
  jina_api_key: secret({ env: ["JINA_API_KEY"] }),
  /** Keenable API key (optional: lifts the keyless limits). */
  keenable_api_key: secret({ env: ["KEENABLE_API_KEY"] }),
  /** Parallel API key (search). */
  parallel_api_key: secret({ env: ["PARALLEL_API_KEY"] }),
  /** Gemini API key (answers grounded in Google Search, with citations). */
  gemini_api_key: secret({ env: ["GEMINI_API_KEY"] }),
  /** TinyFish API key (search, fetch, and the `tinyfish_run` web agent). */
  tinyfish_api_key: secret({ env: ["TINYFISH_API_KEY"] }),
  /** Querit API key (web search). */
  querit_api_key: secret({ env: ["QUERIT_API_KEY"] }),
  /** Seltz API key (web search). */
  seltz_api_key: secret({ env: ["SELTZ_API_KEY"] }),
  /**
   * Per-provider settings by provider name: `enabled` (keyless providers are off until
   * `true`; `false` turns any provider off), `base_url`, `timeout_ms`, `max_results`,
   * `requests_per_second`, `api_key` (a secret). A JSON object in `GLEANER_SEARCH_PROVIDERS`.
   */
  providers: operatorOnly(
    z.preprocess(
      (value) => (typeof value === "string" ? safeJsonObject(value) : value),
      z.record(z.string(), ProviderSettingsSchema),
    ).default({}),
  ),
  /** Providers tried for `search`, in order; empty = the default order. */
  search_order: shared(z.array(z.string()).default([])),
  /** Providers tried for `answer`, in order; empty = the default order. */
  answer_order: shared(z.array(z.string()).default([])),
  /** Providers tried for `contents`, in order; empty = the default order (then Gleaner's reader). */
  contents_order: shared(z.array(z.string()).default([])),
  /**
   * When a keyless provider (DuckDuckGo, SearXNG) answers zero results and a keyed provider
   * comes later in the search order, ask the next one (the answer names the keyless one in
   * `fallback_from` with code `empty`).
   */
  fallback_on_empty: shared(z.boolean().default(true)),
  /**
   * How many keyless web engines (DuckDuckGo, Mojeek, Brave's HTML page, Yahoo, Yandex,
   * Wikipedia: neighbours in the search order) one search asks at once, in a rotating order
   * that prefers engines whose pace lets them answer now; an engine that fails, answers
   * nothing or is cooling down is replaced by the next, and the answers are merged. `1` asks
   * them one after another.
   */
  keyless_engines_per_query: shared(z.number().int().min(1).max(6).default(2)),
  /** Consecutive failures after which a provider is skipped for `breaker_cooldown_ms`. */
  breaker_failures: shared(z.number().int().positive().default(3)),
  /** How long a failing provider is skipped. */
  breaker_cooldown_ms: shared(z.number().int().min(0).default(60_000)),
  /**
   * Which tools MCP and HTTP declare: Gleaner's own (`default`), one per role (`roles`),
   * every configured provider's own (`all_tools`), one provider's (`one_provider`), the Deep
   * Research pair (`deep_research`), or one `search` tool with a `provider` argument (`router`).
   */
  presentation: shared(
    z.enum(["default", "roles", "all_tools", "one_provider", "deep_research", "router"])
      .default("default"),
  ),
  /** The provider whose tools `presentation: one_provider` declares. */
  presentation_provider: shared(z.string().optional()),
  /**
   * A reranker of search results in the Jina-compatible format: `POST <url>` (for example
   * `https://api.jina.ai/v1/rerank`) with `{ model, query, documents, top_n }`, answered with
   * `results[].{ index, relevance_score }`. Each result's title and snippet are sent, nothing
   * else. Unset: results keep the provider's order. Any failure keeps the provider's order too,
   * and the answer says why.
   */
  rerank_url: operatorOnly(z.string().url().optional()),
  /** Bearer token of the reranker, when it needs one. */
  rerank_api_key: secret(),
  /** Model named in each rerank request. */
  rerank_model: shared(z.string().min(1).default("jina-reranker-v2-base-multilingual")),
  /**
   * Weight (0..1) of recency against the reranker's relevance: each result scores
   * `(1 - w) · relevance + w · recency`, where recency halves every 365 days since its
   * published date (an undated result counts 0.5). `0` orders by relevance alone.
   */
  rerank_recency_weight: shared(z.number().min(0).max(1).default(0)),
  /** Time the reranker gets per search before the provider's order is kept. */
  rerank_timeout_ms: shared(z.number().int().positive().default(5_000)),
  /**
   * Named domain profiles the search tools offer as `domain_profile`, besides the built-in
   * `dev` and `homelab` (an entry of the same name replaces a built-in one): `prefer` (results
   * there are raised by `boost`, default 0.25: a quarter of the reranker's score range, or
   * without a reranker about two places of the provider's order, each worth 0.1; 1 puts them
   * first) and `exclude` (results there are dropped). A JSON object in
   * `GLEANER_SEARCH_DOMAIN_PROFILES`.
   */
  domain_profiles: shared(
    z.preprocess(
      (value) => (typeof value === "string" ? safeJsonObject(value) : value),
      z.record(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/), DomainProfileSchema),
    ).default({}),
  ),
});
