/**
 * The settings of the `MemoryService` and their defaults, and the
 * resolved form every part of the service (save, recall, re-embed) reads.
 *
 * @module
 */
import { GROUP_COMMIT_MAX_ROWS } from "./group_commit.ts";
import type { Embedder } from "../embed/types.ts";

/**
 * Default cosine at or above which a new memory is saved with a `similar_to`
 * notice naming its nearest memory (`memory.review_similarity`). No cosine
 * ever skips a memory: only the same text (see `normalizeMemoryText`)
 * is a duplicate.
 */
export const SIMILAR_SIMILARITY = 0.8;
/**
 * Default cosine at or above which a `similar_to` notice calls the memory a
 * near-duplicate (`near_duplicate: true`; `memory.duplicate_similarity`).
 */
export const DUPLICATE_SIMILARITY = 0.95;
/** Default length in tokens over which content is saved with a "consider splitting" notice. */
export const SPLIT_TOKENS = 800;
/** Default token budget of a recall (episodic memories; `memory.recall_budget`). */
export const DEFAULT_MAX_TOKENS = 2_000;
/** Default token budget of the profile pool. */
export const DEFAULT_PROFILE_MAX_TOKENS = 500;
/** Default RRF constant (`memory.rrf_k`). */
export const RRF_K = 60;
/** Fewest vector candidates a recall fuses (else 2 × `top_k`). */
export const DENSE_DEPTH = 40;
/** Default {@link MemoryServiceOptions.contextAfter}. */
const CONTEXT_AFTER = 2;
/** Default {@link MemoryServiceOptions.contextBefore}. */
const CONTEXT_BEFORE = 2;
/**
 * Default {@link MemoryServiceOptions.contextMaxTokens}: the context's own
 * allowance, so that a default recall of ten conversation turns stays within
 * about 1,000 tokens (chosen by cross-validation on locomo-dev, `deno task
 * bench locomo --cv`), rather than filling the whole budget with neighbours.
 */
const CONTEXT_MAX_TOKENS = 230;
/** Default {@link MemoryServiceOptions.timeWeight}. */
const TIME_WEIGHT = 3;
/** Default {@link MemoryServiceOptions.authorWeight}. */
const AUTHOR_WEIGHT = 1;

/** Options of `MemoryService`. */
export interface MemoryServiceOptions {
  /**
   * The embedder (loaded lazily); without one, recall is BM25 alone and
   * near-duplicates go unflagged (true duplicates are still found).
   */
  embedder?: () => Promise<Embedder | undefined>;
  /** Token budget of the profile pool (default 500). */
  profileMaxTokens?: number;
  /** Weight of the dense ranking (default 0.5); BM25 gets `1 - dense_weight`. */
  denseWeight?: number;
  /**
   * Vector candidates below this cosine are dropped (default: 0.4 for the
   * static model, whose unrelated texts still score 0.2–0.3, else 0.2).
   */
  denseMinSimilarity?: number;
  /** Fused scores below this are dropped (default 0). */
  minScore?: number;
  /** Fewest vector candidates a recall fuses, else 2 × `top_k` (default {@link DENSE_DEPTH}). */
  denseDepth?: number;
  /** Cosine from which a `similar_to` notice is sent (default {@link SIMILAR_SIMILARITY}). */
  reviewSimilarity?: number;
  /**
   * Cosine from which a `similar_to` notice says `near_duplicate: true`
   * (default {@link DUPLICATE_SIMILARITY}); the memory is saved all the same.
   */
  duplicateSimilarity?: number;
  /** Tokens over which a `consider_splitting` notice is sent (default {@link SPLIT_TOKENS}). */
  splitTokens?: number;
  /** RRF constant of recall (default {@link RRF_K}). */
  rrfK?: number;
  /** Token budget of a recall without `max_tokens` (default {@link DEFAULT_MAX_TOKENS}). */
  recallBudget?: number;
  /**
   * Share of recall frequency in recall's ranking (default 0: the query
   * alone). The matches are ordered by `(1 - accessWeight) × fused score +
   * accessWeight × recall_count / (highest recall_count among the matches)`;
   * scores, relevance labels and `min_score` stay the query's.
   */
  accessWeight?: number;
  /**
   * How much a memory said by an author the query names gains (default
   * {@link AUTHOR_WEIGHT}): its fused score is multiplied by `1 + authorWeight`
   * for the ranking (scores stay the query's); 0 turns it off.
   */
  authorWeight?: number;
  /**
   * How much a memory whose `occurred_at` falls in the time the query names
   * ("in May 2023", "on 3 May, 2023", "last week") gains (default
   * {@link TIME_WEIGHT}): its fused score is multiplied by `1 + timeWeight`
   * for the ranking; 0 turns it off.
   */
  timeWeight?: number;
  /**
   * Memories saved just after each recalled conversation turn (a memory
   * saved with an `author` and a session) in its session attached to it as
   * context while the budget allows (default {@link CONTEXT_AFTER}); 0 attaches none.
   */
  contextAfter?: number;
  /** Memories saved just before each recalled conversation turn attached as context (default {@link CONTEXT_BEFORE}). */
  contextBefore?: number;
  /**
   * Tokens the context of a recall may use at most, within its budget
   * (default {@link CONTEXT_MAX_TOKENS}); 0 attaches none.
   */
  contextMaxTokens?: number;
  /** Memories per re-embed batch (default 64). */
  reembedBatch?: number;
  /**
   * Most rows the saves running at once commit in one transaction (group
   * commit, default {@link GROUP_COMMIT_MAX_ROWS}); 1 commits each save alone.
   */
  groupCommitRows?: number;
  /** Clock (ms since the epoch). */
  now?: () => number;
}

/** {@link MemoryServiceOptions} with every default filled in. */
export type ResolvedMemoryOptions =
  & Required<Omit<MemoryServiceOptions, "embedder" | "denseMinSimilarity">>
  & {
    embedder?: MemoryServiceOptions["embedder"];
    denseMinSimilarity?: number;
  };

/** Fills in the defaults of `options`. */
export function resolveMemoryOptions(options: MemoryServiceOptions = {}): ResolvedMemoryOptions {
  return {
    embedder: options.embedder,
    profileMaxTokens: options.profileMaxTokens ?? DEFAULT_PROFILE_MAX_TOKENS,
    denseWeight: options.denseWeight ?? 0.5,
    denseMinSimilarity: options.denseMinSimilarity,
    minScore: options.minScore ?? 0,
    denseDepth: options.denseDepth ?? DENSE_DEPTH,
    reviewSimilarity: options.reviewSimilarity ?? SIMILAR_SIMILARITY,
    duplicateSimilarity: options.duplicateSimilarity ?? DUPLICATE_SIMILARITY,
    splitTokens: options.splitTokens ?? SPLIT_TOKENS,
    rrfK: options.rrfK ?? RRF_K,
    recallBudget: options.recallBudget ?? DEFAULT_MAX_TOKENS,
    accessWeight: options.accessWeight ?? 0,
    authorWeight: options.authorWeight ?? AUTHOR_WEIGHT,
    timeWeight: options.timeWeight ?? TIME_WEIGHT,
    contextAfter: options.contextAfter ?? CONTEXT_AFTER,
    contextBefore: options.contextBefore ?? CONTEXT_BEFORE,
    contextMaxTokens: options.contextMaxTokens ?? CONTEXT_MAX_TOKENS,
    reembedBatch: options.reembedBatch ?? 64,
    groupCommitRows: options.groupCommitRows ?? GROUP_COMMIT_MAX_ROWS,
    now: options.now ?? Date.now,
  };
}
