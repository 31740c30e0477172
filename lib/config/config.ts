/**
 * One schema for every setting Gleaner has. Precedence, highest first:
 * CLI flags > environment `GLEANER_*` > config file > embedded defaults.
 *
 * Environment names are `GLEANER_<SECTION>_<KEY>` in upper case (for example
 * `GLEANER_NETWORK_ALLOW_PRIVATE`), plus the short aliases in {@link ENV_ALIASES}.
 * The config file is `$GLEANER_CONFIG`, else `$XDG_CONFIG_HOME/gleaner/config.json`.
 *
 * Permissions: env access to {@link envNames} (through `readEnv`); read access to the config file.
 *
 * @module
 */
import { z } from "zod";
import { GleanerError } from "../errors.ts";
import { CHROMIUM_ENV_NAMES, DEPENDENCY_ENV_NAMES, PROCESS_ENV_NAMES, readEnv } from "./env.ts";
import { maskUrl } from "./redact.ts";
import { getGleanerLogger } from "../log.ts";
import { USER_AGENT } from "../version.ts";

/** A secret string: accepted from env or files, redacted whenever printed. */
const secret = () => z.string().min(1).optional();

/** The names of every setting that holds a secret (`section.key`). */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  "server.api_key",
  "search.brave_api_key",
  "search.exa_api_key",
  "search.tavily_api_key",
  "search.jina_api_key",
  "search.keenable_api_key",
  "search.parallel_api_key",
  "search.gemini_api_key",
  "search.rerank_api_key",
  "read.github_token",
  "read.hister_token",
  "read.firecrawl_api_key",
  "read.crawl4ai_token",
  "embed.api_key",
  "llm.api_key",
  "store.cache_url",
  "memory.hosted_proxy_token",
  "memory.hosted_hmac_secret",
  "memory.hosted_admin_key",
  "memory.postgres_url",
  "events.nats_password",
  "events.nats_token",
]);

/** Settings of the HTTP/MCP server. */
export const ServerSchema: z.ZodObject<{
  host: z.ZodDefault<z.ZodString>;
  port: z.ZodDefault<z.ZodNumber>;
  allowed_hosts: z.ZodDefault<z.ZodArray<z.ZodString>>;
  api_key: z.ZodOptional<z.ZodString>;
  health_ttl_ms: z.ZodDefault<z.ZodNumber>;
  allow_config_write: z.ZodDefault<z.ZodBoolean>;
}, z.core.$strip> = z.object({
  /** Address to bind; loopback by default. */
  host: z.string().default("127.0.0.1"),
  /** Port to bind. */
  port: z.number().int().min(0).max(65535).default(8787),
  /**
   * Extra host names (besides localhost, 127.0.0.1, [::1]) accepted in `Host`; entries written
   * as origins (`https://app.example:8443`) are the other origins accepted in `Origin` (besides
   * the server's own: the scheme, host and port it was reached on).
   */
  allowed_hosts: z.array(z.string()).default([]),
  /** Bearer token required on every request when set. */
  api_key: secret(),
  /**
   * How long `/health` answers its last component checks before running them again (ms);
   * a stale report is answered while one refresh runs in the background.
   */
  health_ttl_ms: z.number().int().min(0).max(600_000).default(5_000),
  /**
   * Serve `PUT /config` (environment only: `GLEANER_ALLOW_CONFIG_WRITE=1`), and only when
   * `api_key` is set: requests must carry the key.
   */
  allow_config_write: z.boolean().default(false),
});

/** Settings of the guarded network layer. */
export const NetworkSchema: z.ZodObject<{
  allow_private: z.ZodDefault<z.ZodUnion<readonly [z.ZodBoolean, z.ZodArray<z.ZodString>]>>;
  allowed_ports: z.ZodDefault<z.ZodArray<z.ZodNumber>>;
  connect_timeout_ms: z.ZodDefault<z.ZodNumber>;
  timeout_ms: z.ZodDefault<z.ZodNumber>;
  max_bytes: z.ZodDefault<z.ZodNumber>;
  max_decompressed_bytes: z.ZodDefault<z.ZodNumber>;
  max_redirects: z.ZodDefault<z.ZodNumber>;
  user_agent: z.ZodDefault<z.ZodString>;
  respect_robots: z.ZodDefault<z.ZodBoolean>;
  per_host_concurrency: z.ZodDefault<z.ZodNumber>;
  proxy_url: z.ZodOptional<z.ZodString>;
  no_proxy: z.ZodDefault<z.ZodArray<z.ZodString>>;
}, z.core.$strip> = z.object({
  /**
   * Reach private/loopback addresses: `false` (default), `true` (all), or a
   * list of origins (`http://127.0.0.1:8080`) that alone are allowed.
   */
  allow_private: z.union([z.boolean(), z.array(z.string())]).default(false),
  /** Ports a URL may name. */
  allowed_ports: z.array(z.number().int().min(1).max(65535)).default([80, 443, 8080, 8443]),
  /** Time to establish a connection. */
  connect_timeout_ms: z.number().int().positive().default(10_000),
  /** Time for a whole request, redirects included. */
  timeout_ms: z.number().int().positive().default(20_000),
  /** Largest body read from the wire (bytes). */
  max_bytes: z.number().int().positive().default(5_000_000),
  /** Largest body after decompression (bytes). */
  max_decompressed_bytes: z.number().int().positive().default(20_000_000),
  /** Redirect hops followed (each checked again). */
  max_redirects: z.number().int().min(0).max(20).default(5),
  /** User-Agent sent with every request. */
  user_agent: z.string().default(USER_AGENT),
  /** Obey robots.txt when reading pages. */
  respect_robots: z.boolean().default(true),
  /** Concurrent requests per host. */
  per_host_concurrency: z.number().int().positive().default(2),
  /**
   * Outbound HTTP proxy, `http://[user:password@]host:port` (default: `HTTPS_PROXY`, else
   * `HTTP_PROXY`, when set). `http:` URLs go to it in absolute form, `https:` URLs through a
   * `CONNECT` tunnel; the address policy still refuses private targets by name and literal
   * address before anything is sent, but names are resolved by the proxy (DNS pinning is then
   * the proxy's job). Credentials are redacted wherever the configuration is shown.
   */
  proxy_url: z.string().refine(isProxyUrl, {
    message: "must be an http:// proxy URL (http://[user:password@]host[:port])",
  }).optional(),
  /**
   * Hosts that bypass the proxy (default: `NO_PROXY`): `*`, names (`example.com` also covers
   * its subdomains; `.example.com` only them), IP addresses or CIDR ranges, each optionally
   * `:port`. A bypassed host goes direct under the normal checks: this never opens an
   * address the policy refuses.
   */
  no_proxy: z.array(z.string()).default([]),
});

/** True for an `http://` URL with a host and nothing past the authority (a proxy address). */
function isProxyUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === "http:" && url.hostname !== "" &&
    (url.pathname === "/" || url.pathname === "") && url.search === "" && url.hash === "";
}

/** Settings of one search provider (`search.providers.<name>`). */
export const ProviderSettingsSchema: z.ZodObject<{
  enabled: z.ZodOptional<z.ZodBoolean>;
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
}, z.core.$strict> = z.strictObject({
  /** Keyless providers answer only when `true`; `false` turns any provider off. */
  enabled: z.boolean().optional(),
  /** API base URL (tests point it at loopback). */
  base_url: z.string().url().optional(),
  /** Timeout of one call (default `search.timeout_ms`). */
  timeout_ms: z.number().int().positive().optional(),
  /** Most results asked of the provider in one call. */
  max_results: z.number().int().positive().max(100).optional(),
  /** Calls per second sent at most (queued before sending). */
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
  brave_api_key: z.ZodOptional<z.ZodString>;
  exa_api_key: z.ZodOptional<z.ZodString>;
  tavily_api_key: z.ZodOptional<z.ZodString>;
  jina_api_key: z.ZodOptional<z.ZodString>;
  keenable_api_key: z.ZodOptional<z.ZodString>;
  parallel_api_key: z.ZodOptional<z.ZodString>;
  gemini_api_key: z.ZodOptional<z.ZodString>;
  providers: z.ZodDefault<
    z.ZodPreprocess<
      z.ZodRecord<
        z.ZodString,
        z.ZodObject<{
          enabled: z.ZodOptional<z.ZodBoolean>;
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
        }, z.core.$strict>
      >,
      unknown
    >
  >;
  search_order: z.ZodDefault<z.ZodArray<z.ZodString>>;
  answer_order: z.ZodDefault<z.ZodArray<z.ZodString>>;
  contents_order: z.ZodDefault<z.ZodArray<z.ZodString>>;
  fallback_on_empty: z.ZodDefault<z.ZodBoolean>;
  breaker_failures: z.ZodDefault<z.ZodNumber>;
  breaker_cooldown_ms: z.ZodDefault<z.ZodNumber>;
  presentation: z.ZodDefault<
    z.ZodEnum<{
      default: "default";
      roles: "roles";
      all_tools: "all_tools";
      one_provider: "one_provider";
      deep_research: "deep_research";
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
  /** Which backend answers: `auto` = SearXNG when configured, else DuckDuckGo, the other on failure. */
  backend: z.enum(["auto", "duckduckgo", "searxng"]).default("auto"),
  /**
   * Ask only `backend` (no fallback). Unpinned, `backend: "searxng"` falls back to DuckDuckGo
   * when SearXNG fails (down, 5xx, rate limited, blocked).
   */
  pin_backend: z.boolean().default(false),
  /** Base URL of a SearXNG instance (JSON format enabled). */
  searxng_url: z.string().url().optional(),
  /** DuckDuckGo HTML endpoint. */
  duckduckgo_html_url: z.string().url().default("https://html.duckduckgo.com/html/"),
  /** DuckDuckGo lite endpoint (fallback). */
  duckduckgo_lite_url: z.string().url().default("https://lite.duckduckgo.com/lite/"),
  /** Default region (`kl`) for DuckDuckGo. */
  region: z.string().default("us-en"),
  /** SearXNG categories asked for (comma-separated in the request). */
  searxng_categories: z.array(z.string()).default(["general"]),
  /** SearXNG engines asked for; empty = the instance's defaults. */
  searxng_engines: z.array(z.string()).default([]),
  /** Safe search level sent to SearXNG: 0 off, 1 moderate, 2 strict. */
  safesearch: z.number().int().min(0).max(2).default(1),
  /** Timeout for one upstream search call. */
  timeout_ms: z.number().int().positive().default(10_000),
  /** Brave Search API key (optional backend). */
  brave_api_key: secret(),
  /** Exa API key (search, find-similar, contents, answer). */
  exa_api_key: secret(),
  /** Tavily API key (search, extract, answers). */
  tavily_api_key: secret(),
  /** Jina API key (reader and search; optional for the reader). */
  jina_api_key: secret(),
  /** Keenable API key (optional: lifts the keyless limits). */
  keenable_api_key: secret(),
  /** Parallel API key (search). */
  parallel_api_key: secret(),
  /** Gemini API key (answers grounded in Google Search, with citations). */
  gemini_api_key: secret(),
  /**
   * Per-provider settings by provider name: `enabled` (keyless providers are off until
   * `true`; `false` turns any provider off), `base_url`, `timeout_ms`, `max_results`,
   * `requests_per_second`. A JSON object in `GLEANER_SEARCH_PROVIDERS`.
   */
  providers: z.preprocess(
    (value) => (typeof value === "string" ? safeJsonObject(value) : value),
    z.record(z.string(), ProviderSettingsSchema),
  ).default({}),
  /** Providers tried for `search`, in order; empty = the default order. */
  search_order: z.array(z.string()).default([]),
  /** Providers tried for `answer`, in order; empty = the default order. */
  answer_order: z.array(z.string()).default([]),
  /** Providers tried for `contents`, in order; empty = the default order (then Gleaner's reader). */
  contents_order: z.array(z.string()).default([]),
  /**
   * When a keyless provider (DuckDuckGo, SearXNG) answers zero results and a keyed provider
   * comes later in the search order, ask the next one (the answer names the keyless one in
   * `fallback_from` with code `empty`).
   */
  fallback_on_empty: z.boolean().default(true),
  /** Consecutive failures after which a provider is skipped for `breaker_cooldown_ms`. */
  breaker_failures: z.number().int().positive().default(3),
  /** How long a failing provider is skipped. */
  breaker_cooldown_ms: z.number().int().min(0).default(60_000),
  /**
   * Which tools MCP and HTTP declare: Gleaner's own (`default`), one per role (`roles`),
   * every configured provider's own (`all_tools`), or one provider's (`one_provider`).
   */
  presentation: z.enum(["default", "roles", "all_tools", "one_provider", "deep_research"]).default(
    "default",
  ),
  /** The provider whose tools `presentation: one_provider` declares. */
  presentation_provider: z.string().optional(),
  /**
   * A reranker of search results in the Jina-compatible format: `POST <url>` (for example
   * `https://api.jina.ai/v1/rerank`) with `{ model, query, documents, top_n }`, answered with
   * `results[].{ index, relevance_score }`. Each result's title and snippet are sent, nothing
   * else. Unset: results keep the provider's order. Any failure keeps the provider's order too,
   * and the answer says why.
   */
  rerank_url: z.string().url().optional(),
  /** Bearer token of the reranker, when it needs one. */
  rerank_api_key: secret(),
  /** Model named in each rerank request. */
  rerank_model: z.string().min(1).default("jina-reranker-v2-base-multilingual"),
  /**
   * Weight (0..1) of recency against the reranker's relevance: each result scores
   * `(1 - w) · relevance + w · recency`, where recency halves every 365 days since its
   * published date (an undated result counts 0.5). `0` orders by relevance alone.
   */
  rerank_recency_weight: z.number().min(0).max(1).default(0),
  /** Time the reranker gets per search before the provider's order is kept. */
  rerank_timeout_ms: z.number().int().positive().default(5_000),
  /**
   * Named domain profiles the search tools offer as `domain_profile`, besides the built-in
   * `dev` and `homelab` (an entry of the same name replaces a built-in one): `prefer` (results
   * there are raised by `boost`, default 0.25: a quarter of the reranker's score range, or
   * without a reranker about two places of the provider's order, each worth 0.1; 1 puts them
   * first) and `exclude` (results there are dropped). A JSON object in
   * `GLEANER_SEARCH_DOMAIN_PROFILES`.
   */
  domain_profiles: z.preprocess(
    (value) => (typeof value === "string" ? safeJsonObject(value) : value),
    z.record(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/), DomainProfileSchema),
  ).default({}),
});

/** Settings of the optional language model (Ollama-compatible `/api/generate` or `/api/chat`). */
export const LlmSchema: z.ZodObject<{
  url: z.ZodOptional<z.ZodString>;
  model: z.ZodOptional<z.ZodString>;
  api: z.ZodDefault<z.ZodEnum<{ generate: "generate"; chat: "chat" }>>;
  api_key: z.ZodOptional<z.ZodString>;
  timeout_ms: z.ZodDefault<z.ZodNumber>;
  summary_max_tokens: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /**
   * Base URL of an Ollama-compatible server (`http://127.0.0.1:11434`). With `model` set, the
   * search tools accept `expand` (the model rewrites the query) and `search_and_summarize` is
   * listed. Evidence text (page passages) is sent to it: point it only at a server you trust.
   */
  url: z.string().url().optional(),
  /** Model name sent in each request (`llama3.2`, `qwen2.5:7b`, …). */
  model: z.string().min(1).optional(),
  /** `chat` (`POST /api/chat`, `messages`) or `generate` (`POST /api/generate`, `prompt`). */
  api: z.enum(["generate", "chat"]).default("chat"),
  /** Bearer token, for a server behind an authenticating proxy. */
  api_key: secret(),
  /** Time one request may take. */
  timeout_ms: z.number().int().positive().default(60_000),
  /** Most tokens of a summary (`options.num_predict`). */
  summary_max_tokens: z.number().int().min(16).max(4_096).default(512),
});

/**
 * The documentation sites whose `llms-full.txt`/`llms.txt` is tried by default: the default
 * `llms_txt` allowlist of the searxng-mcp project (its `domains.json`, described under
 * "llms.txt fast path" in https://github.com/TadMSTR/searxng-mcp/blob/main/README.md).
 */
export const DEFAULT_LLMS_TXT_DOMAINS: readonly string[] = [
  "docs.anthropic.com",
  "docs.openai.com",
  "docs.stripe.com",
  "docs.crawl4ai.com",
  "docs.firecrawl.dev",
  "docs.cursor.com",
];

/** Settings of page reading. */
export const ReadSchema: z.ZodObject<{
  render: z.ZodDefault<
    z.ZodEnum<{
      never: "never";
      auto: "auto";
      always: "always";
    }>
  >;
  chrome_path: z.ZodOptional<z.ZodString>;
  browser_cdp_url: z.ZodOptional<z.ZodString>;
  browser_pages: z.ZodDefault<z.ZodNumber>;
  browser_timeout_ms: z.ZodDefault<z.ZodNumber>;
  browser_idle_ms: z.ZodDefault<z.ZodNumber>;
  concurrency: z.ZodDefault<z.ZodNumber>;
  github_token: z.ZodOptional<z.ZodString>;
  github_api_url: z.ZodDefault<z.ZodString>;
  github_raw_url: z.ZodDefault<z.ZodString>;
  wayback: z.ZodDefault<z.ZodBoolean>;
  wayback_url: z.ZodDefault<z.ZodString>;
  youtube_url: z.ZodDefault<z.ZodString>;
  youtube_languages: z.ZodDefault<z.ZodArray<z.ZodString>>;
  youtube_timestamps: z.ZodDefault<z.ZodBoolean>;
  reddit_url: z.ZodDefault<z.ZodString>;
  hister_url: z.ZodOptional<z.ZodString>;
  hister_token: z.ZodOptional<z.ZodString>;
  kiwix_url: z.ZodOptional<z.ZodString>;
  kiwix_books: z.ZodDefault<z.ZodRecord<z.ZodString, z.ZodString>>;
  llms_txt_domains: z.ZodDefault<z.ZodArray<z.ZodString>>;
  llms_txt_extra_domains: z.ZodDefault<z.ZodArray<z.ZodString>>;
  tier_rules_path: z.ZodOptional<z.ZodString>;
  extract_workers: z.ZodDefault<z.ZodNumber>;
  extract_timeout_ms: z.ZodDefault<z.ZodNumber>;
  max_html_chars: z.ZodDefault<z.ZodNumber>;
  max_links: z.ZodDefault<z.ZodNumber>;
  firecrawl_url: z.ZodOptional<z.ZodString>;
  firecrawl_api_key: z.ZodOptional<z.ZodString>;
  crawl4ai_url: z.ZodOptional<z.ZodString>;
  crawl4ai_token: z.ZodOptional<z.ZodString>;
  service_timeout_ms: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /** Use the headless browser: never, when the HTTP result is thin, or always. */
  render: z.enum(["never", "auto", "always"]).default("auto"),
  /** Chromium executable; default `/usr/bin/chromium` when present. */
  chrome_path: z.string().optional(),
  /**
   * External DevTools endpoint (`ws://…` or `http://…`) instead of launching Chromium.
   * Gleaner's egress proxy cannot be imposed on it: only request interception guards its requests.
   */
  browser_cdp_url: z.string().optional(),
  /** Concurrent browser pages. */
  browser_pages: z.number().int().positive().default(4),
  /** Timeout for one browser page. */
  browser_timeout_ms: z.number().int().positive().default(20_000),
  /** Close the browser after this idle time. */
  browser_idle_ms: z.number().int().positive().default(60_000),
  /** Concurrent page reads per call. */
  concurrency: z.number().int().positive().default(5),
  /** GitHub API token (optional). */
  github_token: secret(),
  /** GitHub API base URL. */
  github_api_url: z.string().url().default("https://api.github.com"),
  /** Raw GitHub content base URL. */
  github_raw_url: z.string().url().default("https://raw.githubusercontent.com"),
  /** Wayback Machine fallback (opt-in). */
  wayback: z.boolean().default(false),
  /** Wayback availability API base URL. */
  wayback_url: z.string().url().default("https://archive.org"),
  /**
   * Where the YouTube tier reads watch pages and timed text for youtube.com and youtu.be URLs
   * (a test double or mirror may answer instead).
   */
  youtube_url: z.string().url().default("https://www.youtube.com"),
  /** Caption languages the YouTube tier prefers, in order (`en`, `de`…); else manual captions first. */
  youtube_languages: z.array(z.string().min(1)).default([]),
  /** Start each transcript line with its `[mm:ss]` time. */
  youtube_timestamps: z.boolean().default(true),
  /** Where the Reddit tier reads a thread's `.json` form for reddit.com and old.reddit.com URLs. */
  reddit_url: z.string().url().default("https://www.reddit.com"),
  /**
   * Base URL of a Hister server (browsing history): when set, pages found in its index are read
   * from there first. Off by default. A local server's origin must also be listed in
   * `network.allow_private`.
   */
  hister_url: z.string().url().optional(),
  /** Hister access token (`app.access_token`), sent as `Authorization: Bearer`. */
  hister_token: secret(),
  /**
   * A local `kiwix-serve` (`http://127.0.0.1:8080`): Wikipedia, Stack Overflow and ArchWiki
   * pages are read from its ZIM files first (see `read.kiwix_books`); off when unset.
   */
  kiwix_url: z.string().url().optional(),
  /**
   * The book (ZIM file name without `.zim`, as kiwix-serve names it) per site:
   * `{"en.wikipedia.org": "wikipedia_en_all_maxi_2024-01", "stackoverflow.com": "…"}`.
   */
  kiwix_books: z.record(
    z.string().min(1).max(253),
    z.string().min(1).max(200).regex(/^[\w.-]+$/, "a book name: letters, digits, _ . -"),
  ).default({}),
  /**
   * Domains (and their subdomains) whose `llms-full.txt`/`llms.txt` are used: by default the
   * documentation sites of {@link DEFAULT_LLMS_TXT_DOMAINS}. Setting it replaces that list
   * (`[]` turns the tier off); `llms_txt_extra_domains` extends it instead.
   */
  llms_txt_domains: z.array(z.string()).default([...DEFAULT_LLMS_TXT_DOMAINS]),
  /** Domains added to `llms_txt_domains` (extends the default list without restating it). */
  llms_txt_extra_domains: z.array(z.string()).default([]),
  /** Operator file forcing tiers per domain or path prefix. */
  tier_rules_path: z.string().optional(),
  /** Worker threads that extract HTML pages off the main thread. */
  extract_workers: z.number().int().min(1).max(16).default(1),
  /** Deadline of one page's extraction; the thread is stopped and the read fails with `timeout`. */
  extract_timeout_ms: z.number().int().positive().default(15_000),
  /** Characters of HTML parsed per page (the rest is cut and the page marked truncated). */
  max_html_chars: z.number().int().positive().default(3_000_000),
  /** Links kept per page, main content first. */
  max_links: z.number().int().min(0).default(1_000),
  /**
   * Firecrawl API base URL (`https://api.firecrawl.dev` or a self-hosted instance): when set,
   * the `firecrawl` reading tier (`POST /v1/scrape`) runs ahead of the built-in tiers. It is
   * reached through the guarded fetch: a private or loopback instance must be listed in
   * `network.allow_private`.
   */
  firecrawl_url: z.string().url().optional(),
  /** Firecrawl API key (`Authorization: Bearer`; a self-hosted instance may need none). */
  firecrawl_api_key: secret(),
  /**
   * Crawl4AI server base URL (its Docker server, port 11235 by default): when set, the
   * `crawl4ai` reading tier (`POST /crawl`, `fit_markdown`) runs ahead of the built-in tiers.
   * Reached like `read.firecrawl_url`.
   */
  crawl4ai_url: z.string().url().optional(),
  /** Crawl4AI API token (`CRAWL4AI_API_TOKEN` or a JWT from its `/token`; sent as Bearer). */
  crawl4ai_token: secret(),
  /** Time one call to Firecrawl or Crawl4AI may take (they load the page themselves). */
  service_timeout_ms: z.number().int().positive().default(45_000),
});

/** Settings of `crawl_site`. */
export const CrawlSchema: z.ZodObject<{
  engine: z.ZodDefault<
    z.ZodEnum<{
      builtin: "builtin";
      firecrawl: "firecrawl";
    }>
  >;
  poll_interval_ms: z.ZodDefault<z.ZodNumber>;
  max_wait_ms: z.ZodDefault<z.ZodNumber>;
  max_bytes: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /**
   * Who crawls: `builtin` (sitemap first, then links, every page through the reader) or
   * `firecrawl` (a Firecrawl crawl job at `read.firecrawl_url`; needs that setting).
   */
  engine: z.enum(["builtin", "firecrawl"]).default("builtin"),
  /** How often a Firecrawl crawl job is asked for its status (ms). */
  poll_interval_ms: z.number().int().min(100).max(60_000).default(2_000),
  /** How long `crawl_site` waits for a Firecrawl crawl job; then it answers with what is done (`partial`). */
  max_wait_ms: z.number().int().min(1_000).max(3_600_000).default(120_000),
  /** Bytes of Firecrawl crawl results read at most for one crawl (all status pages together). */
  max_bytes: z.number().int().positive().default(50_000_000),
});

/** Settings of passage selection. */
export const RankSchema: z.ZodObject<{
  max_tokens: z.ZodDefault<z.ZodNumber>;
  per_source_share: z.ZodDefault<z.ZodNumber>;
  share_slack: z.ZodDefault<z.ZodNumber>;
  dense_weight: z.ZodDefault<z.ZodNumber>;
  unit_min_words: z.ZodDefault<z.ZodNumber>;
  unit_max_words: z.ZodDefault<z.ZodNumber>;
  rerank: z.ZodDefault<
    z.ZodEnum<{
      none: "none";
      "use-lite": "use-lite";
    }>
  >;
  rerank_top_k: z.ZodDefault<z.ZodNumber>;
  rerank_weight: z.ZodDefault<z.ZodNumber>;
  rerank_max_words: z.ZodDefault<z.ZodNumber>;
  expand_terms: z.ZodDefault<z.ZodNumber>;
  expand_min_similarity: z.ZodDefault<z.ZodNumber>;
  rrf_k: z.ZodDefault<z.ZodNumber>;
  dedupe_jaccard: z.ZodDefault<z.ZodNumber>;
  dedupe_cosine: z.ZodDefault<z.ZodNumber>;
  oversample: z.ZodDefault<z.ZodNumber>;
  links_max_tokens: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /** Default token budget of one call. */
  max_tokens: z.number().int().positive().default(4_000),
  /** Share of the budget one source may take while others are relevant. */
  per_source_share: z.number().min(0.05).max(1).default(0.4),
  /**
   * The per-source cap holds only while another source offers a unit scoring at least this
   * fraction of the capped one (0: always holds). Fused scores are close together (rank 10 of
   * one ranking still scores about 0.87), so only a rival within about the top three ranks keeps
   * the cap; measured with `bench/containment.ts` (0.9 → 0.97: +4 points at 500 tokens).
   */
  share_slack: z.number().min(0).max(1).default(0.97),
  /** Weight of the dense ranking in reciprocal rank fusion. */
  dense_weight: z.number().min(0).max(1).default(0.8),
  /**
   * A unit smaller than this many words takes in the next block of its section (doubled, with
   * `unit_max_words`, when ranking is BM25 alone: lexical matching needs more words).
   */
  unit_min_words: z.number().int().positive().default(20),
  /** Units grow up to this many words (see `unit_min_words`). */
  unit_max_words: z.number().int().positive().default(40),
  /**
   * Second stage of the ranking cascade: `use-lite` (Universal Sentence Encoder lite, shipped
   * in npm, TF.js) reorders the top units; better on reworded questions (report half at 1,000
   * tokens: 0.85 against 0.76), but 1–3 s per question on 5 pages never read before, so off by
   * default (`deno task bench rerank`). Passages of pages read before come from the embedding
   * cache (about 30–70 ms more than the first stage alone).
   */
  rerank: z.enum(["none", "use-lite"]).default("none"),
  /**
   * Units the reranker reorders. Measured on the tune half (`deno task bench rerank`): 10 or 20
   * change nothing at 1,000 tokens (they all fit the budget anyway), 40 and 80 do (0.84 → 0.90
   * → 0.93).
   */
  rerank_top_k: z.number().int().positive().default(80),
  /** Weight of the reranker's order against the first stage's. */
  rerank_weight: z.number().min(0).max(1).default(0.8),
  /** Words of a unit the reranker reads (its cost grows faster than linearly with length). */
  rerank_max_words: z.number().int().positive().default(64),
  /**
   * Words added to the BM25 query per query word: its nearest words in the static model's
   * vectors, so reworded questions still match the page's vocabulary (0 turns it off).
   */
  expand_terms: z.number().int().min(0).max(64).default(8),
  /** Least cosine similarity of an added word to the query word it comes from. */
  expand_min_similarity: z.number().min(0).max(1).default(0.4),
  /** RRF constant. */
  rrf_k: z.number().positive().default(60),
  /** Token-set Jaccard at or above which a unit is a near-copy. */
  dedupe_jaccard: z.number().min(0).max(1).default(0.92),
  /** Cosine at or above which a unit is a paraphrased repeat. */
  dedupe_cosine: z.number().min(0).max(1).default(0.92),
  /** Candidates considered per selected unit. */
  oversample: z.number().min(1).default(3),
  /** Budget for related links. */
  links_max_tokens: z.number().int().min(0).default(300),
});

/** Settings of embeddings. */
export const EmbedSchema: z.ZodObject<{
  provider: z.ZodDefault<
    z.ZodEnum<{
      none: "none";
      static: "static";
      transformers: "transformers";
      openai: "openai";
    }>
  >;
  model: z.ZodDefault<z.ZodString>;
  models_dir: z.ZodOptional<z.ZodString>;
  allow_remote: z.ZodDefault<z.ZodBoolean>;
  dtype: z.ZodDefault<
    z.ZodEnum<{
      fp32: "fp32";
      fp16: "fp16";
      q8: "q8";
      int8: "int8";
      uint8: "uint8";
      q4: "q4";
      q4f16: "q4f16";
      bnb4: "bnb4";
    }>
  >;
  api_url: z.ZodOptional<z.ZodString>;
  api_model: z.ZodOptional<z.ZodString>;
  api_key: z.ZodOptional<z.ZodString>;
  api_dimensions: z.ZodOptional<z.ZodNumber>;
  batch_size: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /** Embedder: none, the shipped static model, a transformers.js model, or an OpenAI-compatible API. */
  provider: z.enum(["none", "static", "transformers", "openai"]).default("static"),
  /** transformers.js preset or local model directory. */
  model: z.string().default("balanced"),
  /** Directory of local models. */
  models_dir: z.string().optional(),
  /** Download a missing transformers.js model from the Hugging Face hub (into `models_dir`). */
  allow_remote: z.boolean().default(false),
  /** transformers.js weight variant (`onnx/model_quantized.onnx` for q8). */
  dtype: z.enum(["fp32", "fp16", "q8", "int8", "uint8", "q4", "q4f16", "bnb4"]).default("q8"),
  /** OpenAI-compatible base URL (`…/v1`). */
  api_url: z.string().url().optional(),
  /** OpenAI-compatible model name. */
  api_model: z.string().optional(),
  /** OpenAI-compatible API key. */
  api_key: secret(),
  /** Vector length asked of the OpenAI-compatible API (`dimensions`); the model's own when unset. */
  api_dimensions: z.number().int().positive().optional(),
  /** Texts per embedding batch. */
  batch_size: z.number().int().positive().default(64),
});

/** Settings of the embedded store and caches. */
export const StoreSchema: z.ZodObject<{
  path: z.ZodOptional<z.ZodString>;
  cache_url: z.ZodOptional<z.ZodString>;
  search_ttl_s: z.ZodDefault<z.ZodNumber>;
  page_ttl_s: z.ZodDefault<z.ZodNumber>;
  crawl_ttl_s: z.ZodDefault<z.ZodNumber>;
  cache_max_bytes: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /** SQLite file; default `$XDG_DATA_HOME/gleaner/gleaner.db`. `:memory:` keeps nothing. */
  path: z.string().optional(),
  /** Shared cache (`redis://…`) for several processes. */
  cache_url: secret(),
  /** Freshness of cached search answers (seconds). */
  search_ttl_s: z.number().int().min(0).default(3_600),
  /** Freshness of cached pages (seconds). */
  page_ttl_s: z.number().int().min(0).default(86_400),
  /** Freshness of cached crawl manifests (seconds). */
  crawl_ttl_s: z.number().int().min(0).default(21_600),
  /** Size cap of the cache (bytes). */
  cache_max_bytes: z.number().int().positive().default(200_000_000),
});

/** A secret of at least 32 bytes (UTF-8). */
const longSecret = () =>
  z.string().refine((s) => new TextEncoder().encode(s).length >= 32, {
    message: "must be at least 32 bytes",
  }).optional();

/** Settings of the memory store (`save_memories`, `recall_memories`, …). */
export const MemorySchema: z.ZodObject<{
  enabled: z.ZodDefault<z.ZodBoolean>;
  backend: z.ZodDefault<
    z.ZodEnum<{
      sqlite: "sqlite";
      postgres: "postgres";
    }>
  >;
  postgres_url: z.ZodOptional<z.ZodString>;
  path: z.ZodOptional<z.ZodString>;
  profile_max_tokens: z.ZodDefault<z.ZodNumber>;
  dense_weight: z.ZodDefault<z.ZodNumber>;
  dense_min_similarity: z.ZodOptional<z.ZodNumber>;
  min_score: z.ZodDefault<z.ZodNumber>;
  duplicate_similarity: z.ZodDefault<z.ZodNumber>;
  review_similarity: z.ZodDefault<z.ZodNumber>;
  split_tokens: z.ZodDefault<z.ZodNumber>;
  rrf_k: z.ZodDefault<z.ZodNumber>;
  recall_budget: z.ZodDefault<z.ZodNumber>;
  access_weight: z.ZodDefault<z.ZodNumber>;
  hosted: z.ZodDefault<z.ZodBoolean>;
  hosted_user_header: z.ZodDefault<z.ZodString>;
  hosted_token_header: z.ZodDefault<z.ZodString>;
  hosted_proxy_token: z.ZodOptional<z.ZodString>;
  hosted_trusted_proxies: z.ZodDefault<z.ZodArray<z.ZodString>>;
  hosted_hmac_secret: z.ZodOptional<z.ZodString>;
  hosted_dir: z.ZodOptional<z.ZodString>;
  hosted_max_open: z.ZodDefault<z.ZodNumber>;
  hosted_admin_key: z.ZodOptional<z.ZodString>;
  deep_research: z.ZodDefault<z.ZodBoolean>;
}, z.core.$strip> = z.object({
  /** Serve the six memory tools. */
  enabled: z.boolean().default(true),
  /** Engine of the memory store: embedded SQLite, or PostgreSQL + pgvector shared by many instances. */
  backend: z.enum(["sqlite", "postgres"]).default("sqlite"),
  /** `postgres://user:password@host:5432/db` of the shared store (a secret; `backend: "postgres"`). */
  postgres_url: z.string().min(1).optional(),
  /** SQLite file; default `$XDG_DATA_HOME/gleaner/memory.db`. `:memory:` keeps nothing. */
  path: z.string().optional(),
  /** Token budget of the profile pool attached to every recall. */
  profile_max_tokens: z.number().int().min(0).default(500),
  /** Weight of the dense (vector) ranking in reciprocal rank fusion; BM25 gets the rest. */
  dense_weight: z.number().min(0).max(1).default(0.5),
  /**
   * Vector candidates below this cosine similarity are not candidates. Unset: 0.5 for the static
   * model (measured on the confusable set of `bench/memory.ts`), 0.2 for other embedders.
   */
  dense_min_similarity: z.number().min(-1).max(1).optional(),
  /** Fused scores below this are dropped (0: keep every candidate). */
  min_score: z.number().min(0).max(1).default(0),
  /**
   * Cosine at or above which a saved memory's `similar_to` notice calls it a near-duplicate
   * (`near_duplicate: true`: very likely the same fact; update that one instead). It is still
   * saved: only the same text is ever skipped. At least `review_similarity`.
   */
  duplicate_similarity: z.number().min(0).max(1).default(0.95),
  /**
   * Cosine at or above which a saved (or updated) memory gets a `similar_to` notice naming its
   * nearest memory, for review. At most `duplicate_similarity`.
   */
  review_similarity: z.number().min(0).max(1).default(0.8),
  /** Content over this many tokens is saved with a `consider_splitting` notice. */
  split_tokens: z.number().int().positive().default(800),
  /** RRF constant of recall's fusion (larger: flatter credit down each ranking). */
  rrf_k: z.number().int().positive().default(60),
  /** Token budget of a recall when the call gives no `max_tokens`. */
  recall_budget: z.number().int().positive().max(100_000).default(2_000),
  /**
   * Share of recall frequency in recall's ranking: the matches of a query are ordered by
   * `(1 - access_weight) × fused score + access_weight × recall count / highest recall count
   * among them`. 0: by the query alone (scores and labels always stay the query's).
   */
  access_weight: z.number().min(0).max(1).default(0),
  /**
   * Hosted mode: behind a trusted reverse proxy, each user gets their own memory file.
   * Requests must come from `hosted_trusted_proxies` with `hosted_proxy_token` and a user id.
   */
  hosted: z.boolean().default(false),
  /** Header carrying the proxy-verified user id. */
  hosted_user_header: z.string().min(1).default("x-gleaner-user"),
  /** Header carrying the shared proxy token. */
  hosted_token_header: z.string().min(1).default("x-gleaner-proxy-token"),
  /** Shared proxy token (at least 32 bytes), compared in constant time. */
  hosted_proxy_token: longSecret(),
  /** Source addresses (IPs or CIDR ranges) the proxy connects from. */
  hosted_trusted_proxies: z.array(z.string()).default(["127.0.0.1", "::1"]),
  /** Key (at least 32 bytes) of the HMAC that names each user's file. */
  hosted_hmac_secret: longSecret(),
  /** Folder of the per-user files; default: `users/` beside `path`. */
  hosted_dir: z.string().optional(),
  /** Per-user stores kept open at once (least recently used ones are closed). */
  hosted_max_open: z.number().int().positive().default(64),
  /**
   * The operator's key in hosted mode (at least 32 bytes, environment only:
   * `GLEANER_MEMORY_HOSTED_ADMIN_KEY`), sent in the `x-gleaner-admin-key` header: only a
   * request carrying it may run `clear_cache`, which then clears every user's cache.
   */
  hosted_admin_key: longSecret(),
  /**
   * Let Deep Research clients (`/mcp/deep-research`, third parties such as ChatGPT connectors)
   * see stored memories: up to three lead `search` results and `fetch("memory:<ref>")` reads
   * one. Off by default; in hosted mode only the calling user's own memories.
   */
  deep_research: z.boolean().default(false),
}).refine((m) => m.review_similarity <= m.duplicate_similarity, {
  message: "must not exceed memory.duplicate_similarity",
  path: ["review_similarity"],
});

/** A NATS subject prefix: dot-separated tokens without wildcards or spaces. */
const SUBJECT_PREFIX = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Settings of operational events (published to NATS; off until `nats_url` is set). */
export const EventsSchema: z.ZodObject<{
  nats_url: z.ZodOptional<z.ZodString>;
  subject_prefix: z.ZodDefault<z.ZodString>;
  nats_user: z.ZodOptional<z.ZodString>;
  nats_password: z.ZodOptional<z.ZodString>;
  nats_token: z.ZodOptional<z.ZodString>;
  include_query: z.ZodDefault<z.ZodBoolean>;
  queue_max: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /**
   * NATS server the events go to, `nats://[user:password@]host[:port]`; unset: no events
   * (credentials in it are redacted wherever the configuration is shown).
   */
  nats_url: z.string().refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "nats:" && url.hostname !== "";
    } catch {
      return false;
    }
  }, { message: "must be a nats:// URL (nats://[user:password@]host[:port])" }).optional(),
  /** Subjects are `<prefix>.tool` and `<prefix>.tier_skip`. */
  subject_prefix: z.string().regex(SUBJECT_PREFIX, {
    message: "must be dot-separated tokens of letters, digits, _ and - (no wildcards)",
  }).default("gleaner"),
  /** NATS user (when the URL names none). */
  nats_user: z.string().min(1).optional(),
  /** Password of `nats_user` (a secret). */
  nats_password: secret(),
  /** NATS token (`auth_token`; a secret). */
  nats_token: secret(),
  /** Put the query text of `search`, `research` and `scrape_urls` calls into tool events. */
  include_query: z.boolean().default(false),
  /** Events queued at most while NATS is slow or away; more are dropped (and counted). */
  queue_max: z.number().int().positive().max(1_000_000).default(1_000),
});

/** Settings of logging. */
export const LogSchema: z.ZodObject<{
  level: z.ZodDefault<
    z.ZodEnum<{
      error: "error";
      trace: "trace";
      debug: "debug";
      info: "info";
      warning: "warning";
      fatal: "fatal";
    }>
  >;
}, z.core.$strip> = z.object({
  /** Lowest level written to stderr. */
  level: z.enum(["trace", "debug", "info", "warning", "error", "fatal"]).default("info"),
});

/** The whole configuration. */
export const ConfigSchema: z.ZodObject<{
  server: z.ZodDefault<
    z.ZodObject<{
      host: z.ZodDefault<z.ZodString>;
      port: z.ZodDefault<z.ZodNumber>;
      allowed_hosts: z.ZodDefault<z.ZodArray<z.ZodString>>;
      api_key: z.ZodOptional<z.ZodString>;
      health_ttl_ms: z.ZodDefault<z.ZodNumber>;
      allow_config_write: z.ZodDefault<z.ZodBoolean>;
    }, z.core.$strip>
  >;
  network: z.ZodDefault<
    z.ZodObject<{
      allow_private: z.ZodDefault<z.ZodUnion<readonly [z.ZodBoolean, z.ZodArray<z.ZodString>]>>;
      allowed_ports: z.ZodDefault<z.ZodArray<z.ZodNumber>>;
      connect_timeout_ms: z.ZodDefault<z.ZodNumber>;
      timeout_ms: z.ZodDefault<z.ZodNumber>;
      max_bytes: z.ZodDefault<z.ZodNumber>;
      max_decompressed_bytes: z.ZodDefault<z.ZodNumber>;
      max_redirects: z.ZodDefault<z.ZodNumber>;
      user_agent: z.ZodDefault<z.ZodString>;
      respect_robots: z.ZodDefault<z.ZodBoolean>;
      per_host_concurrency: z.ZodDefault<z.ZodNumber>;
      proxy_url: z.ZodOptional<z.ZodString>;
      no_proxy: z.ZodDefault<z.ZodArray<z.ZodString>>;
    }, z.core.$strip>
  >;
  search: z.ZodDefault<typeof SearchSchema>;
  read: z.ZodDefault<
    z.ZodObject<{
      render: z.ZodDefault<
        z.ZodEnum<{
          never: "never";
          auto: "auto";
          always: "always";
        }>
      >;
      chrome_path: z.ZodOptional<z.ZodString>;
      browser_cdp_url: z.ZodOptional<z.ZodString>;
      browser_pages: z.ZodDefault<z.ZodNumber>;
      browser_timeout_ms: z.ZodDefault<z.ZodNumber>;
      browser_idle_ms: z.ZodDefault<z.ZodNumber>;
      concurrency: z.ZodDefault<z.ZodNumber>;
      github_token: z.ZodOptional<z.ZodString>;
      github_api_url: z.ZodDefault<z.ZodString>;
      github_raw_url: z.ZodDefault<z.ZodString>;
      wayback: z.ZodDefault<z.ZodBoolean>;
      wayback_url: z.ZodDefault<z.ZodString>;
      youtube_url: z.ZodDefault<z.ZodString>;
      youtube_languages: z.ZodDefault<z.ZodArray<z.ZodString>>;
      youtube_timestamps: z.ZodDefault<z.ZodBoolean>;
      reddit_url: z.ZodDefault<z.ZodString>;
      hister_url: z.ZodOptional<z.ZodString>;
      hister_token: z.ZodOptional<z.ZodString>;
      kiwix_url: z.ZodOptional<z.ZodString>;
      kiwix_books: z.ZodDefault<z.ZodRecord<z.ZodString, z.ZodString>>;
      llms_txt_domains: z.ZodDefault<z.ZodArray<z.ZodString>>;
      llms_txt_extra_domains: z.ZodDefault<z.ZodArray<z.ZodString>>;
      tier_rules_path: z.ZodOptional<z.ZodString>;
      extract_workers: z.ZodDefault<z.ZodNumber>;
      extract_timeout_ms: z.ZodDefault<z.ZodNumber>;
      max_html_chars: z.ZodDefault<z.ZodNumber>;
      max_links: z.ZodDefault<z.ZodNumber>;
      firecrawl_url: z.ZodOptional<z.ZodString>;
      firecrawl_api_key: z.ZodOptional<z.ZodString>;
      crawl4ai_url: z.ZodOptional<z.ZodString>;
      crawl4ai_token: z.ZodOptional<z.ZodString>;
      service_timeout_ms: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  rank: z.ZodDefault<
    z.ZodObject<{
      max_tokens: z.ZodDefault<z.ZodNumber>;
      per_source_share: z.ZodDefault<z.ZodNumber>;
      share_slack: z.ZodDefault<z.ZodNumber>;
      dense_weight: z.ZodDefault<z.ZodNumber>;
      unit_min_words: z.ZodDefault<z.ZodNumber>;
      unit_max_words: z.ZodDefault<z.ZodNumber>;
      rerank: z.ZodDefault<
        z.ZodEnum<{
          none: "none";
          "use-lite": "use-lite";
        }>
      >;
      rerank_top_k: z.ZodDefault<z.ZodNumber>;
      rerank_weight: z.ZodDefault<z.ZodNumber>;
      rerank_max_words: z.ZodDefault<z.ZodNumber>;
      expand_terms: z.ZodDefault<z.ZodNumber>;
      expand_min_similarity: z.ZodDefault<z.ZodNumber>;
      rrf_k: z.ZodDefault<z.ZodNumber>;
      dedupe_jaccard: z.ZodDefault<z.ZodNumber>;
      dedupe_cosine: z.ZodDefault<z.ZodNumber>;
      oversample: z.ZodDefault<z.ZodNumber>;
      links_max_tokens: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  embed: z.ZodDefault<
    z.ZodObject<{
      provider: z.ZodDefault<
        z.ZodEnum<{
          none: "none";
          static: "static";
          transformers: "transformers";
          openai: "openai";
        }>
      >;
      model: z.ZodDefault<z.ZodString>;
      models_dir: z.ZodOptional<z.ZodString>;
      allow_remote: z.ZodDefault<z.ZodBoolean>;
      dtype: z.ZodDefault<
        z.ZodEnum<{
          fp32: "fp32";
          fp16: "fp16";
          q8: "q8";
          int8: "int8";
          uint8: "uint8";
          q4: "q4";
          q4f16: "q4f16";
          bnb4: "bnb4";
        }>
      >;
      api_url: z.ZodOptional<z.ZodString>;
      api_model: z.ZodOptional<z.ZodString>;
      api_key: z.ZodOptional<z.ZodString>;
      api_dimensions: z.ZodOptional<z.ZodNumber>;
      batch_size: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  store: z.ZodDefault<
    z.ZodObject<{
      path: z.ZodOptional<z.ZodString>;
      cache_url: z.ZodOptional<z.ZodString>;
      search_ttl_s: z.ZodDefault<z.ZodNumber>;
      page_ttl_s: z.ZodDefault<z.ZodNumber>;
      crawl_ttl_s: z.ZodDefault<z.ZodNumber>;
      cache_max_bytes: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  memory: z.ZodDefault<
    z.ZodObject<{
      enabled: z.ZodDefault<z.ZodBoolean>;
      backend: z.ZodDefault<
        z.ZodEnum<{
          sqlite: "sqlite";
          postgres: "postgres";
        }>
      >;
      postgres_url: z.ZodOptional<z.ZodString>;
      path: z.ZodOptional<z.ZodString>;
      profile_max_tokens: z.ZodDefault<z.ZodNumber>;
      dense_weight: z.ZodDefault<z.ZodNumber>;
      dense_min_similarity: z.ZodOptional<z.ZodNumber>;
      min_score: z.ZodDefault<z.ZodNumber>;
      duplicate_similarity: z.ZodDefault<z.ZodNumber>;
      review_similarity: z.ZodDefault<z.ZodNumber>;
      split_tokens: z.ZodDefault<z.ZodNumber>;
      rrf_k: z.ZodDefault<z.ZodNumber>;
      recall_budget: z.ZodDefault<z.ZodNumber>;
      access_weight: z.ZodDefault<z.ZodNumber>;
      hosted: z.ZodDefault<z.ZodBoolean>;
      hosted_user_header: z.ZodDefault<z.ZodString>;
      hosted_token_header: z.ZodDefault<z.ZodString>;
      hosted_proxy_token: z.ZodOptional<z.ZodString>;
      hosted_trusted_proxies: z.ZodDefault<z.ZodArray<z.ZodString>>;
      hosted_hmac_secret: z.ZodOptional<z.ZodString>;
      hosted_dir: z.ZodOptional<z.ZodString>;
      hosted_max_open: z.ZodDefault<z.ZodNumber>;
      hosted_admin_key: z.ZodOptional<z.ZodString>;
      deep_research: z.ZodDefault<z.ZodBoolean>;
    }, z.core.$strip>
  >;
  crawl: z.ZodDefault<
    z.ZodObject<{
      engine: z.ZodDefault<
        z.ZodEnum<{
          builtin: "builtin";
          firecrawl: "firecrawl";
        }>
      >;
      poll_interval_ms: z.ZodDefault<z.ZodNumber>;
      max_wait_ms: z.ZodDefault<z.ZodNumber>;
      max_bytes: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  llm: z.ZodDefault<typeof LlmSchema>;
  events: z.ZodDefault<
    z.ZodObject<{
      nats_url: z.ZodOptional<z.ZodString>;
      subject_prefix: z.ZodDefault<z.ZodString>;
      nats_user: z.ZodOptional<z.ZodString>;
      nats_password: z.ZodOptional<z.ZodString>;
      nats_token: z.ZodOptional<z.ZodString>;
      include_query: z.ZodDefault<z.ZodBoolean>;
      queue_max: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  log: z.ZodDefault<
    z.ZodObject<{
      level: z.ZodDefault<
        z.ZodEnum<{
          error: "error";
          trace: "trace";
          debug: "debug";
          info: "info";
          warning: "warning";
          fatal: "fatal";
        }>
      >;
    }, z.core.$strip>
  >;
}, z.core.$strip> = z.object({
  server: ServerSchema.default(ServerSchema.parse({})),
  network: NetworkSchema.default(NetworkSchema.parse({})),
  search: SearchSchema.default(SearchSchema.parse({})),
  read: ReadSchema.default(ReadSchema.parse({})),
  rank: RankSchema.default(RankSchema.parse({})),
  embed: EmbedSchema.default(EmbedSchema.parse({})),
  store: StoreSchema.default(StoreSchema.parse({})),
  memory: MemorySchema.default(MemorySchema.parse({})),
  crawl: CrawlSchema.default(CrawlSchema.parse({})),
  llm: LlmSchema.default(LlmSchema.parse({})),
  events: EventsSchema.default(EventsSchema.parse({})),
  log: LogSchema.default(LogSchema.parse({})),
});

/** A complete, validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;

/** A partial configuration, as written in a file or passed to `createGleaner`. */
export type ConfigInput = {
  [S in keyof Config]?: Partial<Config[S]>;
};

/** Short environment names accepted besides `GLEANER_<SECTION>_<KEY>`. */
export const ENV_ALIASES: Readonly<Record<string, string>> = {
  GLEANER_HOST: "server.host",
  GLEANER_PORT: "server.port",
  GLEANER_API_KEY: "server.api_key",
  GLEANER_ALLOW_CONFIG_WRITE: "server.allow_config_write",
  GLEANER_ALLOW_PRIVATE_NETWORK: "network.allow_private",
  GLEANER_CHROME_PATH: "read.chrome_path",
  GLEANER_SEARXNG_URL: "search.searxng_url",
  GLEANER_LOG_LEVEL: "log.level",
  GLEANER_DB: "store.path",
  GITHUB_TOKEN: "read.github_token",
  // A second name for the Brave key; listed before BRAVE_API_KEY so that BRAVE_API_KEY wins
  // when both are set (later aliases overwrite earlier ones).
  BRAVE_SEARCH_API_KEY: "search.brave_api_key",
  BRAVE_API_KEY: "search.brave_api_key",
  EXA_API_KEY: "search.exa_api_key",
  TAVILY_API_KEY: "search.tavily_api_key",
  JINA_API_KEY: "search.jina_api_key",
  KEENABLE_API_KEY: "search.keenable_api_key",
  PARALLEL_API_KEY: "search.parallel_api_key",
  GEMINI_API_KEY: "search.gemini_api_key",
  FIRECRAWL_API_KEY: "read.firecrawl_api_key",
  CRAWL4AI_API_TOKEN: "read.crawl4ai_token",
};

/**
 * Validates a partial configuration and fills in defaults.
 *
 * @example
 * ```ts
 * import { parseConfig } from "./config.ts";
 * const config = parseConfig({ server: { port: 9000 } });
 * console.assert(config.server.port === 9000 && config.server.host === "127.0.0.1");
 * ```
 */
export function parseConfig(input: unknown = {}): Config {
  assertKnownSettings(input, "config");
  const result = ConfigSchema.safeParse(input ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue.path.join(".") || "(root)";
    throw new GleanerError("invalid_arguments", `config: ${field}: ${issue.message}`, {
      details: { field },
    });
  }
  if (result.data.crawl.engine === "firecrawl" && !result.data.read.firecrawl_url) {
    throw new GleanerError(
      "invalid_arguments",
      'config: crawl.engine: "firecrawl" needs read.firecrawl_url (the Firecrawl API base URL)',
      { details: { field: "crawl.engine" } },
    );
  }
  return result.data;
}

/** The kind of value a setting takes, read from the schema. */
function fieldKind(
  section: string,
  key: string,
): "boolean" | "number" | "array" | "string" | "union" | "record" {
  const sectionSchema = (ConfigSchema.shape as Record<string, z.ZodType>)[section];
  // deno-lint-ignore no-explicit-any
  let field: any = (unwrap(sectionSchema) as z.ZodObject).shape[key];
  field = unwrap(field);
  if (field instanceof z.ZodBoolean) return "boolean";
  if (field instanceof z.ZodNumber) return "number";
  if (field instanceof z.ZodArray) return "array";
  if (field instanceof z.ZodUnion) return "union";
  if (field instanceof z.ZodRecord) return "record";
  return "string";
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodOptional) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** Converts an environment/flag string into the setting's type (validated later by zod). */
export function coerceSetting(path: string, raw: string): unknown {
  const [section, key] = path.split(".");
  const kind = fieldKind(section, key);
  const trimmed = raw.trim();
  switch (kind) {
    case "boolean":
      return /^(1|true|yes|on)$/i.test(trimmed)
        ? true
        : /^(0|false|no|off)$/i.test(trimmed)
        ? false
        : trimmed;
    case "number":
      return trimmed === "" ? trimmed : Number(trimmed);
    case "array":
      return trimmed.startsWith("[")
        ? safeJson(trimmed)
        : trimmed.split(",").map((s) => s.trim()).filter(Boolean)
          .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    case "union":
      if (/^(1|true|yes|on)$/i.test(trimmed)) return true;
      if (/^(0|false|no|off)$/i.test(trimmed)) return false;
      return trimmed.startsWith("[")
        ? safeJson(trimmed)
        : trimmed.split(",").map((s) => s.trim()).filter(Boolean);
    case "record":
      // A JSON object (`{"en.wikipedia.org":"wikipedia_en_all"}`); anything else is refused by zod.
      return trimmed.startsWith("{") ? safeJson(trimmed) : raw;
    default:
      return raw;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Every `section.key` the schema knows. */
export function settingPaths(): string[] {
  const paths: string[] = [];
  for (const [section, schema] of Object.entries(ConfigSchema.shape)) {
    for (const key of Object.keys((unwrap(schema as z.ZodType) as z.ZodObject).shape)) {
      paths.push(`${section}.${key}`);
    }
  }
  return paths;
}

/** Reads `GLEANER_*` settings (and aliases) from an environment map. */
export function configFromEnv(env: Record<string, string | undefined>): ConfigInput {
  const out: Record<string, Record<string, unknown>> = {};
  const set = (path: string, raw: string) => {
    const [section, key] = path.split(".");
    (out[section] ??= {})[key] = coerceSetting(path, raw);
  };
  for (const [name, path] of Object.entries(ENV_ALIASES)) {
    const value = env[name];
    if (value !== undefined && value !== "") set(path, value);
  }
  for (const path of settingPaths()) {
    const name = `GLEANER_${path.replace(".", "_").toUpperCase()}`;
    const value = env[name];
    if (value !== undefined && value !== "") set(path, value);
  }
  return out as ConfigInput;
}

/**
 * Every environment name Gleaner reads, generated from the schema so that it
 * cannot drift: `GLEANER_CONFIG`, each setting's `GLEANER_<SECTION>_<KEY>`,
 * the aliases of {@link ENV_ALIASES}, then the fixed names of
 * `PROCESS_ENV_NAMES` (`HOME`, `XDG_*`, the extra CA files, the proxy and
 * OpenTelemetry variables) and the names dependencies read
 * (`DEPENDENCY_ENV_NAMES`) or Chromium is given (`CHROMIUM_ENV_NAMES`). The tasks' `--allow-env=…` is this list
 * (`tests/permissions_test.ts` fails when they differ).
 *
 * @example
 * ```ts
 * import { envNames } from "./config.ts";
 * const names = envNames();
 * console.assert(names.includes("GLEANER_SEARCH_REGION") && names.includes("NODE_EXTRA_CA_CERTS"));
 * ```
 */
export function envNames(): string[] {
  const names = [
    "GLEANER_CONFIG",
    ...settingPaths().map(envName),
    ...Object.keys(ENV_ALIASES),
    ...PROCESS_ENV_NAMES,
    ...DEPENDENCY_ENV_NAMES,
    ...CHROMIUM_ENV_NAMES,
  ];
  return [...new Set(names)];
}

/** Deep-merges partial configurations, later ones winning. */
export function mergeConfig(...layers: (ConfigInput | undefined)[]): ConfigInput {
  const out: Record<string, Record<string, unknown>> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [section, values] of Object.entries(layer)) {
      if (values && typeof values === "object") out[section] = { ...out[section], ...values };
    }
  }
  return out as ConfigInput;
}

/** Where the config file is looked for. */
export function configFilePath(env: Record<string, string | undefined>): string | undefined {
  if (env.GLEANER_CONFIG) return env.GLEANER_CONFIG;
  const base = env.XDG_CONFIG_HOME ?? (env.HOME ? `${env.HOME}/.config` : undefined);
  return base ? `${base}/gleaner/config.json` : undefined;
}

/**
 * Loads the configuration the way every entry point does: defaults, then the
 * config file, then the environment, then CLI flags (`section.key` → string).
 *
 * @example
 * ```ts
 * import { loadConfig } from "./config.ts";
 * const config = await loadConfig({ env: { GLEANER_PORT: "9001" }, flags: {} });
 * console.assert(config.server.port === 9001);
 * ```
 */
export async function loadConfig(
  options: {
    env?: Record<string, string | undefined>;
    flags?: Record<string, string>;
    file?: string;
    /** Settings given in code; above the environment, below CLI flags. */
    overrides?: ConfigInput;
    /** Receives warnings (a misspelt `GLEANER_*` name); default: the `gleaner.config` logger. */
    warn?: (message: string) => void;
  } = {},
): Promise<Config> {
  const env = options.env ?? readEnv(envNames());
  const warn = options.warn ?? ((message: string) => getGleanerLogger("config").warn(message));
  for (const message of unknownEnvWarnings(env)) warn(message);
  const path = options.file ?? configFilePath(env);
  let fileLayer: ConfigInput | undefined;
  if (path) {
    try {
      fileLayer = JSON.parse(await Deno.readTextFile(path)) as ConfigInput;
    } catch (error) {
      if (error instanceof Deno.errors.NotCapable) throw error;
      const explicit = options.file !== undefined || env.GLEANER_CONFIG !== undefined;
      if (!(error instanceof Deno.errors.NotFound) || explicit) {
        throw new GleanerError("invalid_arguments", `config file ${path} could not be read`, {
          cause: error,
        });
      }
    }
  }
  if (fileLayer !== undefined) assertKnownSettings(fileLayer, `config file ${path}`);
  for (const key of ENV_ONLY_KEYS) {
    const [section, name] = key.split(".");
    const values = (fileLayer as Record<string, Record<string, unknown> | undefined> | undefined)
      ?.[section];
    if (values && name in values) throw envOnly(`config file ${path}`, key);
  }
  const flagLayer: Record<string, Record<string, unknown>> = {};
  for (const [path, raw] of Object.entries(options.flags ?? {})) {
    if (ENV_ONLY_KEYS.has(path)) throw envOnly("--set", path);
    const [section, key] = path.split(".");
    (flagLayer[section] ??= {})[key] = coerceSetting(path, raw);
  }
  return parseConfig(
    mergeConfig(
      proxyFromEnv(env),
      fileLayer,
      configFromEnv(env),
      options.overrides,
      flagLayer as ConfigInput,
    ),
  );
}

/**
 * Settings taken from the environment only (never from the config file, `--set` or
 * `PUT /config`): the hosted-mode admin key and the opt-in to `PUT /config`.
 */
export const ENV_ONLY_KEYS: ReadonlySet<string> = new Set([
  "memory.hosted_admin_key",
  "server.allow_config_write",
]);

function envOnly(where: string, key: string): GleanerError {
  return new GleanerError(
    "invalid_arguments",
    `${where}: ${key} is taken from the environment only (${envName(key)})`,
    { details: { field: key } },
  );
}

/**
 * The proxy settings the standard environment variables give, as the lowest
 * layer of the configuration (any `network.proxy_url` / `network.no_proxy`
 * setting wins): `network.proxy_url` from `https_proxy`, `HTTPS_PROXY`,
 * `http_proxy` or `HTTP_PROXY` (the first one set; one proxy serves both
 * schemes; a value without a scheme is read as `http://`), and
 * `network.no_proxy` from `no_proxy` or `NO_PROXY` (comma-separated).
 *
 * @example
 * ```ts
 * import { proxyFromEnv } from "./config.ts";
 * const layer = proxyFromEnv({ HTTPS_PROXY: "proxy.corp:3128", NO_PROXY: "intranet.corp, .lan" });
 * console.assert(layer.network?.proxy_url === "http://proxy.corp:3128");
 * console.assert(layer.network?.no_proxy?.join() === "intranet.corp,.lan");
 * ```
 */
export function proxyFromEnv(env: Record<string, string | undefined>): ConfigInput {
  const pick = (...names: string[]) =>
    names.map((name) => env[name]?.trim()).find((value) => value !== undefined && value !== "");
  const network: Partial<Config["network"]> = {};
  const proxy = pick("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY");
  if (proxy !== undefined) {
    network.proxy_url = /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
  }
  const noProxy = pick("no_proxy", "NO_PROXY");
  if (noProxy !== undefined) {
    network.no_proxy = noProxy.split(/[\s,]+/).filter((entry) => entry !== "");
  }
  return Object.keys(network).length > 0 ? { network } : {};
}

/**
 * A copy of the configuration safe to print: every secret replaced by
 * `"[redacted]"`, and credentials in URLs masked.
 *
 * @example
 * ```ts
 * import { parseConfig, redactConfig } from "./config.ts";
 * const shown = redactConfig(parseConfig({ server: { api_key: "s3cret" } }));
 * console.assert(shown.server.api_key === "[redacted]");
 * ```
 */
export function redactConfig(config: Config): Config {
  const copy = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  for (const path of SECRET_KEYS) {
    const [section, key] = path.split(".");
    if (copy[section]?.[key] !== undefined) copy[section][key] = "[redacted]";
  }
  return maskUrls(copy) as unknown as Config;
}

/** Every string that is a URL, anywhere in `value`, passed through {@link maskUrl}. */
function maskUrls(value: unknown): unknown {
  if (typeof value === "string") return maskUrl(value);
  if (Array.isArray(value)) return value.map(maskUrls);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskUrls(v)]));
  }
  return value;
}

/** `GLEANER_*` names that are not settings (the config file path, test and bench switches). */
export const NON_SETTING_ENV: readonly string[] = [
  "GLEANER_CONFIG",
  "GLEANER_REQUIRE_*",
  "GLEANER_TEST_*",
  "GLEANER_BENCH_*",
];

/** Levenshtein distance between two strings. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

function nearest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * The setting (`section.key`) closest to a mistyped one, when one is close.
 *
 * @example
 * ```ts
 * import { nearestSetting } from "./config.ts";
 * console.assert(nearestSetting("search.searxng") === "search.searxng_url");
 * ```
 */
export function nearestSetting(path: string): string | undefined {
  return nearest(path, settingPaths());
}

/** Environment name of a setting: `search.region` → `GLEANER_SEARCH_REGION`. */
function envName(path: string): string {
  return `GLEANER_${path.replace(".", "_").toUpperCase()}`;
}

/**
 * Warnings for `GLEANER_*` variables that name no setting (a misspelling is
 * otherwise silently ignored), each naming the nearest setting.
 *
 * @example
 * ```ts
 * import { unknownEnvWarnings } from "./config.ts";
 * const [warning] = unknownEnvWarnings({ GLEANER_SERACH_REGION: "de-de" });
 * console.assert(warning.includes("GLEANER_SEARCH_REGION"));
 * ```
 */
export function unknownEnvWarnings(env: Record<string, string | undefined>): string[] {
  const known = new Map<string, string>();
  for (const path of settingPaths()) known.set(envName(path), path);
  for (const [name, path] of Object.entries(ENV_ALIASES)) known.set(name, path);
  const ignored = (name: string) =>
    NON_SETTING_ENV.some((pattern) =>
      pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern
    );
  const warnings: string[] = [];
  for (const name of Object.keys(env)) {
    if (!name.startsWith("GLEANER_") || known.has(name) || ignored(name)) continue;
    const guess = nearest(name, [...known.keys()]);
    warnings.push(
      guess
        ? `${name} is not a Gleaner setting and is ignored; did you mean ${guess} (${
          known.get(guess)
        })?`
        : `${name} is not a Gleaner setting and is ignored`,
    );
  }
  return warnings;
}

/**
 * Throws `invalid_arguments` naming the first unknown section or setting of a
 * partial configuration (and the nearest known one), so a typo in a config
 * file or in code is not silently ignored.
 */
function assertKnownSettings(input: unknown, where: string): void {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return;
  const sections = ConfigSchema.shape as Record<string, z.ZodType>;
  for (const [section, values] of Object.entries(input)) {
    const schema = sections[section];
    if (!schema) {
      const guess = nearest(section, Object.keys(sections));
      throw new GleanerError(
        "invalid_arguments",
        `${where}: unknown section "${section}"${guess ? `; did you mean "${guess}"?` : ""}`,
        { details: { field: section } },
      );
    }
    if (values === null || typeof values !== "object" || Array.isArray(values)) continue;
    const shape = (unwrap(schema) as z.ZodObject).shape;
    for (const key of Object.keys(values)) {
      if (key in shape) continue;
      const guess = nearestSetting(`${section}.${key}`);
      throw new GleanerError(
        "invalid_arguments",
        `${where}: unknown setting "${section}.${key}"${guess ? `; did you mean "${guess}"?` : ""}`,
        { details: { field: `${section}.${key}` } },
      );
    }
  }
}

/** True when private addresses may be reached for this origin. */
export function privateAllowed(
  config: Pick<Config["network"], "allow_private">,
  origin: string,
): boolean {
  const allow = config.allow_private;
  if (allow === true) return true;
  if (allow === false) return false;
  return allow.some((entry) => {
    try {
      return new URL(entry).origin === origin;
    } catch {
      return false;
    }
  });
}
