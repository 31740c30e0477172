/**
 * The `crawl` section: `crawl_site`.
 *
 * @module
 */
import { z } from "zod";
import { shared } from "../setting.ts";

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
  engine: shared(z.enum(["builtin", "firecrawl"]).default("builtin")),
  /** How often a Firecrawl crawl job is asked for its status (ms). */
  poll_interval_ms: shared(z.number().int().min(100).max(60_000).default(2_000)),
  /** How long `crawl_site` waits for a Firecrawl crawl job; then it answers with what is done (`partial`). */
  max_wait_ms: shared(z.number().int().min(1_000).max(3_600_000).default(120_000)),
  /** Bytes of Firecrawl crawl results read at most for one crawl (all status pages together). */
  max_bytes: shared(z.number().int().positive().default(50_000_000), { writable: false }),
});
