/**
 * Spans for memory work, children of the tool span that asked for it (free
 * when telemetry is off): `gleaner.memory.embed` around each call to the
 * embedder, `gleaner.memory.search` around each lookup of candidates, and
 * `gleaner.memory.store` around each write.
 *
 * Attribute names follow the OpenTelemetry semantic conventions where they
 * apply: the GenAI embeddings span
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#embeddings:
 * `gen_ai.operation.name` = `embeddings`, `gen_ai.request.model`,
 * `gen_ai.embeddings.dimension.count`) and the database client span
 * (https://opentelemetry.io/docs/specs/semconv/database/database-spans/:
 * `db.system.name` with its well-known values `sqlite` and `postgresql`,
 * `db.operation.name`, `db.collection.name`, `db.operation.batch.size`,
 * `db.response.returned_rows`); both are `CLIENT` spans. Span names keep
 * Gleaner's `gleaner.` prefix, like every other span it exports.
 *
 * `gen_ai.usage.input_tokens` is set when the embedder's service reports
 * the tokens it counted (OpenAI-compatible APIs that answer with `usage`);
 * local models count none, and Gleaner's own o200k count would misstate
 * theirs, so their spans carry no token count.
 *
 * Only names, counts and sizes are attached: never memory text, queries,
 * session ids, refs or vectors.
 *
 * @module
 */
import type { Embedder, EmbeddingUsage } from "../embed/types.ts";
import { type SpanHandle, telemetry, type TelemetryAttributes } from "../telemetry/mod.ts";

/** `db.system.name` of each built-in engine (the conventions' well-known values). */
const DB_SYSTEMS: Record<string, string> = { sqlite: "sqlite", postgres: "postgresql" };

/** The table each built-in engine keeps memories in (`db.collection.name`). */
const COLLECTIONS: Record<string, string> = { sqlite: "memories", postgres: "gleaner_memory" };

/** What an embedding is for: stored passages or a query. */
export type EmbedPurpose = "document" | "query";

/**
 * Runs `fn` (one call to `embedder`, which reports into the `usage` it is
 * given) inside a `gleaner.memory.embed` span naming the model, the number
 * of texts, the vectors' dimensions and the input tokens when known.
 *
 * @example
 * ```ts
 * import { traceMemoryEmbed } from "./spans.ts";
 * const embedder = {
 *   id: "demo", dimensions: 2,
 *   embedQueries: (t: string[]) => Promise.resolve(t.map(() => new Float32Array(2))),
 *   embedDocuments: (t: string[]) => Promise.resolve(t.map(() => new Float32Array(2))),
 * };
 * const [v] = await traceMemoryEmbed(embedder, "query", 1, () => embedder.embedQueries(["q"]));
 * console.assert(v.length === 2);
 * ```
 */
export function traceMemoryEmbed(
  embedder: Embedder,
  purpose: EmbedPurpose,
  texts: number,
  fn: (usage: EmbeddingUsage) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  return telemetry().span(
    "memory.embed",
    "memory.embed",
    {
      "gen_ai.operation.name": "embeddings",
      "gen_ai.request.model": embedder.id,
      "gleaner.memory.purpose": purpose,
    },
    async (span) => {
      const usage: EmbeddingUsage = {};
      const vectors = await fn(usage);
      const dimensions = vectors[0]?.length ?? embedder.dimensions;
      span.set({
        "gleaner.memory.texts": texts,
        ...(dimensions > 0 ? { "gen_ai.embeddings.dimension.count": dimensions } : {}),
        ...(usage.inputTokens !== undefined
          ? { "gen_ai.usage.input_tokens": usage.inputTokens }
          : {}),
      });
      return vectors;
    },
    { kind: "client" },
  );
}

/** The database attributes of a span on `engine`. */
function dbAttributes(engine: string, operation: string): TelemetryAttributes {
  const collection = COLLECTIONS[engine];
  return {
    "db.system.name": DB_SYSTEMS[engine] ?? engine,
    "db.operation.name": operation,
    ...(collection ? { "db.collection.name": collection } : {}),
  };
}

/**
 * Runs `fn` (one lookup of candidates on `engine`) inside a
 * `gleaner.memory.search` span naming the retriever (`bm25`, `dense`,
 * `recent`, `similar`) and the rows returned (`returned` counts them; by
 * default the length of an array result).
 *
 * @example
 * ```ts
 * import { traceMemorySearch } from "./spans.ts";
 * const hits = await traceMemorySearch("sqlite", "bm25", () => Promise.resolve([1, 2]));
 * console.assert(hits.length === 2);
 * ```
 */
export function traceMemorySearch<T>(
  engine: string,
  retriever: string,
  fn: () => Promise<T>,
  returned: (result: T) => number = (result) => Array.isArray(result) ? result.length : 0,
): Promise<T> {
  return telemetry().span(
    "memory.search",
    "memory.search",
    { ...dbAttributes(engine, "SELECT"), "gleaner.memory.retriever": retriever },
    async (span) => {
      const result = await fn();
      span.set({ "db.response.returned_rows": returned(result) });
      return result;
    },
    { kind: "client" },
  );
}

/**
 * Runs `fn` (one write of `rows` memories on `engine`) inside a
 * `gleaner.memory.store` span; `fn` may add counts to the span.
 *
 * @example
 * ```ts
 * import { traceMemoryStore } from "./spans.ts";
 * const n = await traceMemoryStore("sqlite", "INSERT", 3, () => Promise.resolve(3));
 * console.assert(n === 3);
 * ```
 */
export function traceMemoryStore<T>(
  engine: string,
  operation: "INSERT" | "UPDATE",
  rows: number,
  fn: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  return telemetry().span(
    "memory.store",
    "memory.store",
    dbAttributes(engine, operation),
    (span) => {
      span.set({
        "gleaner.memory.rows": rows,
        // The conventions count a batch from two operations up.
        ...(rows >= 2 ? { "db.operation.batch.size": rows } : {}),
      });
      return fn(span);
    },
    { kind: "client" },
  );
}
