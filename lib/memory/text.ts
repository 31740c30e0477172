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
  for (const word of wordsOf(text)) {
    words.add(word);
    if (words.size >= MAX_QUERY_WORDS) break;
  }
  return [...words];
}

/** The lowercase words (letters and digits, NFKC) of `text`, in order, repeats included. */
function* wordsOf(text: string): Generator<string> {
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    yield match[0];
  }
}

/** `words` without {@link STOPWORDS}, or all of them when nothing else is left. */
function withoutStopwords(words: string[]): string[] {
  const content = words.filter((w) => !STOPWORDS.has(w));
  return content.length ? content : words;
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
  return withoutStopwords(queryWords(text));
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

/** The words of a `list_memories` search: each must appear; `prefix` may be a word's start. */
export interface ListSearchWords {
  /** Words that must appear whole. */
  whole: string[];
  /** The last word typed, matched as the start of a word (absent when it is a stopword or repeats an earlier word). */
  prefix?: string;
}

/**
 * The words of a `list_memories` search (letters and digits only, NFKC,
 * lowercase, at most {@link MAX_QUERY_WORDS}): every word must appear, the
 * last one may be the start of a word (`pyth` finds `python`). Stopwords are
 * left out unless nothing else is left. Undefined when `text` has no word.
 *
 * @example
 * ```ts
 * import { listSearchWords } from "./text.ts";
 * const { whole, prefix } = listSearchWords("Python packag")!;
 * console.assert(whole.join() === "python" && prefix === "packag");
 * console.assert(listSearchWords("the pyth")!.prefix === "pyth");
 * console.assert(listSearchWords("?!") === undefined);
 * ```
 */
export function listSearchWords(text: string): ListSearchWords | undefined {
  const all: string[] = [];
  for (const word of wordsOf(text)) {
    all.push(word);
    if (all.length >= MAX_QUERY_WORDS) break;
  }
  if (all.length === 0) return undefined;
  const kept = withoutStopwords(all);
  const last = all[all.length - 1];
  const head = all.slice(0, -1);
  const prefix = kept.includes(last) && !head.includes(last) ? last : undefined;
  const whole = [...new Set(kept.filter((w) => w !== prefix))];
  return prefix === undefined ? { whole } : { whole, prefix };
}

/**
 * The FTS5 `MATCH` expression of a `list_memories` search: every word of
 * {@link listSearchWords} required (`AND`), the last as a prefix query
 * (`"pyth"*`). Every word is quoted, so no user text is read as query syntax.
 *
 * @example
 * ```ts
 * import { ftsListQuery } from "./text.ts";
 * console.assert(ftsListQuery("python pyth") === '"python" AND "pyth"*');
 * console.assert(ftsListQuery('NEAR(a OR "b"') === '"near" AND "b"*');
 * console.assert(ftsListQuery("*") === undefined);
 * ```
 */
export function ftsListQuery(text: string): string | undefined {
  const words = listSearchWords(text);
  if (!words) return undefined;
  const terms = words.whole.map((w) => `"${w}"`);
  if (words.prefix !== undefined) terms.push(`"${words.prefix}"*`);
  return terms.join(" AND ");
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
 * A memory's scope as the duplicate check names it: `-` without a session,
 * `+<session_id>` with one (no session id can collide with "none").
 *
 * @example
 * ```ts
 * import { scopeKey } from "./text.ts";
 * console.assert(scopeKey(null) === "-" && scopeKey("-") === "+-");
 * ```
 */
export function scopeKey(sessionId: string | null): string {
  return sessionId === null ? "-" : `+${sessionId}`;
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
