/**
 * The embedder of the memory service and the background re-embed job: the
 * embedder is loaded once and its model declared to the backend; memories
 * without a vector of that model (a new model, or a failed embedding) are
 * embedded in batches in the background, between requests, while recall
 * ranks with BM25 alone.
 *
 * @module
 */
import { getGleanerLogger } from "../log.ts";
import { pace } from "../async/pace.ts";
import type { Embedder } from "../embed/types.ts";
import type { ResolvedMemoryOptions } from "./options.ts";
import type { MemoryBackend, MemoryNotice } from "./types.ts";

const log = getGleanerLogger("memory");

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

/** The loaded embedder and its model (both absent: BM25 only). */
export interface EmbedderReady {
  /** The embedder, when one loaded. */
  embedder?: Embedder;
  /** Its model id. */
  model?: string;
}

/** The embedder of one memory service and its re-embed job. */
export class Reembedder {
  #backend: MemoryBackend;
  #options: ResolvedMemoryOptions;
  #ready?: Promise<EmbedderReady>;
  #job?: Promise<void>;
  #jobState = { done: 0, total: 0, started: 0 };
  #closed = false;

  /** Serves `backend` with the embedder and settings of `options`. */
  constructor(backend: MemoryBackend, options: ResolvedMemoryOptions) {
    this.#backend = backend;
    this.#options = options;
  }

  /** True while the re-embed job runs. */
  get running(): boolean {
    return this.#job !== undefined;
  }

  /** Loads the embedder once, declares its model to the backend and starts catching up. */
  prepare(): Promise<EmbedderReady> {
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
      const reset = await this.#backend.useEmbeddingModel(embedder.id, dimensions);
      if (reset) {
        log.info("memory: embedding model is now {model}; re-embedding", { model: embedder.id });
      }
      const ready = { embedder, model: embedder.id };
      if ((await this.#backend.counts()).pending > 0) this.start(ready);
      return ready;
    })();
    return this.#ready;
  }

  /** Progress of the re-embed job. */
  status(): ReembedStatus {
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

  /** Resolves when no re-embed job runs. */
  async idle(): Promise<void> {
    await this.prepare();
    while (this.#job) await this.#job;
  }

  /** Starts the re-embed job unless it runs, the service closed, or there is no embedder. */
  start(ready: EmbedderReady): void {
    if (this.#job || this.#closed || !ready.embedder || !ready.model) return;
    const { embedder, model } = ready;
    const job = (async () => {
      const pending = (await this.#backend.counts()).pending;
      this.#jobState = { done: 0, total: pending, started: this.#options.now() };
      for (;;) {
        if (this.#closed) return;
        const batch = await this.#backend.pendingEmbeddings(this.#options.reembedBatch);
        if (batch.length === 0) return;
        const vectors = await embedder.embedDocuments(batch.map((b) => b.content));
        if (this.#closed) return;
        const stored = await this.#backend.setEmbeddings(
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
  notices(ready: EmbedderReady): MemoryNotice[] {
    if (!ready.embedder) {
      return [{
        code: "no_embedder",
        message:
          "No embedder is available: recall ranks with BM25 alone and near-duplicates are not flagged.",
      }];
    }
    if (!this.#job) return [];
    const s = this.status();
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

  /** Marks the service closed: the job stops after its batch in flight. */
  stop(): void {
    this.#closed = true;
  }

  /** Resolves when the job (if any) has ended (after {@link stop}). */
  async stopped(): Promise<void> {
    await this.#job?.catch(() => {});
  }
}
