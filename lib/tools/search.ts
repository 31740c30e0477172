/**
 * The `search` tool: web search for up to five queries at once, keyless by default.
 *
 * @module
 */
import { z } from "zod";
import type { Config } from "../config/config.ts";
import { toGleanerError } from "../errors.ts";
import { type TimeRangeSchema, timeRangeSchema } from "../search/time_range.ts";
import { type QualityFacts, qualityFacts, qualityShape } from "./quality_schemas.ts";
import { withListingVariant } from "./listing_key.ts";
import { FallbackSchema, noteLines } from "./role_schemas.ts";
import { ItemErrorSchema } from "./schemas.ts";
import { defineTool, type ToolContext, type ToolSpec } from "./spec.ts";
import { boundText } from "../search/bounds.ts";
import { searxngProvider } from "../search/providers/searxng.ts";

/** The shape of one query of a `search` call. */
export type SearchItemShape = {
  query: z.ZodString;
  domains: z.ZodOptional<z.ZodArray<z.ZodString>>;
  time_range: z.ZodOptional<
    TimeRangeSchema
  >;
  language: z.ZodOptional<z.ZodString>;
  max_results: z.ZodOptional<z.ZodNumber>;
  domain_profile: z.ZodOptional<z.ZodString>;
  expand: z.ZodOptional<z.ZodBoolean>;
  category: z.ZodOptional<
    z.ZodEnum<{ general: "general"; news: "news"; it: "it"; science: "science" }>
  >;
  engines: z.ZodOptional<z.ZodArray<z.ZodString>>;
  fetch_count: z.ZodOptional<z.ZodNumber>;
};

/**
 * What a configuration changes in the input of `search`, and all it changes: the quality
 * arguments' facts, and whether SearXNG is configured (its per-call controls).
 */
interface SearchFacts extends QualityFacts {
  searxng: boolean;
}

/** One query of a `search` call, for a configuration's facts (see {@link qualityShape}). */
function searchItemInput(facts?: SearchFacts): z.ZodObject<SearchItemShape, z.core.$strict> {
  return z.strictObject({
    ...searchItemBase(),
    ...qualityShape(facts),
    ...searxngShape(facts),
  }) as z.ZodObject<SearchItemShape, z.core.$strict>;
}

/** SearXNG's per-call controls: in the library's definition, and for a configuration with SearXNG. */
function searxngShape(facts?: SearchFacts): Pick<SearchItemShape, "category" | "engines"> | object {
  if (facts && !facts.searxng) return {};
  return {
    category: z.enum(["general", "news", "it", "science"]).optional().describe(
      "SearXNG category (news also asks news indexes)",
    ),
    engines: z.array(z.string().regex(/^[a-z0-9_ .-]{1,40}$/i)).min(1).max(10).optional()
      .describe("SearXNG engines to ask"),
  };
}

/** The input of `search` for a configuration's facts: its profiles, `expand` only with a model. */
function searchInputFor(facts?: SearchFacts): typeof SearchInput {
  return z.strictObject({
    items: z.array(searchItemInput(facts)).min(1).max(5),
    no_cache: z.boolean().optional().describe("Skip cached answers"),
  });
}

const searchItemBase = () => ({
  query: z.string().max(2000),
  domains: z.array(z.string()).max(20).optional().describe("Only these sites"),
  time_range: timeRangeSchema().optional(),
  language: z.string().min(2).max(10).optional().describe("e.g. en, de-de"),
  max_results: z.number().int().min(1).max(20).optional(),
  // Reads the top results whole (the name says it; a description would cost every session).
  fetch_count: z.number().int().min(1).max(MAX_FETCH_COUNT).optional(),
});

/** Most results one `search` query reads whole (`fetch_count`). */
const MAX_FETCH_COUNT = 3;

/** Longest page text a `fetch_count` read returns (characters; cut with a marker). */
const FETCHED_PAGE_MAX_CHARS = 40_000;

/** One query of a `search` call (any profile name and `expand` accepted, checked on the call). */
export const SearchItemInput: z.ZodObject<SearchItemShape, z.core.$strict> = searchItemInput();

/** Input of `search`. */
export const SearchInput: z.ZodObject<{
  items: z.ZodArray<
    typeof SearchItemInput
  >;
  no_cache: z.ZodOptional<z.ZodBoolean>;
}, z.core.$strict> = z.strictObject({
  items: z.array(SearchItemInput).min(1).max(5),
  no_cache: z.boolean().optional().describe("Skip cached answers"),
});

/** One search result. */
export const SearchResultSchema: z.ZodObject<{
  title: z.ZodString;
  url: z.ZodString;
  snippet: z.ZodString;
  published: z.ZodOptional<z.ZodString>;
  source: z.ZodString;
}, z.core.$strip> = z.object({
  title: z.string(),
  url: z.string(),
  snippet: z.string(),
  published: z.string().optional(),
  source: z.string().describe("Backend that found it"),
});

/** A result read whole (`fetch_count`). */
export const FetchedPageSchema: z.ZodObject<{
  url: z.ZodString;
  title: z.ZodOptional<z.ZodString>;
  markdown: z.ZodString;
  error: z.ZodOptional<z.ZodObject<{ code: z.ZodString; message: z.ZodString }, z.core.$strip>>;
}, z.core.$strip> = z.object({
  url: z.string(),
  title: z.string().optional(),
  markdown: z.string().describe("The whole page as Markdown (at most 40,000 characters)"),
  error: ItemErrorSchema.optional(),
});

/** One upstream attempt. */
export const AttemptSchema: z.ZodObject<{
  backend: z.ZodString;
  outcome: z.ZodEnum<{
    rate_limited: "rate_limited";
    ok: "ok";
    empty: "empty";
    blocked: "blocked";
    unavailable: "unavailable";
    invalid: "invalid";
  }>;
  ms: z.ZodNumber;
}, z.core.$strip> = z.object({
  backend: z.string(),
  outcome: z.enum(["ok", "empty", "blocked", "rate_limited", "unavailable", "invalid"]),
  ms: z.number(),
});

/** Output of `search`. */
export const SearchOutput: z.ZodObject<{
  items: z.ZodArray<
    z.ZodObject<{
      query: z.ZodString;
      results: z.ZodArray<
        typeof SearchResultSchema
      >;
      attempts: z.ZodArray<
        typeof AttemptSchema
      >;
      provider: z.ZodOptional<z.ZodString>;
      fallback_from: z.ZodOptional<
        z.ZodArray<
          typeof FallbackSchema
        >
      >;
      cached: z.ZodOptional<z.ZodBoolean>;
      age_s: z.ZodOptional<z.ZodNumber>;
      notices: z.ZodOptional<z.ZodArray<z.ZodString>>;
      rewritten_query: z.ZodOptional<z.ZodString>;
      reranked: z.ZodOptional<z.ZodBoolean>;
      pages: z.ZodOptional<z.ZodArray<typeof FetchedPageSchema>>;
      error: z.ZodOptional<
        z.ZodObject<{
          code: z.ZodString;
          message: z.ZodString;
        }, z.core.$strip>
      >;
    }, z.core.$strip>
  >;
}, z.core.$strip> = z.object({
  items: z.array(z.object({
    query: z.string(),
    results: z.array(SearchResultSchema),
    attempts: z.array(AttemptSchema),
    provider: z.string().optional().describe(
      "The provider that answered (keyless engines asked together: their names joined by +)",
    ),
    fallback_from: z.array(FallbackSchema).optional().describe(
      "Providers that failed first, with their codes",
    ),
    cached: z.boolean().optional().describe("True when answered from the cache"),
    age_s: z.number().optional().describe("Age of a cached answer in seconds"),
    notices: z.array(z.string()).optional().describe(
      "What changed on the way: a configured provider that could not be used (and the setting to fix), the provider fitting the request to its limits, a failed reranker or query rewrite",
    ),
    rewritten_query: z.string().optional().describe(
      "The query the language model wrote and the providers were asked (`expand`)",
    ),
    reranked: z.boolean().optional().describe(
      "With a configured reranker: true when its order was used, false when it failed (provider order kept)",
    ),
    pages: z.array(FetchedPageSchema).optional().describe(
      "The top results read whole (`fetch_count`), in order; a page that could not be read has `error`",
    ),
    error: ItemErrorSchema.optional(),
  })),
});

/**
 * The `search` tool for a configuration: `domain_profile` lists its
 * profiles, and `expand` is offered only with a language model (`llm.*`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { searchToolFor } from "./search.ts";
 * const tool = searchToolFor(parseConfig({}));
 * console.assert(!tool.input.safeParse({ items: [{ query: "x", expand: true }] }).success);
 * ```
 */
export function searchToolFor(
  config: Config,
): ToolSpec<typeof SearchInput, typeof SearchOutput> {
  const facts = { ...qualityFacts(config), searxng: searxngProvider.isConfigured(config) };
  return withListingVariant({ ...searchTool, input: searchInputFor(facts) }, facts);
}

/** The tool definition. */
export const searchTool: ToolSpec<typeof SearchInput, typeof SearchOutput> = defineTool({
  name: "search",
  scope: "tenant",
  title: "Web search",
  description:
    "Web search, several queries at once: titles, URLs, snippets. For facts, research reads too.",
  input: SearchInput,
  output: SearchOutput,
  http: { path: "/v1/search" },
  readOnly: true,
  openWorld: true,
  handler: async (input, { gleaner, signal }) => {
    const items = await Promise.all(input.items.map(async (item) => {
      try {
        const answer = await gleaner.search.search({
          ...item,
          max_results: item.max_results ?? gleaner.config.search.max_results,
          no_cache: input.no_cache,
          signal,
        });
        return {
          query: item.query,
          results: answer.results.map(({ title, url, snippet, published, source }) => ({
            title,
            url,
            snippet,
            ...(published ? { published } : {}),
            source,
          })),
          attempts: answer.attempts,
          provider: answer.provider,
          fallback_from: answer.fallback_from,
          cached: answer.cached,
          ...(answer.age_s !== undefined ? { age_s: answer.age_s } : {}),
          ...(answer.notices ? { notices: answer.notices } : {}),
          ...(answer.rewritten_query !== undefined
            ? { rewritten_query: answer.rewritten_query }
            : {}),
          ...(answer.reranked !== undefined ? { reranked: answer.reranked } : {}),
          ...(item.fetch_count
            ? { pages: await readTop(answer.results, item.fetch_count, gleaner, signal) }
            : {}),
        };
      } catch (error) {
        const failure = toGleanerError(error, "search");
        const attempts = (failure.details?.attempts ?? []) as z.output<typeof AttemptSchema>[];
        const fallback = failure.details?.fallback_from as
          | z.output<typeof FallbackSchema>[]
          | undefined;
        return {
          query: item.query,
          results: [],
          attempts,
          ...(fallback ? { fallback_from: fallback } : {}),
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
      const notes = [
        ...(item.rewritten_query ? [`searched as: ${item.rewritten_query}`] : []),
        ...noteLines(item.notices),
      ];
      if (item.results.length === 0) return [head, ...notes, "(no results)"].join("\n");
      return [
        head,
        ...notes,
        ...item.results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`),
        ...(item.pages ?? []).map((page) =>
          page.error
            ? `\n## ${page.url}\nerror ${page.error.code}: ${page.error.message}`
            : `\n## ${page.title ?? page.url}\n${page.url}\n\n${page.markdown}`
        ),
      ].join("\n");
    }).join("\n\n"),
});

/** Reads the top `count` results whole through the reading cascade; a failed page fails alone. */
function readTop(
  results: readonly { url: string }[],
  count: number,
  gleaner: ToolContext["gleaner"],
  signal: AbortSignal | undefined,
): Promise<z.output<typeof FetchedPageSchema>[]> {
  return Promise.all(
    results.slice(0, count).map(async ({ url }) => {
      try {
        const page = await gleaner.reader.read({ url, signal });
        return {
          url,
          ...(page.title ? { title: page.title } : {}),
          markdown: boundText(page.markdown, FETCHED_PAGE_MAX_CHARS),
        };
      } catch (error) {
        const failure = toGleanerError(error, url);
        return { url, markdown: "", error: { code: failure.code, message: failure.message } };
      }
    }),
  );
}
