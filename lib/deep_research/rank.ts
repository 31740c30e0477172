/**
 * A small, deterministic in-memory index for a server's catalogue (thousands
 * of tables, pages or records that fit in memory), so `search` needs no
 * search engine:
 *
 * - text is normalised without accents and case (`População` ≡ `populacao`);
 * - tokens are runs of `[a-z0-9]` of two or more characters, minus the
 *   locale's stop-words (`lib/text/`);
 * - each query token scores per field: id 10, title 3, keywords 2, text 1 for
 *   an exact token, half that for a field token the query token (3+
 *   characters) is a prefix of;
 * - each distinct query token matched adds a coverage bonus (two weak matches
 *   beat one strong repeated one), and the whole query as a phrase in the
 *   title adds another;
 * - ties keep the collection's order; an empty query, or one that matches
 *   nothing, gives `[]`.
 *
 * `scoring: "bm25"` swaps the field weights for BM25 (`lib/rank/bm25.ts`)
 * behind the same interface, for entries that carry their whole text.
 *
 * @module
 */
import { getGleanerLogger } from "../log.ts";
import { Bm25Index } from "../rank/bm25.ts";
import type { SearchResult } from "./contract.ts";
import { checkLocale, type ContractLocale, DEFAULT_LOCALE, stopwordsFor } from "./messages.ts";

/** How many results a search returns unless told otherwise. */
export const DEFAULT_LIMIT = 10;

/** Field weights of one matched query token (a prefix match is worth half). */
const WEIGHTS = { id: 10, title: 3, keywords: 2, text: 1 } as const;
/** Added for each distinct query token matched in some field. */
const COVERAGE_BONUS = 10;
/** Added when the title holds the whole query as a phrase. */
const PHRASE_BONUS = 5;
/** Shortest query token that matches as a prefix. */
const PREFIX_MIN = 3;
/** Most distinct query tokens scored (a longer query keeps its first ones). */
const MAX_QUERY_TOKENS = 32;

const log = getGleanerLogger("deep_research");

/** One document of a catalogue: the contract's three keys plus text that only ranks. */
export interface IndexEntry extends SearchResult {
  /** Synonyms, acronyms, other codes: worth nearly as much as the title. */
  keywords?: readonly string[];
  /** A longer description: worth least. */
  text?: string;
}

/** Options of one search. */
export interface SearchOptions {
  /** Most results (default {@link DEFAULT_LIMIT}); 0 gives `[]`. */
  limit?: number;
}

/** Options of {@link createIndex}. */
export interface IndexOptions {
  /** Whose stop-words leave queries and fields out: `pt-BR` (default) or `en`. */
  locale?: ContractLocale;
  /**
   * `fields` (default): the field weights above, for catalogues of short
   * entries (titles, codes, keywords). `bm25`: BM25 over title (counted
   * twice), keywords, text and id, with an exact id first; better when
   * entries carry the document's text and queries are questions (measured
   * by `deno task bench deep_research`: MRR@10 0.76 against 0.60 on 130
   * pages and 183 questions).
   */
  scoring?: "fields" | "bm25";
}

/** A searchable catalogue. */
export interface SearchIndex {
  /** How many entries were indexed (entries without an id or a URL are left out). */
  readonly size: number;
  /** The best entries for `query` as contract results, most relevant first. */
  search(query: string, options?: SearchOptions): SearchResult[];
}

/**
 * Text without accents (NFKD, combining marks removed), in lower case, with
 * runs of white space made one space and trimmed.
 *
 * @example
 * ```ts
 * import { normalizeText } from "@gleaner/gleaner/deep-research";
 * console.assert(normalizeText("  População\tRESIDENTE ") === "populacao residente");
 * ```
 */
export function normalizeText(value: string): string {
  return value.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/\s+/g, " ")
    .trim();
}

/** Every `[a-z0-9]+` word of normalised text, stop-words included. */
function words(value: string): string[] {
  return normalizeText(value).split(/[^a-z0-9]+/).filter(Boolean);
}

/**
 * The distinct tokens of `value` in order of appearance: normalised words of
 * two or more characters, without the locale's stop-words.
 *
 * @example
 * ```ts
 * import { tokenize } from "@gleaner/gleaner/deep-research";
 * console.assert(tokenize("A população de São Paulo", "pt-BR").join() === "populacao,sao,paulo");
 * console.assert(tokenize("A população de São Paulo").join() === "populacao,sao,paulo");
 * console.assert(tokenize("The state of the art", "en").join() === "state,art");
 * ```
 */
export function tokenize(value: string, locale: ContractLocale = DEFAULT_LOCALE): string[] {
  const stop = stopwordsFor(locale);
  const seen = new Set<string>();
  for (const word of words(value)) {
    if (word.length >= 2 && !stop.has(word)) seen.add(word);
  }
  return [...seen];
}

/** The tokens of one field: exact look-up and sorted for prefix look-up. */
class FieldTokens {
  readonly #exact: ReadonlySet<string>;
  readonly #sorted: readonly string[];

  constructor(tokens: readonly string[]) {
    this.#exact = new Set(tokens);
    this.#sorted = [...this.#exact].sort();
  }

  /** 1 for an exact token, 0.5 when a field token starts with `token` (3+ characters), else 0. */
  hit(token: string): number {
    if (this.#exact.has(token)) return 1;
    if (token.length < PREFIX_MIN) return 0;
    let lo = 0;
    let hi = this.#sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#sorted[mid] < token) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.#sorted.length && this.#sorted[lo].startsWith(token) ? 0.5 : 0;
  }
}

interface Indexed {
  readonly result: SearchResult;
  readonly idWhole: string;
  readonly id: FieldTokens;
  readonly title: FieldTokens;
  readonly titlePhrase: string;
  readonly keywords: FieldTokens;
  readonly text: FieldTokens;
}

function score(entry: Indexed, tokens: readonly string[], phrase: string): number {
  let total = 0;
  let covered = 0;
  for (const token of tokens) {
    const id = entry.idWhole === token ? 1 : entry.id.hit(token);
    const points = id * WEIGHTS.id + entry.title.hit(token) * WEIGHTS.title +
      entry.keywords.hit(token) * WEIGHTS.keywords + entry.text.hit(token) * WEIGHTS.text;
    if (points > 0) {
      covered++;
      total += points;
    }
  }
  if (covered === 0) return 0;
  total += covered * COVERAGE_BONUS;
  if (phrase.length >= PREFIX_MIN && entry.titlePhrase.includes(` ${phrase} `)) {
    total += PHRASE_BONUS;
  }
  return total;
}

function usable(entry: IndexEntry): boolean {
  return typeof entry?.id === "string" && entry.id !== "" && typeof entry.url === "string" &&
    entry.url !== "";
}

/**
 * Indexes a catalogue once (tokens per field computed up front) and returns
 * its searcher. The index does not change: build a new one when the
 * catalogue does. Entries without an id or a URL are left out (a result
 * without a URL cannot be cited).
 *
 * @example
 * ```ts
 * import { createIndex } from "@gleaner/gleaner/deep-research";
 * const index = createIndex([
 *   { id: "t1", title: "Resident population estimates", url: "https://example.org/t1" },
 *   { id: "t2", title: "Consumer price index", url: "https://example.org/t2", keywords: ["inflation"] },
 * ]);
 * console.assert(index.search("inflation")[0].id === "t2");
 * console.assert(index.search("popul")[0].id === "t1");
 * console.assert(index.search("").length === 0);
 * ```
 */
export function createIndex(
  entries: readonly IndexEntry[],
  options: IndexOptions = {},
): SearchIndex {
  const locale = checkLocale(options.locale);
  const indexed: Indexed[] = [];
  let skipped = 0;
  for (const entry of entries) {
    if (!usable(entry)) {
      skipped++;
      continue;
    }
    const title = typeof entry.title === "string" ? entry.title : "";
    indexed.push({
      result: { id: entry.id, title: title || entry.id, url: entry.url },
      idWhole: normalizeText(entry.id),
      id: new FieldTokens(tokenize(entry.id, locale)),
      title: new FieldTokens(tokenize(title, locale)),
      titlePhrase: ` ${words(title).join(" ")} `,
      keywords: new FieldTokens(tokenize((entry.keywords ?? []).join(" "), locale)),
      text: new FieldTokens(tokenize(entry.text ?? "", locale)),
    });
  }
  if (skipped > 0) {
    log.warn("createIndex left out {skipped} entries without an id or a url", { skipped });
  }
  if (options.scoring === "bm25") return bm25Index(entries.filter(usable), indexed, locale);
  return {
    size: indexed.length,
    search(query: string, searchOptions?: SearchOptions): SearchResult[] {
      const limit = Math.max(0, Math.floor(searchOptions?.limit ?? DEFAULT_LIMIT));
      const text = typeof query === "string" ? query : "";
      const tokens = tokenize(text, locale).slice(0, MAX_QUERY_TOKENS);
      if (limit === 0 || tokens.length === 0) return [];
      const phrase = words(text).join(" ");
      const scored: { score: number; order: number }[] = [];
      for (let order = 0; order < indexed.length; order++) {
        const s = score(indexed[order], tokens, phrase);
        if (s > 0) scored.push({ score: s, order });
      }
      scored.sort((a, b) => b.score - a.score || a.order - b.order);
      return scored.slice(0, limit).map(({ order }) => ({ ...indexed[order].result }));
    },
  };
}

/** Words of `value` without the locale's stop-words, repeats kept (BM25 counts them). */
function contentWords(value: string, stop: ReadonlySet<string>): string {
  return words(value).filter((w) => w.length >= 2 && !stop.has(w)).join(" ");
}

function bm25Index(
  entries: readonly IndexEntry[],
  indexed: readonly Indexed[],
  locale: ContractLocale,
): SearchIndex {
  const stop = stopwordsFor(locale);
  const bm25 = new Bm25Index(entries.map((e) => {
    const title = contentWords(typeof e.title === "string" ? e.title : "", stop);
    return [
      title,
      title,
      contentWords((e.keywords ?? []).join(" "), stop),
      contentWords(e.text ?? "", stop),
      contentWords(e.id, stop),
    ].join("\n");
  }));
  return {
    size: indexed.length,
    search(query: string, searchOptions?: SearchOptions): SearchResult[] {
      const limit = Math.max(0, Math.floor(searchOptions?.limit ?? DEFAULT_LIMIT));
      const tokens = tokenize(typeof query === "string" ? query : "", locale)
        .slice(0, MAX_QUERY_TOKENS);
      if (limit === 0 || tokens.length === 0) return [];
      const scores = bm25.score(tokens.join(" "));
      const scored: { score: number; order: number }[] = [];
      for (let order = 0; order < indexed.length; order++) {
        // An exact id comes first (whoever types "6579" wants table 6579).
        const exact = tokens.includes(indexed[order].idWhole) ? 1e6 : 0;
        if (scores[order] + exact > 0) scored.push({ score: scores[order] + exact, order });
      }
      scored.sort((a, b) => b.score - a.score || a.order - b.order);
      return scored.slice(0, limit).map(({ order }) => ({ ...indexed[order].result }));
    },
  };
}

/**
 * Indexes and searches at once: the shortcut for a small or short-lived
 * collection.
 *
 * @example
 * ```ts
 * import { rankEntries } from "@gleaner/gleaner/deep-research";
 * const hits = rankEntries([
 *   { id: "a", title: "Taxa de desocupação", url: "https://example.org/a" },
 *   { id: "b", title: "Produção agrícola", url: "https://example.org/b" },
 * ], "desocupacao", { locale: "pt-BR" });
 * console.assert(hits.length === 1 && hits[0].id === "a");
 * ```
 */
export function rankEntries(
  entries: readonly IndexEntry[],
  query: string,
  options: SearchOptions & IndexOptions = {},
): SearchResult[] {
  return createIndex(entries, options).search(query, options);
}
