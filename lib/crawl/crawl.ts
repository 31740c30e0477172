/**
 * Site crawl: the site's sitemaps first, then a breadth-first walk of
 * same-site links, every page read through the reader (so each one lands in
 * the page cache and a later read of it costs no fetch).
 *
 * Order and limits:
 * - Depth 0 is the start URL (always read). Sitemap pages are depth 1 and
 *   come first at that depth, before the start page's links; links found on
 *   a page at depth d are depth d + 1, up to `max_depth`.
 * - When the start URL is below a folder (`/docs/intro` → `/docs/`), only
 *   sitemap pages under that folder are used; when the sitemap has none
 *   there, the crawl follows links alone (`from_sitemap: false`).
 * - `max_pages` bounds the page reads (successes and failures);
 *   robots.txt-disallowed URLs are reported in `failed` (`robots_disallowed`)
 *   without being fetched and without counting.
 * - Links: same site (host and port, `www.` ignored), fragments dropped,
 *   non-page extensions skipped, `include`/`exclude` patterns applied to
 *   every URL but the start one.
 * - Reads run `read.concurrency` at a time; the fetcher adds its per-host limit.
 * - With a cache, the result is kept in namespace `crawl` (freshness
 *   `store.crawl_ttl_s`) under the normalised input, and served from there.
 *
 * @module
 */
import { mapConcurrent } from "../async/concurrency.ts";
import { type ErrorCode, GleanerError, toGleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import type { Fetcher } from "../net/types.ts";
import { assertUrlAllowed } from "../net/address.ts";
import { parsePageUrl, type Reader } from "../read/cascade.ts";
import type { Page, ReadConfig } from "../read/types.ts";
import type { CrawlSection } from "../config/sections.ts";
import type { Cache } from "../store/types.ts";
import { discoverSitemapUrls } from "./sitemap.ts";
import { createPathFilter, looksLikePage, sameSite } from "./urls.ts";
import { safeEndpoint } from "../config/redact.ts";

const log = getGleanerLogger("crawl");

/** Largest `max_pages`. */
export const MAX_CRAWL_PAGES = 100;
/** Default `max_pages`. */
export const DEFAULT_CRAWL_PAGES = 20;
/** Largest `max_depth`. */
export const MAX_CRAWL_DEPTH = 10;
/** Default `max_depth`. */
export const DEFAULT_CRAWL_DEPTH = 2;
/** Length of a page snippet (characters, about). */
export const SNIPPET_CHARS = 200;
/** Failures listed at most. */
const MAX_FAILURES = 100;

/** The settings a crawl reads: the reader's, and the `crawl` section (its engine's). */
export interface CrawlConfig extends ReadConfig {
  /** The crawl engine's settings (Firecrawl's limits). */
  crawl: CrawlSection;
}

/** What a crawl needs. */
export interface CrawlDeps {
  /** Configuration (`read.concurrency`, `network.respect_robots`, `crawl.*`). */
  config: CrawlConfig;
  /** The guarded fetcher (sitemaps, robots.txt; its robots cache is used when it has one). */
  fetcher: Fetcher;
  /** The reader every page goes through (and is cached by). */
  reader: Reader;
  /** Cache for the crawl manifest (namespace `crawl`). */
  cache?: Cache;
  /**
   * Who crawls instead of the built-in walk (for `crawl.engine: "firecrawl"`, `firecrawlEngine`
   * in `firecrawl.ts`); the input is validated and complete manifests cached as for the built-in one.
   */
  engine?: CrawlEngine;
}

/** A crawl's validated limits, as an engine receives them. */
export interface CrawlPlan {
  /** The start URL, normalised (it passed the network policy). */
  start: URL;
  /** Pages at most. */
  maxPages: number;
  /** Link hops at most. */
  maxDepth: number;
  /** Include patterns (already checked). */
  include: string[];
  /** Exclude patterns (already checked). */
  exclude: string[];
}

/** Another way of crawling: gets the validated plan, returns the manifest. */
export interface CrawlEngine {
  /** The engine's name (part of the manifest's cache key). */
  readonly name: string;
  /** Crawls along the plan. */
  crawl(deps: CrawlDeps, input: CrawlInput, plan: CrawlPlan): Promise<CrawlResult>;
}

/** Progress of a crawl. */
export interface CrawlProgress {
  /** Reads finished so far. */
  progress: number;
  /** Reads planned so far (grows as links are found). */
  total?: number;
  /** What just happened. */
  message?: string;
}

/** What to crawl. */
export interface CrawlInput {
  /** Start URL. */
  url: string;
  /** Page reads at most (1-100, default 20). */
  max_pages?: number;
  /** Link depth at most (0-10, default 2; 0 = the start page only). */
  max_depth?: number;
  /** Path patterns a URL must match one of (glob, or `re:`/`^` regex). */
  include?: string[];
  /** Path patterns that exclude a URL. */
  exclude?: string[];
  /** Ignore a cached manifest (pages may still come from the page cache). */
  no_cache?: boolean;
  /** Cancels the crawl (ends in `timeout`). */
  signal?: AbortSignal;
  /** Called after each read. */
  progress?: (progress: CrawlProgress) => void;
}

/** One page read by the crawl. */
export interface CrawledPage {
  /** The URL read. */
  url: string;
  /** Its title. */
  title: string;
  /** About the first 200 characters of its text. */
  snippet: string;
  /** Link distance from the start URL (sitemap pages: 1). */
  depth: number;
}

/** One URL the crawl could not read. */
export interface CrawlFailure {
  /** The URL. */
  url: string;
  /** Stable error code. */
  code: ErrorCode;
  /** What went wrong. */
  message: string;
}

/** The crawl's manifest. */
export interface CrawlResult {
  /** Pages read, by depth then discovery order. */
  pages: CrawledPage[];
  /** URLs that failed or were disallowed by robots.txt. */
  failed: CrawlFailure[];
  /** True when the site's sitemap listed pages to read (under the start URL's folder). */
  from_sitemap: boolean;
  /** How many of `pages` the sitemap listed (the others came from links); with `from_sitemap`. */
  sitemap_pages?: number;
  /**
   * True when the crawl stopped before it was done (a Firecrawl job that did not finish within
   * `crawl.max_wait_ms`, failed, or reached `crawl.max_bytes`): the pages are those done by then.
   */
  partial?: boolean;
}

interface Item {
  url: string;
  depth: number;
  /** Listed in the sitemap (not found as a link). */
  sitemap?: boolean;
}

/** The part of the guarded fetcher's robots cache used to skip disallowed URLs before reading. */
interface RobotsAware {
  robots?: { isAllowed(url: string | URL, signal?: AbortSignal): Promise<boolean> };
}

function checkInt(
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  field: string,
): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new GleanerError(
      "invalid_arguments",
      `${field} must be an integer from ${min} to ${max}`,
      {
        details: { field },
      },
    );
  }
  return n;
}

function parseStart(raw: string): URL {
  return parsePageUrl(raw);
}

/**
 * About the first {@link SNIPPET_CHARS} characters of a page's Markdown as
 * plain text (heading marks, emphasis, fences and table pipes removed; a
 * leading line equal to the title skipped), cut at a word boundary.
 *
 * @example
 * ```ts
 * import { snippetOf } from "./crawl.ts";
 * console.assert(snippetOf("# Tides\n\nTides **rise** and fall.", "Tides") === "Tides rise and fall.");
 * ```
 */
export function snippetOf(markdown: string, title = ""): string {
  const lines = markdown.split("\n")
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, "")
        .replace(/^\s*(`{3,}|~{3,}).*$/, "")
        .replace(/^\s*(?:[-+*>]|\d+\.)\s+/, "")
        .replace(/^[\s|:-]+$/, "")
        .trim()
    );
  while (lines.length && (lines[0] === "" || lines[0] === title.trim())) lines.shift();
  const text = lines.join(" ")
    .replace(/`+/g, "")
    .replace(/(\*\*|__|\*|_|~~)(?=\S)([^*_~]*?\S)\1/g, "$2")
    .replace(/\s*\|\s*/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (text.length <= SNIPPET_CHARS) return text;
  const cut = text.slice(0, SNIPPET_CHARS + 1);
  const space = cut.lastIndexOf(" ");
  const kept = space > SNIPPET_CHARS * 0.6 ? cut.slice(0, space) : cut.slice(0, SNIPPET_CHARS);
  return `${kept.trimEnd()}…`;
}

/** The cache key of a crawl input (normalised). */
function manifestKey(
  start: URL,
  maxPages: number,
  maxDepth: number,
  include: string[],
  exclude: string[],
  engine?: string,
): string {
  return JSON.stringify({
    v: 1,
    url: start.href,
    maxPages,
    maxDepth,
    include,
    exclude,
    ...(engine ? { engine } : {}),
  });
}

/**
 * Crawls a site and returns its manifest: titles and snippets of the pages
 * read (each one now in the page cache), failures, and whether the sitemap
 * supplied the pages. Throws `invalid_arguments` for bad input and `timeout`
 * when cancelled; failures of single pages are listed, not thrown.
 *
 * @example
 * ```ts ignore
 * import { crawlSite } from "./crawl.ts";
 * const manifest = await crawlSite(
 *   { config, fetcher, reader, cache: store.cache },
 *   { url: "https://docs.example.com/", max_pages: 30, exclude: ["/blog/"] },
 * );
 * for (const page of manifest.pages) console.log(page.depth, page.url, page.title);
 * ```
 */
export async function crawlSite(deps: CrawlDeps, input: CrawlInput): Promise<CrawlResult> {
  const start = parseStart(input.url);
  const maxPages = checkInt(input.max_pages, DEFAULT_CRAWL_PAGES, 1, MAX_CRAWL_PAGES, "max_pages");
  const maxDepth = checkInt(input.max_depth, DEFAULT_CRAWL_DEPTH, 0, MAX_CRAWL_DEPTH, "max_depth");
  const include = [...(input.include ?? [])];
  const exclude = [...(input.exclude ?? [])];
  const passes = createPathFilter(include, exclude);
  const { signal } = input;
  const engine = deps.engine;
  const key = manifestKey(
    start,
    maxPages,
    maxDepth,
    include,
    exclude,
    engine?.name,
  );

  if (deps.cache && !input.no_cache) {
    try {
      const cached = await deps.cache.get<CrawlResult>("crawl", key);
      if (cached) {
        input.progress?.({
          progress: cached.pages.length,
          total: cached.pages.length,
          message: "from cache",
        });
        return cached;
      }
    } catch (error) {
      log.debug("crawl cache not read: {error}", { error });
    }
  }

  if (engine) {
    assertUrlAllowed(start, deps.config.network);
    const result = await engine.crawl(deps, input, { start, maxPages, maxDepth, include, exclude });
    // A partial manifest is not kept: the next call tries again.
    if (deps.cache && !result.partial) await deps.cache.set("crawl", key, result).catch(() => {});
    return result;
  }

  const cancelled = () => {
    if (signal?.aborted) {
      throw toGleanerError(signal.reason, `crawling ${safeEndpoint(start)}`);
    }
  };
  const respectRobots = deps.config.network.respect_robots;
  const robots = (deps.fetcher as RobotsAware).robots;
  const seen = new Set<string>([start.href]);
  const pages: (CrawledPage & { order: number })[] = [];
  const failed: CrawlFailure[] = [];
  let reads = 0;
  let planned = 0;

  const admissible = (url: URL): boolean =>
    sameSite(url, start) && looksLikePage(url) && passes(url) && !seen.has(url.href);

  // Sitemap pages under the start folder.
  const folder = start.pathname.slice(0, start.pathname.lastIndexOf("/") + 1);
  let sitemapItems: Item[] = [];
  if (maxDepth >= 1 && maxPages > 1) {
    try {
      const found = await discoverSitemapUrls(deps.fetcher, start, {
        robots: respectRobots,
        signal,
      });
      for (const raw of found.urls) {
        const url = new URL(raw);
        if (!url.pathname.startsWith(folder) || !admissible(url)) continue;
        seen.add(url.href);
        sitemapItems.push({ url: url.href, depth: 1, sitemap: true });
      }
    } catch (error) {
      cancelled();
      log.debug("no sitemap for {origin}: {error}", { origin: start.origin, error });
      sitemapItems = [];
    }
  }
  const fromSitemap = sitemapItems.length > 0;
  let sitemapPages = 0;

  const fail = (url: string, error: GleanerError) => {
    if (failed.length < MAX_FAILURES) {
      failed.push({ url, code: error.code, message: error.message });
    }
  };

  /** Reads one item; returns the links found on it. */
  const visit = async (item: Item, index: number): Promise<URL[]> => {
    cancelled();
    let page: Page;
    try {
      page = await deps.reader.read({ url: item.url, signal });
    } catch (error) {
      cancelled();
      const failure = toGleanerError(error, `reading ${item.url}`);
      fail(item.url, failure);
      reads++;
      input.progress?.({ progress: reads, total: planned, message: `failed ${item.url}` });
      return [];
    }
    pages.push({
      url: item.url,
      title: page.title,
      snippet: snippetOf(page.markdown, page.title),
      depth: item.depth,
      order: index,
    });
    if (item.sitemap) sitemapPages++;
    reads++;
    input.progress?.({ progress: reads, total: planned, message: `read ${item.url}` });
    if (page.finalUrl && page.finalUrl !== item.url) seen.add(page.finalUrl.replace(/#.*$/, ""));
    const links: URL[] = [];
    for (const link of page.links) {
      try {
        const url = new URL(link.url);
        url.hash = "";
        links.push(url);
      } catch {
        // Not a URL: skipped.
      }
    }
    return links;
  };

  /** Keeps the items robots.txt allows, up to `budget`; reports the others. */
  const allowedSlice = async (items: Item[], budget: number): Promise<Item[]> => {
    const out: Item[] = [];
    for (const item of items) {
      if (out.length >= budget) break;
      if (respectRobots && robots && item.url !== start.href) {
        let ok = true;
        try {
          ok = await robots.isAllowed(item.url, signal);
        } catch {
          cancelled();
        }
        if (!ok) {
          fail(item.url, new GleanerError("robots_disallowed", `robots.txt disallows ${item.url}`));
          continue;
        }
      }
      out.push(item);
    }
    return out;
  };

  let level: Item[] = [{ url: start.href, depth: 0 }];
  for (let depth = 0; depth <= maxDepth && level.length > 0; depth++) {
    cancelled();
    const batch = await allowedSlice(level, maxPages - reads);
    if (batch.length === 0) break;
    planned += batch.length;
    const found = await mapConcurrent(batch, deps.config.read.concurrency, visit);
    cancelled();
    if (reads >= maxPages || depth === maxDepth) break;
    const next: Item[] = depth === 0 ? [...sitemapItems] : [];
    for (const links of found) {
      for (const url of links) {
        if (!admissible(url)) continue;
        seen.add(url.href);
        next.push({ url: url.href, depth: depth + 1 });
      }
    }
    level = next;
  }

  pages.sort((a, b) => a.depth - b.depth || a.order - b.order);
  const result: CrawlResult = {
    pages: pages.map(({ order: _order, ...page }) => page),
    failed,
    from_sitemap: fromSitemap,
    ...(fromSitemap ? { sitemap_pages: sitemapPages } : {}),
  };
  if (deps.cache) await deps.cache.set("crawl", key, result).catch(() => {});
  log.debug("crawled {origin}: {pages} pages, {failed} failed", {
    origin: start.origin,
    pages: result.pages.length,
    failed: failed.length,
  });
  return result;
}
