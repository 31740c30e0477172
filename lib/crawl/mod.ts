/**
 * Site crawling: sitemaps first, then a bounded breadth-first walk of
 * same-site links, every page read (and cached) through the reader.
 *
 * @example
 * ```ts ignore
 * import { crawlSite } from "./mod.ts";
 * const { pages, failed, from_sitemap } = await crawlSite({ config, fetcher, reader }, { url: "https://example.com/" });
 * ```
 *
 * @module
 */
export {
  type CrawlDeps,
  type CrawledPage,
  type CrawlEngine,
  type CrawlFailure,
  type CrawlInput,
  type CrawlPlan,
  type CrawlProgress,
  type CrawlResult,
  crawlSite,
  DEFAULT_CRAWL_DEPTH,
  DEFAULT_CRAWL_PAGES,
  MAX_CRAWL_DEPTH,
  MAX_CRAWL_PAGES,
  SNIPPET_CHARS,
  snippetOf,
} from "./crawl.ts";
export { crawlWithFirecrawl, firecrawlEngine, nextStatusUrl } from "./firecrawl.ts";
export {
  type DiscoverOptions,
  discoverSitemapUrls,
  MAX_SITEMAP_FILES,
  MAX_SITEMAP_URLS,
  type ParsedSitemap,
  parseSitemap,
  type SitemapDiscovery,
  sitemapsFromRobots,
} from "./sitemap.ts";
export {
  compilePathPattern,
  createPathFilter,
  looksLikePage,
  NON_PAGE_EXTENSIONS,
  type PathFilter,
  type PathPattern,
  sameSite,
} from "./urls.ts";
