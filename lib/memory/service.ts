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
import type { MemoryContext } from "./context.ts";
import { Batched } from "../async/batched.ts";
import { GroupCommit, nearestRows } from "./group_commit.ts";
import { deleteMemory, getMemory, updateMemory } from "./edit.ts";
import { listMemories } from "./list.ts";
import { type MemoryServiceOptions, resolveMemoryOptions } from "./options.ts";
import { recallMemories, type RecallOptions } from "./recall.ts";
import { Reembedder, type ReembedStatus } from "./reembed.ts";
import { saveMemories, type SaveOptions } from "./save.ts";
import type {
  DeleteMemoryResult,
  GetMemoryResult,
  ListMemoriesInput,
  ListMemoriesResult,
  MemoryBackend,
  MemoryKey,
  RecallMemoriesInput,
  RecallMemoriesResult,
  SaveMemoriesInput,
  SaveMemoriesResult,
  UpdateMemoryInput,
  UpdateMemoryResult,
} from "./types.ts";

export {
  DEFAULT_MAX_TOKENS,
  DEFAULT_PROFILE_MAX_TOKENS,
  DENSE_DEPTH,
  DUPLICATE_SIMILARITY,
  type MemoryServiceOptions,
  RRF_K,
  SIMILAR_SIMILARITY,
  SPLIT_TOKENS,
} from "./options.ts";
export { DEFAULT_TOP_K, defaultDenseFloor, LEXICAL_DEPTH, type RecallOptions } from "./recall.ts";
export { PREVIEW_CHARS } from "./list.ts";
export type { ReembedStatus } from "./reembed.ts";
export type { SaveOptions } from "./save.ts";

/**
 * One user's memories: the six operations over a {@link MemoryBackend}. A thin
 * face: saving is `save.ts`, recall `recall.ts`, listing `list.ts`, one memory
 * by ref `edit.ts`, the embedder and the re-embed job `reembed.ts`.
 */
export class MemoryService {
  /** The engine underneath. */
  readonly backend: MemoryBackend;
  #ctx: MemoryContext;
  #closed = false;
  #active = 0;
  #drained?: () => void;

  /** Wraps a backend. */
  constructor(backend: MemoryBackend, options: MemoryServiceOptions = {}) {
    this.backend = backend;
    const resolved = resolveMemoryOptions(options);
    this.#ctx = {
      backend,
      options: resolved,
      embedding: new Reembedder(backend, resolved),
      writes: new GroupCommit(backend, resolved.groupCommitRows),
      similar: new Batched(
        (probes) => nearestRows(backend, probes, resolved.reviewSimilarity),
        resolved.groupCommitRows,
      ),
    };
  }

  /** Resolves once the embedder is loaded and the store knows its model (tests, benchmarks). */
  async ready(): Promise<void> {
    await this.#ctx.embedding.prepare();
  }

  /** Progress of the re-embed job. */
  reembedStatus(): ReembedStatus {
    return this.#ctx.embedding.status();
  }

  /** Resolves when no re-embed job runs (tests). */
  async reembedIdle(): Promise<void> {
    await this.#ctx.embedding.idle();
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
   * of the batch: the same text after trimming white space
   * (`normalizeMemoryText`; case, punctuation, word order, numbers,
   * dates, times, codes, versions and names all count). The backend decides that inside its
   * write transaction, so concurrent saves of the same text store it once.
   * Every other memory is saved: with a `similar_to` notice naming the
   * nearest memory when the cosine is ≥ `reviewSimilarity` (0.80; from
   * `duplicateSimilarity`, 0.95, the notice says `near_duplicate: true`),
   * and a `consider_splitting` notice when over `splitTokens` (800). Empty
   * content is `invalid_arguments`.
   */
  save(input: SaveMemoriesInput, options: SaveOptions = {}): Promise<SaveMemoriesResult> {
    return this.#run(() => saveMemories(this.#ctx, input, options));
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
    return this.#run(() => recallMemories(this.#ctx, input, options));
  }

  /** Lists memories: filters, sort, paging; previews only, no embedding, no budget. */
  list(input: ListMemoriesInput = {}): Promise<ListMemoriesResult> {
    return this.#run(() => listMemories(this.#ctx, input));
  }

  /** One memory by ref or id, with its older versions. */
  get(key: MemoryKey): Promise<GetMemoryResult> {
    return this.#run(() => getMemory(this.#ctx, key));
  }

  /** Changes a live memory's content (re-embedded), occurred_at or author; the old version stays as history. */
  update(input: UpdateMemoryInput, signal?: AbortSignal): Promise<UpdateMemoryResult> {
    return this.#run(() => updateMemory(this.#ctx, input, signal));
  }

  /** Deletes a live memory and its history. */
  delete(key: MemoryKey): Promise<DeleteMemoryResult> {
    return this.#run(() => deleteMemory(this.#ctx, key));
  }

  /** Stops the re-embed job and closes the backend. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#ctx.embedding.stop();
    if (this.#active > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    await this.#ctx.embedding.stopped();
    await this.backend.close();
  }
}
