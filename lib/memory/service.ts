/**
 * The memory service: everything above the backend, shared by every engine.
 * Duplicate detection on save (the same text, looked up by the backend in
 * its write transaction; vectors only flag near-duplicates), hybrid recall (each retriever's own top
 * candidates fused with weighted RRF), relevance labels, token budgets,
 * the profile pool, notices, and the background re-embed job that catches
 * the store up when the embedding model changes.
 *
 * @example
 * ```ts
 * import { MemoryService } from "./service.ts";
 * import { openSqliteMemoryBackend } from "./sqlite/backend.ts";
 * const memories = new MemoryService(openSqliteMemoryBackend(":memory:"));
 * await memories.save({ memories: [{ content: "The staging database runs PostgreSQL 16." }] });
 * const out = await memories.recall({ query: "which postgres version on staging" });
 * console.assert(out.memories[0].content.includes("PostgreSQL 16"));
 * await memories.close();
 * ```
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { pace } from "../async/pace.ts";
import type { Embedder } from "../embed/types.ts";
import { cosine, isZeroVector } from "../embed/vector.ts";
import { fuseRankings, relevanceOf } from "../rank/fusion.ts";
import { checkIdText } from "../text/id_text.ts";
import { countTokens } from "../text/tokens.ts";
import { renderProfileMemory, renderRecalledMemory } from "./render.ts";
import { renderedTokens } from "./rendered_tokens.ts";
import { normalizeMemoryText, scopeKey } from "./text.ts";
import { parseTimeFilter } from "./time.ts";
import { VectorIndex } from "./vector/vector_index.ts";
import type {
  DeleteMemoryResult,
  GetMemoryResult,
  InsertedMemory,
  ListedMemory,
  ListMemoriesInput,
  ListMemoriesResult,
  Memory,
  MemoryBackend,
  MemoryCandidate,
  MemoryKey,
  MemoryNotice,
  MemoryScope,
  NewMemoryRow,
  ProfileMemory,
  RecalledMemory,
  RecallMemoriesInput,
  RecallMemoriesResult,
  SaveMemoriesInput,
  SaveMemoriesResult,
  SaveMemoryItemResult,
  UpdateMemoryInput,
  UpdateMemoryResult,
} from "./types.ts";

const log = getGleanerLogger("memory");

/**
 * Default cosine at or above which a new memory is saved with a `similar_to`
 * notice naming its nearest memory (`memory.review_similarity`). No cosine
 * ever skips a memory: only the same text (see {@link normalizeMemoryText})
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
/** Default `top_k` of a recall. */
export const DEFAULT_TOP_K = 10;
/** Default token budget of a recall (episodic memories; `memory.recall_budget`). */
export const DEFAULT_MAX_TOKENS = 2_000;
/** Default token budget of the profile pool. */
export const DEFAULT_PROFILE_MAX_TOKENS = 500;
/** Default RRF constant (`memory.rrf_k`). */
export const RRF_K = 60;
/** Fewest BM25 candidates a recall fuses (else 4 × `top_k`). */
export const LEXICAL_DEPTH = 50;
/** Fewest vector candidates a recall fuses (else 2 × `top_k`). */
export const DENSE_DEPTH = 20;
/** Profile memories read per recall before checking whether more could fit. */
const PROFILE_PAGE = 64;
/** Most profile memories a recall considers. */
const MAX_PROFILE_POOL = 2_000;
/**
 * Tokens of a rendered memory element without its content (tags, ref, time):
 * an entry whose content alone leaves less than half of this is not counted.
 */
const ENTRY_OVERHEAD_TOKENS = countTokens(
  '<memory index="10" ref="abcdefgh" relevance="medium" created_at="2026-01-01T00:00:00.000Z"></memory>',
);

/** Tokens of a rendered profile element without its content. */
const PROFILE_OVERHEAD_TOKENS = countTokens(
  '<memory ref="abcdefgh" created_at="2026-01-01T00:00:00.000Z"></memory>',
);

/** Characters of a `list_memories` preview. */
export const PREVIEW_CHARS = 200;

/** Options of {@link MemoryService}. */
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
   * Vector candidates below this cosine are dropped (default: 0.5 for the
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
  /** Memories per re-embed batch (default 64). */
  reembedBatch?: number;
  /** Clock (ms since the epoch). */
  now?: () => number;
}

/** Per-call options of {@link MemoryService.recall} not exposed as tool arguments. */
export interface RecallOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
  /** The query's vector, already embedded (benchmarks time recall without embedding). */
  queryVector?: Float32Array;
}

/** Per-call options of {@link MemoryService.save} not exposed as tool arguments. */
export interface SaveOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
  /** The contents' vectors, already embedded in input order (benchmarks time saving without embedding). */
  vectors?: Float32Array[];
}

/** Progress of the background re-embed job. */
export interface ReembedStatus {
  /** True while the job runs. */
  running: boolean;
  /** Memories embedded by this run. */
  done: number;
  /** Memories the run had to embed when it started (grows if more arrive). */
  total: number;
  /** Estimated seconds left, when a rate is known. */
  eta_seconds?: number;
}

interface Ready {
  embedder?: Embedder;
  model?: string;
}

/** One user's memories: the six operations over a {@link MemoryBackend}. */
export class MemoryService {
  /** The engine underneath. */
  readonly backend: MemoryBackend;
  #options: Required<Omit<MemoryServiceOptions, "embedder" | "denseMinSimilarity">> & {
    embedder?: MemoryServiceOptions["embedder"];
    denseMinSimilarity?: number;
  };
  #ready?: Promise<Ready>;
  #job?: Promise<void>;
  #jobState = { done: 0, total: 0, started: 0 };
  #closed = false;
  #active = 0;
  #drained?: () => void;

  /** Wraps a backend. */
  constructor(backend: MemoryBackend, options: MemoryServiceOptions = {}) {
    this.backend = backend;
    this.#options = {
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
      reembedBatch: options.reembedBatch ?? 64,
      now: options.now ?? Date.now,
    };
  }

  /** Loads the embedder once, declares its model to the backend and starts catching up. */
  #prepare(): Promise<Ready> {
    this.#ready ??= (async () => {
      let embedder: Embedder | undefined;
      try {
        embedder = await this.#options.embedder?.();
      } catch (error) {
        log.warn("memory: no embedder, BM25 only: {error}", { error: String(error) });
      }
      if (!embedder) return {};
      let dimensions = embedder.dimensions;
      if (!dimensions) {
        const [probe] = await embedder.embedDocuments(["dimensions probe"]);
        dimensions = probe?.length ?? 0;
      }
      if (!dimensions) return {};
      const reset = await this.backend.useEmbeddingModel(embedder.id, dimensions);
      if (reset) {
        log.info("memory: embedding model is now {model}; re-embedding", { model: embedder.id });
      }
      const ready = { embedder, model: embedder.id };
      if ((await this.backend.counts()).pending > 0) this.#startReembed(ready);
      return ready;
    })();
    return this.#ready;
  }

  /** Resolves once the embedder is loaded and the store knows its model (tests, benchmarks). */
  async ready(): Promise<void> {
    await this.#prepare();
  }

  /** Progress of the re-embed job. */
  reembedStatus(): ReembedStatus {
    const { done, total, started } = this.#jobState;
    const running = this.#job !== undefined;
    const elapsed = (this.#options.now() - started) / 1000;
    const rate = done > 0 && elapsed > 0 ? done / elapsed : 0;
    return {
      running,
      done,
      total,
      eta_seconds: running && rate > 0 ? Math.ceil(Math.max(0, total - done) / rate) : undefined,
    };
  }

  /** Resolves when no re-embed job runs (tests). */
  async reembedIdle(): Promise<void> {
    await this.#prepare();
    while (this.#job) await this.#job;
  }

  #startReembed(ready: Ready): void {
    if (this.#job || this.#closed || !ready.embedder || !ready.model) return;
    const { embedder, model } = ready;
    const job = (async () => {
      const pending = (await this.backend.counts()).pending;
      this.#jobState = { done: 0, total: pending, started: this.#options.now() };
      for (;;) {
        if (this.#closed) return;
        const batch = await this.backend.pendingEmbeddings(this.#options.reembedBatch);
        if (batch.length === 0) return;
        const vectors = await embedder.embedDocuments(batch.map((b) => b.content));
        if (this.#closed) return;
        const stored = await this.backend.setEmbeddings(
          model,
          batch.map((b, i) => ({ id: b.id, vector: vectors[i], content: b.content })),
        );
        this.#jobState.done += stored;
        this.#jobState.total = Math.max(this.#jobState.total, this.#jobState.done);
        if (stored === 0) return; // the model changed under us, or every row moved on
        // Let requests run between batches.
        await pace();
      }
    })().catch((error) => {
      if (!this.#closed) {
        log.warn("memory: re-embedding stopped: {error}", { error: String(error) });
      }
    }).finally(() => {
      if (this.#job === job) this.#job = undefined;
    });
    this.#job = job;
  }

  /** Notices every answer carries: re-embed progress, or no embedder. */
  #statusNotices(ready: Ready): MemoryNotice[] {
    if (!ready.embedder) {
      return [{
        code: "no_embedder",
        message:
          "No embedder is available: recall ranks with BM25 alone and near-duplicates are not flagged.",
      }];
    }
    if (!this.#job) return [];
    const s = this.reembedStatus();
    return [{
      code: "reembedding",
      message: `Re-embedding memories for model ${ready.model}: ${s.done} of ${s.total} done` +
        (s.eta_seconds !== undefined ? `, about ${s.eta_seconds} s left` : "") +
        "; recall ranks with BM25 alone meanwhile.",
      done: s.done,
      total: s.total,
      ...(s.eta_seconds !== undefined ? { eta_seconds: s.eta_seconds } : {}),
    }];
  }

  /** Runs one public operation; {@link close} waits for the ones in flight. */
  async #run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new GleanerError("internal", "memory store is closed");
    this.#active++;
    try {
      return await fn();
    } finally {
      if (--this.#active === 0) this.#drained?.();
    }
  }

  /**
   * Saves memories in one transaction (all or none). A memory is skipped as
   * a duplicate only when it says the same thing as a live memory in the
   * same scope (same `session_id`, or both without), or as an earlier item
   * of the batch: the same text up to case, whitespace and punctuation
   * ({@link normalizeMemoryText}; word order, numbers, dates, times, codes,
   * versions and names all count). The backend decides that inside its
   * write transaction, so concurrent saves of the same text store it once.
   * Every other memory is saved: with a `similar_to` notice naming the
   * nearest memory when the cosine is ≥ `reviewSimilarity` (0.80; from
   * `duplicateSimilarity`, 0.95, the notice says `near_duplicate: true`),
   * and a `consider_splitting` notice when over `splitTokens` (800). Empty
   * content is `invalid_arguments`.
   */
  save(input: SaveMemoriesInput, options: SaveOptions = {}): Promise<SaveMemoriesResult> {
    return this.#run(() => this.#save(input, options));
  }

  async #save(input: SaveMemoriesInput, options: SaveOptions = {}): Promise<SaveMemoriesResult> {
    const signal = options.signal;
    const items = input.memories.map((m, index) => {
      checkKind(m.kind, `memories.${index}.kind`);
      checkIdText(m.session_id, `memories.${index}.session_id`);
      checkNoNul(m.content, `memories.${index}.content`);
      if (typeof m.content !== "string" || m.content.trim() === "") {
        throw new GleanerError(
          "invalid_arguments",
          `memories.${index}.content: must not be empty`,
          {
            details: { field: `memories.${index}.content` },
          },
        );
      }
      return {
        index,
        content: m.content,
        kind: m.kind ?? "episodic",
        session_id: m.session_id ?? null,
        tokens: countTokens(m.content),
      };
    });
    const ready = await this.#prepare();
    let vectors: (Float32Array | undefined)[] = items.map(() => undefined);
    let embedFailed = false;
    if (options.vectors && options.vectors.length === items.length && ready.embedder) {
      vectors = options.vectors;
    } else if (ready.embedder && items.length > 0) {
      try {
        vectors = await ready.embedder.embedDocuments(items.map((i) => i.content), signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        embedFailed = true;
        log.warn("memory: embedding failed, saving without vectors: {error}", {
          error: String(error),
        });
      }
    }
    signal?.throwIfAborted();

    const notices: MemoryNotice[] = [];
    const results: (SaveMemoryItemResult | undefined)[] = items.map(() => undefined);
    // A later item of the batch that says the same as an earlier one (same
    // scope) repeats it: only the first goes to the store.
    const firstOf = new Map<string, number>();
    const repeats = new Map<number, number>();
    const distinct: number[] = [];
    for (const item of items) {
      const key = `${scopeKey(item.session_id)} ${normalizeMemoryText(item.content)}`;
      const earlier = firstOf.get(key);
      if (earlier !== undefined) repeats.set(item.index, earlier);
      else {
        firstOf.set(key, item.index);
        distinct.push(item.index);
      }
    }

    // The nearest memory of each distinct item (cosine ≥ reviewSimilarity),
    // stored or earlier in this batch, for the `similar_to` notice only.
    const checked = distinct.filter((i) => {
      const vector = vectors[i];
      return vector && !isZeroVector(vector);
    });
    const stored = await this.#nearestStored(
      checked.map((i) => vectors[i]!),
      checked.map((i) => ({ session_id: items[i].session_id })),
    );
    const storedBest = new Map(checked.map((i, n) => [i, stored[n]] as const));
    const nearest = new Map<number, { similarity: number; id?: number; batchIndex?: number }>();
    // Distinct items of this batch so far, searched like the store.
    let batch: VectorIndex | undefined;
    const earlier: number[] = [];
    for (const i of distinct) {
      const item = items[i];
      const vector = vectors[i];
      if (vector && !isZeroVector(vector)) {
        let best: { similarity: number; id?: number; batchIndex?: number } | undefined;
        const top = storedBest.get(i);
        if (top) best = { similarity: top.score, id: top.id };
        if (!batch && earlier.length > 0) {
          // Built at the first item that has earlier ones to compare with.
          batch = new VectorIndex(vector.length);
          for (const j of earlier) {
            const v = vectors[j];
            if (v && v.length === vector.length && !isZeroVector(v)) {
              batch.upsert(j, items[j].kind, items[j].session_id, v);
            }
          }
        }
        if (batch && batch.dimensions === vector.length) {
          const [near] = batch.search(vector, 1, { session_id: item.session_id });
          if (near && (!best || near.score > best.similarity)) {
            best = { similarity: near.score, batchIndex: near.id };
          }
        }
        if (best && best.similarity >= this.#options.reviewSimilarity) nearest.set(i, best);
        if (batch && batch.dimensions === vector.length) {
          batch.upsert(i, item.kind, item.session_id, vector);
        }
      }
      earlier.push(i);
    }

    // The store decides what is new, inside its write transaction.
    const now = this.#options.now();
    const rows: NewMemoryRow[] = distinct.map((i) => {
      const item = items[i];
      const vector = vectors[i];
      return {
        content: item.content,
        kind: item.kind,
        session_id: item.session_id,
        tokens: item.tokens,
        created_at: now,
        ...(vector && ready.model ? { embedding: { model: ready.model, vector } } : {}),
      };
    });
    const outcomes: InsertedMemory[] = this.backend.insertDistinct
      ? await this.backend.insertDistinct(rows)
      : (await this.backend.insert(rows)).map((memory) => ({ memory, duplicate: false }));
    // The memory each distinct item is now: the one it saved, or the one it repeats.
    const byIndex = new Map<number, Memory>();
    let saved = 0;
    distinct.forEach((i, n) => {
      const { memory, duplicate } = outcomes[n];
      byIndex.set(i, memory);
      if (!duplicate) saved++;
      results[i] = {
        index: i,
        status: duplicate ? "duplicate" : "saved",
        ref: memory.ref,
        id: memory.id,
        tokens: items[i].tokens,
      };
    });
    for (const [i, first] of repeats) {
      const memory = byIndex.get(first)!;
      results[i] = {
        index: i,
        status: "duplicate",
        ref: memory.ref,
        id: memory.id,
        tokens: items[i].tokens,
      };
    }

    // Memories the `similar_to` notices name that are not of this batch.
    const existing = new Map(
      (await this.backend.getMany(
        [...nearest.entries()].flatMap(([i, n]) =>
          results[i]!.status === "saved" && n.id !== undefined ? [n.id] : []
        ),
      )).map((m) => [m.id, m] as const),
    );
    for (const item of items) {
      const i = item.index;
      const result = results[i]!;
      if (result.status === "duplicate") {
        // The cosine when it is known: the vectors of both texts are at hand.
        const first = repeats.get(i);
        const near = first === undefined ? storedBest.get(i) : undefined;
        const a = vectors[i];
        const b = first !== undefined ? vectors[first] : undefined;
        const similarity = near?.id === result.id
          ? round(near.score)
          : a && b && a.length === b.length && !isZeroVector(a) && !isZeroVector(b)
          ? round(cosine(a, b))
          : undefined;
        notices.push({
          code: "duplicate",
          message: `Memory ${i} was not saved: it duplicates ${result.ref} ` +
            "(the same text up to case, spacing and punctuation).",
          index: i,
          ref: result.ref,
          ...(similarity !== undefined ? { similarity } : {}),
        });
        continue;
      }
      const near = nearest.get(i);
      if (near) {
        const target = near.batchIndex !== undefined
          ? byIndex.get(near.batchIndex)
          : existing.get(near.id!);
        const similarity = round(near.similarity);
        const nearDuplicate = near.similarity >= this.#options.duplicateSimilarity;
        notices.push(
          target
            ? {
              code: "similar_to",
              message: nearDuplicate
                ? `Memory ${i} was saved but is very likely the same fact as ${target.ref} ` +
                  `(similarity ${similarity}); update that one instead, or delete this one.`
                : `Memory ${i} was saved but is similar to ${target.ref} ` +
                  `(similarity ${similarity}); update that one instead if it is the same fact.`,
              index: i,
              ref: target.ref,
              similarity,
              near_duplicate: nearDuplicate,
            }
            : {
              // The memory it resembled was deleted meanwhile (another call).
              code: "similar_to",
              message: `Memory ${i} was saved; it resembled a memory deleted meanwhile.`,
              index: i,
              similarity,
              near_duplicate: nearDuplicate,
            },
        );
      }
      const splitTokens = this.#options.splitTokens;
      if (item.tokens > splitTokens) {
        notices.push({
          code: "consider_splitting",
          message: `Memory ${i} has ${item.tokens} tokens (over ${splitTokens}): ` +
            "consider splitting it into smaller facts so recall can return just the relevant one.",
          index: i,
        });
      }
    }
    if (embedFailed) {
      notices.push({
        code: "no_embedder",
        message:
          "Embedding failed: memories were saved without vectors and will be embedded later.",
      });
      this.#startReembed(ready);
    }
    const final = results as SaveMemoryItemResult[];
    return {
      results: final,
      saved,
      duplicates: final.filter((r) => r.status === "duplicate").length,
      notices: [...notices, ...this.#statusNotices(ready)],
    };
  }

  /**
   * The nearest stored memory (cosine ≥ `reviewSimilarity`) of each
   * vector in its scope: one batch call when the engine has one, else one
   * `k = 1` search per vector.
   */
  async #nearestStored(
    vectors: Float32Array[],
    scopes: MemoryScope[],
  ): Promise<(MemoryCandidate | undefined)[]> {
    if (vectors.length === 0) return [];
    const floor = this.#options.reviewSimilarity;
    if (this.backend.nearestMany) {
      return await this.backend.nearestMany(vectors, scopes, floor);
    }
    const out: (MemoryCandidate | undefined)[] = [];
    for (let i = 0; i < vectors.length; i++) {
      const [top] = await this.backend.vectorCandidates(vectors[i], 1, scopes[i]);
      out.push(top && top.score >= floor ? top : undefined);
    }
    return out;
  }

  /**
   * Recalls memories. With a query: BM25 and vector candidates (each
   * retriever's own top), weighted RRF, relevance labels, trimmed to
   * `top_k` and `max_tokens`. Without: the newest first. The whole profile
   * pool is attached, trimmed to its own budget.
   */
  recall(
    input: RecallMemoriesInput,
    options: RecallOptions = {},
  ): Promise<RecallMemoriesResult> {
    return this.#run(() => this.#recall(input, options));
  }

  async #recall(
    input: RecallMemoriesInput,
    options: RecallOptions = {},
  ): Promise<RecallMemoriesResult> {
    checkIdText(input.session_id, "session_id");
    checkNoNul(input.query, "query");
    const topK = input.top_k ?? DEFAULT_TOP_K;
    const maxTokens = input.max_tokens ?? this.#options.recallBudget;
    const ready = await this.#prepare();
    const now = this.#options.now();
    const scope = {
      kind: "episodic" as const,
      ...(input.session_id !== undefined ? { session_id: input.session_id } : {}),
    };
    const notices = this.#statusNotices(ready);

    // Profile pool, newest first, inside its own budget. Most pools fit in
    // one small page; a larger one is read whole only if budget is left.
    const budget = this.#options.profileMaxTokens;
    let pool = await this.backend.profilePool(PROFILE_PAGE);
    let profileTotal = pool.length;
    const profile: ProfileMemory[] = [];
    let profileTokens = 0;
    const takeProfile = (m: Memory) => {
      const left = budget - profileTokens;
      if (left < PROFILE_OVERHEAD_TOKENS || m.tokens + PROFILE_OVERHEAD_TOKENS / 2 > left) return;
      const entry = {
        ref: m.ref,
        id: m.id,
        content: m.content,
        created_at: m.created_at,
        updated_at: m.updated_at,
        tokens: m.tokens,
      };
      const cost = renderedTokens(renderProfileMemory(entry));
      if (cost > left) return;
      profileTokens += cost;
      profile.push(entry);
    };
    pool.forEach(takeProfile);
    if (pool.length === PROFILE_PAGE) {
      let whole = false;
      if (budget - profileTokens >= PROFILE_OVERHEAD_TOKENS) {
        pool = await this.backend.profilePool(MAX_PROFILE_POOL);
        pool.slice(PROFILE_PAGE).forEach(takeProfile);
        whole = pool.length < MAX_PROFILE_POOL;
      }
      profileTotal = whole ? pool.length : (await this.backend.list({
        kind: "profile",
        sort: "recent",
        limit: 1,
        offset: 0,
      })).total;
    }

    const query = input.query?.trim() ?? "";
    // Best first; search mode reads the memories a page at a time, as the budget takes them.
    let ranked: { id: number; score?: number; memory?: Memory | null }[];
    let matched: number;
    const retrievers: ("bm25" | "dense")[] = [];
    if (query) {
      // Candidate depth. BM25's list ends where matching ends; the dense
      // retriever ranks every memory (there is always a nearest), so its list
      // is cut at twice what the answer can show: deeper, its weak matches
      // pile up RRF credit on look-alikes (chosen on half of the benchmark's
      // confusable queries, checked on the other half; see bench/memory.ts).
      const k = Math.max(LEXICAL_DEPTH, topK * 4);
      const denseK = Math.max(this.#options.denseDepth, topK * 2);
      const lexical = await this.backend.lexicalCandidates(query, k, scope);
      retrievers.push("bm25");
      let dense: number[] | undefined;
      if (ready.embedder && !this.#job && this.#options.denseWeight > 0) {
        let vector = options.queryVector;
        if (!vector) {
          try {
            [vector] = await ready.embedder.embedQueries([query], options.signal);
          } catch (error) {
            if (options.signal?.aborted) throw error;
            log.warn("memory: query embedding failed, BM25 alone: {error}", {
              error: String(error),
            });
          }
        }
        if (vector && !isZeroVector(vector)) {
          const near = await this.backend.vectorCandidates(vector, denseK, scope);
          const floor = this.#options.denseMinSimilarity ?? defaultDenseFloor(ready.model);
          dense = near.filter((c) => c.score >= floor).map((c) => c.id);
          retrievers.push("dense");
        }
      }
      const rankings = [{
        order: lexical.map((c) => c.id),
        weight: dense ? 1 - this.#options.denseWeight : 1,
      }];
      if (dense) rankings.push({ order: dense, weight: this.#options.denseWeight });
      let fused = fuseRankings(rankings, this.#options.rrfK)
        .filter((f) => f.score >= this.#options.minScore);
      matched = fused.length;
      // Recall frequency as one more signal, over the matches only (never a new candidate).
      let rows: Map<number, Memory> | undefined;
      if (this.#options.accessWeight > 0 && fused.length > 1) {
        rows = new Map(
          (await this.backend.getMany(fused.map((f) => f.key))).map((m) => [m.id, m] as const),
        );
        fused = liftByAccess(fused, rows, this.#options.accessWeight);
      }
      ranked = fused.slice(0, Math.max(topK * 3, 30)).map((f) => ({
        id: f.key,
        score: f.score,
        ...(rows ? { memory: rows.get(f.key) ?? null } : {}),
      }));
    } else {
      const page = await this.backend.list({
        ...scope,
        sort: "recent",
        limit: Math.max(topK * 3, 30),
        offset: 0,
      });
      matched = page.total;
      ranked = page.items.map((memory) => ({ id: memory.id, memory }));
    }

    const memories: RecalledMemory[] = [];
    let tokens = 0;
    let overBudget = 0;
    const pageSize = topK + 5;
    for (let i = 0; i < ranked.length; i++) {
      if (memories.length >= topK) break;
      if (ranked[i].memory === undefined) {
        const page = ranked.slice(i, i + pageSize);
        const found = new Map(
          (await this.backend.getMany(page.map((r) => r.id))).map((m) => [m.id, m] as const),
        );
        for (const r of page) r.memory = found.get(r.id) ?? null;
      }
      if (!ranked[i].memory) continue; // deleted meanwhile
      const { memory, score } = ranked[i] as { memory: Memory; score?: number };
      const left = maxTokens - tokens;
      if (memory.tokens + ENTRY_OVERHEAD_TOKENS / 2 > left) {
        overBudget++;
        continue;
      }
      const entry: RecalledMemory = {
        index: memories.length + 1,
        ref: memory.ref,
        id: memory.id,
        content: memory.content,
        session_id: memory.session_id,
        created_at: memory.created_at,
        updated_at: memory.updated_at,
        tokens: memory.tokens,
        ...(score !== undefined ? { score: round(score), relevance: relevanceOf(score) } : {}),
      };
      const cost = renderedTokens(renderRecalledMemory(entry));
      if (cost > left) {
        overBudget++;
        continue;
      }
      tokens += cost;
      memories.push(entry);
    }
    if (overBudget > 0) {
      notices.push({
        code: "budget",
        message: `${matched} memories matched; ${memories.length} fit in max_tokens ${maxTokens}` +
          " (raise max_tokens or narrow the query for more).",
      });
    }
    if (memories.length > 0) await this.backend.markRecalled(memories.map((m) => m.id), now);
    return {
      mode: query ? "search" : "recent",
      current_time: new Date(now).toISOString(),
      retrievers,
      profile,
      profile_total: profileTotal,
      memories,
      matched,
      truncated: memories.length < matched,
      tokens: tokens + profileTokens,
      notices,
    };
  }

  /** Lists memories: filters, sort, paging; previews only, no embedding, no budget. */
  list(input: ListMemoriesInput = {}): Promise<ListMemoriesResult> {
    return this.#run(() => this.#list(input));
  }

  async #list(input: ListMemoriesInput = {}): Promise<ListMemoriesResult> {
    checkKind(input.kind, "kind");
    checkIdText(input.session_id, "session_id");
    checkNoNul(input.search, "search");
    const ready = await this.#prepare();
    const now = this.#options.now();
    const limit = Math.min(200, Math.max(1, input.limit ?? 20));
    const offset = Math.max(0, input.offset ?? 0);
    const since = input.since !== undefined
      ? parseTimeFilter(input.since, "since", now)
      : undefined;
    const until = input.until !== undefined
      ? parseTimeFilter(input.until, "until", now)
      : undefined;
    const page = await this.backend.list({
      ...(input.kind ? { kind: input.kind } : {}),
      ...(input.session_id !== undefined ? { session_id: input.session_id } : {}),
      since,
      until,
      search: input.search,
      // While searching, best match first unless `sort` says otherwise.
      sort: input.sort ?? (input.search?.trim() ? "relevance" : "recent"),
      limit,
      offset,
    });
    return {
      memories: page.items.map(preview),
      returned_count: page.items.length,
      total_count: page.total,
      has_more: offset + page.items.length < page.total,
      offset,
      limit,
      notices: this.#statusNotices(ready),
    };
  }

  async #find(key: MemoryKey, field = "ref"): Promise<Memory> {
    if (key.ref !== undefined) {
      checkIdText(key.ref, "ref");
    } else if (!Number.isSafeInteger(key.id) || key.id! < 1) {
      throw new GleanerError("invalid_arguments", "id: must be a positive integer", {
        details: { field: "id" },
      });
    }
    const memory = key.ref !== undefined
      ? await this.backend.get({ ref: key.ref.trim().toLowerCase() })
      : await this.backend.get({ id: key.id! });
    if (!memory) {
      const name = key.ref !== undefined ? `ref ${key.ref}` : `id ${key.id}`;
      throw new GleanerError("not_found", `no memory with ${name}`, { details: { field } });
    }
    return memory;
  }

  /** One memory by ref or id, with its older versions. */
  get(key: MemoryKey): Promise<GetMemoryResult> {
    return this.#run(() => this.#get(key));
  }

  async #get(key: MemoryKey): Promise<GetMemoryResult> {
    const ready = await this.#prepare();
    const memory = await this.#find(key);
    const history = memory.superseded_by === null ? await this.backend.history(memory.id) : [];
    return { memory, history, notices: this.#statusNotices(ready) };
  }

  /** Replaces a live memory's content (re-embedded); the old version stays as history. */
  update(input: UpdateMemoryInput, signal?: AbortSignal): Promise<UpdateMemoryResult> {
    return this.#run(() => this.#update(input, signal));
  }

  async #update(input: UpdateMemoryInput, signal?: AbortSignal): Promise<UpdateMemoryResult> {
    if (input.ref !== undefined) checkIdText(input.ref, "ref");
    else if (input.id === undefined) {
      throw new GleanerError("invalid_arguments", "ref: give the ref (or id) of the memory", {
        details: { field: "ref" },
      });
    }
    checkNoNul(input.content, "content");
    if (input.content.trim() === "") {
      throw new GleanerError("invalid_arguments", "content: must not be empty", {
        details: { field: "content" },
      });
    }
    const ready = await this.#prepare();
    const current = await this.#find(
      input.ref !== undefined ? { ref: input.ref } : { id: input.id! },
      input.ref !== undefined ? "ref" : "id",
    );
    if (current.superseded_by !== null) {
      throw new GleanerError(
        "not_found",
        `ref ${current.ref} is an old version; update the live memory instead`,
        { details: { field: "ref" } },
      );
    }
    const tokens = countTokens(input.content);
    let vector: Float32Array | undefined;
    if (ready.embedder) {
      try {
        [vector] = await ready.embedder.embedDocuments([input.content], signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        log.warn("memory: embedding failed on update: {error}", { error: String(error) });
      }
    }
    const notices: MemoryNotice[] = [];
    if (vector && !isZeroVector(vector)) {
      const near = await this.backend.vectorCandidates(vector, 2, {
        session_id: current.session_id,
      });
      const other = near.find((c) =>
        c.id !== current.id && c.score >= this.#options.reviewSimilarity
      );
      if (other) {
        const [m] = await this.backend.getMany([other.id]);
        if (m) {
          const nearDuplicate = other.score >= this.#options.duplicateSimilarity;
          notices.push({
            code: "similar_to",
            message: `The new content is ${
              nearDuplicate ? "very likely the same fact as" : "similar to"
            } ${m.ref} (similarity ${round(other.score)}).`,
            ref: m.ref,
            similarity: round(other.score),
            near_duplicate: nearDuplicate,
          });
        }
      }
    }
    const splitTokens = this.#options.splitTokens;
    if (tokens > splitTokens) {
      notices.push({
        code: "consider_splitting",
        message:
          `The new content has ${tokens} tokens (over ${splitTokens}): consider splitting it.`,
      });
    }
    const { memory, previous } = await this.backend.update(current.id, {
      content: input.content,
      tokens,
      updated_at: this.#options.now(),
      ...(vector && ready.model ? { embedding: { model: ready.model, vector } } : {}),
    });
    if (!memory.embedding_model && ready.embedder) this.#startReembed(ready);
    return {
      memory,
      previous_ref: previous.ref,
      notices: [...notices, ...this.#statusNotices(ready)],
    };
  }

  /** Deletes a live memory and its history. */
  delete(key: MemoryKey): Promise<DeleteMemoryResult> {
    return this.#run(() => this.#delete(key));
  }

  async #delete(key: MemoryKey): Promise<DeleteMemoryResult> {
    const memory = await this.#find(key);
    if (memory.superseded_by !== null) {
      throw new GleanerError(
        "not_found",
        `ref ${memory.ref} is an old version; delete the live memory instead`,
        { details: { field: "ref" } },
      );
    }
    const history = await this.backend.history(memory.id);
    if (!await this.backend.delete(memory.id)) {
      throw new GleanerError("not_found", `no memory with ref ${memory.ref}`);
    }
    return { deleted: true, ref: memory.ref, id: memory.id, history_deleted: history.length };
  }

  /** Stops the re-embed job and closes the backend. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#active > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    await this.#job?.catch(() => {});
    await this.backend.close();
  }
}

/**
 * Throws `invalid_arguments` naming `field` when free text holds U+0000, which
 * PostgreSQL cannot store (SQLite would): the same answer on both engines.
 */
function checkNoNul(text: unknown, field: string): void {
  if (typeof text === "string" && text.includes("\u0000")) {
    throw new GleanerError("invalid_arguments", `${field}: must not contain U+0000 (NUL)`, {
      details: { field },
    });
  }
}

/** Throws `invalid_arguments` naming `field` unless `kind` is absent or a memory kind. */
function checkKind(kind: unknown, field: string): void {
  if (kind === undefined || kind === "episodic" || kind === "profile") return;
  const shown = typeof kind === "string" ? ` ${JSON.stringify(kind.slice(0, 40))}` : "";
  throw new GleanerError(
    "invalid_arguments",
    `${field}: kind${shown} is not one of episodic, profile`,
    { details: { field } },
  );
}

/**
 * The matches of a recall reordered by `(1 - weight) × score + weight ×
 * recall_count / most`, where `most` is the highest `recall_count` among the
 * matches (a never-recalled memory adds nothing; when none was recalled the
 * order stays the query's). Scores stay the query's.
 */
function liftByAccess(
  fused: readonly { key: number; score: number }[],
  rows: ReadonlyMap<number, Memory>,
  weight: number,
): { key: number; score: number }[] {
  const countOf = (key: number) => rows.get(key)?.recall_count ?? 0;
  const most = fused.reduce((max, f) => Math.max(max, countOf(f.key)), 0);
  if (most === 0) return [...fused];
  const lifted = fused.map((f, order) => ({
    f,
    order,
    value: (1 - weight) * f.score + weight * countOf(f.key) / most,
  }));
  lifted.sort((a, b) => b.value - a.value || a.order - b.order);
  return lifted.map((l) => l.f);
}

/** The dense candidate floor when none is configured (see {@link MemoryServiceOptions}). */
export function defaultDenseFloor(model: string | undefined): number {
  return model?.startsWith("static:") ? 0.5 : 0.2;
}

function preview(m: Memory): ListedMemory {
  const flat = m.content.replace(/\s+/g, " ").trim();
  const cut = flat.length > PREVIEW_CHARS;
  return {
    ref: m.ref,
    id: m.id,
    kind: m.kind,
    session_id: m.session_id,
    preview: cut ? `${flat.slice(0, PREVIEW_CHARS - 1).trimEnd()}…` : flat,
    preview_truncated: cut,
    created_at: m.created_at,
    updated_at: m.updated_at,
    recall_count: m.recall_count,
    last_recalled_at: m.last_recalled_at,
    tokens: m.tokens,
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
