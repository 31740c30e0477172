/**
 * A caching wrapper: passage vectors are looked up in an
 * {@link EmbeddingCache} by model id (which also fixes the model's prefixes)
 * and the SHA-256 of the passage text, and only the missing ones are computed. Queries are never
 * cached (they are short and rarely repeat).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { LruCache } from "../cache/lru_cache.ts";
import { getGleanerLogger } from "../log.ts";
import type { Embedder, EmbeddingCache, EmbeddingUsage } from "./types.ts";
import { isZeroVector } from "./vector.ts";

const logger = getGleanerLogger("rank", "embed");

/**
 * Lower-case hex SHA-256 of a text (UTF-8), the cache key of a passage.
 *
 * @example
 * ```ts
 * import { textHash } from "./cached.ts";
 * console.assert(
 *   (await textHash("abc")) === "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * ```
 */
export function textHash(text: string): Promise<string> {
  return Promise.resolve(textHashSync(text));
}

/**
 * {@link textHash} computed at once (about ten times cheaper than one `crypto.subtle` call
 * per text: a cached page's 80 passages are hashed on every question).
 *
 * @example
 * ```ts
 * import { textHashSync } from "./cached.ts";
 * console.assert(textHashSync("abc").startsWith("ba7816bf"));
 * ```
 */
export function textHashSync(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The part of an embedder id that a document prefix adds (`:dp-` and 8 hex digits of its
 * SHA-256), so vectors embedded with another prefix are never taken from the cache; `""` for
 * no prefix.
 *
 * @example
 * ```ts
 * import { documentPrefixTag } from "./cached.ts";
 * console.assert(documentPrefixTag("") === "");
 * console.assert(/^:dp-[0-9a-f]{8}$/.test(documentPrefixTag("passage: ")));
 * ```
 */
export function documentPrefixTag(prefix: string): string {
  return prefix === "" ? "" : `:dp-${textHashSync(prefix).slice(0, 8)}`;
}

/** Options of {@link withCache}. */
export interface WithCacheOptions {
  /**
   * Vectors kept in process, keyed by text hash, consulted before `cache` (a cached page's
   * passages then cost no read of the store). Its keys carry no model id: give each embedder
   * its own.
   */
  memory?: LruCache<string, Float32Array>;
}

/**
 * Wraps an embedder so `embedDocuments` reads from and writes to `cache`
 * (and `options.memory`, in process, first).
 * Identical texts in one call are embedded once; zero vectors (texts that
 * could not be embedded) are not stored. A failing cache is logged and
 * bypassed, never fatal.
 *
 * @example
 * ```ts ignore
 * import { withCache } from "./cached.ts";
 * import { createStaticEmbedder } from "./static.ts";
 * import { SqliteEmbeddingCache } from "../store/embeddings.ts";
 * import { openDatabase } from "../store/sqlite.ts";
 * const embedder = withCache(await createStaticEmbedder(), new SqliteEmbeddingCache(openDatabase(":memory:")));
 * await embedder.embedDocuments(["a passage"]); // computed and stored
 * await embedder.embedDocuments(["a passage"]); // read from the cache
 * ```
 */
export function withCache(
  embedder: Embedder,
  cache: EmbeddingCache,
  options: WithCacheOptions = {},
): Embedder {
  const { memory } = options;
  const embedDocuments = async (texts: string[], signal?: AbortSignal, usage?: EmbeddingUsage) => {
    const hashes = texts.map(textHashSync);
    const found = new Map<string, Float32Array>();
    const unread: string[] = [];
    for (const hash of new Set(hashes)) {
      const vector = memory?.get(hash);
      if (vector) found.set(hash, vector);
      else unread.push(hash);
    }
    const dims = embedder.dimensions;
    if (unread.length > 0) {
      try {
        for (const [hash, vector] of await cache.get(embedder.id, unread)) {
          if (dims && vector.length !== dims) continue;
          found.set(hash, vector);
          memory?.set(hash, vector);
        }
      } catch (error) {
        logger.warning("embedding cache read failed: {error}", { error: String(error) });
      }
    }
    const missing: string[] = [];
    const missingHashes: string[] = [];
    const seen = new Set<string>();
    texts.forEach((text, i) => {
      const hash = hashes[i];
      if (found.has(hash) || seen.has(hash)) return;
      seen.add(hash);
      missing.push(text);
      missingHashes.push(hash);
    });
    if (missing.length > 0) {
      // Only the texts not cached reach the model: their tokens are the usage.
      const vectors = await embedder.embedDocuments(missing, signal, usage);
      const fresh = new Map<string, Float32Array>();
      missingHashes.forEach((hash, k) => {
        found.set(hash, vectors[k]);
        if (!isZeroVector(vectors[k])) {
          fresh.set(hash, vectors[k]);
          memory?.set(hash, vectors[k]);
        }
      });
      if (fresh.size > 0) {
        try {
          await cache.put(embedder.id, fresh);
        } catch (error) {
          logger.warning("embedding cache write failed: {error}", { error: String(error) });
        }
      }
    }
    return hashes.map((hash) => found.get(hash)!);
  };

  return {
    get id() {
      return embedder.id;
    },
    get dimensions() {
      return embedder.dimensions;
    },
    embedQueries: (texts, signal, usage) => embedder.embedQueries(texts, signal, usage),
    embedDocuments,
    close: () => embedder.close?.() ?? Promise.resolve(),
  };
}
