/**
 * Gleaner's MCP surface: the server built from the tool specs, and its stdio
 * and Streamable HTTP transports.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * import { serveStdio } from "@gleaner/gleaner/mcp";
 * await serveStdio(await createGleaner());
 * ```
 *
 * @module
 */
export {
  createMcpServer,
  ERROR_META_KEY,
  type GleanerSource,
  type McpServerOptions,
  toolDefinition,
} from "./server.ts";
export {
  MEMORY_RESOURCES_PAGE,
  MEMORY_URI_TEMPLATE,
  memoryUri,
  registerMemoryResources,
  type ResourceOptions,
  servesMemoryResources,
} from "./memory_resources.ts";
export {
  isManageUri,
  manageResourceList,
  type ManageResources,
  manageResourcesToken,
  readManageResource,
} from "./manage_resources.ts";
export type { SessionCounter } from "../lib/config/management.ts";
export { RpcError, ToolServer, type ToolServerOptions } from "./tool_server.ts";
export { LineTransport, MAX_LINE_BYTES, serveStdio, type StdioOptions } from "./stdio.ts";
export { handleMcpRequest } from "./http.ts";
export {
  type McpSessionCounts,
  type McpSessionOptions,
  type McpSessionRoute,
  McpSessions,
  rpcError,
  SESSION_HEADER,
} from "./sessions.ts";
