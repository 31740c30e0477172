/**
 * Output schemas shared by the tools that return evidence.
 *
 * @module
 */
import { z } from "zod";

/** A passage of original page text. */
export const EvidenceSchema = z.object({
  text: z.string().describe("Original page text, unedited"),
  url: z.string(),
  title: z.string(),
  headings: z.array(z.string()).describe("Heading path above the passage"),
  start: z.number().int().describe("Character offset of the passage in the page Markdown"),
  end: z.number().int(),
  score: z.number(),
  relevance: z.enum(["high", "medium", "low"]),
  query: z.string(),
});

/** A link worth following. */
export const LinkSchema = z.object({ url: z.string(), text: z.string() });

/** A failure of one item, with its stable code. */
export const ItemErrorSchema = z.object({ code: z.string(), message: z.string() });

/** How the passages were ranked. */
export const RankingSchema = z.enum(["hybrid+rerank", "bm25+rerank", "hybrid", "bm25", "none"]);
