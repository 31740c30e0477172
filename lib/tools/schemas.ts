/**
 * Output schemas shared by the tools that return evidence.
 *
 * @module
 */
import { z } from "zod";

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
