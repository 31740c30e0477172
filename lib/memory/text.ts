/**
 * Turning user text into full-text queries that can never be read as query
 * syntax: words of letters and digits only, each quoted, joined with OR.
 *
 * @module
 */
import { STOPWORDS } from "../text/stopwords.ts";

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

export { STOPWORDS };

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
