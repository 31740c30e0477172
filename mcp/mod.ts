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
export { createMcpServer } from "./server.ts";
export { serveStdio } from "./stdio.ts";
export { handleMcpRequest } from "./http.ts";
