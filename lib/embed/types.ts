/**
 * The one interface every embedder implements.
 *
 * @module
 */

/**
 * Turns texts into unit-length vectors, one per input text, in input order.
 * A text that yields no vector (empty or whitespace-only, or one the model
 * maps to nothing) gets the all-zero vector instead of NaN; `cosine` in
 * `vector.ts` scores it 0 against anything.
 */
export interface Embedder {
  /** Stable identity of the model (used in cache keys), e.g. `static:use-lite-distil-30k-100d:<sha>`. */
  readonly id: string;
  /** Vector length (for an API embedder without configured dimensions: 0 until its first answer). */
  readonly dimensions: number;
  /**
   * Embeds search queries (with the model's query prefix, if any); an
   * embedder whose service counts tokens adds them to `usage`.
   */
  embedQueries(
    texts: string[],
    signal?: AbortSignal,
    usage?: EmbeddingUsage,
  ): Promise<Float32Array[]>;
  /**
   * Embeds passages (with the model's document prefix, if any); an embedder
   * whose service counts tokens adds them to `usage`.
   */
  embedDocuments(
    texts: string[],
    signal?: AbortSignal,
    usage?: EmbeddingUsage,
  ): Promise<Float32Array[]>;
  /** Releases resources. */
  close?(): Promise<void>;
}

/**
 * What a call to an embedder used, as far as its model service says: left
 * untouched by embedders that count nothing (local models).
 */
export interface EmbeddingUsage {
  /** Input tokens the service counted, summed over the call's requests. */
  inputTokens?: number;
}

/** Persistent store of document embeddings keyed by model id and text hash. */
export interface EmbeddingCache {
  /** Vectors already stored for these hashes (missing ones absent from the map). */
  get(model: string, hashes: string[]): Promise<Map<string, Float32Array>>;
  /** Stores vectors. */
  put(model: string, entries: Map<string, Float32Array>): Promise<void>;
}
