/**
 * The words of the Deep Research toolkit in each locale: schema titles and
 * descriptions, tool titles, error messages and vocabulary notes. The tool
 * `description` the model reads stays English in every locale (see
 * `register.ts`); what a person sees in a client follows the locale.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { STOPWORDS } from "../text/stopwords.ts";
import { STOPWORDS_PT } from "../text/stopwords_pt.ts";

/** The locales of the toolkit: English and Brazilian Portuguese. */
export const CONTRACT_LOCALES = ["en", "pt-BR"] as const;

/** A locale of the toolkit's surface (schema descriptions, titles, messages). */
export type ContractLocale = typeof CONTRACT_LOCALES[number];

/**
 * The locale the toolkit speaks when none is given: Brazilian Portuguese, as
 * the toolkit's specification says; `locale: "en"` switches to English.
 */
export const DEFAULT_LOCALE: ContractLocale = "pt-BR";

/** The two tool names the Deep Research contract fixes. */
export type DeepResearchToolName = "search" | "fetch";

/** Every text of one locale. */
export interface Messages {
  /** Schema titles and field descriptions. */
  schema: {
    searchInput: string;
    query: string;
    searchResult: string;
    id: string;
    title: string;
    url: string;
    searchOutput: string;
    results: string;
    fetchInput: string;
    fetchId: string;
    fetchDocument: string;
    text: string;
    metadata: string;
  };
  /** Default tool titles (what a client shows). */
  titles: Record<DeepResearchToolName, string>;
  /** An id `fetch` does not know. */
  notFound(id: string): string;
  /** A `search` or `fetch` that threw; `detail` is safe to show or absent. */
  failed(tool: DeepResearchToolName, detail?: string): string;
  /** A fetched document without a URL to cite. */
  noUrl(id: string): string;
  /** Arguments that do not fit the contract. */
  invalidArguments(tool: DeepResearchToolName, issues: string): string;
  /** A tool name other than `search` and `fetch`. */
  unknownTool(name: string): string;
  /** A key outside the contract. */
  unknownKeys(keys: readonly string[]): string;
  /** Tells the caller a word was also searched with the source's wording. */
  vocabularyNote(term: string, others: readonly string[], source: string): string;
}

const quoted = (words: readonly string[]) => words.map((w) => `"${clip(w)}"`).join(", ");

/** An id or key as a message shows it: at most 200 characters. */
function clip(value: string): string {
  return value.length > 200 ? `${value.slice(0, 199)}…` : value;
}

const EN: Messages = {
  schema: {
    searchInput: "Search the catalogue",
    query: "What to search for, in natural language or keywords; accents and case are ignored",
    searchResult: "One document found",
    id: "The document's unique id on this server; pass it to fetch",
    title: "The document's readable title",
    url: "The document's canonical public URL, which citations link to",
    searchOutput: "Documents found",
    results: "The documents found, most relevant first (empty when nothing matched)",
    fetchInput: "Read one document",
    fetchId: "An id returned by search",
    fetchDocument: "One whole document",
    text: "The whole readable content of the document (Markdown)",
    metadata: "More key/value facts about the document (kind, source, period, …)",
  },
  titles: { search: "Deep Research search", fetch: "Deep Research document" },
  notFound: (id) => `Document not found: "${clip(id)}". Use an id returned by search.`,
  failed: (tool, detail) =>
    detail ? `${tool} failed: ${detail}` : `${tool} failed unexpectedly; try again later.`,
  noUrl: (id) => `The document "${clip(id)}" has no URL to cite.`,
  invalidArguments: (tool, issues) => `Invalid arguments for tool ${tool}: ${issues}`,
  unknownTool: (name) => `Unknown tool: ${JSON.stringify(name.slice(0, 100))}`,
  unknownKeys: (keys) =>
    `Unrecognized key${keys.length > 1 ? "s" : ""}: ${
      quoted(keys)
    } (the contract accepts no other)`,
  vocabularyNote: (term, others, source) =>
    `"${term}" was also searched as ${quoted(others)}, the wording ${source} uses.`,
};

const PT_BR: Messages = {
  schema: {
    searchInput: "Buscar no acervo",
    query:
      "O que buscar, em linguagem natural ou palavras-chave; acentos e maiúsculas são ignorados",
    searchResult: "Um documento encontrado",
    id: "O identificador único do documento neste servidor; passe-o a fetch",
    title: "O título legível do documento",
    url: "A URL pública canônica do documento, para onde as citações apontam",
    searchOutput: "Documentos encontrados",
    results: "Os documentos encontrados, do mais relevante ao menos (vazio quando nada casou)",
    fetchInput: "Ler um documento",
    fetchId: "Um id devolvido por search",
    fetchDocument: "Um documento inteiro",
    text: "O conteúdo legível e integral do documento (Markdown)",
    metadata: "Outros pares chave/valor sobre o documento (tipo, fonte, período, …)",
  },
  titles: { search: "Busca para Deep Research", fetch: "Documento para Deep Research" },
  notFound: (id) => `Documento não encontrado: "${clip(id)}". Use um id devolvido por search.`,
  failed: (tool, detail) =>
    detail
      ? `Falha em ${tool}: ${detail}`
      : `Falha inesperada em ${tool}; tente de novo mais tarde.`,
  noUrl: (id) => `O documento "${clip(id)}" não tem URL para citar.`,
  invalidArguments: (tool, issues) => `Argumentos inválidos para a tool ${tool}: ${issues}`,
  unknownTool: (name) => `Tool desconhecida: ${JSON.stringify(name.slice(0, 100))}`,
  unknownKeys: (keys) =>
    `Chave${keys.length > 1 ? "s" : ""} não reconhecida${keys.length > 1 ? "s" : ""}: ${
      quoted(keys)
    } (o contrato não aceita outras)`,
  vocabularyNote: (term, others, source) =>
    `"${term}" também foi buscado como ${quoted(others)}, a palavra que ${source} usa.`,
};

const BY_LOCALE: Record<ContractLocale, Messages> = { en: EN, "pt-BR": PT_BR };

const STOPWORDS_BY_LOCALE: Record<ContractLocale, ReadonlySet<string>> = {
  en: STOPWORDS,
  "pt-BR": STOPWORDS_PT,
};

/**
 * Checks a locale given by a caller: `undefined` is {@link DEFAULT_LOCALE}
 * (`pt-BR`); anything but
 * `en` or `pt-BR` is an `invalid_arguments` error naming `field`.
 *
 * @example
 * ```ts
 * import { checkLocale } from "./messages.ts";
 * console.assert(checkLocale(undefined) === "pt-BR");
 * console.assert(checkLocale("en") === "en");
 * console.assert(checkLocale("pt-BR") === "pt-BR");
 * ```
 */
export function checkLocale(locale: unknown, field = "locale"): ContractLocale {
  if (locale === undefined) return DEFAULT_LOCALE;
  if (typeof locale === "string" && (CONTRACT_LOCALES as readonly string[]).includes(locale)) {
    return locale as ContractLocale;
  }
  throw new GleanerError(
    "invalid_arguments",
    `${field}: must be one of ${CONTRACT_LOCALES.join(", ")}, got ${
      JSON.stringify(String(locale)).slice(0, 40)
    }`,
    { details: { field } },
  );
}

/**
 * The texts of a locale.
 *
 * @example
 * ```ts
 * import { messages } from "./messages.ts";
 * console.assert(messages("pt-BR").titles.search === "Busca para Deep Research");
 * ```
 */
export function messages(locale: ContractLocale): Messages {
  return BY_LOCALE[checkLocale(locale)];
}

/**
 * The stop-words of a locale (Gleaner's shared lists in `lib/text/`).
 *
 * @example
 * ```ts
 * import { stopwordsFor } from "./messages.ts";
 * console.assert(stopwordsFor("pt-BR").has("de") && stopwordsFor("en").has("the"));
 * ```
 */
export function stopwordsFor(locale: ContractLocale): ReadonlySet<string> {
  return STOPWORDS_BY_LOCALE[checkLocale(locale)];
}
