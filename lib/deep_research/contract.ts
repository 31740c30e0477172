/**
 * The Deep Research contract: ChatGPT deep research, company knowledge and the
 * research workflows of OpenAI's Responses API use an MCP server only when it
 * offers exactly two tools, documented at https://platform.openai.com/docs/mcp
 * ("Building MCP servers for ChatGPT and API integrations"):
 *
 * - `search(query: string)` → `{ results: [{ id, title, url }] }`;
 * - `fetch(id: string)` → `{ id, title, text, url, metadata? }`;
 * - each answer is one `text` content item holding the object as JSON, and a
 *   citation is made only when `url` is a non-empty string.
 *
 * The zod schemas here are what a server registers; the inputs are strict (a
 * key outside the contract is refused, naming it, and the JSON Schema says
 * `additionalProperties: false`); the outputs accept extra top-level keys,
 * the provenance a server attaches beside the contract's keys.
 *
 * @module
 */
import { z } from "zod";
import { GleanerError } from "../errors.ts";
import { type ContractLocale, DEFAULT_LOCALE, messages } from "./messages.ts";

export type { ContractLocale, DeepResearchToolName } from "./messages.ts";

/**
 * The names the contract fixes, `search` then `fetch`: the only tool names a
 * server that prefixes its own tools lets through unprefixed.
 *
 * @example
 * ```ts
 * import { DEEP_RESEARCH_TOOLS } from "@gleaner/gleaner/deep-research";
 * console.assert(DEEP_RESEARCH_TOOLS.join() === "search,fetch");
 * ```
 */
export const DEEP_RESEARCH_TOOLS: readonly ["search", "fetch"] = ["search", "fetch"] as const;

/** Longest query `search` accepts, in characters. */
export const MAX_QUERY_LENGTH = 2_000;
/** Longest id `fetch` accepts, in characters. */
export const MAX_ID_LENGTH = 4_096;

/** Input of `search`. */
export interface SearchInput {
  /** What to search for. */
  query: string;
}

/** One result of `search`: exactly the three keys of the contract. */
export interface SearchResult {
  /** The document's id; `fetch` takes it. */
  id: string;
  /** The document's title. */
  title: string;
  /** The canonical public URL; ChatGPT cites only a non-empty one. */
  url: string;
}

/** Output of `search`. */
export interface SearchOutput {
  /** Most relevant first; empty when nothing matched. */
  results: SearchResult[];
}

/** Input of `fetch`. */
export interface FetchInput {
  /** An id returned by `search`. */
  id: string;
}

/** Output of `fetch`: one whole document. */
export interface FetchDocument {
  /** The id asked for. */
  id: string;
  /** The document's title. */
  title: string;
  /** The whole readable text (Markdown). */
  text: string;
  /** The canonical public URL to cite (non-empty). */
  url: string;
  /** More key/value facts about the document. */
  metadata?: Record<string, unknown>;
}

/** The zod schema of `search`'s input (strict). */
export type SearchInputSchema = z.ZodObject<{ query: z.ZodString }, z.core.$strict>;
/** The zod schema of one search result. */
export type SearchResultSchema = z.ZodObject<
  { id: z.ZodString; title: z.ZodString; url: z.ZodString },
  z.core.$strip
>;
/** The zod schema of `search`'s output (extra top-level keys allowed). */
export type SearchOutputSchema = z.ZodObject<
  { results: z.ZodArray<SearchResultSchema> },
  z.core.$loose
>;
/** The zod schema of `fetch`'s input (strict). */
export type FetchInputSchema = z.ZodObject<{ id: z.ZodString }, z.core.$strict>;
/** The zod schema of `fetch`'s output (extra top-level keys allowed). */
export type FetchDocumentSchema = z.ZodObject<{
  id: z.ZodString;
  title: z.ZodString;
  text: z.ZodString;
  url: z.ZodString;
  metadata: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
}, z.core.$loose>;

/** The contract's five schemas in one locale. */
export interface ContractSchemas {
  /** `search`'s input: `{ query }`, strict. */
  searchInputSchema: SearchInputSchema;
  /** One result: `{ id, title, url }`. */
  searchResultSchema: SearchResultSchema;
  /** `search`'s output: `{ results }`. */
  searchOutputSchema: SearchOutputSchema;
  /** `fetch`'s input: `{ id }`, strict. */
  fetchInputSchema: FetchInputSchema;
  /** `fetch`'s output: `{ id, title, text, url, metadata? }`. */
  fetchDocumentSchema: FetchDocumentSchema;
}

/** A JSON Schema object (draft-07, no `$schema`, references inlined). */
export type JsonSchemaObject = { [key: string]: unknown };

/** The contract's five schemas as JSON Schema, keyed like {@link ContractSchemas}. */
export type ContractJsonSchemas = { [K in keyof ContractSchemas]: JsonSchemaObject };

function buildSchemas(locale: ContractLocale): ContractSchemas {
  const m = messages(locale);
  const strict = {
    error: (issue: { code?: string; keys?: string[] }) =>
      issue.code === "unrecognized_keys" ? m.unknownKeys(issue.keys ?? []) : undefined,
  };
  const id = z.string().min(1).describe(m.schema.id);
  const title = z.string().describe(m.schema.title);
  const url = z.string().min(1).describe(m.schema.url);
  const searchResultSchema = z.object({ id, title, url }).meta({ title: m.schema.searchResult });
  return {
    searchInputSchema: z.strictObject({
      query: z.string().max(MAX_QUERY_LENGTH).describe(m.schema.query),
    }, strict).meta({ title: m.schema.searchInput }),
    searchResultSchema,
    searchOutputSchema: z.looseObject({
      results: z.array(searchResultSchema).describe(m.schema.results),
    }).meta({ title: m.schema.searchOutput }),
    fetchInputSchema: z.strictObject({
      id: z.string().min(1).max(MAX_ID_LENGTH).describe(m.schema.fetchId),
    }, strict).meta({ title: m.schema.fetchInput }),
    fetchDocumentSchema: z.looseObject({
      id,
      title,
      text: z.string().describe(m.schema.text),
      url,
      metadata: z.record(z.string(), z.unknown()).optional().describe(m.schema.metadata),
    }).meta({ title: m.schema.fetchDocument }),
  };
}

const schemasByLocale = new Map<ContractLocale, ContractSchemas>();

/**
 * The contract's five zod schemas with titles and descriptions in `locale`
 * (`pt-BR` by default, or `en`); the same objects on every call.
 *
 * @example
 * ```ts
 * import { contractSchemas } from "@gleaner/gleaner/deep-research";
 * const { fetchInputSchema } = contractSchemas("pt-BR");
 * const refused = fetchInputSchema.safeParse({ id: "a", max_tokens: 10 });
 * console.assert(!refused.success && refused.error.issues[0].message.includes("max_tokens"));
 * ```
 */
export function contractSchemas(locale: ContractLocale = DEFAULT_LOCALE): ContractSchemas {
  let schemas = schemasByLocale.get(locale);
  if (!schemas) {
    schemas = buildSchemas(locale);
    schemasByLocale.set(locale, schemas);
  }
  return schemas;
}

/**
 * A zod schema as JSON Schema draft-07 without `$schema` and with every
 * reference inlined; `io` picks the input or the output side.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { toContractJsonSchema } from "./contract.ts";
 * const json = toContractJsonSchema(z.strictObject({ q: z.string() }), "input");
 * console.assert(json.additionalProperties === false && !("$schema" in json));
 * ```
 */
export function toContractJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchemaObject {
  const json = z.toJSONSchema(schema, {
    target: "draft-7",
    io,
    reused: "inline",
    unrepresentable: "any",
  }) as JsonSchemaObject;
  delete json.$schema;
  if (JSON.stringify(json).includes('"$ref"')) {
    throw new GleanerError(
      "invalid_arguments",
      "schema: a recursive schema cannot be published with references inlined",
      { details: { field: "schema" } },
    );
  }
  return json;
}

/**
 * The contract's five schemas as JSON Schema draft-07 (no `$schema`,
 * references inlined), for servers that register hand-written JSON Schema.
 * Inputs publish `additionalProperties: false`. Each call returns fresh
 * objects.
 *
 * @example
 * ```ts
 * import { contractJsonSchemas } from "@gleaner/gleaner/deep-research";
 * const json = contractJsonSchemas("en");
 * console.assert(json.searchInputSchema.additionalProperties === false);
 * console.assert(!("$schema" in json.fetchDocumentSchema));
 * ```
 */
export function contractJsonSchemas(
  locale: ContractLocale = DEFAULT_LOCALE,
): ContractJsonSchemas {
  const s = contractSchemas(locale);
  return {
    searchInputSchema: toContractJsonSchema(s.searchInputSchema, "input"),
    searchResultSchema: toContractJsonSchema(s.searchResultSchema, "output"),
    searchOutputSchema: toContractJsonSchema(s.searchOutputSchema, "output"),
    fetchInputSchema: toContractJsonSchema(s.fetchInputSchema, "input"),
    fetchDocumentSchema: toContractJsonSchema(s.fetchDocumentSchema, "output"),
  };
}

const english = contractSchemas("en");

/**
 * `search`'s input `{ query }`, strict, English descriptions.
 *
 * @example
 * ```ts
 * import { searchInputSchema } from "@gleaner/gleaner/deep-research";
 * console.assert(searchInputSchema.safeParse({ query: "x" }).success);
 * console.assert(!searchInputSchema.safeParse({ query: "x", limit: 3 }).success);
 * ```
 */
export const searchInputSchema: SearchInputSchema = english.searchInputSchema;

/**
 * One search result `{ id, title, url }`, English descriptions.
 *
 * @example
 * ```ts
 * import { searchResultSchema } from "@gleaner/gleaner/deep-research";
 * console.assert(!searchResultSchema.safeParse({ id: "a", title: "A", url: "" }).success);
 * ```
 */
export const searchResultSchema: SearchResultSchema = english.searchResultSchema;

/**
 * `search`'s output `{ results }`, English descriptions.
 *
 * @example
 * ```ts
 * import { searchOutputSchema } from "@gleaner/gleaner/deep-research";
 * console.assert(searchOutputSchema.safeParse({ results: [] }).success);
 * ```
 */
export const searchOutputSchema: SearchOutputSchema = english.searchOutputSchema;

/**
 * `fetch`'s input `{ id }`, strict, English descriptions.
 *
 * @example
 * ```ts
 * import { fetchInputSchema } from "@gleaner/gleaner/deep-research";
 * console.assert(!fetchInputSchema.safeParse({ id: "" }).success);
 * ```
 */
export const fetchInputSchema: FetchInputSchema = english.fetchInputSchema;

/**
 * `fetch`'s output `{ id, title, text, url, metadata? }`, English descriptions.
 *
 * @example
 * ```ts
 * import { fetchDocumentSchema } from "@gleaner/gleaner/deep-research";
 * const doc = { id: "a", title: "A", text: "…", url: "https://example.org/a" };
 * console.assert(fetchDocumentSchema.safeParse(doc).success);
 * ```
 */
export const fetchDocumentSchema: FetchDocumentSchema = english.fetchDocumentSchema;
