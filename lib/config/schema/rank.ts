/**
 * The `rank` section: passage selection.
 *
 * @module
 */
import { z } from "zod";
import { shared } from "../setting.ts";

/**
 * Settings of passage selection: shared by every tenant. `unit_min_words` may not exceed
 * `unit_max_words`.
 */
export const RankSchema: z.ZodObject<{
  max_tokens: z.ZodDefault<z.ZodNumber>;
  per_source_share: z.ZodDefault<z.ZodNumber>;
  share_slack: z.ZodDefault<z.ZodNumber>;
  dense_weight: z.ZodDefault<z.ZodNumber>;
  unit_min_words: z.ZodDefault<z.ZodNumber>;
  unit_max_words: z.ZodDefault<z.ZodNumber>;
  rerank: z.ZodDefault<
    z.ZodEnum<{
      none: "none";
      "use-lite": "use-lite";
    }>
  >;
  rerank_top_k: z.ZodDefault<z.ZodNumber>;
  rerank_weight: z.ZodDefault<z.ZodNumber>;
  rerank_max_words: z.ZodDefault<z.ZodNumber>;
  expand_terms: z.ZodDefault<z.ZodNumber>;
  expand_min_similarity: z.ZodDefault<z.ZodNumber>;
  rrf_k: z.ZodDefault<z.ZodNumber>;
  lexical_anchor: z.ZodDefault<z.ZodNumber>;
  dedupe_jaccard: z.ZodDefault<z.ZodNumber>;
  dedupe_cosine: z.ZodDefault<z.ZodNumber>;
  oversample: z.ZodDefault<z.ZodNumber>;
  links_max_tokens: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /** Default token budget of one call. */
  max_tokens: shared(z.number().int().positive().default(4_000), { live: true }),
  /** Share of the budget one source may take while others are relevant. */
  per_source_share: shared(z.number().min(0.05).max(1).default(0.4), { live: true }),
  /**
   * The per-source cap holds only while another source offers a unit scoring at least this
   * fraction of the capped one (0: always holds). Fused scores are close together (rank 10 of
   * one ranking still scores about 0.87), so only a rival within about the top three ranks keeps
   * the cap; measured with `bench/containment.ts` (0.9 → 0.97: +4 points at 500 tokens).
   */
  share_slack: shared(z.number().min(0).max(1).default(0.97), { live: true }),
  /** Weight of the dense ranking in reciprocal rank fusion. */
  dense_weight: shared(z.number().min(0).max(1).default(0.8), { live: true }),
  /**
   * A unit smaller than this many words takes in the next block of its section (doubled, with
   * `unit_max_words`, when ranking is BM25 alone: lexical matching needs more words).
   */
  unit_min_words: shared(z.number().int().positive().default(20), { live: true }),
  /** Units grow up to this many words (see `unit_min_words`). */
  unit_max_words: shared(z.number().int().positive().default(40), { live: true }),
  /**
   * Second stage of the ranking cascade: `use-lite` (Universal Sentence Encoder lite, shipped
   * in npm, TF.js) reorders the top units; better on reworded questions (report half at 1,000
   * tokens: 0.85 against 0.76), but 1–3 s per question on 5 pages never read before, so off by
   * default (`deno task bench rerank`). Passages of pages read before come from the embedding
   * cache, kept in process in front of the store: a new question on them costs about one
   * USE-lite inference of the query (25–35 ms at load 5), started before the first stage runs
   * (and by `scrape_urls` and `research` before they read pages).
   */
  rerank: shared(z.enum(["none", "use-lite"]).default("none")),
  /**
   * Units the reranker reorders. Measured on the tune half (`deno task bench rerank`): 10 or 20
   * change nothing at 1,000 tokens (they all fit the budget anyway), 40 and 80 do (0.84 → 0.90
   * → 0.93).
   */
  rerank_top_k: shared(z.number().int().positive().default(80), { live: true }),
  /** Weight of the reranker's order against the first stage's. */
  rerank_weight: shared(z.number().min(0).max(1).default(0.8), { live: true }),
  /** Words of a unit the reranker reads (its cost grows faster than linearly with length). */
  rerank_max_words: shared(z.number().int().positive().default(64), { live: true }),
  /**
   * Words added to the BM25 query per query word: its nearest words in the static model's
   * vectors, so reworded questions still match the page's vocabulary (0 turns it off).
   */
  expand_terms: shared(z.number().int().min(0).max(64).default(8)),
  /** Least cosine similarity of an added word to the query word it comes from. */
  expand_min_similarity: shared(z.number().min(0).max(1).default(0.4)),
  /** RRF constant. */
  rrf_k: shared(z.number().positive().default(60), { live: true }),
  /**
   * The lexical guarantee of hybrid ranking: the passage holding the largest share of the
   * question's words, each weighted by its rarity over the passages ranked (a word found in none
   * counts as the rarest), goes first when that share reaches this value. A question asked in a
   * passage's own words then keeps the passage however the dense model orders its neighbours.
   * 0 turns it off. Measured with `deno task bench evidence` (every judge, 500 to 2,000 tokens;
   * 0.5 and 0.7 tried): at 0.5, extraction-dev's direct questions 0.966 → 1.0 at 500 tokens and
   * its headline questions 0.701 → 0.718 (0.7: 0.706), the readability questions unchanged;
   * nothing lost anywhere.
   */
  lexical_anchor: shared(z.number().min(0).max(1).default(0.5), { live: true }),
  /** Token-set Jaccard at or above which a unit is a near-copy. */
  dedupe_jaccard: shared(z.number().min(0).max(1).default(0.92), { live: true }),
  /** Cosine at or above which a unit is a paraphrased repeat. */
  dedupe_cosine: shared(z.number().min(0).max(1).default(0.92), { live: true }),
  /** Candidates considered per selected unit. */
  oversample: shared(z.number().min(1).default(3), { live: true }),
  /** Budget for related links. */
  links_max_tokens: shared(z.number().int().min(0).default(300), { live: true }),
}).refine((r) => r.unit_min_words <= r.unit_max_words, {
  message: "must not exceed rank.unit_max_words",
  path: ["unit_min_words"],
});
