/**
 * MCP over Streamable HTTP, web-standard (`Request` → `Response`), stateless:
 * each request gets its own server and transport, so replicas need no sticky sessions.
 *
 * @module
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Gleaner } from "../lib/gleaner.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "./server.ts";

/**
 * Answers one MCP Streamable HTTP request with a server offering `tools`
 * (default: the tools of `search.presentation`).
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * import { handleMcpRequest } from "@gleaner/gleaner/mcp";
 * const gleaner = await createGleaner();
 * Deno.serve((request) => handleMcpRequest(gleaner, request));
 * ```
 */
export async function handleMcpRequest(
  gleaner: Gleaner,
  request: Request,
  tools: readonly AnyToolSpec[] = toolsFor(gleaner.config),
): Promise<Response> {
  const server = createMcpServer(gleaner, tools);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: false,
  });
  await server.connect(transport);
  const response = await transport.handleRequest(request);
  if (request.method !== "POST" || !response.body) {
    await server.close();
    return response;
  }
  // Close the per-request server once the response stream is fully sent.
  const closing = new TransformStream<Uint8Array, Uint8Array>({
    flush: () => {
      server.close().catch(() => {});
    },
  });
  return new Response(response.body.pipeThrough(closing), {
    status: response.status,
    headers: response.headers,
  });
}
