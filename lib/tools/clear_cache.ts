/**
 * The `clear_cache` tool: drop cached searches, pages, crawl manifests, or all.
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
        all: "all";
      }>
    >;
  }, z.core.$strip>,
  z.ZodObject<{
    removed: z.ZodNumber;
    target: z.ZodString;
  }, z.core.$strip>
> = defineTool({
  name: "clear_cache",
  title: "Clear cache",
  description:
    "Removes cached search answers, pages or crawl manifests (or all of them) so the next call reads fresh from the web.",
  input: z.object({
    target: z.enum(["search", "pages", "crawl", "all"]).default("all").describe("What to clear"),
  }),
  output: z.object({ removed: z.number().int(), target: z.string() }),
  http: { path: "/v1/cache/clear" },
  readOnly: false,
  openWorld: false,
  handler: async (input, { gleaner }) => {
    const result = await gleaner.store.cache.clear(input.target);
    return { removed: result.removed, target: input.target };
  },
  render: (out) =>
    `Removed ${out.removed} cached ${out.target === "all" ? "entries" : out.target + " entries"}.`,
});
