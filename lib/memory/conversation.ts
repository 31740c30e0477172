/**
 * What a recall reads from a question about a conversation: the authors it
 * names (memories saved with an `author` field), so the memories they said
 * rank before the same words said by someone else.
 *
 * @module
 */

/** Shortest query word that may name an author by the start of a name ("Mel" for Melanie). */
const MIN_NAME_PREFIX = 3;

/** The lowercase words (letters and digits, NFKC) of `text`. */
function lowerWords(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The authors among `authors` that `query` names: every word of the name
 * appears in the query, or a query word of at least three letters starts the
 * name's first word ("Mel" names "Melanie"). Case and accents as written
 * (NFKC, lowercase).
 *
 * @example
 * ```ts
 * import { namedAuthors } from "./conversation.ts";
 * const authors = ["Caroline", "Melanie"];
 * console.assert(namedAuthors("When did Caroline's group meet?", authors).join() === "Caroline");
 * console.assert(namedAuthors("What did Mel paint?", authors).join() === "Melanie");
 * console.assert(namedAuthors("What time is it?", ["Tim"]).length === 0);
 * ```
 */
export function namedAuthors(query: string, authors: Iterable<string>): string[] {
  const words = new Set(lowerWords(query));
  const out: string[] = [];
  for (const author of new Set(authors)) {
    const name = lowerWords(author);
    if (name.length === 0) continue;
    const whole = name.every((w) => words.has(w));
    const start = [...words].some((w) =>
      w.length >= MIN_NAME_PREFIX && w.length < name[0].length && name[0].startsWith(w)
    );
    if (whole || start) out.push(author);
  }
  return out;
}

/**
 * The matches of a recall reordered with the authors the query names: the
 * fused score of a memory said by one of them is multiplied by `1 + weight`
 * (when the query names every author among the matches, or none, the order
 * stays the query's). Scores stay the query's.
 */
export function preferNamedAuthors(
  fused: readonly { key: number; score: number }[],
  authorOf: (key: number) => string | null | undefined,
  query: string,
  weight: number,
): { key: number; score: number }[] {
  if (weight <= 0) return [...fused];
  const authors = new Set<string>();
  for (const f of fused) {
    const a = authorOf(f.key);
    if (a) authors.add(a);
  }
  const named = new Set(namedAuthors(query, authors));
  if (named.size === 0 || named.size === authors.size) return [...fused];
  const lifted = fused.map((f, order) => {
    const a = authorOf(f.key);
    return { f, order, value: a && named.has(a) ? f.score * (1 + weight) : f.score };
  });
  lifted.sort((a, b) => b.value - a.value || a.order - b.order);
  return lifted.map((l) => l.f);
}
