/**
 * The factory: `search` and `fetch` on an MCP server from two functions of
 * the server's own, one that searches its catalogue and one that renders a
 * document. Everything that is contract (names, schemas, envelope,
 * descriptions, errors) lives here, so servers differ only in their index and
 * their documents.
 *
 * - Titles and schema descriptions follow the locale; the `description` the
 *   model reads is English, says the two tools exist for the Deep Research
 *   contract and points at the server's richer tools.
 * - `search` may return the results or `{ results, extras }`; `fetch` returns
 *   `{ document, extras }` (or the bare document), or `null` for an unknown
 *   id. Extras carry provenance into `structuredContent` and `_meta`.
 * - `search` is cut at `limit` (default 10) whatever the index returns;
 *   results lacking an id or a URL are left out (one bad result never sinks
 *   the others) and only the contract's three keys are kept.
 * - A `search` or `fetch` that throws, an unknown id or a document without a
 *   URL is an `isError` result with a message in the locale; the recorder
 *   gets `tool_call` for every call and `tool_error` for each failed one.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import type { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
  type Tool,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import {
  contractSchemas,
  type FetchDocument,
  type FetchInput,
  type SearchInput,
  type SearchResult,
  toContractJsonSchema,
} from "./contract.ts";
import { deepResearchError, deepResearchResult, type EnvelopeExtras } from "./envelope.ts";
import {
  checkLocale,
  type ContractLocale,
  type DeepResearchToolName,
  messages,
} from "./messages.ts";
import { DEFAULT_LIMIT } from "./rank.ts";

const log = getGleanerLogger("deep_research");

/** Most results a server may ask `search` to return. */
export const MAX_LIMIT = 1_000;

/** Counts calls: `tool_call` for every call, `tool_error` for every failed one (never arguments). */
export type UsageRecorder = (kind: "tool_call" | "tool_error", name: DeepResearchToolName) => void;

/** What a call knows besides its argument. */
export interface CallContext {
  /** Aborted when the client cancels the call or the connection closes. */
  signal?: AbortSignal;
}

/** `search`'s answer with envelope extras (the index's provenance). */
export interface SearchReply {
  /** The results, most relevant first. */
  results: readonly SearchResult[];
  /** Extras for `structuredContent` and `_meta`. */
  extras?: EnvelopeExtras;
}

/** `fetch`'s answer with envelope extras (the document's provenance). */
export interface FetchReply {
  /** The whole document. */
  document: FetchDocument;
  /** Extras for `structuredContent` and `_meta`. */
  extras?: EnvelopeExtras;
}

/** Options of {@link registerDeepResearchTools}. */
export interface DeepResearchToolsOptions {
  /** Searches the catalogue; the results in order of relevance, bare or as `{ results, extras }`. */
  search: (
    query: string,
    context: CallContext,
  ) => Promise<readonly SearchResult[] | SearchReply> | readonly SearchResult[] | SearchReply;
  /** Renders the document an id from `search` names; `null` for an unknown id. */
  fetch: (
    id: string,
    context: CallContext,
  ) =>
    | Promise<FetchReply | FetchDocument | null | undefined>
    | FetchReply
    | FetchDocument
    | null
    | undefined;
  /** The catalogue, in English, for the descriptions: "IBGE official statistics (SIDRA tables)". */
  corpus: string;
  /** How the model should reach the server's own tools: "the `ibge_*` tools" (left out when absent). */
  richTools?: string;
  /** The annotations of the server's other tools (default `{ readOnlyHint: true }`). */
  annotations?: ToolAnnotations;
  /** Titles, schema descriptions and messages: `pt-BR` (default) or `en`. */
  locale?: ContractLocale;
  /** Most results of `search` (default 10, at most {@link MAX_LIMIT}). */
  limit?: number;
  /** Extends an output schema, e.g. with a provenance block; must stay an object schema. */
  extendOutputSchema?: (
    schema: z.ZodObject<z.ZodRawShape>,
    tool: DeepResearchToolName,
  ) => z.ZodType;
  /** Usage counts per call. */
  record?: UsageRecorder;
  /** Tool titles (default from the locale). */
  titles?: { search?: string; fetch?: string };
  /** The message for an id `fetch` does not know (default from the locale). */
  notFound?: (id: string) => string;
  /** The message when `search` or `fetch` throws (default from the locale; never echoes an unknown error). */
  onError?: (error: unknown, tool: DeepResearchToolName) => string;
}

/** The two tools as plain handlers, for servers that dispatch calls themselves. */
export interface DeepResearchHandlers {
  /** The `tools/list` entries (JSON Schema draft-07, no `$schema`). */
  readonly tools: readonly Tool[];
  /** The zod schemas each tool is registered with. */
  readonly schemas: Readonly<
    Record<DeepResearchToolName, { input: z.ZodType; output: z.ZodType }>
  >;
  /** Validates `args` strictly and runs the tool; every failure is an `isError` result. */
  call(name: string, args: unknown, context?: CallContext): Promise<CallToolResult>;
}

function searchDescription(corpus: string, richTools: string | undefined, limit: number): string {
  return [
    `Searches ${corpus} and returns up to ${limit} matching documents as { id, title, url }, most relevant first (an empty list means nothing matched).`,
    "",
    "This tool exists for the Deep Research contract: ChatGPT deep research, company knowledge and research workflows use exactly the tools `search` and `fetch`. Pass a returned id to `fetch` to read the document; cite its `url`.",
    ...(richTools
      ? [`For direct questions and for data prefer ${richTools}: this is a catalogue index.`]
      : []),
    "",
    "Query: natural language or keywords; accents and case are ignored. Read-only.",
  ].join("\n");
}

function fetchDescription(corpus: string, richTools: string | undefined): string {
  return [
    "Returns the whole document for an id obtained from `search`, as { id, title, text, url, metadata }: `text` is the readable content (Markdown) and `url` the public page to cite.",
    "",
    `Companion of \`search\` in the Deep Research contract, over ${corpus}. Only ids returned by \`search\` are valid; an unknown id is an error.`,
    ...(richTools ? [`${richTools} remain the tools for data queries.`] : []),
    "",
    "Read-only.",
  ].join("\n");
}

function checkOptions(options: DeepResearchToolsOptions): number {
  const bad = (field: string, why: string) =>
    new GleanerError("invalid_arguments", `registerDeepResearchTools: ${field}: ${why}`, {
      details: { field },
    });
  if (typeof options?.search !== "function") throw bad("search", "must be a function");
  if (typeof options.fetch !== "function") throw bad("fetch", "must be a function");
  if (typeof options.corpus !== "string" || options.corpus.trim() === "") {
    throw bad("corpus", "must name the catalogue");
  }
  checkLocale(options.locale, "locale");
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw bad("limit", `must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return limit;
}

/** Keeps the contract's three keys of each usable result, first of each id, at most `limit`. */
function cleanResults(results: unknown, limit: number): SearchResult[] {
  const out: SearchResult[] = [];
  if (!Array.isArray(results)) return out;
  const seen = new Set<string>();
  let dropped = 0;
  for (const r of results) {
    if (out.length >= limit) break;
    const { id, title, url } = (r ?? {}) as Partial<SearchResult>;
    if (typeof id !== "string" || id === "" || typeof url !== "string" || url === "") {
      dropped++;
      continue;
    }
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ id, title: typeof title === "string" && title !== "" ? title : url, url });
  }
  if (dropped > 0) {
    log.debug("search: left out {dropped} results without an id or a url", { dropped });
  }
  return out;
}

function isSearchReply(reply: unknown): reply is SearchReply {
  return typeof reply === "object" && reply !== null && !Array.isArray(reply) &&
    "results" in reply;
}

function isFetchReply(reply: object): reply is FetchReply {
  return "document" in reply && typeof (reply as FetchReply).document === "object";
}

function issuesText(error: z.ZodError): string {
  return error.issues.map((i) => i.path.length ? `${i.message} at ${i.path.join(".")}` : i.message)
    .join("; ");
}

/**
 * The two tools as handlers, without a server: their `tools/list` entries,
 * their zod schemas, and a `call` that validates the arguments strictly and
 * answers in the contract's envelope. {@link registerDeepResearchTools} is
 * built on it; a server with its own `tools/call` dispatch uses it directly.
 *
 * @example
 * ```ts
 * import { createDeepResearchHandlers } from "@gleaner/gleaner/deep-research";
 * const docs = [{ id: "a", title: "Alpha", url: "https://example.org/a", text: "…" }];
 * const tools = createDeepResearchHandlers({
 *   corpus: "the example catalogue",
 *   search: () => docs,
 *   fetch: (id) => docs.find((d) => d.id === id) ?? null,
 * });
 * console.assert(tools.tools.map((t) => t.name).join() === "search,fetch");
 * const out = await tools.call("fetch", { id: "a" });
 * console.assert(!out.isError && (out.structuredContent as { title: string }).title === "Alpha");
 * console.assert((await tools.call("fetch", { id: "b" })).isError === true);
 * ```
 */
export function createDeepResearchHandlers(
  options: DeepResearchToolsOptions,
): DeepResearchHandlers {
  return build(options).handlers;
}

interface Built {
  handlers: DeepResearchHandlers;
  search(query: string, context: CallContext): Promise<CallToolResult>;
  fetch(id: string, context: CallContext): Promise<CallToolResult>;
}

function build(options: DeepResearchToolsOptions): Built {
  const limit = checkOptions(options);
  const locale = checkLocale(options.locale);
  const text = messages(locale);
  const schemas = contractSchemas(locale);
  const extend = options.extendOutputSchema ?? ((schema) => schema);
  const notFound = options.notFound ?? text.notFound;
  const onError = options.onError ?? ((error: unknown, tool: DeepResearchToolName) => {
    if (error instanceof GleanerError) return text.failed(tool, `${error.code}: ${error.message}`);
    log.warn("{tool} failed: {error}", { tool, error });
    return text.failed(tool);
  });
  const annotations = options.annotations ?? { readOnlyHint: true };
  const output = {
    search: extend(schemas.searchOutputSchema as unknown as z.ZodObject<z.ZodRawShape>, "search"),
    fetch: extend(schemas.fetchDocumentSchema as unknown as z.ZodObject<z.ZodRawShape>, "fetch"),
  };
  const toolSchemas = {
    search: { input: schemas.searchInputSchema, output: output.search },
    fetch: { input: schemas.fetchInputSchema, output: output.fetch },
  } as const;
  const titles = {
    search: options.titles?.search ?? text.titles.search,
    fetch: options.titles?.fetch ?? text.titles.fetch,
  };
  const descriptions = {
    search: searchDescription(options.corpus, options.richTools, limit),
    fetch: fetchDescription(options.corpus, options.richTools),
  };
  const tools: Tool[] = (["search", "fetch"] as const).map((name) => ({
    name,
    title: titles[name],
    description: descriptions[name],
    inputSchema: toContractJsonSchema(toolSchemas[name].input, "input") as Tool["inputSchema"],
    outputSchema: toContractJsonSchema(toolSchemas[name].output, "output") as Tool[
      "outputSchema"
    ],
    annotations,
  }));

  async function runSearch(query: string, context: CallContext): Promise<CallToolResult> {
    // A blank query still goes to `search`: its extras may be required by an extended schema.
    const reply = await options.search(query, context);
    const { results, extras } = isSearchReply(reply)
      ? { results: reply.results, extras: reply.extras }
      : { results: reply, extras: undefined };
    return deepResearchResult({ results: cleanResults(results, limit) }, extras);
  }

  async function runFetch(id: string, context: CallContext): Promise<CallToolResult> {
    const reply = await options.fetch(id, context);
    if (reply === null || reply === undefined || typeof reply !== "object") {
      return deepResearchError(notFound(id));
    }
    const { document, extras } = isFetchReply(reply)
      ? reply
      : { document: reply as FetchDocument, extras: undefined };
    if (typeof document.url !== "string" || document.url === "") {
      return deepResearchError(text.noUrl(id));
    }
    const object: Record<string, unknown> = {
      id: typeof document.id === "string" && document.id !== "" ? document.id : id,
      title: typeof document.title === "string" && document.title !== ""
        ? document.title
        : document.url,
      text: typeof document.text === "string" ? document.text : "",
      url: document.url,
    };
    if (
      document.metadata && typeof document.metadata === "object" &&
      !Array.isArray(document.metadata)
    ) {
      object.metadata = document.metadata;
    }
    return deepResearchResult(object, extras);
  }

  /** Runs a validated call; failures become `isError` results; the recorder counts. */
  async function run(
    tool: DeepResearchToolName,
    body: () => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    let result: CallToolResult;
    try {
      result = await body();
    } catch (error) {
      let message: string;
      try {
        message = onError(error, tool);
      } catch {
        message = text.failed(tool);
      }
      result = deepResearchError(message);
    }
    try {
      options.record?.("tool_call", tool);
      if (result.isError === true) options.record?.("tool_error", tool);
    } catch (error) {
      log.warn("the usage recorder failed: {error}", { error });
    }
    return result;
  }

  const search = (query: string, context: CallContext) =>
    run("search", () => runSearch(query, context));
  const fetch = (id: string, context: CallContext) => run("fetch", () => runFetch(id, context));
  const handlers: DeepResearchHandlers = {
    tools,
    schemas: toolSchemas,
    async call(name, args, context = {}) {
      if (name !== "search" && name !== "fetch") return deepResearchError(text.unknownTool(name));
      const parsed = toolSchemas[name].input.safeParse(args ?? {});
      if (!parsed.success) {
        return deepResearchError(text.invalidArguments(name, issuesText(parsed.error)));
      }
      return name === "search"
        ? await search((parsed.data as SearchInput).query, context)
        : await fetch((parsed.data as FetchInput).id, context);
    },
  };
  return { handlers, search, fetch };
}

/**
 * A low-level MCP server: the SDK's `Server`, or any server on the SDK's
 * `Protocol` that serves `tools/list` and `tools/call` through
 * `setRequestHandler`.
 */
export type LowLevelServer = Pick<
  Protocol<ServerRequest, ServerNotification, ServerResult>,
  "setRequestHandler"
>;

/** True for the SDK's high-level `McpServer` (it has `registerTool`). */
function isMcpServer(server: McpServer | LowLevelServer): server is McpServer {
  return typeof (server as McpServer).registerTool === "function";
}

/**
 * Registers `search` and `fetch` on an MCP server: the SDK's `McpServer`
 * (through `registerTool`, with the zod schemas, so the SDK validates input
 * and output) or a low-level server such as the SDK's `Server` (through
 * `tools/list` and `tools/call` handlers, with
 * {@link createDeepResearchHandlers}; the server must declare the `tools`
 * capability and have no other tools).
 *
 * @example
 * ```ts
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { createIndex, registerDeepResearchTools } from "@gleaner/gleaner/deep-research";
 * const entries = [{ id: "t1", title: "Resident population", url: "https://example.org/t1" }];
 * const index = createIndex(entries);
 * const server = new McpServer({ name: "catalogue", version: "1.0.0" });
 * registerDeepResearchTools(server, {
 *   corpus: "the example statistics catalogue",
 *   richTools: "the `stats_*` tools",
 *   search: (query) => index.search(query),
 *   fetch: (id) => {
 *     const e = entries.find((x) => x.id === id);
 *     return e ? { document: { ...e, text: `# ${e.title}` } } : null;
 *   },
 * });
 * ```
 */
export function registerDeepResearchTools(
  server: McpServer | LowLevelServer,
  options: DeepResearchToolsOptions,
): void {
  const built = build(options);
  const { tools, schemas } = built.handlers;
  if (isMcpServer(server)) {
    for (const tool of tools) {
      const name = tool.name as DeepResearchToolName;
      const config = {
        title: tool.title,
        description: tool.description,
        inputSchema: schemas[name].input as z.ZodObject<z.ZodRawShape>,
        outputSchema: schemas[name].output as z.ZodObject<z.ZodRawShape>,
        annotations: tool.annotations,
      };
      server.registerTool(name, config, (args: Record<string, unknown>, extra) => {
        const context = { signal: extra?.signal };
        return name === "search"
          ? built.search(String(args.query), context)
          : built.fetch(String(args.id), context);
      });
    }
    return;
  }
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools] }));
  server.setRequestHandler(
    CallToolRequestSchema,
    (request, extra) =>
      built.handlers.call(request.params.name, request.params.arguments, { signal: extra.signal }),
  );
}
