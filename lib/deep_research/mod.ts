/**
 * The Deep Research toolkit: everything an MCP server needs to expose its own
 * catalogue to ChatGPT deep research (and other clients of the `search` /
 * `fetch` contract, https://platform.openai.com/docs/mcp), so that the server
 * writes only its index and its documents.
 *
 * - **Contract**: {@link DEEP_RESEARCH_TOOLS}, the zod schemas
 *   ({@link searchInputSchema}, {@link fetchInputSchema}, strict) and
 *   {@link contractSchemas} / {@link contractJsonSchemas} in `en` or `pt-BR`.
 * - **Envelope**: {@link deepResearchResult} / {@link deepResearchError}.
 * - **Factory**: {@link registerDeepResearchTools} on the SDK's `McpServer`
 *   or low-level `Server`; {@link createDeepResearchHandlers} for servers
 *   that dispatch calls themselves.
 * - **Ranking**: {@link createIndex} / {@link rankEntries}.
 * - **Vocabulary**: {@link createVocabulary} and {@link globWhere} for SQLite.
 *
 * @example
 * ```ts
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { createIndex, registerDeepResearchTools } from "@gleaner/gleaner/deep-research";
 *
 * const entries = [
 *   { id: "t6579", title: "Resident population estimates", url: "https://example.org/t/6579" },
 * ];
 * const index = createIndex(entries);
 * const server = new McpServer({ name: "statistics", version: "1.0.0" });
 * registerDeepResearchTools(server, {
 *   corpus: "the example statistics catalogue",
 *   search: (query) => index.search(query),
 *   fetch: (id) => {
 *     const entry = entries.find((e) => e.id === id);
 *     return entry ? { document: { ...entry, text: `# ${entry.title}` } } : null;
 *   },
 *   locale: "pt-BR",
 * });
 * ```
 *
 * @module
 */
export {
  type ContractJsonSchemas,
  contractJsonSchemas,
  type ContractSchemas,
  contractSchemas,
  DEEP_RESEARCH_TOOLS,
  type FetchDocument,
  type FetchDocumentSchema,
  fetchDocumentSchema,
  type FetchInput,
  type FetchInputSchema,
  fetchInputSchema,
  type JsonSchemaObject,
  MAX_ID_LENGTH,
  MAX_QUERY_LENGTH,
  type SearchInput,
  type SearchInputSchema,
  searchInputSchema,
  type SearchOutput,
  type SearchOutputSchema,
  searchOutputSchema,
  type SearchResult,
  type SearchResultSchema,
  searchResultSchema,
} from "./contract.ts";
export {
  CONTRACT_LOCALES,
  type ContractLocale,
  type DeepResearchToolName,
  DEFAULT_LOCALE,
} from "./messages.ts";
export { deepResearchError, deepResearchResult, type EnvelopeExtras } from "./envelope.ts";
export {
  type CallContext,
  createDeepResearchHandlers,
  type DeepResearchHandlers,
  type DeepResearchToolsOptions,
  type FetchReply,
  type LowLevelServer,
  MAX_LIMIT,
  registerDeepResearchTools,
  type SearchReply,
  type UsageRecorder,
} from "./register.ts";
export {
  createIndex,
  DEFAULT_LIMIT,
  type IndexEntry,
  type IndexOptions,
  normalizeText,
  rankEntries,
  type SearchIndex,
  type SearchOptions,
  tokenize,
} from "./rank.ts";
export {
  createVocabulary,
  type ExpandedTerm,
  type GlobWhere,
  globWhere,
  type Vocabulary,
  type VocabularyEntry,
  type VocabularyLocale,
  type VocabularyOptions,
} from "./vocabulary.ts";
