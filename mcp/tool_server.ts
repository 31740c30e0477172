/**
 * An MCP server for tools (and resources) on the SDK's `Protocol` (JSON-RPC
 * framing, ping, progress, cancellation). It does what the SDK's `Server`
 * does for a server that offers tools and resources — answers `initialize` with the negotiated protocol
 * version, and refuses methods whose capability it did not declare — without
 * loading the JSON Schema validator (Ajv) that `Server` needs only for
 * elicitation, which Gleaner never requests. That keeps about 0.1 s off every
 * start of `gleaner mcp`.
 *
 * A request whose params do not match its method's schema (`tools/call` with
 * `arguments` an array, `null`, a string or a number) is answered with
 * JSON-RPC `-32602` (Invalid params) and a short message naming the field
 * ("arguments must be a JSON object"), never a schema dump under `-32603`.
 *
 * @module
 */
// The SDK's `./*` export maps types to `*.js.d.ts`, which do not exist: name the declarations.
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import {
  Protocol,
  type ProtocolOptions,
  type RequestHandlerExtra,
} from "@modelcontextprotocol/sdk/shared/protocol.js";
// @ts-types="@modelcontextprotocol/sdk/server/zod-compat"
import {
  type AnyObjectSchema,
  safeParse,
  type SchemaOutput,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
// @ts-types="@modelcontextprotocol/sdk/server/zod-json-schema-compat"
import { getMethodLiteral } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type ClientCapabilities,
  ErrorCode,
  type Implementation,
  InitializedNotificationSchema,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  LATEST_PROTOCOL_VERSION,
  McpError,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/**
 * A JSON-RPC error for a request handler to throw: code, message and `data`
 * go on the wire as given. (The SDK's `McpError` writes "MCP error <code>: "
 * into its own message, which the server sends and the client's `McpError`
 * prefixes again: "MCP error -32602: MCP error -32602: …".)
 *
 * @example
 * ```ts
 * import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
 * import { RpcError } from "@gleaner/gleaner/mcp";
 * const error = new RpcError(ErrorCode.InvalidParams, "unknown tool \"x\"");
 * console.assert(error.code === -32602 && error.message === 'unknown tool "x"');
 * ```
 */
export class RpcError extends McpError {
  /** An error answered as `{ code, message, data }`. */
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.message = message;
  }
}

/** How the first problem of a request's params reads, by the JSON type zod expected. */
const EXPECTED: Record<string, string> = {
  object: "a JSON object",
  record: "a JSON object",
  array: "a JSON array",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
};

/** One problem zod reports (v3 and v4 share these fields). */
interface Issue {
  path: readonly PropertyKey[];
  code?: string;
  expected?: unknown;
  message?: string;
}

/**
 * The `-32602` for params that do not match a method's schema: the first
 * problem, named by its field under `params` ("arguments must be a JSON
 * object"), without the schema dump or the value sent.
 */
function invalidParams(error: unknown): RpcError {
  const issue = (error as { issues?: Issue[] } | undefined)?.issues?.[0];
  if (!issue) return new RpcError(ErrorCode.InvalidParams, "invalid params");
  const path = issue.path[0] === "params" ? issue.path.slice(1) : issue.path;
  const field = (path.length ? path.map(String).join(".") : "params").slice(0, 100);
  const expected = typeof issue.expected === "string" ? EXPECTED[issue.expected] : undefined;
  const message = issue.code === "invalid_type" && expected
    ? `${field} must be ${expected}`
    : `${field}: ${String(issue.message ?? "invalid").slice(0, 200)}`;
  return new RpcError(ErrorCode.InvalidParams, message);
}

/** Options of {@link ToolServer}. */
export interface ToolServerOptions extends ProtocolOptions {
  /** What the server declares; only `tools`, `resources` (and `logging`) are served. */
  capabilities: ServerCapabilities;
  /** How a model should use the server, sent in the `initialize` answer. */
  instructions?: string;
}

/**
 * An MCP server for tools. Register `tools/list` and `tools/call` with
 * `setRequestHandler`, then `connect` a transport.
 *
 * @example
 * ```ts
 * import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
 * import { ToolServer } from "@gleaner/gleaner/mcp";
 * const server = new ToolServer({ name: "demo", version: "1.0.0" }, { capabilities: { tools: {} } });
 * server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
 * console.assert(server.getCapabilities().tools !== undefined);
 * ```
 */
export class ToolServer extends Protocol<ServerRequest, ServerNotification, ServerResult> {
  // Plain properties, not `#private` ones: the base constructor calls the
  // capability checks below before this class's fields exist.
  private info?: Implementation;
  private capabilities?: ServerCapabilities;
  private instructions?: string;
  private clientCapabilities?: ClientCapabilities;
  private clientInfo?: Implementation;

  /** Called when the client confirms initialisation (`notifications/initialized`). */
  oninitialized?: () => void;

  /** A server named by `info` that declares `options.capabilities`. */
  constructor(info: Implementation, options: ToolServerOptions) {
    super(options);
    this.info = info;
    this.capabilities = options.capabilities;
    this.instructions = options.instructions;
    this.setRequestHandler(InitializeRequestSchema, (request) => this.#initialize(request));
    this.setNotificationHandler(InitializedNotificationSchema, () => this.oninitialized?.());
  }

  /**
   * Registers `handler` for the method of `requestSchema`. A request that
   * does not match the schema never reaches the handler: it is answered with
   * `-32602` naming the first field in the way (the SDK would answer
   * `-32603` with the validator's whole report).
   */
  override setRequestHandler<T extends AnyObjectSchema>(
    requestSchema: T,
    handler: (
      request: SchemaOutput<T>,
      extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    ) => ServerResult | Promise<ServerResult>,
  ): void {
    // The base class checks only the method; this class checks the rest.
    const method = getMethodLiteral(requestSchema);
    super.setRequestHandler(z.object({ method: z.literal(method) }).loose(), (request, extra) => {
      const parsed = safeParse(requestSchema, request);
      if (!parsed.success) throw invalidParams(parsed.error);
      return handler(parsed.data, extra);
    });
  }

  /** What the server declared. */
  getCapabilities(): ServerCapabilities {
    return this.capabilities ?? {};
  }

  /** The client's capabilities, once it has initialised. */
  getClientCapabilities(): ClientCapabilities | undefined {
    return this.clientCapabilities;
  }

  /** The client's name and version, once it has initialised. */
  getClientVersion(): Implementation | undefined {
    return this.clientInfo;
  }

  #initialize(request: InitializeRequest): InitializeResult {
    const requested = request.params.protocolVersion;
    this.clientCapabilities = request.params.capabilities;
    this.clientInfo = request.params.clientInfo;
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : LATEST_PROTOCOL_VERSION,
      capabilities: this.getCapabilities(),
      serverInfo: this.info!,
      ...(this.instructions ? { instructions: this.instructions } : {}),
    };
  }

  /** The server sends the client no request but `ping`. */
  protected assertCapabilityForMethod(method: ServerRequest["method"]): void {
    if (method !== "ping") throw new Error(`this server does not send ${method} requests`);
  }

  /** Progress and cancellation always; log messages only when `logging` is declared. */
  protected assertNotificationCapability(method: ServerNotification["method"]): void {
    if (method === "notifications/progress" || method === "notifications/cancelled") return;
    if (method === "notifications/message" && this.capabilities?.logging) return;
    if (method === "notifications/tools/list_changed" && this.capabilities?.tools) return;
    throw new Error(`this server does not send ${method}`);
  }

  /** Tool methods need `tools`, resource methods `resources`; `initialize` and `ping` need none. */
  protected assertRequestHandlerCapability(method: string): void {
    // The base class registers its own handlers before the capabilities are set.
    if (!this.capabilities) return;
    if ((method === "tools/list" || method === "tools/call") && !this.capabilities.tools) {
      throw new Error(`this server does not declare tools (required for ${method})`);
    }
    if (method.startsWith("resources/") && !this.capabilities.resources) {
      throw new Error(`this server does not declare resources (required for ${method})`);
    }
  }

  /** No task-augmented requests are sent. */
  protected assertTaskCapability(method: string): void {
    throw new Error(`this server does not send task-augmented ${method} requests`);
  }

  /** Tasks are not served. */
  protected assertTaskHandlerCapability(method: string): void {
    if (this.capabilities) throw new Error(`this server does not serve tasks (${method})`);
  }
}
