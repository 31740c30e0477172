/**
 * The output schema of `search_and_summarize`, apart from its definition so
 * that the handler (loaded on the first call) can name it without importing
 * the definition that loads it.
 *
 * @module
 */
import { z } from "zod";
import { SummarySchema } from "./quality_schemas.ts";
import { ResearchOutput } from "./research_schemas.ts";

/** Output of `search_and_summarize`: `research`'s output, plus the generated summary. */
export const SearchAndSummarizeOutput: z.ZodObject<
  typeof ResearchOutput.shape & {
    summary: z.ZodOptional<typeof SummarySchema>;
    summary_error: z.ZodOptional<
      z.ZodObject<{ code: z.ZodString; message: z.ZodString }, z.core.$strip>
    >;
  },
  z.core.$strip
> = ResearchOutput.extend({
  summary: SummarySchema.optional().describe(
    "The model's summary of the evidence: generated text, check it against the evidence",
  ),
  summary_error: z.object({ code: z.string(), message: z.string() }).optional().describe(
    "Why there is no summary (the evidence is still complete)",
  ),
});
