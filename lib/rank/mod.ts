/**
 * Ranking and budgeted selection of page text: chunking, BM25, dense
 * ranking with an optional embedder, reciprocal rank fusion, dedupe, token
 * budget.
 *
 * @module
 */
import { Bm25Index, rankOrder } from "./bm25.ts";
import type { Unit } from "../text/chunk.ts";
import { cosine } from "./dedupe.ts";
import { fuseRankings, type Relevance, relevanceOf } from "./fusion.ts";
import type { Embedder } from "../embed/types.ts";
import { rerankTop } from "./rerank.ts";
import { getGleanerLogger } from "../log.ts";

export {
  chunkMarkdown,
  chunkMarkdownPaced,
  type ChunkOptions,
  type Unit,
  wordCount,
} from "../text/chunk.ts";
export { Bm25Index, type Bm25Options, bm25Rank, bm25RankPaced, stem, tokenize } from "./bm25.ts";
export { fuseRankings, type Relevance, relevanceOf, type WeightedRanking } from "./fusion.ts";
export { cosine, dedupe, type DedupeOptions, jaccard, tokenSet } from "./dedupe.ts";
export { countTokens } from "../text/tokens.ts";
export {
  createQueryExpander,
  type ExpanderOptions,
  expanderOptions,
  loadQueryExpander,
  type QueryExpander,
} from "./expand.ts";
export { type RerankOptions, rerankTop } from "./rerank.ts";
export {
  type Candidate,
  type EvidenceItem,
  type EvidenceSource,
  pageInOrder,
  type PageSlice,
  type QueryGroup,
  selectEvidence,
  type Selection,
  type SelectOptions,
} from "./select.ts";
export { renderEvidence } from "./render.ts";

/** A unit with its fused 0..1 score. */
export interface RankedUnit {
  /** The unit. */
  unit: Unit;
  /** Fused score, 1.0 for a unit ranked first by every ranker. */
  score: number;
  /** Label of the score. */
  relevance: Relevance;
  /** The unit's embedding, when a dense ranking was made. */
  vector?: Float32Array;
}

/** Options of {@link rankUnits}. */
export interface RankOptions {
  /** Embedder for the dense ranking (hybrid); without it, BM25 alone. */
  embedder?: Embedder;
  /** Unit vectors already computed (same order as units); the embedder then embeds only the query. */
  vectors?: (Float32Array | undefined)[];
  /** Query vector already computed. */
  queryVector?: Float32Array;
  /** Weight of the BM25 ranking (default 0.5). */
  bm25Weight?: number;
  /** Weight of the dense ranking (default 0.5; config `rank.dense_weight`). */
  denseWeight?: number;
  /** RRF constant (default 60, config `rank.rrf_k`). */
  rrfK?: number;
  /**
   * The lexical guarantee of a hybrid ranking (config `rank.lexical_anchor`; default 0 here:
   * off):
   * the unit that holds the largest share of the query's words, weighted by their rarity
   * ({@link Bm25Index.coverage}), goes first when that share reaches this value, so no
   * dense-only neighbour pushes a passage asked for in its own words out of a small budget.
   */
  lexicalAnchor?: number;
  /** Extra BM25 query words with their weights (see `expand.ts`). */
  expansion?: ReadonlyMap<string, number>;
  /** Cancels embedding calls. */
  signal?: AbortSignal;
  /**
   * Second stage of the cascade: an encoder that reorders the top units of the
   * first stage (see {@link rerankTop}). If it fails, the first stage's order is kept.
   */
  rerank?: {
    embedder: Embedder;
    topK?: number;
    weight?: number;
    /** The query's vector from `embedder` (or its promise), when the caller started it early. */
    queryVector?: Float32Array | Promise<Float32Array>;
  };
}

/** How units were ranked. */
export type Ranking = "bm25" | "hybrid" | "bm25+rerank" | "hybrid+rerank";

/** Result of {@link rankUnits}. */
export interface RankResult {
  /** Units with any evidence of relevance, best first. */
  ranked: RankedUnit[];
  /** `hybrid` when a dense ranking was fused, else `bm25`; `+rerank` when the second stage ran. */
  ranking: Ranking;
  /** Why the reranker was skipped, when it was asked for and failed. */
  rerankError?: string;
}

const log = getGleanerLogger("rank");

function usable(v: Float32Array | undefined): v is Float32Array {
  if (!v || v.length === 0) return false;
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
  return Number.isFinite(norm) && norm > 0;
}

/**
 * Ranks units for a query: BM25 (with the query's `expansion` words, if
 * given), fused (weighted RRF) with a dense cosine ranking when an embedder or
 * vectors are given. If the embedder fails the
 * ranking falls back to BM25 and says so (`ranking: "bm25"`).
 *
 * @example
 * ```ts
 * import { chunkMarkdown, rankUnits } from "./mod.ts";
 * const units = chunkMarkdown("Tides follow the Moon.\n\n## Food\n\nBread needs yeast.");
 * const { ranked, ranking } = await rankUnits("moon tides", units);
 * console.assert(ranking === "bm25" && ranked[0].unit.text === "Tides follow the Moon.");
 * console.assert(ranked[0].score === 1 && ranked[0].relevance === "high");
 * ```
 */
export async function rankUnits(
  query: string,
  units: readonly Unit[],
  options: RankOptions = {},
): Promise<RankResult> {
  // Indexed in paced steps: a server keeps answering while a huge page is ranked.
  const index = await Bm25Index.paced(units.map((u) => u.text));
  const bm25 = rankOrder(index.score(query, options.expansion));
  const bm25Weight = options.bm25Weight ?? 0.5;
  const denseWeight = options.denseWeight ?? 0.5;
  let vectors = options.vectors;
  let queryVector = options.queryVector;
  let dense: number[] | undefined;
  if (units.length && denseWeight > 0 && (options.embedder || (vectors && queryVector))) {
    try {
      if (!queryVector && options.embedder) {
        [queryVector] = await options.embedder.embedQueries([query], options.signal);
      }
      if (options.embedder && (!vectors || vectors.length !== units.length)) {
        vectors = await options.embedder.embedDocuments(units.map((u) => u.text), options.signal);
      }
      if (usable(queryVector) && vectors) {
        dense = units.map((_, i) => [cosine(queryVector, vectors![i]), i] as const)
          .filter(([s, i]) => usable(vectors![i]) && s > 0)
          .sort((a, b) => b[0] - a[0] || a[1] - b[1])
          .map(([, i]) => i);
        if (dense.length === 0) dense = undefined;
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
      log.warn("dense ranking failed, using BM25 alone: {error}", { error: String(error) });
      dense = undefined;
      vectors = undefined;
    }
  }
  const rankings = [{ order: bm25, weight: dense ? bm25Weight : 1 }];
  if (dense) rankings.push({ order: dense, weight: denseWeight });
  let fused = fuseRankings(rankings, options.rrfK ?? 60);
  let ranking: Ranking = dense ? "hybrid" : "bm25";
  let rerankError: string | undefined;
  if (options.rerank && fused.length > 1) {
    try {
      fused = (await rerankTop(query, fused, (f) => units[f.key].text, {
        embedder: options.rerank.embedder,
        topK: options.rerank.topK,
        weight: options.rerank.weight,
        queryVector: options.rerank.queryVector,
        rrfK: options.rrfK,
        signal: options.signal,
      })).map(({ item, score }) => ({ key: item.key, score }));
      ranking = dense ? "hybrid+rerank" : "bm25+rerank";
    } catch (error) {
      if (options.signal?.aborted) throw error;
      rerankError = error instanceof Error ? error.message : String(error);
      log.warn("reranking failed, keeping the first-stage order: {error}", { error: rerankError });
    }
  }
  if (dense && (options.lexicalAnchor ?? 0) > 0) {
    fused = anchorFirst(
      fused,
      lexicalAnchorOf(index.coverage(query), bm25, options.lexicalAnchor!),
    );
  }
  return {
    ranked: fused.map(({ key, score }) => ({
      unit: units[key],
      score,
      relevance: relevanceOf(score),
      vector: dense && vectors ? vectors[key] : undefined,
    })),
    ranking,
    ...(rerankError ? { rerankError } : {}),
  };
}

/**
 * The unit holding the largest share of the query's weight (first in BM25 order among equals),
 * when that share is at least `least`.
 */
function lexicalAnchorOf(
  coverage: readonly number[],
  bm25: readonly number[],
  least: number,
): number | undefined {
  let best: number | undefined;
  for (const i of bm25) {
    if (coverage[i] >= least && (best === undefined || coverage[i] > coverage[best])) best = i;
  }
  return best;
}

/** `fused` with `key` moved first, scoring as the first did. */
function anchorFirst(
  fused: { key: number; score: number }[],
  key: number | undefined,
): { key: number; score: number }[] {
  const at = key === undefined ? -1 : fused.findIndex((f) => f.key === key);
  if (at <= 0) return fused;
  const anchor = { key: key!, score: Math.max(fused[at].score, fused[0].score) };
  return [anchor, ...fused.slice(0, at), ...fused.slice(at + 1)];
}
