/**
 * The `research` tool: search, pick the pages worth reading, read them
 * concurrently, rank passages across all of them and return one evidence
 * packet inside a token budget.
 *
 * @module
 */
import { z } from "zod";
import { readAll } from "../evidence/read_all.ts";
import { gatherEvidence } from "../evidence/gather.ts";
import { canonicalKey, pickPages } from "../evidence/pick.ts";
import { renderEvidence } from "../rank/select.ts";
import type { Page } from "../read/types.ts";
import { AttemptSchema } from "./search.ts";
import { EvidenceSchema, ItemErrorSchema, RankingSchema } from "./schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

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
  handler: async (input, { gleaner, signal, progress }) => {
    const { config } = gleaner;
    const maxTokens = input.max_tokens ?? config.rank.max_tokens;
    const total = input.max_pages + 2;
    progress?.({ progress: 0, total, message: "searching" });
    const { results, attempts } = await gleaner.search.search({
      query: input.query,
      max_results: input.max_results,
      domains: input.domains,
      time_range: input.time_range,
      language: input.language,
      signal,
    });
    const perDomain = input.domains?.length ? Infinity : 2;
    const candidates = pickPages(results.map((r) => r.url), perDomain);
    progress?.({
      progress: 1,
      total,
      message: `found ${results.length} results, reading ${
        Math.min(candidates.length, input.max_pages)
      } pages`,
    });

    const pages: Page[] = [];
    const failed: { url: string; code: string; message: string }[] = [];
    const seen = new Set<string>();
    let next = 0;
    let done = 0;
    // Read in rounds: a page that fails is replaced by the next candidate.
    while (pages.length < input.max_pages && next < candidates.length) {
      const batch = candidates.slice(next, next + (input.max_pages - pages.length));
      next += batch.length;
      const reads = await readAll(gleaner.reader, batch, (url) => ({ url }), {
        concurrency: config.read.concurrency,
        signal,
        onRead: (url) =>
          progress?.({
            progress: 1 + Math.min(++done, input.max_pages),
            total,
            message: `read ${url}`,
          }),
      });
      for (const read of reads) {
        if (read.page) {
          const key = canonicalKey(read.page.canonical ?? read.page.finalUrl);
          if (seen.has(key)) continue;
          seen.add(key);
          pages.push(read.page);
        } else failed.push({ url: read.item, code: read.error.code, message: read.error.message });
      }
    }
    const packet = await gatherEvidence({
      reads: pages.map((page) => ({ page, query: input.query })),
      maxTokens,
      rank: config.rank,
      embeddingCache: gleaner.store.embeddings,
      expander: await gleaner.expander(),
      embedder: pages.length ? await gleaner.embedder() : undefined,
      signal,
    });
    progress?.({ progress: total, total, message: "ranked" });
    return {
      query: input.query,
      evidence: packet.items,
      sources: pages.map((p) => ({ url: p.finalUrl, title: p.title, tier: p.tier })),
      failed,
      attempts,
      ranking: pages.length ? packet.ranking : "none",
      ...(packet.rerankError ? { ranking_note: packet.rerankError } : {}),
      tokens: packet.tokens,
      page_tokens: packet.pageTokens,
    };
  },
  render: (out) => {
    const parts = [out.evidence.length ? renderEvidence(out.evidence) : "(no passage matched)"];
    for (const f of out.failed) parts.push(`! ${f.url}: ${f.code}: ${f.message}`);
    return parts.join("\n\n");
  },
});
