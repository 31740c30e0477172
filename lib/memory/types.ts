/**
 * The memory store's contract: the public types every surface returns
 * (memories, save/recall/list inputs and results, notices) and the low-level
 * {@link MemoryBackend} interface a SQL engine implements (SQLite by default,
 * PostgreSQL as an option). Ranking fusion, duplicate detection, budget
 * trimming, notices and rendering live above the backend, in shared code
 * (`service.ts`), so every backend behaves the same.
 *
 * Stability: this file is the contract between backends. Changes are
 * additive only (new optional fields, new methods with a default elsewhere).
 *
 * @module
 */

/** What a memory is about: an event or fact learned (`episodic`) or a standing fact about the user (`profile`). */
export type MemoryKind = "episodic" | "profile";

/**
 * One stored memory, as returned by the backend and by `get_memory`.
 * Timestamps are ISO 8601 strings in UTC with milliseconds
 * (`2026-01-02T03:04:05.678Z`).
 */
export interface Memory {
  /** Numeric id, unique in one user's store; stable across updates. */
  id: number;
  /** Short stable reference (8 Crockford base32 characters, lowercase); stable across updates. */
  ref: string;
  /** The text of the memory. */
  content: string;
  /** Episodic or profile. */
  kind: MemoryKind;
  /** Session the memory was saved in; `null` when saved without one. */
  session_id: string | null;
  /** When first saved. */
  created_at: string;
  /** When the content last changed (equals `created_at` until updated). */
  updated_at: string;
  /** How many recalls returned it. */
  recall_count: number;
  /** When a recall last returned it; `null` if never. */
  last_recalled_at: string | null;
  /**
   * For an old version kept as history: the id of the live memory that
   * replaced it. `null` for live memories (the only ones recalled or listed).
   */
  superseded_by: number | null;
  /** Tokens of `content` (o200k). */
  tokens: number;
  /** Embedder id whose vector is stored for it; `null` while it waits for (re-)embedding. */
  embedding_model: string | null;
  /**
   * When what it tells happened (a conversation turn: when it was said), as
   * given on save; `null` when not given. Both built-in engines always set it.
   */
  occurred_at?: string | null;
  /** Who said or wrote it (a conversation turn's speaker), as given on save; `null` when not given. */
  author?: string | null;
}

// ---------------------------------------------------------------------------
// Notices
// ---------------------------------------------------------------------------

/** Stable codes of the notices a memory tool attaches to its answer. */
export type MemoryNoticeCode =
  /**
   * A new memory was skipped: it says the same as a live one in the same
   * scope (the same text after trimming white space; case and punctuation
   * count).
   */
  | "duplicate"
  /**
   * A new memory was saved but looks like an existing one (cosine ≥
   * `memory.review_similarity`, 0.80; `near_duplicate` from
   * `memory.duplicate_similarity`, 0.95).
   */
  | "similar_to"
  /** Content over `memory.split_tokens` (800) tokens was saved; consider splitting it. */
  | "consider_splitting"
  /** A background re-embed is running (progress and estimate attached). */
  | "reembedding"
  /** No embedder is available: near-duplicates are not flagged and recall ranks with BM25 alone. */
  | "no_embedder"
  /** The token budget cut results. */
  | "budget";

/** A remark attached to a tool answer; never an error. */
export interface MemoryNotice {
  /** Stable code. */
  code: MemoryNoticeCode;
  /** One sentence for humans and models. */
  message: string;
  /** Index of the input item it concerns (save). */
  index?: number;
  /** Ref of the memory it names (the existing one for `duplicate` / `similar_to`). */
  ref?: string;
  /** Cosine similarity (`similar_to`; `duplicate` when the vectors were compared). */
  similarity?: number;
  /**
   * `similar_to`: true when the cosine reaches `memory.duplicate_similarity`
   * (very likely the same fact, saved all the same).
   */
  near_duplicate?: boolean;
  /** Memories embedded with the current model so far (`reembedding`). */
  done?: number;
  /** Memories to embed in all (`reembedding`). */
  total?: number;
  /** Estimated seconds left (`reembedding`), when a rate is known. */
  eta_seconds?: number;
}

// ---------------------------------------------------------------------------
// save_memories
// ---------------------------------------------------------------------------

/** One memory to save. */
export interface SaveMemoryInput {
  /** The text to remember (not empty). */
  content: string;
  /** Default `episodic`. */
  kind?: MemoryKind;
  /** Optional session scope inside the user's store. */
  session_id?: string;
  /**
   * When what it tells happened: an ISO 8601 date (`2023-05-08`, midnight
   * UTC) or date-time (`2023-05-08T13:56`, UTC unless an offset is given).
   * Recall reads the times a question names against it, and shows it.
   */
  occurred_at?: string;
  /** Who said or wrote it (a conversation turn's speaker): recall prefers an author the question names. */
  author?: string;
}

/** Input of `save_memories`. */
export interface SaveMemoriesInput {
  /** Memories to save in one transaction (all or none). */
  memories: SaveMemoryInput[];
}

/** What happened to one input memory. */
export interface SaveMemoryItemResult {
  /** Position in the input. */
  index: number;
  /**
   * `saved`, or `duplicate`: skipped because a live memory in the same scope
   * (or an earlier item of the batch) says the same thing; `ref` names it.
   */
  status: "saved" | "duplicate";
  /** Ref of the new memory, or of the existing one it duplicates. */
  ref: string;
  /** Id of the new memory, or of the existing one it duplicates. */
  id: number;
  /** Tokens of the content. */
  tokens: number;
}

/** Output of `save_memories`. */
export interface SaveMemoriesResult {
  /** One entry per input memory, in input order. */
  results: SaveMemoryItemResult[];
  /** How many were written. */
  saved: number;
  /** How many were skipped as duplicates. */
  duplicates: number;
  /** Duplicates, near-duplicates, long content, re-embed progress. */
  notices: MemoryNotice[];
}

// ---------------------------------------------------------------------------
// recall_memories
// ---------------------------------------------------------------------------

/** Relevance label of a ranked memory (same thresholds as evidence ranking). */
export type MemoryRelevance = "high" | "medium" | "low";

/** Input of `recall_memories`. */
export interface RecallMemoriesInput {
  /** What to recall; without it, the newest memories ("recent" mode). */
  query?: string;
  /** Most memories to return (default 10). */
  top_k?: number;
  /** Token budget of the recalled memories (default 2,000); the profile has its own budget. */
  max_tokens?: number;
  /** Only memories of this session (profile memories are attached whatever the session). */
  session_id?: string;
}

/** One recalled (episodic) memory. */
export interface RecalledMemory {
  /** 1-based position in the answer. */
  index: number;
  /** Short ref. */
  ref: string;
  /** Numeric id. */
  id: number;
  /** The text. */
  content: string;
  /** Session it was saved in. */
  session_id: string | null;
  /** When first saved. */
  created_at: string;
  /** When last changed. */
  updated_at: string;
  /** Tokens of the content. */
  tokens: number;
  /** When what it tells happened (present when saved with one). */
  occurred_at?: string;
  /** Who said or wrote it (present when saved with one). */
  author?: string;
  /** Fused 0..1 score ("search" mode only; absent in "recent" mode). */
  score?: number;
  /** Label of the score ("search" mode only). */
  relevance?: MemoryRelevance;
  /**
   * The memories saved just before and after it in its session (a
   * conversation's neighbouring turns), when the budget left room: before
   * ones nearest last, after ones nearest first ("search" mode only).
   */
  context?: RecalledContext[];
}

/** A neighbour of a recalled memory in its session, attached as context. */
export interface RecalledContext {
  /** Short ref. */
  ref: string;
  /** Numeric id. */
  id: number;
  /** The text. */
  content: string;
  /** Saved just `before` or just `after` the recalled memory. */
  position: "before" | "after";
  /** When what it tells happened (present when saved with one). */
  occurred_at?: string;
  /** Who said or wrote it (present when saved with one). */
  author?: string;
  /** Tokens of the content. */
  tokens: number;
}

/** One profile memory attached to a recall. */
export interface ProfileMemory {
  /** Short ref. */
  ref: string;
  /** Numeric id. */
  id: number;
  /** The text. */
  content: string;
  /** When first saved. */
  created_at: string;
  /** When last changed. */
  updated_at: string;
  /** Tokens of the content. */
  tokens: number;
}

/** Output of `recall_memories`. */
export interface RecallMemoriesResult {
  /** `search` (a query was given) or `recent` (newest first, no scores). */
  mode: "search" | "recent";
  /** When the recall ran (ISO 8601, UTC). */
  current_time: string;
  /** Which retrievers ranked the memories (`bm25`, `dense`); empty in recent mode. */
  retrievers: ("bm25" | "dense")[];
  /** The whole profile pool, newest first, trimmed to its own budget. */
  profile: ProfileMemory[];
  /** Profile memories in the store (before the profile budget). */
  profile_total: number;
  /** Recalled memories, best first (recent mode: newest first). */
  memories: RecalledMemory[];
  /** Memories that matched (before `top_k` and the budget). */
  matched: number;
  /** True when `top_k` or the token budget cut matched memories. */
  truncated: boolean;
  /** Tokens of the returned memories' contents (profile included). */
  tokens: number;
  /** Budget cuts, re-embed progress, missing embedder. */
  notices: MemoryNotice[];
}

// ---------------------------------------------------------------------------
// list_memories
// ---------------------------------------------------------------------------

/** Orders of `list_memories`. */
export type MemorySort = "recent" | "stale" | "relevance";

/** Input of `list_memories`. */
export interface ListMemoriesInput {
  /** Only this kind. */
  kind?: MemoryKind;
  /** Only memories created at or after (ISO 8601 date or date-time, or a duration ago: `7d`, `12h`, `30m`, `2w`). */
  since?: string;
  /** Only memories created before (same forms as `since`). */
  until?: string;
  /** Only memories containing every one of these words; the last may be the start of a word (`pyth` finds `python`). */
  search?: string;
  /** Only memories of this session. */
  session_id?: string;
  /**
   * `recent` (newest first; the default without `search`), `stale` (least recently
   * recalled first), `relevance` (best text match first; the default with `search`).
   */
  sort?: MemorySort;
  /** Page size, at most 200 (default 20). */
  limit?: number;
  /** Items to skip (default 0). */
  offset?: number;
}

/** One listed memory (a preview, never embedded or budgeted). */
export interface ListedMemory {
  /** Short ref. */
  ref: string;
  /** Numeric id. */
  id: number;
  /** Kind. */
  kind: MemoryKind;
  /** Session. */
  session_id: string | null;
  /** The start of the content. */
  preview: string;
  /** True when `preview` is shorter than the content. */
  preview_truncated: boolean;
  /** When first saved. */
  created_at: string;
  /** When last changed. */
  updated_at: string;
  /** How many recalls returned it. */
  recall_count: number;
  /** When a recall last returned it. */
  last_recalled_at: string | null;
  /** Tokens of the whole content. */
  tokens: number;
}

/** Output of `list_memories`. */
export interface ListMemoriesResult {
  /** The page. */
  memories: ListedMemory[];
  /** Memories in this page (`memories.length`). */
  returned_count: number;
  /** Memories matching the filters (all pages). */
  total_count: number;
  /** True when more pages follow. */
  has_more: boolean;
  /** Offset of this page. */
  offset: number;
  /** Page size asked. */
  limit: number;
  /** Re-embed progress. */
  notices: MemoryNotice[];
}

// ---------------------------------------------------------------------------
// get_memory, update_memory, delete_memory
// ---------------------------------------------------------------------------

/** Names one memory: its `ref` or its numeric `id` (exactly one). */
export type MemoryKey = { ref: string; id?: undefined } | { id: number; ref?: undefined };

/** Output of `get_memory`. */
export interface GetMemoryResult {
  /** The memory (a live one, or an old version when its ref was asked). */
  memory: Memory;
  /** Older versions of a live memory, newest first (empty for an old version). */
  history: Memory[];
  /** Re-embed progress. */
  notices: MemoryNotice[];
}

/** Input of `update_memory`. */
export interface UpdateMemoryInput {
  /** Ref of the live memory to change (or give `id`). */
  ref?: string;
  /** Numeric id of the live memory to change (instead of `ref`). */
  id?: number;
  /** Its new content (not empty); absent: the content stays. */
  content?: string;
  /**
   * When what it tells happened (ISO 8601 date or date-time, UTC unless an
   * offset is given); `null` clears it; absent: unchanged.
   */
  occurred_at?: string | null;
  /** Who said or wrote it; `null` clears it; absent: unchanged. */
  author?: string | null;
}

/** Output of `update_memory`. */
export interface UpdateMemoryResult {
  /** The live memory with its new content (same ref and id). */
  memory: Memory;
  /** Ref of the old version now kept as history. */
  previous_ref: string;
  /** Long content, near-duplicates, re-embed progress. */
  notices: MemoryNotice[];
}

/** Output of `delete_memory`. */
export interface DeleteMemoryResult {
  /** Always true (an unknown memory is `not_found`). */
  deleted: boolean;
  /** Ref of the deleted memory. */
  ref: string;
  /** Id of the deleted memory. */
  id: number;
  /** Old versions deleted with it. */
  history_deleted: number;
}

// ---------------------------------------------------------------------------
// Backend contract
// ---------------------------------------------------------------------------

/**
 * Which live memories an operation sees. Superseded versions (history) are
 * never seen by scoped operations.
 */
export interface MemoryScope {
  /**
   * `undefined`: every session; `null`: only memories saved without a
   * session; a string: only that session.
   */
  session_id?: string | null;
  /** Only this kind (default: both). */
  kind?: MemoryKind;
}

/** A vector with the embedder that produced it. */
export interface MemoryEmbedding {
  /** Embedder id (`Embedder.id`). */
  model: string;
  /** Unit-length vector of the store's dimensions. */
  vector: Float32Array;
}

/** A row to insert (the backend assigns `id` and `ref`). */
export interface NewMemoryRow {
  /** Content (already validated non-empty). */
  content: string;
  /** Kind. */
  kind: MemoryKind;
  /** Session or `null`. */
  session_id: string | null;
  /** Tokens of `content`. */
  tokens: number;
  /** Creation time (ms since the epoch); also `updated_at`. */
  created_at: number;
  /** When what it tells happened (ms since the epoch); absent or `null`: not given. */
  occurred_at?: number | null;
  /** Who said or wrote it; absent or `null`: not given. */
  author?: string | null;
  /** Its vector; absent when no embedder was available (the row waits for re-embedding). */
  embedding?: MemoryEmbedding;
}

/** What {@link MemoryBackend.insertDistinct} did with one row. */
export interface InsertedMemory {
  /** The new memory, or the live one that says the same (when `duplicate`). */
  memory: Memory;
  /**
   * True when nothing was inserted for this row: a live memory of the same
   * scope (same `session_id`, or both without; any kind), or an earlier row
   * of the same call, has the same text after trimming white space
   * (`normalizeMemoryText` in `text.ts`).
   */
  duplicate: boolean;
}

/** The new content of {@link MemoryBackend.update}. */
export interface MemoryUpdate {
  /** New content. */
  content: string;
  /** Tokens of the new content. */
  tokens: number;
  /** Update time (ms since the epoch). */
  updated_at: number;
  /** Vector of the new content; absent: the old vector is dropped and the row waits for re-embedding. */
  embedding?: MemoryEmbedding;
  /** New `occurred_at` (ms since the epoch), `null` to clear; absent: unchanged. */
  occurred_at?: number | null;
  /** New author, `null` to clear; absent: unchanged. */
  author?: string | null;
}

/** Outcome of {@link MemoryBackend.update}. */
export interface MemoryUpdateResult {
  /** The live memory: same id and ref, new content. */
  memory: Memory;
  /** The old version kept as history (new id and ref, `superseded_by` = live id). */
  previous: Memory;
}

/** Filters, order and page of {@link MemoryBackend.list}. */
export interface MemoryListQuery extends MemoryScope {
  /** Created at or after (ms since the epoch). */
  since?: number;
  /** Created strictly before (ms since the epoch). */
  until?: number;
  /**
   * Full-text filter: every word must appear (stemmed as the store's full-text
   * index does), the last may be the start of a word; blank: none.
   */
  search?: string;
  /**
   * `recent`: `created_at` desc, then id desc. `stale`: `last_recalled_at`
   * (never recalled first, then oldest), ties by `created_at` asc, then id asc.
   * `relevance`: text score best first (falls back to `recent` without `search`).
   */
  sort: MemorySort;
  /** Page size (≥ 1). */
  limit: number;
  /** Rows to skip (≥ 0). */
  offset: number;
}

/** A page of {@link MemoryBackend.list}. */
export interface MemoryListPage {
  /** Live memories of the page, in order. */
  items: Memory[];
  /** Live memories matching the filters (all pages). */
  total: number;
}

/** A candidate from one retriever. */
export interface MemoryCandidate {
  /** Memory id. */
  id: number;
  /**
   * The retriever's own score, higher is better: BM25 relevance (positive,
   * `-bm25()` in SQLite) for lexical, cosine similarity (−1..1) for vector.
   */
  score: number;
}

/** What {@link MemoryBackend.sessionNeighbours} answers for one memory. */
export interface SessionNeighbours {
  /** Memories saved just before it, nearest first. */
  before: Memory[];
  /** Memories saved just after it, nearest first. */
  after: Memory[];
}

/** A row waiting for (re-)embedding. */
export interface PendingEmbedding {
  /** Memory id. */
  id: number;
  /** Its content. */
  content: string;
}

/** Counts of one store. */
export interface MemoryCounts {
  /** Live memories. */
  live: number;
  /** Live episodic memories. */
  episodic: number;
  /** Live profile memories. */
  profile: number;
  /** Superseded versions kept as history. */
  history: number;
  /** Live memories with a vector of the current model. */
  embedded: number;
  /** Live memories waiting for a vector of the current model. */
  pending: number;
}

/**
 * The low-level store of one user's memories. A SQL engine implements it;
 * everything above (fusion, duplicates, budgets, notices, rendering) is
 * shared. Methods are async so network engines fit; every write is atomic.
 * Only live memories (`superseded_by IS NULL`) are seen by scoped reads,
 * candidates, lists, profile and counts of live rows; `get`/`getMany`/
 * `history` also return history rows.
 *
 * The vector index holds vectors of one model at a time
 * ({@link MemoryBackend.useEmbeddingModel}); vectors are only kept for live
 * memories.
 */
export interface MemoryBackend {
  /** Engine name (`sqlite`, `postgres`). */
  readonly engine: string;

  /**
   * Declares the current embedder. When `model` or `dimensions` differ from
   * what the store holds, every stored vector is dropped (the index is
   * rebuilt for `dimensions`) and every live memory becomes pending. Returns
   * true when that reset happened. Idempotent.
   */
  useEmbeddingModel(model: string, dimensions: number): Promise<boolean>;

  /** The model and dimensions of the vector index, or `null` before the first {@link useEmbeddingModel}. */
  embeddingModel(): Promise<{ model: string; dimensions: number } | null>;

  /**
   * Inserts rows in ONE transaction: all or none. Assigns each a fresh id and
   * a unique ref (see `newRef`). Returns the memories in input order. A row's
   * embedding is stored only when its model is the current one (else the row
   * is pending).
   */
  insert(rows: NewMemoryRow[]): Promise<Memory[]>;

  /**
   * Inserts in ONE transaction (all or none) the rows that say something
   * new: a row whose text after trimming white space (`normalizeMemoryText`
   * in `text.ts`) equals that of a live memory in its scope (same `session_id`, or both
   * without; any kind), or of an earlier row of this call, is not inserted
   * and is answered with that memory. The check holds under concurrent
   * calls from any number of connections or processes: of N calls saving
   * the same text at once, exactly one inserts it. Returns one outcome per
   * row, in input order. Never decided by vectors.
   *
   * Optional for compatibility; both built-in engines have it. Without it,
   * the service inserts with {@link insert} and only skips repeats within
   * one batch: nothing is ever dropped, but a memory saved again in a later
   * call is stored twice.
   */
  insertDistinct?(rows: NewMemoryRow[]): Promise<InsertedMemory[]>;

  /**
   * Replaces the content of live memory `id` in one transaction: the old
   * version is copied to a history row (fresh id and ref, `superseded_by` =
   * `id`, same `created_at`, its old `updated_at`), the live row keeps id, ref,
   * kind, session, `created_at` and recall counts. Throws `not_found` for an
   * unknown or superseded id.
   */
  update(id: number, change: MemoryUpdate): Promise<MemoryUpdateResult>;

  /** Deletes live memory `id`, its history and its vector. False when no live memory has that id. */
  delete(id: number): Promise<boolean>;

  /** A memory (live or history) by id or ref; `undefined` when absent. */
  get(key: { id: number } | { ref: string }): Promise<Memory | undefined>;

  /** Memories by id (live or history), in the order of `ids`, absent ones skipped. */
  getMany(ids: readonly number[]): Promise<Memory[]>;

  /** Older versions of live memory `id`, newest first (empty when none). */
  history(id: number): Promise<Memory[]>;

  /** A filtered, ordered page of live memories and the total count. */
  list(query: MemoryListQuery): Promise<MemoryListPage>;

  /**
   * The retriever's own top `k` live memories for full-text `query` in
   * `scope`, best first (BM25 / FTS). Words are matched OR-wise after the
   * engine's own tokenisation (stemming, stop words); a query with no usable
   * word yields none. An engine may leave out words so common that scoring
   * them would cost time in proportion to the store, as long as rarer words
   * of the query remain, and may score only the newest few thousand matching
   * rows when more match. Never throws on user text (quotes, operators, tags
   * are plain words).
   */
  lexicalCandidates(query: string, k: number, scope: MemoryScope): Promise<MemoryCandidate[]>;

  /**
   * The `k` nearest live memories to `vector` in `scope` by cosine, best
   * first, with cosine similarity as score. Only memories with a vector of
   * the current model take part.
   */
  vectorCandidates(
    vector: Float32Array,
    k: number,
    scope: MemoryScope,
  ): Promise<MemoryCandidate[]>;

  /**
   * Optional batch form of a `k = 1` {@link vectorCandidates} (the
   * near-duplicate notice of a save): for each vector, its nearest live memory in its own
   * scope with the cosine as score, when that cosine is at least `minScore`;
   * else `undefined`. Must decide exactly as `vectorCandidates(v, 1, scope)`
   * would. Engines without it are called once per vector.
   */
  nearestMany?(
    vectors: readonly Float32Array[],
    scopes: readonly MemoryScope[],
    minScore: number,
  ): Promise<(MemoryCandidate | undefined)[]>;

  /** Live profile memories, newest first (`created_at` desc, id desc), at most `limit`. */
  profilePool(limit: number): Promise<Memory[]>;

  /**
   * The distinct authors of live memories, at most `limit`, in text order
   * (byte order on SQLite, the database's collation on PostgreSQL). Optional:
   * without it, recall reads the authors of its candidates instead.
   */
  authors?(limit: number): Promise<string[]>;

  /**
   * The neighbours of each of `ids` in its session: up to `before` live
   * memories saved just before it and up to `after` saved just after it
   * (saving order: id), of the same kind and the same session. A memory
   * saved without a session, or not live, has none. Optional: without it,
   * recall attaches no conversation context.
   */
  sessionNeighbours?(
    ids: readonly number[],
    before: number,
    after: number,
  ): Promise<Map<number, SessionNeighbours>>;

  /** Adds one to `recall_count` and sets `last_recalled_at` (ms since the epoch) of these ids. */
  markRecalled(ids: readonly number[], at: number): Promise<void>;

  /** Up to `limit` live memories without a vector of the current model, lowest id first. */
  pendingEmbeddings(limit: number): Promise<PendingEmbedding[]>;

  /**
   * Stores vectors of `model` for these ids in one transaction; ids that are
   * gone (deleted, superseded) are skipped, and nothing is stored when
   * `model` is no longer the current one. With `content`, a row whose
   * content changed since it was read is skipped too (a concurrent update).
   * An all-zero vector marks the row embedded without taking part in vector
   * search. Returns how many were stored.
   */
  setEmbeddings(
    model: string,
    items: readonly { id: number; vector: Float32Array; content?: string }[],
  ): Promise<number>;

  /** Counts of the store. */
  counts(): Promise<MemoryCounts>;

  /** Releases the connection. */
  close(): Promise<void>;
}

/** Opens a fresh, empty backend (used by the contract suite). */
export type MemoryBackendFactory = () => Promise<MemoryBackend>;

/** Crockford base32 in lowercase: digits and letters without i, l, o, u. */
const REF_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Length of a memory ref. */
const REF_LENGTH = 8;

/**
 * The shape of a ref (8 characters of {@link REF_ALPHABET}).
 *
 * @internal exported for tests only
 */
export const REF_PATTERN: RegExp = /^[0-9a-hjkmnp-tv-z]{8}$/;

/**
 * A fresh random ref: 8 characters of lowercase Crockford base32 (40 bits).
 * Backends check uniqueness inside their insert transaction and draw again
 * on a clash.
 *
 * @example
 * ```ts
 * import { newRef, REF_PATTERN } from "./types.ts";
 * console.assert(REF_PATTERN.test(newRef()));
 * ```
 */
export function newRef(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(REF_LENGTH));
  let out = "";
  for (const b of bytes) out += REF_ALPHABET[b & 31];
  return out;
}

/** Milliseconds since the epoch to the ISO 8601 form memories carry. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
