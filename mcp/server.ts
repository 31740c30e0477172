/**
 * Builds Gleaner's MCP server from the tool specs in `lib/tools/`.
 *
 * A small tool server ({@link ToolServer}) with our own `tools/list` and
 * `tools/call` handlers, so that input validation goes through the same
 * `callTool` as the library and REST: arguments that do not fit the tool
 * are a tool error whose text starts with `invalid_arguments:`. A request
 * that does not fit MCP itself (`arguments` not a JSON object, an unknown
 * tool) is a JSON-RPC `-32602`.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Gleaner } from "../lib/gleaner.ts";
import { toGleanerError } from "../lib/errors.ts";
import { getGleanerLogger } from "../lib/log.ts";
import {
  type AnyToolSpec,
  everyItemFailed,
  preloadHandler,
  type Progress,
} from "../lib/tools/spec.ts";
import { listedInputSchema, listedOutputSchema } from "../lib/tools/listing.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { VERSION } from "../lib/version.ts";
import { registerMemoryResources, servesMemoryResources } from "./memory_resources.ts";
import { type ManageResources, manageResourcesToken } from "./manage_resources.ts";
import { RpcError, ToolServer } from "./tool_server.ts";

const log = getGleanerLogger("mcp");

/** The `_meta` key under which a failed call carries its `{ code, message }`. */
export const ERROR_META_KEY = "gleaner/error";

const INSTRUCTIONS =
  "Gleaner searches the web, reads pages and returns only the original passages that answer a question, each with its source URL, inside a token budget.";

const definitions = new WeakMap<AnyToolSpec, Tool>();

/**
 * What a call runs through (`callTool`, the request id): loaded on the first
 * call or in the warm-up, not before `tools/list` answers (`lib/api.ts` brings
 * the telemetry and `node:async_hooks`).
 */
type CallPath = [typeof import("../lib/api.ts"), typeof import("../lib/telemetry/events.ts")];
function loadCallPath(): Promise<CallPath> {
  // The runtime keeps a module once loaded: each call after the first resolves at once.
  return Promise.all([import("../lib/api.ts"), import("../lib/telemetry/events.ts")]);
}

/**
 * How a tool is listed to MCP clients: JSON Schemas generated from its zod
 * schemas (the input as `listedInputSchema` gives it), once per tool (HTTP
 * makes a server per request).
 */
export function toolDefinition(tool: AnyToolSpec): Tool {
  const known = definitions.get(tool);
  if (known) return known;
  const definition: Tool = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: listedInputSchema(tool) as Tool["inputSchema"],
    outputSchema: listedOutputSchema(tool) as Tool["outputSchema"],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly ?? true,
      openWorldHint: tool.openWorld ?? true,
    },
  };
  definitions.set(tool, definition);
  return definition;
}

/**
 * What tool calls run on: a Gleaner, or a function that creates one on first
 * use. With a function, the server answers `initialize` and `tools/list`
 * without loading the reader, ranker or store, then creates the Gleaner and
 * loads the tool handlers in the background, so the first call finds them
 * ready.
 */
export type GleanerSource = Gleaner | (() => Promise<Gleaner>);

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /**
   * Serve stored memories as resources (`gleaner://memory/{ref}`). Default:
   * when {@link servesMemoryResources} says so for the tools (and the
   * Gleaner's config, when it is already created).
   */
  memoryResources?: boolean;
  /**
   * The management views as resources (`manage_resources.ts`): their token (default: the
   * Gleaner's config, when it is already created and turns them on) and the MCP sessions the
   * Overview counts.
   */
  manage?: Partial<Pick<ManageResources, "token" | "sessions">>;
}

/** Delay between answering the first `tools/list` and warming up. */
const WARM_UP_DELAY_MS = 25;

/**
 * Creates an MCP server exposing every tool (or the given list), and the
 * stored memories as resources `gleaner://memory/{ref}` where memory is on
 * (see {@link McpServerOptions}).
 * Results carry `structuredContent` (the JSON) and a compact text for the model.
 * Failures, invalid arguments included, come back as tool errors
 * (`isError: true`) whose text is `<code>: <message>` and whose
 * `_meta["gleaner/error"]` is `{ code, message }`. They carry no
 * `structuredContent`: a client checks structured content against the tool's
 * output schema, and an error object does not match it. A batch whose every
 * item failed (`everyItemFailed`: every URL of a scrape, every query of a
 * search) is `isError: true` too, and keeps its `structuredContent` with each
 * item's error.
 *
 * @example
 * ```ts ignore
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * import { createGleaner } from "@gleaner/gleaner";
 * import { createMcpServer } from "@gleaner/gleaner/mcp";
 * const server = createMcpServer(await createGleaner());
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(
  gleaner: GleanerSource,
  tools: readonly AnyToolSpec[] = TOOLS,
  options: McpServerOptions = {},
): ToolServer {
  const { memories, manage } = resourcesServed(gleaner, tools, options);
  const resources = memories || manage !== undefined;
  // `tools: {}` without `listChanged`: the list is fixed for the server's lifetime. Resources
  // without `subscribe` or `listChanged`: clients list again when they need to.
  const server = new ToolServer(
    { name: "gleaner", title: "Gleaner", version: VERSION },
    {
      capabilities: { tools: {}, ...(resources ? { resources: {} } : {}) },
      instructions: INSTRUCTIONS,
    },
  );
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  const resolve = typeof gleaner === "function" ? gleaner : () => Promise.resolve(gleaner);
  if (resources) {
    registerMemoryResources(server, resolve, { memories, ...(manage ? { manage } : {}) });
  }
  let warmed = typeof gleaner !== "function";
  server.setRequestHandler(ListToolsRequestSchema, () => {
    if (!warmed) {
      warmed = true;
      // After the answer is written: module loading must not delay it.
      setTimeout(() => warmUp(resolve, tools), WARM_UP_DELAY_MS);
    }
    return { tools: tools.map(toolDefinition) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (
    request: CallToolRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `unknown tool "${request.params.name.slice(0, 100)}"`,
      );
    }
    const token = request.params._meta?.progressToken;
    const progress = token === undefined ? undefined : (update: Progress) => {
      extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, ...update },
      }).catch((error: unknown) => log.debug("progress notification failed: {error}", { error }));
    };
    try {
      const [{ callTool }, { requestIdFrom }] = await loadCallPath();
      const output = await callTool(tool, await resolve(), request.params.arguments ?? {}, {
        signal: extra.signal,
        progress,
        requestId: requestIdFrom(extra.requestInfo?.headers?.["x-request-id"]),
      });
      return {
        content: [{ type: "text", text: tool.render(output) }],
        structuredContent: output as Record<string, unknown>,
        // Answered, but nothing worked: a model must not read it as a result.
        ...(everyItemFailed(output) ? { isError: true } : {}),
      } satisfies CallToolResult;
    } catch (error) {
      const failure = toGleanerError(error, tool.name);
      if (failure.code === "internal") {
        log.error("{tool} failed: {error}", { tool: tool.name, error });
      }
      return {
        isError: true,
        content: [{ type: "text", text: `${failure.code}: ${failure.message}` }],
        _meta: { [ERROR_META_KEY]: { code: failure.code, message: failure.message } },
      } satisfies CallToolResult;
    }
  });
  return server;
}

/** Which resources a server serves: stored memories, the management views (with their token). */
function resourcesServed(
  gleaner: GleanerSource,
  tools: readonly AnyToolSpec[],
  options: McpServerOptions,
): { memories: boolean; manage?: ManageResources } {
  const config = typeof gleaner === "function" ? undefined : gleaner.config;
  const memories = options.memoryResources ?? servesMemoryResources(tools, config);
  const token = options.manage?.token ?? (config && manageResourcesToken(config));
  if (!token) return { memories };
  const sessions = options.manage?.sessions;
  return { memories, manage: { token, tools, ...(sessions ? { sessions } : {}) } };
}

/** Creates the Gleaner and loads every tool handler; failures surface on the first call. */
function warmUp(resolve: () => Promise<Gleaner>, tools: readonly AnyToolSpec[]): void {
  Promise.all([
    resolve().then((gleaner) => gleaner.warm()),
    loadCallPath(),
    ...tools.map(preloadHandler),
  ]).catch((error: unknown) =>
    log.debug("warm-up failed (the first call will retry): {error}", { error })
  );
}
