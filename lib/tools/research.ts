/**
 * The `research` tool: search, pick the pages worth reading, read them
 * concurrently, rank passages across all of them and return one evidence
 * packet inside a token budget.
 *
 * @module
 */
import { z } from "zod";
import { renderEvidence } from "../rank/render.ts";
import { AttemptSchema } from "./search.ts";
import { EvidenceSchema, ItemErrorSchema, RankingSchema } from "./schemas.ts";
import { defineTool, lazyHandler, type ToolSpec } from "./spec.ts";

/** Input of `research`. */
export const ResearchInput: z.ZodObject<{
  query: z.ZodString;
  max_results: z.ZodDefault<z.ZodNumber>;
  max_pages: z.ZodDefault<z.ZodNumber>;
  max_tokens: z.ZodOptional<z.ZodNumber>;
  domains: z.ZodOptional<z.ZodArray<z.ZodString>>;
  time_range: z.ZodOptional<
    z.ZodEnum<{
      day: "day";
      week: "week";
      month: "month";
      year: "year";
    }>
  >;
  language: z.ZodOptional<z.ZodString>;
}, z.core.$strict> = z.strictObject({
  query: z.string().trim().min(1).max(500).describe("The question to research"),
  max_results: z.number().int().min(1).max(20).default(10).describe("Search results to consider"),
  max_pages: z.number().int().min(1).max(10).default(5).describe("Pages to read"),
  max_tokens: z.number().int().min(100).max(50_000).optional().describe(
    "Token budget of the evidence (default 4000)",
  ),
  domains: z.array(z.string().min(1)).max(20).optional().describe(
    "Only use these domains (subdomains included)",
  ),
  time_range: z.enum(["day", "week", "month", "year"]).optional(),
  language: z.string().min(2).max(10).optional(),
});

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
});

/** The tool definition. */
export const researchTool: ToolSpec<typeof ResearchInput, typeof ResearchOutput> = defineTool({
  name: "research",
  title: "Research a question",
  description:
    "Answers a question from the web in one call: searches, reads the best pages concurrently, and returns only the original passages that answer it (each with its URL), ranked across all pages within `max_tokens`. Prefer this over search + scrape_urls when you need facts, not links.",
  input: ResearchInput,
  output: ResearchOutput,
  http: { path: "/v1/research" },
  readOnly: true,
  openWorld: true,
  handler: lazyHandler(() => import("./handlers/research.ts").then((m) => m.research)),
  render: (out) => {
    const parts = [out.evidence.length ? renderEvidence(out.evidence) : "(no passage matched)"];
    for (const f of out.failed) parts.push(`! ${f.url}: ${f.code}: ${f.message}`);
    return parts.join("\n\n");
  },
});
