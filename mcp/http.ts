/**
 * MCP over Streamable HTTP, web-standard (`Request` → `Response`), stateless:
 * each request gets its own server and transport, so replicas need no sticky sessions.
 * The HTTP server answers a request without a session this way; `sessions.ts` keeps the
 * sessions an `initialize` opens.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Gleaner } from "../lib/gleaner.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "./server.ts";

/**
 * Answers one MCP Streamable HTTP request with a server offering `tools`
 * (default: the tools of `search.presentation`). Only `POST` is served: without
 * sessions there is no stream to open with `GET` nor session to end with
 * `DELETE`, so other methods get 405 with `Allow: POST`. Request bodies are
 * limited to 4 MiB by the SDK transport (413).
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
  if (request.method !== "POST") {
    return Response.json({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: `Method not allowed: ${request.method} /mcp (use POST)` },
    }, { status: 405, headers: { allow: "POST" } });
  }
  const server = createMcpServer(gleaner, tools);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: false,
  });
  await server.connect(transport);
  const response = await transport.handleRequest(request);
  if (!response.body) {
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
