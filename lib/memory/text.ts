/**
 * Memory text helpers: turning user text into full-text queries that can
 * never be read as query syntax (words of letters and digits only, each
 * quoted, joined with OR), and the normal form and key the duplicate check
 * compares.
 *
 * @module
 */
import { createHash } from "node:crypto";
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

/**
 * A run of punctuation that may be dropped at the edge of a word: brackets,
 * quotes, dashes and sentence marks. Every other character (symbols such as
 * `%`, `#`, `$`, `+`, `°`, `@`, `/`) always counts, like a letter.
 */
const EDGE_RUN = /[\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Pd}.,;:!?¡¿'"`…·]+/gu;
/**
 * The end of a run kept right before a digit: a sign or a decimal point
 * (`-5`, `.5`). A scan from the end, linear in the run (a `/[.,-]*$/` search
 * is quadratic on a long run that ends in other punctuation).
 */
function numberPrefix(run: string): string {
  let start = run.length;
  while (start > 0 && ".,-".includes(run[start - 1])) start--;
  return run.slice(start);
}
const SPACE = /\s/;
const DIGIT = /\p{N}/u;

/** A punctuation run of `whole` at `offset`: kept where it joins two characters that count. */
function edgeRun(run: string, offset: number, whole: string): string {
  const before = whole[offset - 1];
  const after = whole[offset + run.length];
  const spaceBefore = before === undefined || SPACE.test(before);
  const spaceAfter = after === undefined || SPACE.test(after);
  // Between two characters that count, it joins them (3.5, 07:40, don't, e-mail).
  if (!spaceBefore && !spaceAfter) return run;
  // A sign or a decimal point starting a number stays.
  if (!spaceAfter && DIGIT.test(after)) return ` ${numberPrefix(run)}`;
  return " ";
}

/**
 * The text of a memory as the duplicate check compares it: NFKC, lowercase,
 * whitespace collapsed, and punctuation dropped only where it does not join
 * letters or digits. A trailing period, quotes, brackets, a comma before a
 * space go; `3.5` stays apart from `35`, `07:40` from `0740`, `v1.2.3` from
 * `v1.23`, `-5` from `5`; symbols (`%`, `#`, `$`, `°`) always count. Word
 * order is kept. Text made of punctuation alone is compared as it is
 * (lowercase, whitespace collapsed).
 *
 * Changing this function changes which memories are duplicates: stores keep
 * {@link memoryTextKey} of every row, so a change needs a migration that
 * recomputes those keys.
 *
 * @example
 * ```ts
 * import { normalizeMemoryText } from "./text.ts";
 * console.assert(normalizeMemoryText("  The code is  4471. ") === "the code is 4471");
 * console.assert(normalizeMemoryText("Version 3.5") !== normalizeMemoryText("Version 35"));
 * console.assert(normalizeMemoryText("Bob pays Alice") !== normalizeMemoryText("Alice pays Bob"));
 * ```
 */
export function normalizeMemoryText(text: string): string {
  const folded = text.normalize("NFKC").toLowerCase().normalize("NFKC")
    // One form for apostrophes, double quotes and dashes (a minus sign is a dash here).
    .replace(/[\u2018\u2019\u02bc\u2032]/g, "'")
    .replace(/[\u201c\u201d\u2033]/g, '"')
    .replace(/[\p{Pd}\u2212]/gu, "-");
  const normalized = folded.replace(EDGE_RUN, edgeRun).replace(/\s+/g, " ").trim();
  return normalized !== "" ? normalized : folded.replace(/\s+/g, " ").trim();
}

/**
 * The key stores index for the duplicate check: a hash (SHA-256, 128 bits,
 * hex) of {@link normalizeMemoryText}. Equal keys are confirmed by comparing
 * the normalised texts, so a collision never hides a memory. `normalized`:
 * `normalizeMemoryText(text)` when the caller already has it.
 *
 * @example
 * ```ts
 * import { memoryTextKey } from "./text.ts";
 * console.assert(memoryTextKey("The code is 4471.") === memoryTextKey("the code is 4471"));
 * console.assert(memoryTextKey("The code is 4471.") !== memoryTextKey("The code is 9902."));
 * ```
 */
export function memoryTextKey(text: string, normalized?: string): string {
  return createHash("sha256").update(normalized ?? normalizeMemoryText(text)).digest("hex")
    .slice(0, 32);
}
