/**
 * The input and output schemas of the `research` tool, apart from its definition so
 * that the handler (loaded on the first call) can name them without
 * importing the definition that loads it.
 *
 * @module
 */
import { z } from "zod";
import { type TimeRangeSchema, timeRangeSchema } from "../search/time_range.ts";
import { type QualityFacts, qualityShape } from "./quality_schemas.ts";
import { AttemptSchema } from "./search.ts";
import { EvidenceSchema, ItemErrorSchema, RankingSchema } from "./schemas.ts";

/** The shape of the `research` input. */
export type ResearchShape = {
  query: z.ZodString;
  max_results: z.ZodOptional<z.ZodNumber>;
  max_pages: z.ZodDefault<z.ZodNumber>;
  max_tokens: z.ZodOptional<z.ZodNumber>;
  domains: z.ZodOptional<z.ZodArray<z.ZodString>>;
  time_range: z.ZodOptional<
    TimeRangeSchema
  >;
  language: z.ZodOptional<z.ZodString>;
  domain_profile: z.ZodOptional<z.ZodString>;
  expand: z.ZodOptional<z.ZodBoolean>;
};

/**
 * The input of `research` (and `search_and_summarize`) for a configuration:
 * its domain profiles, and `expand` only with a language model; without one,
 * any profile name and `expand` (checked on the call).
 */
export function researchInputFor(
  facts?: QualityFacts,
): z.ZodObject<ResearchShape, z.core.$strict> {
  return z.strictObject({
    query: z.string().trim().min(1).max(500).describe("The question"),
    max_results: z.number().int().min(1).max(20).optional().describe(
      "Search results to weigh",
    ),
    max_pages: z.number().int().min(1).max(10).default(5),
    max_tokens: z.number().int().min(100).max(50_000).optional().describe("Default 4000"),
    domains: z.array(z.string().min(1)).max(20).optional().describe(
      "Only these sites (and subdomains)",
    ),
    time_range: timeRangeSchema().optional(),
    language: z.string().min(2).max(10).optional(),
    ...qualityShape(facts),
  });
}

/** Input of `research`. */
export const ResearchInput: z.ZodObject<ResearchShape, z.core.$strict> = researchInputFor();

/** Output of `research`. */
export const ResearchOutput: z.ZodObject<{
  query: z.ZodString;
  evidence: z.ZodArray<
    typeof EvidenceSchema
  >;
  sources: z.ZodArray<
    z.ZodObject<{
      url: z.ZodString;
      title: z.ZodString;
      tier: z.ZodString;
    }, z.core.$strip>
  >;
  failed: z.ZodArray<
    z.ZodObject<{
      url: z.ZodString;
      code: z.ZodString;
      message: z.ZodString;
    }, z.core.$strip>
  >;
  attempts: z.ZodArray<
    typeof AttemptSchema
  >;
  ranking: typeof RankingSchema;
  ranking_note: z.ZodOptional<z.ZodString>;
  tokens: z.ZodNumber;
  page_tokens: z.ZodNumber;
  rewritten_query: z.ZodOptional<z.ZodString>;
  reranked: z.ZodOptional<z.ZodBoolean>;
  notices: z.ZodOptional<z.ZodArray<z.ZodString>>;
}, z.core.$strip> = z.object({
  query: z.string(),
  evidence: z.array(EvidenceSchema),
  sources: z.array(z.object({ url: z.string(), title: z.string(), tier: z.string() })).describe(
    "Pages read",
  ),
  failed: z.array(z.object({ url: z.string() }).extend(ItemErrorSchema.shape)).describe(
    "Pages that could not be read",
  ),
  attempts: z.array(AttemptSchema).describe("Search backends tried"),
  ranking: RankingSchema,
  ranking_note: z.string().optional().describe(
    "Why the configured reranker was not used, when it failed",
  ),
  tokens: z.number().int(),
  page_tokens: z.number().int().describe(
    "Tokens of the whole pages read (what reading them whole would cost)",
  ),
  rewritten_query: z.string().optional().describe(
    "The query the language model wrote and the search was run with (`expand`)",
  ),
  reranked: z.boolean().optional().describe(
    "With a configured result reranker: true when its order was used, false when it failed",
  ),
  notices: z.array(z.string()).optional().describe(
    "What changed on the way: a failed reranker or query rewrite, provider limits",
  ),
});
