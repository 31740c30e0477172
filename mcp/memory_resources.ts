/**
 * Stored memories as MCP resources: the template `gleaner://memory/{ref}`
 * (the URI Deep Research results already cite), `resources/list` with the
 * caller's memories newest first a page at a time, and `resources/read`
 * with the text `get_memory` renders. Every handler asks the request's
 * Gleaner for its memory store, so in hosted mode a client lists and reads
 * only the verified user's own memories.
 *
 * Resources: https://modelcontextprotocol.io/specification/2025-06-18/server/resources
 * (templates, `mimeType`, `annotations.lastModified`); pagination with an
 * opaque `cursor` / `nextCursor`:
 * https://modelcontextprotocol.io/specification/2025-06-18/server/utilities/pagination
 * (an invalid cursor is `-32602`). An unknown resource is `-32602` (Invalid
 * Params) with the URI in `data`, as SEP-2164 settles it and as the SDK's own
 * `McpServer` answers: https://modelcontextprotocol.io/seps/2164-resource-not-found-error
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/uriTemplate"
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  ListResourcesRequestSchema,
  type ListResourcesResult,
  ListResourceTemplatesRequestSchema,
  type ListResourceTemplatesResult,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { Config } from "../lib/config/config.ts";
import { toGleanerError } from "../lib/errors.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { getGleanerLogger } from "../lib/log.ts";
import { sharesMemories } from "../lib/tools/memory_sharing.ts";
import { getMemoryTool } from "../lib/tools/get_memory.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { RpcError, type ToolServer } from "./tool_server.ts";
import {
  isManageUri,
  manageResourceList,
  type ManageResources,
  readManageResource,
} from "./manage_resources.ts";

const log = getGleanerLogger("mcp");

/** The URI template of a stored memory. */
export const MEMORY_URI_TEMPLATE = "gleaner://memory/{ref}";

/** Memories per `resources/list` page (newest first; `nextCursor` leads on). */
export const MEMORY_RESOURCES_PAGE = 50;

/** Most characters of a listed memory's title (its first line, flattened). */
const TITLE_CHARS = 80;

/** MIME type of a read memory: the plain text `get_memory` renders. */
const MIME_TYPE = "text/plain";

/** Longest URI matched against the template (a memory's is about 30 characters). */
const MAX_URI_CHARS = 2_048;

const template = new UriTemplate(MEMORY_URI_TEMPLATE);

/**
 * The URI of a memory.
 *
 * @example
 * ```ts
 * import { memoryUri } from "./memory_resources.ts";
 * console.assert(memoryUri("abcd2345") === "gleaner://memory/abcd2345");
 * ```
 */
export function memoryUri(ref: string): string {
  return template.expand({ ref });
}

/**
 * True when a server offering `tools` serves memories as resources: alongside
 * the memory tools (listed only while `memory.enabled`), and on a Deep
 * Research server (its `search`/`fetch` tools) only when the operator shares
 * memories with Deep Research clients (`memory.deep_research`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../lib/config/parse.ts";
 * import { TOOLS } from "../lib/tools/mod.ts";
 * import { DEEP_RESEARCH_TOOLS } from "../lib/tools/deep_research.ts";
 * import { servesMemoryResources } from "./memory_resources.ts";
 * console.assert(servesMemoryResources(TOOLS, parseConfig({})));
 * console.assert(!servesMemoryResources(DEEP_RESEARCH_TOOLS, parseConfig({})));
 * ```
 */
export function servesMemoryResources(
  tools: readonly AnyToolSpec[],
  config?: Config,
): boolean {
  if (config && !config.memory.enabled) return false;
  if (tools.some((tool) => tool.name === getMemoryTool.name)) return true;
  return config !== undefined && sharesMemories(config) &&
    tools.some((tool) => tool.name === "fetch");
}

/** A `-32602` naming the URI, for every resource this client cannot read. */
function notFound(uri: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `Resource not found: ${uri.slice(0, 300)}`, {
    uri: uri.slice(0, 300),
  });
}

/** The offset a cursor stands for (cursors are this module's own: `m<offset>`). */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^m(\d{1,9})$/.exec(cursor);
  if (!match) throw new RpcError(ErrorCode.InvalidParams, "invalid cursor");
  return Number(match[1]);
}

/** A failure of our own as the JSON-RPC error a resources request answers. */
function asMcpError(error: unknown, what: string): McpError {
  if (error instanceof McpError) return error;
  const failure = toGleanerError(error, what);
  if (failure.code === "internal") log.error("{what} failed: {error}", { what, error });
  return new RpcError(
    failure.code === "invalid_arguments" ? ErrorCode.InvalidParams : ErrorCode.InternalError,
    `${failure.code}: ${failure.message}`,
    { code: failure.code },
  );
}

/** Which resources {@link registerMemoryResources} serves beside the stored memories. */
export interface ResourceOptions {
  /** Serve the stored memories (default true). */
  memories?: boolean;
  /** Serve the management views too (see `manage_resources.ts`). */
  manage?: ManageResources;
}

/**
 * Registers `resources/templates/list`, `resources/list` and
 * `resources/read` for stored memories on `server` (which must declare the
 * `resources` capability), and for the management views with `options.manage`
 * (listed first, on the first page). `resolve` gives the Gleaner of the request: in
 * hosted mode the verified user's view, so only that user's store is read.
 */
export function registerMemoryResources(
  server: ToolServer,
  resolve: () => Promise<Gleaner>,
  options: ResourceOptions = {},
): void {
  const serveMemories = options.memories ?? true;
  const manage = options.manage && {
    ...options.manage,
    startedAt: options.manage.startedAt ?? new Date(),
  };
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () =>
    ({
      resourceTemplates: serveMemories ? [memoryTemplate()] : [],
    }) satisfies ListResourceTemplatesResult);

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const first = manage && request.params?.cursor === undefined ? manageResourceList() : [];
    if (!serveMemories) return { resources: first } satisfies ListResourcesResult;
    const listed = await listMemories(resolve, request.params?.cursor);
    return { ...listed, resources: [...first, ...listed.resources] } satisfies ListResourcesResult;
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    if (manage && isManageUri(uri)) {
      try {
        return await readManageResource(
          uri,
          request.params,
          extra.requestInfo?.headers,
          resolve,
          manage,
        );
      } catch (error) {
        throw asMcpError(error, "resources/read");
      }
    }
    if (!serveMemories) throw notFound(uri);
    return await readMemory(resolve, uri, extra.signal);
  });
}

/** The template of a stored memory. */
function memoryTemplate(): ResourceTemplate {
  return {
    uriTemplate: MEMORY_URI_TEMPLATE,
    name: "memory",
    title: "Stored memory",
    description:
      "One memory saved with save_memories, by its ref: its full text, as get_memory returns it.",
    mimeType: MIME_TYPE,
  };
}

/** One page of the caller's memories, newest first. */
async function listMemories(
  resolve: () => Promise<Gleaner>,
  cursor: string | undefined,
): Promise<ListResourcesResult> {
  const offset = offsetOf(cursor);
  try {
    const memories = await (await resolve()).memories();
    const page = await memories.list({ sort: "recent", limit: MEMORY_RESOURCES_PAGE, offset });
    const resources: Resource[] = page.memories.map((m) => ({
      uri: memoryUri(m.ref),
      name: m.ref,
      title: m.preview.length > TITLE_CHARS
        ? `${m.preview.slice(0, TITLE_CHARS - 1).trimEnd()}…`
        : m.preview,
      description: `A ${m.kind} memory${m.session_id !== null ? " of a session" : ""}` +
        `, saved ${m.created_at}`,
      mimeType: MIME_TYPE,
      annotations: { lastModified: m.updated_at },
    }));
    return {
      resources,
      ...(page.has_more ? { nextCursor: `m${offset + page.returned_count}` } : {}),
    } satisfies ListResourcesResult;
  } catch (error) {
    throw asMcpError(error, "resources/list");
  }
}

/** A stored memory of the caller, as `get_memory` renders it. */
async function readMemory(
  resolve: () => Promise<Gleaner>,
  uri: string,
  signal: AbortSignal,
): Promise<ReadResourceResult> {
  const ref = uri.length <= MAX_URI_CHARS ? template.match(uri)?.ref : undefined;
  if (typeof ref !== "string" || ref === "") throw notFound(uri);
  try {
    const gleaner = await resolve();
    // Loaded with the first read (the store is then loaded too), not before `tools/list`.
    const { callTool } = await import("../lib/api.ts");
    const out = await callTool(getMemoryTool, gleaner, { ref }, { signal });
    return {
      contents: [{
        uri: memoryUri(out.memory.ref),
        mimeType: MIME_TYPE,
        text: getMemoryTool.render(out),
      }],
    } satisfies ReadResourceResult;
  } catch (error) {
    const failure = toGleanerError(error, "resources/read");
    // A ref that is malformed or names no memory of this user: the same answer.
    if (failure.code === "not_found" || failure.code === "invalid_arguments") {
      throw notFound(uri);
    }
    throw asMcpError(error, "resources/read");
  }
}
