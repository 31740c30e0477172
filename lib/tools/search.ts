/**
 * The `search` tool: web search for up to five queries at once, keyless by default.
 *
 * @module
 */
import { z } from "zod";
import { toGleanerError } from "../errors.ts";
import { defineTool } from "./spec.ts";

/** One query of a `search` call. */
export const SearchItemInput = z.strictObject({
  query: z.string().max(2000).describe(
    "What to search for (an empty or bad query fails its item, not the call)",
  ),
  domains: z.array(z.string()).max(20).optional().describe(
    "Only return results from these domains (subdomains included)",
  ),
  time_range: z.enum(["day", "week", "month", "year"]).optional().describe(
    "Only results from this recent period",
  ),
  language: z.string().min(2).max(10).optional().describe(
    "Language or region code, e.g. en, de-de",
  ),
  max_results: z.number().int().min(1).max(20).default(10).describe("Results to return (1-20)"),
});

/** Input of `search`. */
export const SearchInput = z.strictObject({
  items: z.array(SearchItemInput).min(1).max(5).describe("One to five independent queries"),
});

/** One search result. */
export const SearchResultSchema = z.object({
  title: z.string(),
  url: z.string(),
  snippet: z.string(),
  published: z.string().optional(),
  source: z.string().describe("Backend that found it"),
});

/** One upstream attempt. */
export const AttemptSchema = z.object({
  backend: z.string(),
  outcome: z.enum(["ok", "empty", "blocked", "rate_limited", "unavailable", "invalid"]),
  ms: z.number(),
});

/** A failure of one item (the others still answer). */
export const ItemErrorSchema = z.object({ code: z.string(), message: z.string() });

/** Output of `search`. */
export const SearchOutput = z.object({
  items: z.array(z.object({
    query: z.string(),
    results: z.array(SearchResultSchema),
    attempts: z.array(AttemptSchema),
    error: ItemErrorSchema.optional(),
  })),
});

/** The tool definition. */
export const searchTool = defineTool({
  name: "search",
  title: "Web search",
  description:
    "Searches the web and returns titles, URLs and snippets for up to 5 queries at once. Use `domains` to restrict results to sites you trust. Read promising results with scrape_urls, or use research to search and read in one call.",
  input: SearchInput,
  output: SearchOutput,
  http: { path: "/v1/search" },
  readOnly: true,
  openWorld: true,
  handler: async (input, { gleaner, signal }) => {
    const items = await Promise.all(input.items.map(async (item) => {
      try {
        const { results, attempts } = await gleaner.search.search({ ...item, signal });
        return { query: item.query, results, attempts };
      } catch (error) {
        const failure = toGleanerError(error, "search");
        const attempts = (failure.details?.attempts ?? []) as z.output<typeof AttemptSchema>[];
        return {
          query: item.query,
          results: [],
          attempts,
          error: { code: failure.code, message: failure.message },
        };
      }
    }));
    return { items };
  },
  render: (output) =>
    output.items.map((item) => {
      const head = `# ${item.query}`;
      if (item.error) return `${head}\nerror ${item.error.code}: ${item.error.message}`;
      if (item.results.length === 0) return `${head}\n(no results)`;
      return [
        head,
        ...item.results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`),
      ].join("\n");
    }).join("\n\n"),
});
