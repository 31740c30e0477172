/**
 * Query expansion for BM25 from the static model's word vectors: each query
 * word brings its nearest vocabulary words (cosine over the model's rows), so
 * that a question asked in other words still matches the page's vocabulary.
 * The added words never replace the query's own, and nothing returned is
 * rewritten: expansion only changes which units BM25 ranks high. Measured
 * with `bench/containment.ts` (flat weight 1 beat weights scaled by
 * similarity).
 *
 * @module
 */
import { LruCache } from "../cache/lru_cache.ts";
import type { RankSection } from "../config/sections.ts";
import type { Env } from "../config/env.ts";
import { getGleanerLogger } from "../log.ts";
import { tokenize } from "./bm25.ts";
import { readStaticModel, type StaticTable } from "../embed/static_fast.ts";
import { ensureStaticModelDir } from "../embed/static.ts";
import {
  decodeNeighbourTable,
  type NeighbourTable,
  NO_NEIGHBOUR,
  WordSpace,
} from "./neighbours.ts";

/** Options of {@link createQueryExpander}. */
export interface ExpanderOptions {
  /** Neighbours added per query word (default 8; 0 turns expansion off). */
  neighbours?: number;
  /** Least cosine similarity of a neighbour (default 0.4). */
  minSimilarity?: number;
  /** Weight of an added word against the query's own words, 0..1 (default 1). */
  weight?: number;
  /** Query words whose neighbours are remembered (default 4,096). */
  cacheSize?: number;
}

/** Expands queries into weighted extra words. */
export interface QueryExpander {
  /**
   * Extra words for `query` with their weights (0..1); words whose stem is
   * already in the query are left out.
   */
  expand(query: string): Map<string, number>;
}

const WORD = /[\p{L}\p{N}]+/gu;
const log = getGleanerLogger("rank");

/**
 * The rows query expansion may add: words made of letters only (numbers are
 * exact, "2019" must not bring "2018") that BM25 does not drop as stopwords;
 * and a word → row index of the whole vocabulary (other rows simply have no
 * neighbours). Shared by the expander and the build of `neighbours.bin`, so
 * both see the same rows.
 */
export function expansionSpace(
  table: StaticTable,
  vocabulary: readonly string[],
): { space: WordSpace; index: Map<string, number> } {
  const index = new Map<string, number>();
  vocabulary.forEach((word, row) => {
    if (word) index.set(word, row);
  });
  const space = new WordSpace(
    table,
    vocabulary.length,
    (row) => /^\p{L}+$/u.test(vocabulary[row]) && tokenize(vocabulary[row]).length > 0,
  );
  return { space, index };
}

/**
 * Builds an expander over a static embedding table whose row `i` is the
 * vector of `vocabulary[i]`. Rows of special tokens (`[UNK]`, `[CLS]`…) and
 * words that BM25 ignores (stopwords) are never added. With `precomputed`
 * lists that cover the options (as many neighbours or more, a similarity
 * floor no higher), each word is a lookup; otherwise its row is compared with
 * every other (about 3 ms per word for the shipped model).
 *
 * @example
 * ```ts
 * import { createQueryExpander } from "./expand.ts";
 * const table = { rows: 4, dims: 2, table: new Float32Array([1, 0, 0.9, 0.1, 0, 1, 0.95, 0]) };
 * const expander = createQueryExpander(table, ["car", "automobile", "banana", "vehicle"], { neighbours: 2 });
 * const extra = expander.expand("red car");
 * console.assert(extra.has("vehicle") && extra.has("automobile") && !extra.has("banana"));
 * ```
 */
export function createQueryExpander(
  table: StaticTable,
  vocabulary: readonly string[],
  options: ExpanderOptions & { precomputed?: NeighbourTable } = {},
): QueryExpander {
  const k = Math.max(0, Math.floor(options.neighbours ?? 8));
  const minSimilarity = options.minSimilarity ?? 0.4;
  const weight = Math.min(1, Math.max(0, options.weight ?? 1));
  const cacheSize = Math.max(0, Math.floor(options.cacheSize ?? 4096));
  const { space, index } = expansionSpace(table, vocabulary);
  const pre = options.precomputed;
  const usePrecomputed = pre !== undefined && pre.rows === space.rows && pre.k >= k &&
    pre.minSimilarity <= minSimilarity + 1e-6;
  const cache = new LruCache<string, string[]>(cacheSize);

  const neighboursOf = (word: string): string[] => {
    const cached = cache.get(word);
    if (cached) return cached;
    const row = index.get(word);
    let found: string[] = [];
    if (row !== undefined && usePrecomputed) {
      // The lists hold every neighbour above their own floor; a higher floor is checked here.
      const check = minSimilarity > pre.minSimilarity + 1e-6;
      for (let i = 0; i < pre.k && found.length < k; i++) {
        const id = pre.ids[row * pre.k + i];
        if (id === NO_NEIGHBOUR || (check && space.similarity(row, id) < minSimilarity)) break;
        found.push(vocabulary[id]);
      }
    } else if (row !== undefined) {
      found = space.nearest(row, k, minSimilarity).map(([r]) => vocabulary[r]);
    }
    cache.set(word, found);
    return found;
  };

  return {
    expand(query: string): Map<string, number> {
      const extra = new Map<string, number>();
      if (k === 0 || weight === 0) return extra;
      const own = new Set(tokenize(query));
      for (const word of new Set(query.toLowerCase().match(WORD) ?? [])) {
        for (const neighbour of neighboursOf(word)) {
          const stems = tokenize(neighbour);
          if (stems.length === 0 || stems.some((s) => own.has(s))) continue;
          extra.set(neighbour, weight);
        }
      }
      return extra;
    },
  };
}

/**
 * The expander options the `rank` settings name (`expand_terms`,
 * `expand_min_similarity`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "@gleaner/gleaner";
 * import { expanderOptions } from "./expand.ts";
 * console.assert(expanderOptions(parseConfig({}).rank).neighbours === 8);
 * ```
 */
export function expanderOptions(
  rank: Pick<RankSection, "expand_terms" | "expand_min_similarity">,
): ExpanderOptions {
  return { neighbours: rank.expand_terms, minSimilarity: rank.expand_min_similarity };
}

/**
 * Loads an expander from a static model directory (default the shipped one):
 * the table of `onnx/model_quantized.onnx`, the vocabulary of
 * `tokenizer.json` (read once per process with the static embedder, see
 * `readStaticModel`) and, when present, the lists of `neighbours.bin`. Throws
 * `not_found` when the files cannot be read and `provider_unavailable` when
 * they are not a static model.
 *
 * @example
 * ```ts
 * import { loadQueryExpander } from "./expand.ts";
 * const expander = await loadQueryExpander();
 * console.assert(expander.expand("automobile").size > 0);
 * ```
 */
export async function loadQueryExpander(
  options: ExpanderOptions & {
    /** The static model's directory (default the shipped one, see `ensureStaticModelDir`). */
    dir?: string;
    /** The entry point's environment snapshot: where a copy of the model goes when one is needed. */
    env?: Env;
  } = {},
): Promise<QueryExpander> {
  const dir = (options.dir ?? await ensureStaticModelDir({ env: options.env })).replace(/\/+$/, "");
  const { table, tokenizer } = await readStaticModel(dir);
  let precomputed: NeighbourTable | undefined;
  try {
    precomputed = decodeNeighbourTable(await Deno.readFile(`${dir}/neighbours.bin`));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      log.warn("ignoring {dir}/neighbours.bin: {error}", { dir, error: String(error) });
    }
  }
  return createQueryExpander(table, vocabularyOf(tokenizer, table.rows), {
    ...options,
    precomputed,
  });
}

/**
 * The id → word vocabulary of a static model's parsed `tokenizer.json`, for a
 * table of `rows` rows (ids without a word get `""`).
 *
 * @example
 * ```ts
 * import { vocabularyOf } from "./expand.ts";
 * const words = vocabularyOf({ model: { vocab: { "[UNK]": 0, car: 1 } } }, 3);
 * console.assert(words.join() === "[UNK],car,");
 * ```
 */
export function vocabularyOf(tokenizer: unknown, rows: number): string[] {
  const vocab = (tokenizer as { model?: { vocab?: Record<string, number> } })?.model?.vocab ?? {};
  const vocabulary = new Array<string>(rows).fill("");
  for (const [word, id] of Object.entries(vocab)) {
    if (Number.isInteger(id) && id >= 0 && id < rows) vocabulary[id] = word;
  }
  return vocabulary;
}
