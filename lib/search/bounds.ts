/**
 * The bounds every provider's answer is held to, whatever the upstream sent:
 * a snippet of at most {@link MAX_SNIPPET_CHARS} characters and an answer of
 * at most {@link MAX_ANSWER_CHARS}, each cut at a word where it can and ended
 * with {@link CUT_MARKER}. The role router applies them to every search,
 * answer and provider tool result, so a provider that sends a whole page as
 * its "snippet" cannot flood a model's context.
 *
 * @module
 */

/**
 * Longest snippet a result keeps (characters).
 *
 * @internal exported for tests only
 */
export const MAX_SNIPPET_CHARS = 1_200;

/**
 * Longest answer text a provider's answer keeps (characters).
 *
 * @internal exported for tests only
 */
export const MAX_ANSWER_CHARS = 12_000;

/**
 * What ends a text that was cut.
 *
 * @internal exported for tests only
 */
export const CUT_MARKER = " […]";

/**
 * `text` cut to at most `max` characters (the marker included), at the last
 * space in the final fifth when there is one; unchanged when it fits.
 *
 * @example
 * ```ts
 * import { boundText, CUT_MARKER } from "./bounds.ts";
 * console.assert(boundText("short", 10) === "short");
 * const cut = boundText("word ".repeat(100), 50);
 * console.assert(cut.length <= 50 && cut.endsWith(CUT_MARKER));
 * ```
 */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - CUT_MARKER.length);
  let cut = text.slice(0, room);
  const space = cut.lastIndexOf(" ");
  if (space > room * 0.8) cut = cut.slice(0, space);
  // Never leave half of a surrogate pair at the end.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}${CUT_MARKER}`;
}

/** A value with a snippet (a search hit, a citation). */
interface WithSnippet {
  snippet: string;
}

/**
 * Hits with their snippets bounded ({@link MAX_SNIPPET_CHARS}); the same
 * array when none needed cutting.
 *
 * @example
 * ```ts
 * import { boundHits, MAX_SNIPPET_CHARS } from "./bounds.ts";
 * const [hit] = boundHits([{ snippet: "x ".repeat(5000) }]);
 * console.assert(hit.snippet.length <= MAX_SNIPPET_CHARS);
 * ```
 */
export function boundHits<T extends WithSnippet>(hits: T[]): T[] {
  if (
    hits.every((hit) => typeof hit.snippet !== "string" || hit.snippet.length <= MAX_SNIPPET_CHARS)
  ) {
    return hits;
  }
  return hits.map((hit) =>
    typeof hit.snippet === "string" && hit.snippet.length > MAX_SNIPPET_CHARS
      ? { ...hit, snippet: boundText(hit.snippet, MAX_SNIPPET_CHARS) }
      : hit
  );
}

/**
 * A role-shaped output (search `results`, an `answer` with `citations`) with
 * its snippets and answer bounded; anything else unchanged.
 *
 * @example
 * ```ts
 * import { boundOutput, MAX_ANSWER_CHARS } from "./bounds.ts";
 * const out = boundOutput({ answer: "a".repeat(20_000), citations: [] });
 * console.assert(out.answer.length <= MAX_ANSWER_CHARS);
 * ```
 */
export function boundOutput<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  const set = (key: string, next: unknown) => {
    out ??= { ...record };
    out[key] = next;
  };
  for (const key of ["results", "citations"]) {
    const list = record[key];
    if (Array.isArray(list) && list.every((item) => typeof item === "object" && item !== null)) {
      const bounded = boundHits(list as WithSnippet[]);
      if (bounded !== list) set(key, bounded);
    }
  }
  if (typeof record.answer === "string" && record.answer.length > MAX_ANSWER_CHARS) {
    set("answer", boundText(record.answer, MAX_ANSWER_CHARS));
  }
  return (out ?? record) as T;
}
