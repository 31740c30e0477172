/**
 * The real MCP SDK client linked in memory to a Gleaner MCP server, for tests
 * that call tools the way an agent does without a process or a port.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { ToolServer } from "../mcp/mod.ts";

/** A client connected to a server in memory; `close` closes both. */
export interface LinkedMcpClient {
  /** The SDK client. */
  client: Client;
  /** Closes the client, then the server. */
  close(): Promise<void>;
}

/**
 * Connects a new SDK client to `server` over a linked in-memory transport pair.
 *
 * @example
 * ```ts ignore
 * const { client, close } = await linkMcpClient(createMcpServer(gleaner));
 * try {
 *   await client.listTools();
 * } finally {
 *   await close();
 * }
 * ```
 */
export async function linkMcpClient(server: ToolServer): Promise<LinkedMcpClient> {
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
