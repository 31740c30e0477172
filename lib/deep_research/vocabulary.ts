/**
 * The asker's words against the source's words. A search that matches the
 * name a source uses gives nothing at all, silently, to whoever asks with the
 * everyday word or another country's spelling (`labor` against `labour`,
 * `enrollment` against `enrolment`, `renda` against `rendimento`). A
 * vocabulary is the server's measured table of such pairs plus the rules that
 * apply it:
 *
 * - both sides are normalised (no accents, lower case);
 * - the table's phrases are found in the query before it is split into words,
 *   so `pressão alta` stays one term;
 * - the locale's stop-words stay out of the AND, but a query made only of
 *   stop-words still counts;
 * - each term becomes an OR of itself, its singular (per-language rules that
 *   invent no fragments) and the source's spellings; the terms are ANDed;
 * - a pattern matches at the start of a word only, never inside one (`ovo`
 *   does not match `novos`, `male` does not match `female`), and may end
 *   inside one, so a stem like `ocupa` reaches `ocupação` and `ocupadas`.
 *
 * The same rule in SQLite is `GLOB`, not `LIKE '%p%'`: see {@link globWhere}.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { checkLocale, type ContractLocale, messages, stopwordsFor } from "./messages.ts";
import { normalizeText } from "./rank.ts";

/** The locale of a vocabulary's queries (stop-words, singulars, notes). */
export type VocabularyLocale = ContractLocale;

/** One measured pair: how people ask, and how the source writes it. */
export interface VocabularyEntry {
  /** The word or phrase people ask with. */
  readonly asked: string;
  /** The source's spellings (words, stems or phrases). */
  readonly source: readonly string[];
}

/** Options of {@link createVocabulary}. */
export interface VocabularyOptions {
  /** The server's measured table (an empty table expands nothing). */
  readonly entries: readonly VocabularyEntry[];
  /** The language of the queries. */
  readonly locale: VocabularyLocale;
  /** How a note names the source: "ILOSTAT", "the UIS"; in pt-BR "o IBGE", "a CID-10". */
  readonly sourceName: string;
  /** Stop-words beyond the locale's. */
  readonly extraStopwords?: readonly string[];
}

/** One term of a query with the patterns that stand for it. */
export interface ExpandedTerm {
  /** The term as asked, normalised (a word or a phrase of the table). */
  readonly term: string;
  /** What matches it, the term itself first. */
  readonly patterns: readonly string[];
  /** True when the table (not only the singular) changed what is searched. */
  readonly translated: boolean;
}

/** A vocabulary built by {@link createVocabulary}. */
export interface Vocabulary {
  /** Text without accents, lower case, white space collapsed. */
  normalize(text: string): string;
  /** The query's terms: the table's phrases first, then the words that are not stop-words. */
  queryTerms(query: string): string[];
  /** A term and what stands for it (the term first, then the table's and the singular's). */
  expandTerm(term: string): string[];
  /** The whole query, term by term, ready for a filter or a `WHERE`. */
  expandQuery(query: string): ExpandedTerm[];
  /** Sentences that tell the asker their word was also searched as the source's. */
  vocabularyNotes(expanded: readonly ExpandedTerm[]): string[];
  /** Whether normalised text has one of the term's patterns at the start of a word. */
  matchesTerm(normalizedText: string, expanded: ExpandedTerm): boolean;
  /** Whether normalised text matches every term. */
  matchesQuery(normalizedText: string, expanded: readonly ExpandedTerm[]): boolean;
  /** The asked words whose source spellings a name holds: keywords for a search index. */
  askedWordsFor(name: string): string[];
}

/** Most terms one query expands to (a longer query keeps its first ones). */
const MAX_TERMS = 32;

/**
 * Singulars that shorten a plural without inventing a fragment: English
 * `wages` gives `wage`, never `wag`; `classes` gives `class`. Applied to
 * normalised words.
 */
const SINGULARS: Readonly<Record<VocabularyLocale, (term: string) => string[]>> = {
  en: (t) => {
    if (t.length > 4 && t.endsWith("ies")) return [`${t.slice(0, -3)}y`];
    if (t.length > 4 && /(ss|sh|ch|x|z)es$/.test(t)) return [t.slice(0, -2)];
    if (t.length > 3 && t.endsWith("s") && !/(ss|us|is|ws)$/.test(t)) return [t.slice(0, -1)];
    return [];
  },
  "pt-BR": (t) => {
    if (t.length > 4 && /[oa]es$/.test(t)) return [`${t.slice(0, -3)}ao`];
    if (t.length > 4 && /[aeo]is$/.test(t)) return [`${t.slice(0, -2)}l`];
    if (t.length > 4 && t.endsWith("ns")) return [`${t.slice(0, -2)}m`];
    if (t.length > 4 && /[rz]es$/.test(t)) return [t.slice(0, -2)];
    if (t.length > 3 && t.endsWith("s") && !/(ss|us|is)$/.test(t)) return [t.slice(0, -1)];
    return [];
  },
};

function isWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
}

/**
 * Whether `pattern` occurs in `text` at the start of a word (at the start of
 * the text or after a character outside `[a-z0-9]`). Both are normalised.
 * A loop of `indexOf`, so a pattern from a table or a user is never a regex.
 *
 * @internal exported for tests only
 */
export function startsAWord(text: string, pattern: string): boolean {
  if (pattern === "") return false;
  for (let i = text.indexOf(pattern); i !== -1; i = text.indexOf(pattern, i + 1)) {
    if (i === 0 || !isWordChar(text.charCodeAt(i - 1))) return true;
  }
  return false;
}

/** Normalised text with runs outside `[a-z0-9]` made one space: what phrases are found in. */
function spaced(text: string): string {
  return normalizeText(text).replace(/[^a-z0-9]+/g, " ").trim();
}

/**
 * Builds a vocabulary from a server's measured table.
 *
 * @example
 * ```ts
 * import { createVocabulary } from "@gleaner/gleaner/deep-research";
 * const vocab = createVocabulary({
 *   locale: "pt-BR",
 *   sourceName: "o IBGE",
 *   entries: [{ asked: "renda", source: ["rendimento"] }, { asked: "pressão alta", source: ["hipertens"] }],
 * });
 * const expanded = vocab.expandQuery("Renda de quem tem pressão alta");
 * console.assert(expanded.map((e) => e.term).join("|") === "pressao alta|renda");
 * const rows = ["Rendimento de quem tem hipertensão", "Rendimento de quem trabalha"];
 * const hits = rows.filter((r) => vocab.matchesQuery(vocab.normalize(r), expanded));
 * console.assert(hits.length === 1 && hits[0] === rows[0]);
 * ```
 */
export function createVocabulary(options: VocabularyOptions): Vocabulary {
  const locale = checkLocale(options?.locale, "locale");
  const text = messages(locale);
  (options.entries ?? []).forEach((e, i) => {
    if (
      typeof e?.asked !== "string" || !Array.isArray(e.source) ||
      e.source.some((s) => typeof s !== "string")
    ) {
      throw new GleanerError(
        "invalid_arguments",
        `entries[${i}]: must be { asked: string, source: string[] }`,
        { details: { field: `entries[${i}]` } },
      );
    }
  });
  const singulars = SINGULARS[locale];
  const normalize = (value: string): string => normalizeText(value);
  const entries = (options.entries ?? []).map((e) => ({
    asked: spaced(e.asked),
    source: e.source.map(spaced).filter(Boolean),
  })).filter((e) => e.asked !== "");
  const byAsked = new Map<string, string[]>();
  for (const e of entries) byAsked.set(e.asked, [...(byAsked.get(e.asked) ?? []), ...e.source]);
  const phrases = [...byAsked.keys()].filter((a) => a.includes(" "))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const stop = new Set([...stopwordsFor(locale), ...(options.extraStopwords ?? []).map(spaced)]);

  function queryTerms(query: string): string[] {
    let rest = ` ${spaced(query)} `;
    const out: string[] = [];
    for (const phrase of phrases) {
      const needle = ` ${phrase} `;
      if (rest.includes(needle)) {
        out.push(phrase);
        rest = rest.replaceAll(needle, "  ");
      }
    }
    const words = [...new Set(rest.split(" ").filter(Boolean))];
    const kept = words.filter((w) => !stop.has(w));
    out.push(...(kept.length > 0 || out.length > 0 ? kept : words));
    return [...new Set(out)].slice(0, MAX_TERMS);
  }

  function expandTerm(term: string): string[] {
    const t = spaced(term);
    if (t === "") return [];
    const out = [t, ...(byAsked.get(t) ?? [])];
    for (const singular of singulars(t)) out.push(singular, ...(byAsked.get(singular) ?? []));
    return [...new Set(out)];
  }

  function expandQuery(query: string): ExpandedTerm[] {
    return queryTerms(query).map((term) => ({
      term,
      patterns: expandTerm(term),
      translated: byAsked.has(term) || singulars(term).some((s) => byAsked.has(s)),
    }));
  }

  function vocabularyNotes(expanded: readonly ExpandedTerm[]): string[] {
    return expanded.filter((e) => e.translated).map((e) =>
      text.vocabularyNote(e.term, e.patterns.filter((p) => p !== e.term), options.sourceName)
    );
  }

  function matchesTerm(normalizedText: string, expanded: ExpandedTerm): boolean {
    return expanded.patterns.some((p) => startsAWord(normalizedText, p));
  }

  function matchesQuery(normalizedText: string, expanded: readonly ExpandedTerm[]): boolean {
    return expanded.every((e) => matchesTerm(normalizedText, e));
  }

  function askedWordsFor(name: string): string[] {
    const n = normalize(name);
    const out = entries.filter((e) => e.source.some((s) => startsAWord(n, s))).map((e) => e.asked);
    return [...new Set(out)];
  }

  return {
    normalize,
    queryTerms,
    expandTerm,
    expandQuery,
    vocabularyNotes,
    matchesTerm,
    matchesQuery,
    askedWordsFor,
  };
}

/** A SQL condition and the values to bind to its `?` placeholders, in order. */
export interface GlobWhere {
  /** The condition, e.g. `(name_lc GLOB ? OR name_lc GLOB ?) AND (…)`; `1` when there is no term. */
  sql: string;
  /** The values for the placeholders. */
  params: string[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/**
 * The SQLite (or Cloudflare D1) condition for an expanded query, with the
 * same word-start rule as {@link Vocabulary.matchesQuery}: each pattern `p`
 * becomes `(col GLOB 'p*' OR col GLOB '*[^a-z0-9]p*')`, a term's patterns are
 * ORed and the terms ANDed. `GLOB` has no escape character, so `*?[]` are
 * stripped from each pattern before it is bound (a pattern left empty is
 * dropped). The column must hold normalised text (no accents, lower case),
 * or the `[^a-z0-9]` boundary does not hold. `column` must be a plain SQL
 * identifier (optionally `table.column`); anything else is refused.
 *
 * @example
 * ```ts
 * import { createVocabulary, globWhere } from "@gleaner/gleaner/deep-research";
 * const vocab = createVocabulary({ locale: "en", sourceName: "ILOSTAT", entries: [{ asked: "labor", source: ["labour"] }] });
 * const where = globWhere("name_lc", vocab.expandQuery("labor"));
 * console.assert(where.sql === "((name_lc GLOB ? OR name_lc GLOB ?) OR (name_lc GLOB ? OR name_lc GLOB ?))");
 * console.assert(where.params.join() === "labor*,*[^a-z0-9]labor*,labour*,*[^a-z0-9]labour*");
 * ```
 */
export function globWhere(column: string, expanded: readonly ExpandedTerm[]): GlobWhere {
  if (typeof column !== "string" || !IDENTIFIER.test(column)) {
    throw new GleanerError(
      "invalid_arguments",
      `column: must be a plain SQL identifier, got ${JSON.stringify(String(column)).slice(0, 60)}`,
      { details: { field: "column" } },
    );
  }
  const terms: string[] = [];
  const params: string[] = [];
  for (const term of expanded) {
    const ors: string[] = [];
    for (const raw of term.patterns) {
      const p = raw.replace(/[*?[\]]/g, "");
      if (p === "") continue;
      ors.push(`(${column} GLOB ? OR ${column} GLOB ?)`);
      params.push(`${p}*`, `*[^a-z0-9]${p}*`);
    }
    // A term with no usable pattern matches nothing, as in matchesQuery.
    terms.push(ors.length > 0 ? `(${ors.join(" OR ")})` : "0");
  }
  return { sql: terms.length > 0 ? terms.join(" AND ") : "1", params };
}
