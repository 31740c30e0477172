/**
 * Serves Gleaner over MCP stdio (stdout carries protocol only; logs go to stderr).
 *
 * @module
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Gleaner } from "../lib/gleaner.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "./server.ts";

/**
 * Connects a new MCP server to this process's stdin/stdout and resolves when
 * the client disconnects.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * import { serveStdio } from "@gleaner/gleaner/mcp";
 * await serveStdio(await createGleaner());
 * ```
 */
export async function serveStdio(
  gleaner: Gleaner,
  options: { tools?: readonly AnyToolSpec[] } = {},
): Promise<void> {
  const server = createMcpServer(gleaner, options.tools ?? toolsFor(gleaner.config));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
