/**
 * The output schema of `search_and_summarize`, apart from its definition so
 * that the handler (loaded on the first call) can name it without importing
 * the definition that loads it.
 *
 * @module
 */
import { z } from "zod";
import { SummarySchema } from "./quality_schemas.ts";
import { researchInputFor, ResearchOutput, type ResearchShape } from "./research_schemas.ts";

/** Pages `search_and_summarize` reads whole for the model by default (`fetch_count`). */
const SUMMARIZE_FETCH_COUNT = 3;
/** Most pages `search_and_summarize` reads whole (`fetch_count`). */
const MAX_SUMMARIZE_FETCH_COUNT = 5;
/** Longest page text the model is given per page read whole (characters; cut with a marker). */
export const SUMMARIZE_PAGE_MAX_CHARS = 20_000;

/** The shape of the `search_and_summarize` input: `research`'s, and `fetch_count`. */
export type SearchAndSummarizeShape = ResearchShape & { fetch_count: z.ZodDefault<z.ZodNumber> };

/**
 * The input of `search_and_summarize` for a configuration: `research`'s (see
 * `researchInputFor`), and how many of the pages read are given whole to the model.
 */
export function searchAndSummarizeInputFor(
  facts?: Parameters<typeof researchInputFor>[0],
): z.ZodObject<SearchAndSummarizeShape, z.core.$strict> {
  return researchInputFor(facts).extend({
    fetch_count: z.number().int().min(1).max(MAX_SUMMARIZE_FETCH_COUNT)
      .default(SUMMARIZE_FETCH_COUNT).describe("Top pages the model reads whole"),
  });
}

/** Input of `search_and_summarize` (any profile name and `expand` accepted, checked on the call). */
export const SearchAndSummarizeInput: z.ZodObject<SearchAndSummarizeShape, z.core.$strict> =
  searchAndSummarizeInputFor();

/** Output of `search_and_summarize`: `research`'s output, plus the generated summary. */
export const SearchAndSummarizeOutput: z.ZodObject<
  typeof ResearchOutput.shape & {
    summary: z.ZodOptional<typeof SummarySchema>;
    summary_error: z.ZodOptional<
      z.ZodObject<{ code: z.ZodString; message: z.ZodString }, z.core.$strip>
    >;
    read_whole: z.ZodOptional<z.ZodArray<z.ZodString>>;
  },
  z.core.$strip
> = ResearchOutput.extend({
  summary: SummarySchema.optional().describe(
    "The model's summary of the evidence: generated text, check it against the evidence",
  ),
  summary_error: z.object({ code: z.string(), message: z.string() }).optional().describe(
    "Why there is no summary (the evidence is still complete)",
  ),
  read_whole: z.array(z.string()).optional().describe(
    "The pages the model read whole beside the passages (`fetch_count`), in order",
  ),
});
