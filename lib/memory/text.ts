/**
 * Memory text helpers: turning user text into full-text queries that can
 * never be read as query syntax (words of letters and digits only, each
 * quoted, joined with OR), and the normal form and key the duplicate check
 * compares (the text after trimming white space).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { STOPWORDS } from "../text/stopwords.ts";

/** Most words a full-text query keeps (the first ones). */
const MAX_QUERY_WORDS = 64;

/**
 * The distinct lowercase words (letters and digits) of `text`, in order, at
 * most {@link MAX_QUERY_WORDS}.
 *
 * @example
 * ```ts
 * import { queryWords } from "./text.ts";
 * console.assert(queryWords('Deno "sqlite" deno! <x>').join(" ") === "deno sqlite x");
 * ```
 *
 * @internal exported for its documentation example (a doc test)
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
 * The text of a memory as the duplicate check compares it: the same text
 * after trimming white space. Leading and trailing white space goes, each
 * inner run of white space (spaces, tabs, line breaks) counts as one space,
 * and the text is put in Unicode NFC, which only unifies canonically
 * equivalent forms that look the same (`é` as one code point or as `e` and
 * a combining accent). Case and punctuation are content: "HuntEr2" is not
 * "hunter2", "open." is not "open?". (NFKC is not used: it folds `ﬁ` into
 * `fi` and full-width digits into ASCII ones, texts that look different.)
 *
 * Changing this function changes which memories are duplicates: stores keep
 * {@link memoryTextKey} of every row, so a change needs a migration that
 * recomputes those keys.
 *
 * @example
 * ```ts
 * import { normalizeMemoryText } from "./text.ts";
 * console.assert(normalizeMemoryText("  The code is\n 4471. ") === "The code is 4471.");
 * console.assert(normalizeMemoryText("Wifi HuntEr2") !== normalizeMemoryText("Wifi hunter2"));
 * console.assert(normalizeMemoryText("The door is open.") !== normalizeMemoryText("The door is open?"));
 * console.assert(normalizeMemoryText("caf\u00e9") === normalizeMemoryText("cafe\u0301"));
 * ```
 */
export function normalizeMemoryText(text: string): string {
  return text.normalize("NFC").replace(WHITE_SPACE, " ").trim();
}

/** A run of white space (JavaScript's `\s`: Unicode spaces, tabs and line breaks). */
const WHITE_SPACE = /\s+/g;

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
 * console.assert(memoryTextKey(" The code is  4471.") === memoryTextKey("The code is 4471."));
 * console.assert(memoryTextKey("The code is 4471.") !== memoryTextKey("the code is 4471"));
 * ```
 */
export function memoryTextKey(text: string, normalized?: string): string {
  return createHash("sha256").update(normalized ?? normalizeMemoryText(text)).digest("hex")
    .slice(0, 32);
}
