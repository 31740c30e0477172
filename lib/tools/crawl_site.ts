/**
 * The `crawl_site` tool: map one site (sitemap first, then links), caching
 * every page read so a following `scrape_urls` on them costs no fetch.
 *
 * @module
 */
import { z } from "zod";
import { ItemErrorSchema } from "./schemas.ts";
import { defineTool, lazyHandler, type ToolSpec } from "./spec.ts";

/** Output of `crawl_site`. */
export const CrawlOutput: z.ZodObject<{
  pages: z.ZodArray<
    z.ZodObject<{
      url: z.ZodString;
      title: z.ZodString;
      snippet: z.ZodString;
      depth: z.ZodNumber;
    }, z.core.$strip>
  >;
  failed: z.ZodArray<
    z.ZodObject<{
      url: z.ZodString;
      code: z.ZodString;
      message: z.ZodString;
    }, z.core.$strip>
  >;
  from_sitemap: z.ZodBoolean;
  sitemap_pages: z.ZodOptional<z.ZodNumber>;
  partial: z.ZodOptional<z.ZodBoolean>;
}, z.core.$strip> = z.object({
  pages: z.array(
    z.object({ url: z.string(), title: z.string(), snippet: z.string(), depth: z.number().int() }),
  ),
  failed: z.array(z.object({ url: z.string() }).extend(ItemErrorSchema.shape)),
  from_sitemap: z.boolean().describe("True when the site's sitemap listed pages to read"),
  sitemap_pages: z.number().int().optional().describe(
    "How many of the pages the sitemap listed (the others came from links)",
  ),
  partial: z.boolean().optional().describe(
    "True when the crawl stopped before it was done (time or size limit, or the crawl job failed): the pages are those done by then",
  ),
});

/** The tool definition. */
export const crawlSiteTool: ToolSpec<
  z.ZodObject<{
    url: z.ZodString;
    max_pages: z.ZodDefault<z.ZodNumber>;
    max_depth: z.ZodDefault<z.ZodNumber>;
    include: z.ZodOptional<z.ZodArray<z.ZodString>>;
    exclude: z.ZodOptional<z.ZodArray<z.ZodString>>;
    no_cache: z.ZodOptional<z.ZodBoolean>;
  }, z.core.$strict>,
  typeof CrawlOutput
> = defineTool({
  name: "crawl_site",
  scope: "tenant",
  title: "Crawl a site",
  description:
    "Maps a site: its sitemap, else same-site links breadth-first (robots.txt obeyed). Returns the pages (URL, title, snippet), cached for scrape_urls.",
  input: z.strictObject({
    url: z.string().min(1).max(4096).describe("A site root or a docs folder"),
    max_pages: z.number().int().min(1).max(100).default(20),
    max_depth: z.number().int().min(0).max(10).default(2).describe("Link hops from the start"),
    include: z.array(z.string()).max(20).optional().describe(
      "Only paths matching these globs (or re:<regex>)",
    ),
    exclude: z.array(z.string()).max(20).optional().describe("Paths to skip, as include"),
    no_cache: z.boolean().optional().describe("Skip a cached result"),
  }),
  output: CrawlOutput,
  http: { path: "/v1/crawl" },
  readOnly: true,
  openWorld: true,
  // The crawler loads on the first call.
  handler: lazyHandler(() =>
    import("../crawl/mod.ts").then(
      ({ crawlSite, firecrawlEngine }) => (input, { gleaner, signal, progress }) =>
        crawlSite(
          {
            config: gleaner.config,
            fetcher: gleaner.fetcher,
            reader: gleaner.reader,
            cache: gleaner.store.cache,
            // `crawl.engine: "firecrawl"`: a Firecrawl crawl job instead of the built-in walk.
            ...(gleaner.config.crawl.engine === "firecrawl" ? { engine: firecrawlEngine } : {}),
          },
          { ...input, signal, progress },
        ),
    )
  ),
  render: (out) => {
    const lines = out.pages.map((p) => `- ${p.title || p.url}\n  ${p.url}\n  ${p.snippet}`);
    for (const f of out.failed) lines.push(`! ${f.url}: ${f.code}`);
    const listed = out.sitemap_pages ? ` (${out.sitemap_pages} listed in the sitemap)` : "";
    const head = `${out.pages.length} ${out.pages.length === 1 ? "page" : "pages"}${listed}${
      out.partial ? " (partial: the crawl stopped before it was done)" : ""
    }`;
    return [head, ...lines].join("\n");
  },
});
