/**
 * An MCP server for tools (and resources) on the SDK's `Protocol` (JSON-RPC
 * framing, ping, progress, cancellation). It does what the SDK's `Server`
 * does for a server that offers tools and resources — answers `initialize` with the negotiated protocol
 * version, and refuses methods whose capability it did not declare — without
 * loading the JSON Schema validator (Ajv) that `Server` needs only for
 * elicitation, which Gleaner never requests. That keeps about 0.1 s off every
 * start of `gleaner mcp`.
 *
 * @module
 */
// The SDK's `./*` export maps types to `*.js.d.ts`, which do not exist: name the declarations.
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import { Protocol, type ProtocolOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type ClientCapabilities,
  type Implementation,
  InitializedNotificationSchema,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  LATEST_PROTOCOL_VERSION,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

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
