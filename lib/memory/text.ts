/**
 * Turning user text into full-text queries that can never be read as query
 * syntax: words of letters and digits only, each quoted, joined with OR.
 *
 * @module
 */

/** Most words a full-text query keeps (the first ones). */
export const MAX_QUERY_WORDS = 64;

/**
 * The distinct lowercase words (letters and digits) of `text`, in order, at
 * most {@link MAX_QUERY_WORDS}.
 *
 * @example
 * ```ts
 * import { queryWords } from "./text.ts";
 * console.assert(queryWords('Deno "sqlite" deno! <x>').join(" ") === "deno sqlite x");
 * ```
 */
export function queryWords(text: string): string[] {
  const words = new Set<string>();
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    words.add(match[0]);
    if (words.size >= MAX_QUERY_WORDS) break;
  }
  return [...words];
}

/**
 * Common English words left out of full-text queries: they match most rows,
 * add almost nothing to BM25 and make every query score the whole table.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  ("a about above after again against all am an and any are as at be because been before being " +
    "below between both but by can could did do does doing down during each few for from further " +
    "had has have having he her here hers herself him himself his how i if in into is it its itself " +
    "just me more most my myself no nor not now of off on once only or other our ours ourselves out " +
    "over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which " +
    "while who whom why will with would you your yours yourself yourselves").split(" "),
);

/**
 * The words of `text` a full-text query uses: {@link queryWords} without
 * {@link STOPWORDS}, unless nothing else is left.
 *
 * @example
 * ```ts
 * import { searchWords } from "./text.ts";
 * console.assert(searchWords("What is the deploy day?").join(" ") === "deploy day");
 * console.assert(searchWords("who is it").join(" ") === "who is it");
 * ```
 */
export function searchWords(text: string): string[] {
  const words = queryWords(text);
  const content = words.filter((w) => !STOPWORDS.has(w));
  return content.length ? content : words;
}

/**
 * An FTS5 `MATCH` expression matching any word of `text` (BM25 ranks the
 * rows), or `undefined` when `text` has no word. Every word is quoted, so
 * no user text is read as query syntax.
 *
 * @example
 * ```ts
 * import { ftsQuery } from "./text.ts";
 * console.assert(ftsQuery("NEAR(a OR b)") === '"near" OR "b"');
 * console.assert(ftsQuery("?!") === undefined);
 * ```
 */
export function ftsQuery(text: string): string | undefined {
  const words = searchWords(text);
  return words.length ? words.map((w) => `"${w}"`).join(" OR ") : undefined;
}
