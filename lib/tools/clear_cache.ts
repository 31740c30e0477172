/**
 * The `clear_cache` tool: drop cached searches, pages, crawl manifests, the
 * per-site reading memory, or all of them. In hosted mode the cache is every
 * user's, so only the operator (a request with the admin key) may clear it.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type ToolSpec } from "./spec.ts";

/** The tool definition. */
export const clearCacheTool: ToolSpec<
  z.ZodObject<{
    target: z.ZodDefault<
      z.ZodEnum<{
        search: "search";
        pages: "pages";
        crawl: "crawl";
        domains: "domains";
        all: "all";
      }>
    >;
  }, z.core.$strict>,
  z.ZodObject<{
    removed: z.ZodNumber;
    origins_forgotten: z.ZodNumber;
    target: z.ZodString;
  }, z.core.$strip>
> = defineTool({
  name: "clear_cache",
  // It empties every tenant's cache: the operator's alone in hosted mode.
  scope: "operator",
  title: "Clear cache",
  description:
    "Clears cached searches, pages or crawls so the next call reads fresh; domains forgets the per-site reading memory (skipped tiers are tried again). Hosted mode: the operator only.",
  input: z.strictObject({
    target: z.enum(["search", "pages", "crawl", "domains", "all"]).default("all"),
  }),
  output: z.object({
    removed: z.number().int().describe("Cache entries removed"),
    origins_forgotten: z.number().int().describe(
      "Sites (origins) whose reading memory was cleared",
    ),
    target: z.string(),
  }),
  http: { path: "/v1/cache/clear" },
  readOnly: false,
  openWorld: false,
  handler: async (input, { gleaner }) => {
    // In hosted mode only the operator (admin key) may: it clears every user's cache.
    const { removed, origins_forgotten } = await gleaner.clearCache(input.target);
    return { removed, origins_forgotten, target: input.target };
  },
  render: (out) => {
    const entries = `Removed ${out.removed} cached ${
      out.target === "all" || out.target === "domains" ? "entries" : out.target + " entries"
    }`;
    if (out.target === "domains") {
      return `Forgot the reading memory of ${out.origins_forgotten} sites.`;
    }
    if (out.target === "all") {
      return `${entries}; forgot the reading memory of ${out.origins_forgotten} sites.`;
    }
    return `${entries}.`;
  },
});
