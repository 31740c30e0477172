/**
 * Persistent embedding cache on SQLite, keyed by model id and text hash; each
 * vector is stored as a BLOB of little-endian Float32 values. Bounded: above
 * `maxEntries` vectors the oldest written are removed.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { GleanerError } from "../errors.ts";
import type { EmbeddingCache } from "../embed/types.ts";
import { transaction } from "./sqlite.ts";

export type { EmbeddingCache };

/** Hashes looked up per query (bounded so one statement stays small). */
const LOOKUP_BATCH = 500;

/**
 * Vectors kept by default: about 200 MB of 512-d vectors (the cascade's
 * reranker), 40 MB of 100-d ones. The oldest written go first.
 *
 * @internal exported for tests only
 */
export const DEFAULT_MAX_EMBEDDINGS = 100_000;

/** Options of {@link SqliteEmbeddingCache}. */
export interface SqliteEmbeddingCacheOptions {
  /** Clock (ms since epoch) stamped on new rows; injectable for tests. */
  now?: () => number;
  /**
   * Vectors kept, all models together (default {@link DEFAULT_MAX_EMBEDDINGS}); above it the
   * oldest written are removed, down to 98% of it (a small delete: no long stall).
   */
  maxEntries?: number;
  /** Vectors written between two counts of the table (default 1,000; the first write counts). */
  checkEvery?: number;
}

/**
 * {@link EmbeddingCache} on the store's SQLite file.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./sqlite.ts";
 * import { SqliteEmbeddingCache } from "./embeddings.ts";
 * const db = openDatabase(":memory:");
 * const cache = new SqliteEmbeddingCache(db);
 * await cache.put("static:demo", new Map([["h1", new Float32Array([0.6, 0.8])]]));
 * const got = await cache.get("static:demo", ["h1", "h2"]);
 * console.assert(got.size === 1 && Math.abs(got.get("h1")![1] - 0.8) < 1e-6);
 * db.close();
 * ```
 */
export class SqliteEmbeddingCache implements EmbeddingCache {
  readonly #db: DatabaseSync;
  readonly #now: () => number;
  readonly #select: StatementSync;
  readonly #insert: StatementSync;
  readonly #count: StatementSync;
  readonly #prune: StatementSync;
  readonly #maxEntries: number;
  readonly #checkEvery: number;
  #sinceCheck: number;

  /** Wraps an open, migrated database (see `openDatabase`). */
  constructor(db: DatabaseSync, options: SqliteEmbeddingCacheOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#select = db.prepare(
      `SELECT hash, dims, vector FROM embeddings
       WHERE model = ? AND hash IN (SELECT value FROM json_each(?))`,
    );
    this.#maxEntries = Math.max(1, Math.floor(options.maxEntries ?? DEFAULT_MAX_EMBEDDINGS));
    this.#checkEvery = Math.max(1, Math.floor(options.checkEvery ?? 1_000));
    this.#sinceCheck = this.#checkEvery;
    // Counted on the age index (a few bytes a row), not on the vectors.
    this.#count = db.prepare("SELECT COUNT(*) AS n FROM embeddings INDEXED BY embeddings_by_age");
    this.#prune = db.prepare(
      `DELETE FROM embeddings WHERE (model, hash) IN
         (SELECT model, hash FROM embeddings ORDER BY created_at LIMIT ?)`,
    );
    this.#insert = db.prepare(
      `INSERT INTO embeddings (model, hash, dims, vector, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (model, hash) DO UPDATE SET dims = excluded.dims, vector = excluded.vector,
         created_at = excluded.created_at`,
    );
  }

  /** Vectors already stored for these hashes (missing ones are absent from the map). */
  get(model: string, hashes: string[]): Promise<Map<string, Float32Array>> {
    return Promise.try(() => {
      checkModel(model);
      const out = new Map<string, Float32Array>();
      const unique = [...new Set(hashes)];
      for (let i = 0; i < unique.length; i += LOOKUP_BATCH) {
        const batch = JSON.stringify(unique.slice(i, i + LOOKUP_BATCH));
        const rows = this.#select.all(model, batch) as {
          hash: string;
          dims: number;
          vector: Uint8Array;
        }[];
        for (const row of rows) {
          const vector = blobToVector(row.vector);
          if (vector.length === Number(row.dims)) out.set(row.hash, vector);
        }
      }
      return out;
    });
  }

  /**
   * Stores vectors (replacing any stored under the same model and hash), in one transaction;
   * keeps the table under `maxEntries` by removing the oldest written.
   */
  put(model: string, entries: Map<string, Float32Array>): Promise<void> {
    return Promise.try(() => {
      checkModel(model);
      if (entries.size === 0) return;
      const now = this.#now();
      transaction(this.#db, () => {
        for (const [hash, vector] of entries) {
          if (!(vector instanceof Float32Array)) {
            throw new GleanerError("invalid_arguments", `embedding for ${hash} is not Float32`, {
              details: { field: "entries" },
            });
          }
          this.#insert.run(model, hash, vector.length, vectorToBlob(vector), now);
        }
      });
      this.#sinceCheck += entries.size;
      if (this.#sinceCheck >= this.#checkEvery) {
        this.#sinceCheck = 0;
        const { n } = this.#count.get() as { n: number };
        if (n > this.#maxEntries) this.#prune.run(n - Math.floor(this.#maxEntries * 0.98));
      }
    });
  }
}

/** The bytes of a vector, as stored (a view, no copy). */
export function vectorToBlob(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A stored BLOB back to a vector (copied so it is aligned and owned). */
export function blobToVector(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob.byteLength - (blob.byteLength % 4));
  copy.set(blob.subarray(0, copy.byteLength));
  return new Float32Array(copy.buffer);
}

function checkModel(model: string): void {
  if (typeof model !== "string" || model.length === 0 || model.length > 200) {
    throw new GleanerError("invalid_arguments", "embedding model id must be 1-200 characters", {
      details: { field: "model" },
    });
  }
}
