/**
 * The input and output schemas of the `scrape_urls` tool, apart from its definition so
 * that the handler (loaded on the first call) can name them without
 * importing the definition that loads it.
 *
 * @module
 */
import { z } from "zod";
import {
  EvidenceSchema,
  ItemErrorSchema,
  LinkSchema,
  RankingSchema,
  TargetSelectorSchema,
  WaitForSelectorSchema,
} from "./schemas.ts";

/** Input of `scrape_urls`. */
export const ScrapeInput: z.ZodObject<{
  items: z.ZodArray<
    z.ZodObject<{
      url: z.ZodString;
      query: z.ZodOptional<z.ZodString>;
      target_selector: z.ZodOptional<z.ZodString>;
      wait_for_selector: z.ZodOptional<z.ZodString>;
    }, z.core.$strict>
  >;
  max_tokens: z.ZodOptional<z.ZodNumber>;
  render: z.ZodOptional<
    z.ZodEnum<{
      never: "never";
      auto: "auto";
      always: "always";
    }>
  >;
  max_age: z.ZodOptional<z.ZodNumber>;
  no_cache: z.ZodOptional<z.ZodBoolean>;
}, z.core.$strict> = z.strictObject({
  items: z.array(z.strictObject({
    url: z.string().max(4096),
    query: z.string().max(500).optional().describe("What you want from the page"),
    target_selector: TargetSelectorSchema.optional(),
    wait_for_selector: WaitForSelectorSchema.optional(),
  })).min(1).max(5),
  max_tokens: z.number().int().min(50).max(50_000).optional().describe(
    "Shared by all items (default 4000)",
  ),
  render: z.enum(["never", "auto", "always"]).optional().describe(
    "Headless browser; auto: when the page needs JavaScript",
  ),
  max_age: z.number().int().min(0).optional().describe("Seconds a cached page may be old"),
  no_cache: z.boolean().optional().describe("Read fresh"),
});

/** Output of `scrape_urls`. */
export const ScrapeOutput: z.ZodObject<{
  items: z.ZodArray<
    z.ZodObject<{
      url: z.ZodString;
      ok: z.ZodBoolean;
      final_url: z.ZodOptional<z.ZodString>;
      title: z.ZodOptional<z.ZodString>;
      tier: z.ZodOptional<z.ZodString>;
      published: z.ZodOptional<z.ZodString>;
      archived_at: z.ZodOptional<z.ZodString>;
      original_url: z.ZodOptional<z.ZodString>;
      page_tokens: z.ZodOptional<z.ZodNumber>;
      truncated: z.ZodOptional<z.ZodBoolean>;
      links: z.ZodOptional<
        z.ZodArray<
          z.ZodObject<{
            url: z.ZodString;
            text: z.ZodString;
          }, z.core.$strip>
        >
      >;
      error: z.ZodOptional<
        z.ZodObject<{
          code: z.ZodString;
          message: z.ZodString;
        }, z.core.$strip>
      >;
    }, z.core.$strip>
  >;
  evidence: z.ZodArray<
    typeof EvidenceSchema
  >;
  ranking: typeof RankingSchema;
  ranking_note: z.ZodOptional<z.ZodString>;
  tokens: z.ZodNumber;
}, z.core.$strip> = z.object({
  items: z.array(z.object({
    url: z.string(),
    ok: z.boolean(),
    final_url: z.string().optional(),
    title: z.string().optional(),
    tier: z.string().optional().describe("Which reader produced the page"),
    published: z.string().optional(),
    archived_at: z.string().optional().describe(
      "Set when the page was read from a stored copy (tier wayback, or hister: the browsing history): when it was taken",
    ),
    original_url: z.string().optional().describe(
      "Set with archived_at: the URL the snapshot captured; final_url is the snapshot",
    ),
    page_tokens: z.number().int().optional().describe("Tokens of the whole page Markdown"),
    truncated: z.boolean().optional().describe(
      "True when only the start of a too-large page was read",
    ),
    links: z.array(LinkSchema).optional().describe("Related links on the page, same site first"),
    error: ItemErrorSchema.optional(),
  })),
  evidence: z.array(EvidenceSchema),
  ranking: RankingSchema,
  ranking_note: z.string().optional().describe(
    "Why the configured reranker was not used, when it failed",
  ),
  tokens: z.number().int().describe("Tokens of the evidence text"),
});
