/**
 * BM25 (k1 1.2, b 0.75) over units, with a small tokenizer: lower case,
 * Unicode letters/digits, English stopwords removed, light suffix stemming,
 * CJK split into characters and bigrams.
 *
 * Tokenizing and indexing are written as steps (`async/pace.ts`):
 * {@link bm25RankPaced} and {@link Bm25Index.paced} pause between them with
 * the shared pacer, so a server keeps answering while a huge page is
 * indexed; the synchronous API runs the same steps at once.
 *
 * @module
 */
import { runPaced, runSteps, type Steps } from "../async/pace.ts";
import { STOPWORDS } from "../text/stopwords.ts";
import { LruCache } from "../cache/lru_cache.ts";

const CJK_RUN = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+$/u;
const TOKEN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{M}\p{N}]+/gu;

function undouble(stem: string): string {
  return /([bdfgklmnprtz])\1$/.test(stem) ? stem.slice(0, -1) : stem;
}

/**
 * Light English stemming: plural, -ing and -ed suffixes.
 *
 * @example
 * ```ts
 * import { stem } from "./bm25.ts";
 * console.assert(stem("running") === stem("runs"));
 * console.assert(stem("studies") === stem("study"));
 * ```
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return word.slice(0, -3) + "y";
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ing") && word.length > 5) return undouble(word.slice(0, -3));
  if (word.endsWith("ed") && word.length > 4) {
    if (word.endsWith("ied")) return word.slice(0, -3) + "y";
    return undouble(word.slice(0, -2));
  }
  if (word.endsWith("es") && /(ch|sh|x|z|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * Search tokens of a text.
 *
 * @example
 * ```ts
 * import { tokenize } from "./bm25.ts";
 * console.assert(tokenize("The Cats are running!").join(" ") === "cat run");
 * ```
 */
export function tokenize(text: string): string[] {
  return runSteps(tokenSteps(text));
}

/** Words, characters or terms handled between two steps. */
const TERMS_PER_STEP = 2048;

/** {@link tokenize} in steps. */
function* tokenSteps(text: string): Steps<string[]> {
  const out: string[] = [];
  let step = 0;
  for (const match of text.toLowerCase().matchAll(TOKEN)) {
    if (++step % TERMS_PER_STEP === 0) yield;
    const word = match[0];
    if (CJK_RUN.test(word)) {
      const chars = [...word];
      for (let i = 0; i < chars.length; i++) {
        if (++step % TERMS_PER_STEP === 0) yield;
        out.push(chars[i]);
        if (i + 1 < chars.length) out.push(chars[i] + chars[i + 1]);
      }
      continue;
    }
    if (STOPWORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

/** BM25 parameters. */
export interface Bm25Options {
  /** Term-frequency saturation (default 1.2). */
  k1?: number;
  /** Length normalization (default 0.75). */
  b?: number;
}

/** What an index holds besides its parameters. */
interface IndexData {
  docs: Map<string, number>[];
  lengths: number[];
  df: Map<string, number>;
}

/** Longest text whose term counts are remembered (passages are far shorter). */
const MEMO_CHARS = 4096;

/**
 * Term counts of the passages indexed lately: a page's passages are indexed again for every
 * question asked of it. Shared by the indexes that hold them, which only read them.
 */
const termCounts = new LruCache<string, Map<string, number>>(8_192);

/** Term counts, lengths and document frequencies of `texts`, in steps. */
function* indexSteps(texts: readonly string[]): Steps<IndexData> {
  const docs: Map<string, number>[] = [];
  const lengths: number[] = [];
  const df = new Map<string, number>();
  let step = 0;
  for (const text of texts) {
    const memo = text.length <= MEMO_CHARS;
    let tf = memo ? termCounts.get(text) : undefined;
    if (!tf) {
      tf = new Map<string, number>();
      for (const t of yield* tokenSteps(text)) {
        tf.set(t, (tf.get(t) ?? 0) + 1);
        if (++step % TERMS_PER_STEP === 0) yield;
      }
      if (memo) termCounts.set(text, tf);
    }
    docs.push(tf);
    yield;
  }
  for (const tf of docs) {
    let length = 0;
    for (const count of tf.values()) length += count;
    lengths.push(length);
  }
  for (const tf of docs) {
    for (const term of tf.keys()) {
      df.set(term, (df.get(term) ?? 0) + 1);
      if (++step % TERMS_PER_STEP === 0) yield;
    }
  }
  return { docs, lengths, df };
}

/** A BM25 index over a fixed list of texts. */
export class Bm25Index {
  #docs: Map<string, number>[] = [];
  #lengths: number[] = [];
  #df = new Map<string, number>();
  #avg = 1;
  readonly #k1: number;
  readonly #b: number;

  /**
   * Indexes the texts.
   *
   * @example
   * ```ts
   * import { Bm25Index } from "./bm25.ts";
   * const index = new Bm25Index(["cats purr", "dogs bark"]);
   * const [cats, dogs] = index.score("cat");
   * console.assert(cats > 0 && dogs === 0);
   * ```
   */
  constructor(texts: readonly string[], options: Bm25Options = {}) {
    this.#k1 = options.k1 ?? 1.2;
    this.#b = options.b ?? 0.75;
    if (texts.length > 0) this.#use(runSteps(indexSteps(texts)));
  }

  /** Takes the counted data of the texts. */
  #use(data: IndexData): void {
    this.#docs = data.docs;
    this.#lengths = data.lengths;
    this.#df = data.df;
    const total = this.#lengths.reduce((a, b) => a + b, 0);
    this.#avg = data.lengths.length ? Math.max(1, total / data.lengths.length) : 1;
  }

  /**
   * The same index as `new Bm25Index(texts, options)`, built in steps that
   * pause with the shared pacer (`async/pace.ts`), so a server keeps
   * answering while a huge page is indexed.
   *
   * @example
   * ```ts
   * import { Bm25Index } from "./bm25.ts";
   * const index = await Bm25Index.paced(["cats purr", "dogs bark"]);
   * const [cats, dogs] = index.score("cat");
   * console.assert(cats > 0 && dogs === 0);
   * ```
   */
  static async paced(texts: readonly string[], options: Bm25Options = {}): Promise<Bm25Index> {
    const data = await runPaced(indexSteps(texts));
    const index = new Bm25Index([], options);
    index.#use(data);
    return index;
  }

  /**
   * BM25 score of every indexed text for the query (0 when no term matches).
   * `expansion` adds further words, each counted with its weight (0..1) instead
   * of 1; a word whose stem is already in the query keeps the query's weight.
   */
  score(query: string, expansion?: ReadonlyMap<string, number>): number[] {
    const weights = new Map<string, number>();
    for (const [word, weight] of expansion ?? []) {
      for (const term of tokenize(word)) {
        weights.set(term, Math.max(weights.get(term) ?? 0, weight));
      }
    }
    for (const term of tokenize(query)) weights.set(term, 1);
    const n = this.#docs.length;
    const scores = new Array<number>(n).fill(0);
    for (const [term, weight] of weights) {
      const df = this.#df.get(term);
      if (!df || weight <= 0) continue;
      const idf = weight * Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < n; i++) {
        const tf = this.#docs[i].get(term);
        if (!tf) continue;
        const norm = this.#k1 * (1 - this.#b + (this.#b * this.#lengths[i]) / this.#avg);
        scores[i] += idf * ((tf * (this.#k1 + 1)) / (tf + norm));
      }
    }
    return scores;
  }
  /**
   * Share of the query's weight each indexed text holds: the IDF of the query's terms it
   * contains over the IDF of all the query's terms (0..1). A term found in no text counts at the
   * highest IDF, so a question whose words the texts do not use covers little anywhere.
   *
   * @example
   * ```ts
   * import { Bm25Index } from "./bm25.ts";
   * const index = new Bm25Index(["the fennec fox", "foxes and dogs", "cats"]);
   * const [fennec, foxes, cats] = index.coverage("fennec fox");
   * console.assert(fennec === 1 && foxes > 0 && foxes < 0.5 && cats === 0);
   * ```
   */
  coverage(query: string): number[] {
    const n = this.#docs.length;
    const out = new Array<number>(n).fill(0);
    const idfOf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
    let total = 0;
    const present: [string, number][] = [];
    for (const term of new Set(tokenize(query))) {
      const df = this.#df.get(term) ?? 0;
      total += idfOf(df);
      if (df > 0) present.push([term, idfOf(df)]);
    }
    if (total <= 0) return out;
    for (let i = 0; i < n; i++) {
      let held = 0;
      for (const [term, idf] of present) if (this.#docs[i].has(term)) held += idf;
      out[i] = held / total;
    }
    return out;
  }
}

/**
 * Indices of `texts` with a positive BM25 score for `query`, best first.
 *
 * @example
 * ```ts
 * import { bm25Rank } from "./bm25.ts";
 * const order = bm25Rank("moon tides", ["tides and the moon", "tides", "cooking"]);
 * console.assert(order.join() === "0,1");
 * ```
 */
export function bm25Rank(
  query: string,
  texts: readonly string[],
  options?: Bm25Options & { expansion?: ReadonlyMap<string, number> },
): number[] {
  return rankOrder(new Bm25Index(texts, options).score(query, options?.expansion));
}

/**
 * {@link bm25Rank} that indexes in steps paced with the shared pacer
 * (`async/pace.ts`): the same order, while a server keeps answering.
 *
 * @example
 * ```ts
 * import { bm25RankPaced } from "./bm25.ts";
 * const order = await bm25RankPaced("moon tides", ["tides and the moon", "tides", "cooking"]);
 * console.assert(order.join() === "0,1");
 * ```
 */
export async function bm25RankPaced(
  query: string,
  texts: readonly string[],
  options?: Bm25Options & { expansion?: ReadonlyMap<string, number> },
): Promise<number[]> {
  const index = await Bm25Index.paced(texts, options);
  return rankOrder(index.score(query, options?.expansion));
}

/**
 * Indices with a positive score, best first (ties in index order).
 *
 * @example
 * ```ts
 * import { rankOrder } from "./bm25.ts";
 * console.assert(rankOrder([0.5, 0, 2]).join() === "2,0");
 * ```
 */
export function rankOrder(scores: readonly number[]): number[] {
  return scores.map((s, i) => [s, i] as const).filter(([s]) => s > 0)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]).map(([, i]) => i);
}
