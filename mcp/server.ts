/**
 * Builds Gleaner's MCP server from the tool specs in `lib/tools/`.
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Gleaner } from "../lib/gleaner.ts";
import { toGleanerError } from "../lib/errors.ts";
import { getGleanerLogger } from "../lib/log.ts";
import type { AnyToolSpec, Progress } from "../lib/tools/spec.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { VERSION } from "../lib/version.ts";

const log = getGleanerLogger("mcp");

type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Creates an MCP server exposing every tool (or the given subset).
 * Results carry `structuredContent` (the JSON) and a compact text for the model;
 * failures come back as tool errors with their stable code.
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
  gleaner: Gleaner,
  tools: readonly AnyToolSpec[] = TOOLS,
): McpServer {
  const server = new McpServer(
    { name: "gleaner", title: "Gleaner", version: VERSION },
    {
      instructions:
        "Gleaner searches the web, reads pages and returns only the original passages that answer a question, each with its source URL, inside a token budget.",
    },
  );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: {
          title: tool.title,
          readOnlyHint: tool.readOnly ?? true,
          openWorldHint: tool.openWorld ?? true,
        },
      },
      async (args: unknown, extra: ToolExtra): Promise<CallToolResult> => {
        const token = extra._meta?.progressToken;
        const progress = token === undefined ? undefined : (update: Progress) => {
          extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, ...update },
          }).catch((error: unknown) =>
            log.debug("progress notification failed: {error}", { error })
          );
        };
        try {
          const output = await tool.handler(args, { gleaner, signal: extra.signal, progress });
          return {
            content: [{ type: "text", text: tool.render(output) }],
            structuredContent: output as Record<string, unknown>,
          };
        } catch (error) {
          const failure = toGleanerError(error, tool.name);
          if (failure.code === "internal") {
            log.error("{tool} failed: {error}", { tool: tool.name, error });
          }
          return {
            isError: true,
            content: [{ type: "text", text: `${failure.code}: ${failure.message}` }],
          };
        }
      },
    );
  }
  return server;
}
