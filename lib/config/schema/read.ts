/**
 * The `read` section: page reading and its tiers.
 *
 * @module
 */
import { z } from "zod";
import { secret } from "./secret.ts";
import { operatorOnly, shared } from "../setting.ts";

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
  github_token_users: z.ZodDefault<z.ZodArray<z.ZodString>>;
  github_api_url: z.ZodDefault<z.ZodString>;
  github_raw_url: z.ZodDefault<z.ZodString>;
  wayback: z.ZodDefault<z.ZodBoolean>;
  wayback_url: z.ZodDefault<z.ZodString>;
  youtube_url: z.ZodDefault<z.ZodString>;
  youtube_languages: z.ZodDefault<z.ZodArray<z.ZodString>>;
  youtube_timestamps: z.ZodDefault<z.ZodBoolean>;
  youtube_ignore_robots: z.ZodDefault<z.ZodBoolean>;
  block_lists: z.ZodDefault<z.ZodArray<z.ZodString>>;
  reddit_url: z.ZodDefault<z.ZodString>;
  reddit_ignore_robots: z.ZodDefault<z.ZodBoolean>;
  hister_url: z.ZodOptional<z.ZodString>;
  hister_token: z.ZodOptional<z.ZodString>;
  hister_users: z.ZodDefault<z.ZodArray<z.ZodString>>;
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
  render: shared(z.enum(["never", "auto", "always"]).default("auto")),
  /** Chromium executable; default `/usr/bin/chromium` when present. */
  chrome_path: operatorOnly(z.string().optional(), { env: ["GLEANER_CHROME_PATH"] }),
  /**
   * External DevTools endpoint (`ws://…` or `http://…`) instead of launching Chromium.
   * Gleaner's egress proxy cannot be imposed on it: only request interception guards its requests.
   */
  browser_cdp_url: operatorOnly(z.string().optional()),
  /** Concurrent browser pages. */
  browser_pages: shared(z.number().int().positive().default(4), { writable: false }),
  /** Timeout for one browser page. */
  browser_timeout_ms: shared(z.number().int().positive().default(20_000)),
  /** Close the browser after this idle time. */
  browser_idle_ms: shared(z.number().int().positive().default(60_000)),
  /** Concurrent page reads per call. */
  concurrency: shared(z.number().int().positive().default(5), { writable: false }),
  /**
   * GitHub API token (optional). It reaches what the token reaches (private repositories with
   * a `repo` scope): in hosted mode only the operator's reads send it, and those of the users
   * listed in `read.github_token_users`; every other tenant reads GitHub anonymously.
   */
  github_token: secret({ env: ["GITHUB_TOKEN"] }),
  /**
   * Hosted mode: the verified user ids (as the trusted proxy sends them) whose GitHub reads
   * carry `read.github_token`. Everyone else reads GitHub anonymously; the operator (admin key,
   * or a server that is not hosted) always sends it.
   */
  github_token_users: operatorOnly(z.array(z.string().min(1)).default([])),
  /** GitHub API base URL. */
  github_api_url: operatorOnly(z.string().url().default("https://api.github.com")),
  /** Raw GitHub content base URL. */
  github_raw_url: operatorOnly(z.string().url().default("https://raw.githubusercontent.com")),
  /** Wayback Machine fallback (opt-in). */
  wayback: shared(z.boolean().default(false)),
  /** Wayback availability API base URL. */
  wayback_url: operatorOnly(z.string().url().default("https://archive.org")),
  /**
   * Where the YouTube tier reads watch pages and timed text for youtube.com and youtu.be URLs
   * (a test double or mirror may answer instead).
   */
  youtube_url: operatorOnly(z.string().url().default("https://www.youtube.com")),
  /** Caption languages the YouTube tier prefers, in order (`en`, `de`…); else manual captions first. */
  youtube_languages: shared(z.array(z.string().min(1)).default([])),
  /** Start each transcript line with its `[mm:ss]` time. */
  youtube_timestamps: shared(z.boolean().default(true)),
  /**
   * The YouTube tier's own requests (the watch page and the timed text under `/api/`, which
   * YouTube's robots.txt disallows) skip robots.txt, while every other site's stays respected
   * (`network.respect_robots`). The operator's choice; off by default.
   */
  youtube_ignore_robots: operatorOnly(z.boolean().default(false)),
  /**
   * Ad and tracker blocking in the browser tier: filter list files the operator provides
   * (EasyList / Adblock Plus network rules, or hosts files); a request they match is never sent.
   * Empty (the default): no blocking. Nothing is downloaded.
   */
  block_lists: operatorOnly(z.array(z.string().min(1)).max(64).default([])),
  /** Where the Reddit tier reads a thread's `.json` form for reddit.com and old.reddit.com URLs. */
  reddit_url: operatorOnly(z.string().url().default("https://www.reddit.com")),
  /**
   * The Reddit tier's own request (a thread's `.json` form; Reddit's robots.txt disallows every
   * path) skips robots.txt, while every other site's stays respected. The operator's choice; off
   * by default.
   */
  reddit_ignore_robots: operatorOnly(z.boolean().default(false)),
  /**
   * Base URL of a Hister server (browsing history): when set, pages found in its index are read
   * from there first. Off by default. A local server's origin must also be listed in
   * `network.allow_private`.
   */
  hister_url: operatorOnly(z.string().url().optional()),
  /** Hister access token (`app.access_token`), sent as `Authorization: Bearer`. */
  hister_token: secret(),
  /**
   * Hosted mode: the verified user ids (as the trusted proxy sends them) whose reads may use
   * the Hister history; every other tenant's reader has no Hister tier, and their URLs never
   * reach the Hister server. The operator (admin key, or a server that is not hosted) always
   * has it.
   */
  hister_users: operatorOnly(z.array(z.string().min(1)).default([])),
  /**
   * A local `kiwix-serve` (`http://127.0.0.1:8080`): Wikipedia, Stack Overflow and ArchWiki
   * pages are read from its ZIM files first (see `read.kiwix_books`); off when unset.
   */
  kiwix_url: operatorOnly(z.string().url().optional()),
  /**
   * The book (ZIM file name without `.zim`, as kiwix-serve names it) per site:
   * `{"en.wikipedia.org": "wikipedia_en_all_maxi_2024-01", "stackoverflow.com": "…"}`.
   */
  kiwix_books: shared(
    z.record(
      z.string().min(1).max(253),
      z.string().min(1).max(200).regex(/^[\w.-]+$/, "a book name: letters, digits, _ . -"),
    ).default({}),
  ),
  /**
   * Domains (and their subdomains) whose `llms-full.txt`/`llms.txt` are used: by default the
   * documentation sites of {@link DEFAULT_LLMS_TXT_DOMAINS}. Setting it replaces that list
   * (`[]` turns the tier off); `llms_txt_extra_domains` extends it instead.
   */
  llms_txt_domains: shared(z.array(z.string()).default([...DEFAULT_LLMS_TXT_DOMAINS]), {
    live: true,
  }),
  /** Domains added to `llms_txt_domains` (extends the default list without restating it). */
  llms_txt_extra_domains: shared(z.array(z.string()).default([]), { live: true }),
  /** Operator file forcing tiers per domain or path prefix. */
  tier_rules_path: operatorOnly(z.string().optional()),
  /** Worker threads that extract HTML pages off the main thread. */
  extract_workers: shared(z.number().int().min(1).max(16).default(1), { writable: false }),
  /** Deadline of one page's extraction; the thread is stopped and the read fails with `timeout`. */
  extract_timeout_ms: shared(z.number().int().positive().default(15_000)),
  /** Characters of HTML parsed per page (the rest is cut and the page marked truncated). */
  max_html_chars: shared(z.number().int().positive().default(3_000_000), { writable: false }),
  /** Links kept per page, main content first. */
  max_links: shared(z.number().int().min(0).default(1_000), { writable: false }),
  /**
   * Firecrawl API base URL (`https://api.firecrawl.dev` or a self-hosted instance): when set,
   * the `firecrawl` reading tier (`POST /v1/scrape`) runs ahead of the built-in tiers. It is
   * reached through the guarded fetch: a private or loopback instance must be listed in
   * `network.allow_private`.
   */
  firecrawl_url: operatorOnly(z.string().url().optional()),
  /** Firecrawl API key (`Authorization: Bearer`; a self-hosted instance may need none). */
  firecrawl_api_key: secret({ env: ["FIRECRAWL_API_KEY"] }),
  /**
   * Crawl4AI server base URL (its Docker server, port 11235 by default): when set, the
   * `crawl4ai` reading tier (`POST /crawl`, `fit_markdown`) runs ahead of the built-in tiers.
   * Reached like `read.firecrawl_url`.
   */
  crawl4ai_url: operatorOnly(z.string().url().optional()),
  /** Crawl4AI API token (`CRAWL4AI_API_TOKEN` or a JWT from its `/token`; sent as Bearer). */
  crawl4ai_token: secret({ env: ["CRAWL4AI_API_TOKEN"] }),
  /** Time one call to Firecrawl or Crawl4AI may take (they load the page themselves). */
  service_timeout_ms: shared(z.number().int().positive().default(45_000)),
});
