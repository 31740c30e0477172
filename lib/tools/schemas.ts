/**
 * Output schemas shared by the tools that return evidence.
 *
 * @module
 */
import { z } from "zod";
import { SELECTOR_MAX_CHARS, selectorProblem } from "../text/selector_rules.ts";

/** A passage of original page text. */
export const EvidenceSchema: z.ZodObject<{
  text: z.ZodString;
  url: z.ZodString;
  title: z.ZodString;
  headings: z.ZodArray<z.ZodString>;
  start: z.ZodNumber;
  end: z.ZodNumber;
  score: z.ZodNumber;
  relevance: z.ZodEnum<{
    high: "high";
    medium: "medium";
    low: "low";
  }>;
  query: z.ZodString;
  archived_at: z.ZodOptional<z.ZodString>;
  original_url: z.ZodOptional<z.ZodString>;
}, z.core.$strip> = z.object({
  text: z.string().describe("Original page text, unedited"),
  url: z.string(),
  title: z.string(),
  headings: z.array(z.string()).describe("Heading path above the passage"),
  start: z.number().int().describe("Character offset of the passage in the page Markdown"),
  end: z.number().int(),
  score: z.number(),
  relevance: z.enum(["high", "medium", "low"]),
  query: z.string(),
  archived_at: z.string().optional().describe(
    "Set when the passage comes from an archived snapshot, not the live page: when it was taken",
  ),
  original_url: z.string().optional().describe(
    "Set with archived_at: the URL the snapshot captured (cite it as archived)",
  ),
});

/** A link worth following. */
export const LinkSchema: z.ZodObject<{
  url: z.ZodString;
  text: z.ZodString;
}, z.core.$strip> = z.object({ url: z.string(), text: z.string() });

/**
 * A CSS selector argument (`target_selector`, `wait_for_selector`): at most
 * {@link SELECTOR_MAX_CHARS} characters, no markup, no `javascript:`, no
 * `{`/`}`. The reader also parses it (an invalid one fails its item with
 * `invalid_arguments`).
 */
function selectorArg(description: string): z.ZodString {
  return z.string().max(SELECTOR_MAX_CHARS).superRefine((value, ctx) => {
    const problem = selectorProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }).describe(description);
}

/** `target_selector`: keep only the element a CSS selector matches. */
export const TargetSelectorSchema: z.ZodString = selectorArg(
  "CSS selector of the one element to read, e.g. `main table`",
);

/** `wait_for_selector`: render in the browser and wait for a CSS selector. */
export const WaitForSelectorSchema: z.ZodString = selectorArg(
  "CSS selector to wait for in the headless browser before reading",
);

/** A failure of one item, with its stable code. */
export const ItemErrorSchema: z.ZodObject<{
  code: z.ZodString;
  message: z.ZodString;
}, z.core.$strip> = z.object({ code: z.string(), message: z.string() });

/** How the passages were ranked. */
export const RankingSchema: z.ZodEnum<{
  none: "none";
  "hybrid+rerank": "hybrid+rerank";
  "bm25+rerank": "bm25+rerank";
  hybrid: "hybrid";
  bm25: "bm25";
}> = z.enum(["hybrid+rerank", "bm25+rerank", "hybrid", "bm25", "none"]);
