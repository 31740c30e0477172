/**
 * Gleaner's memory store: concise memories and their embeddings, ranked with
 * BM25 and vectors, recalled within a token budget. One SQLite file by
 * default (or one per user in hosted mode); the engine is a
 * {@link MemoryBackend}, and everything above it ({@link MemoryService}) is
 * shared by every engine.
 *
 * @example
 * ```ts
 * import { MemoryService, openSqliteMemoryBackend } from "./mod.ts";
 * const memories = new MemoryService(openSqliteMemoryBackend(":memory:"));
 * const saved = await memories.save({ memories: [{ content: "Prefers concise answers", kind: "profile" }] });
 * const recall = await memories.recall({});
 * console.assert(recall.profile[0].ref === saved.results[0].ref);
 * await memories.close();
 * ```
 *
 * @module
 */
export * from "./types.ts";
export { MEMORY_MIGRATIONS } from "./sqlite/migrations.ts";
export {
  defaultMemoryPath,
  openSqliteMemoryBackend,
  SqliteMemoryBackend,
  type SqliteMemoryOptions,
} from "./sqlite/backend.ts";
export {
  DEFAULT_MAX_TOKENS,
  DEFAULT_PROFILE_MAX_TOKENS,
  DEFAULT_TOP_K,
  DUPLICATE_SIMILARITY,
  MemoryService,
  type MemoryServiceOptions,
  PREVIEW_CHARS,
  type RecallOptions,
  type ReembedStatus,
  RRF_K,
  type SaveOptions,
  SIMILAR_SIMILARITY,
  SPLIT_TOKENS,
} from "./service.ts";
export {
  checkUserId,
  MAX_USER_ID_BYTES,
  memoryFilePath,
  type MemorySettings,
  MemoryStores,
  type MemoryStoresOptions,
  openMemoryBackend,
} from "./stores.ts";
export { escapeMemoryText, renderRecall } from "./render.ts";
export { parseTimeFilter } from "./time.ts";
export {
  ftsQuery,
  memoryTextKey,
  normalizeMemoryText,
  queryWords,
  searchWords,
  STOPWORDS,
} from "./text.ts";
