/**
 * `tools/call` whose `arguments` is not a JSON object (an array, `null`, a
 * string, a number) is refused with JSON-RPC `-32602` and one short message,
 * for every tool, on every MCP surface: Streamable HTTP (`/mcp` and
 * `/mcp/deep-research`) and stdio (a subprocess running the CLI). Driven by
 * the real MCP SDK client, which sends such arguments as given. Error
 * messages reach the client with one "MCP error <code>: " prefix, not two.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { DENO_RUN_FLAGS } from "../testing/fixtures/world.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

/** Arguments that are JSON but not a JSON object. */
const NOT_OBJECTS: readonly unknown[] = [[], [{ query: "x" }], null, "query", 5, true];

/** The message the SDK client shows for a `-32602` sent as `message` (it adds one prefix). */
const seen = (message: string) => `MCP error ${ErrorCode.InvalidParams}: ${message}`;

/** Rejects with `-32602` and exactly `message` on the wire. */
async function rejectsInvalidParams(call: Promise<unknown>, message: string, what: string) {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof McpError, `${what}: ${String(error)}`);
    assert.equal(error.code, ErrorCode.InvalidParams, what);
    assert.equal(error.message, seen(message), what);
    return true;
  });
}

/** Every listed tool, called with each of {@link NOT_OBJECTS}; a good call still works. */
async function refusesNonObjects(client: Client, expected: string[]): Promise<void> {
  const { tools } = await client.listTools();
  const names = tools.map((t: { name: string }) => t.name);
  for (const name of expected) assert.ok(names.includes(name), `${name} listed`);
  for (const name of names) {
    for (const args of NOT_OBJECTS) {
      await rejectsInvalidParams(
        client.callTool({ name, arguments: args as Record<string, unknown> }),
        "arguments must be a JSON object",
        `${name} with ${JSON.stringify(args)}`,
      );
    }
  }
  await rejectsInvalidParams(
    client.callTool({ name: "no_such_tool", arguments: {} }),
    'unknown tool "no_such_tool"',
    "unknown tool",
  );
  // The session goes on: a call with an object is answered.
  const good = await client.callTool({ name: names[0], arguments: {} });
  assert.ok(good.content, "answered");
}

Deno.test("MCP over Streamable HTTP: non-object arguments are -32602 on /mcp and /mcp/deep-research", async () => {
  const gleaner = await createGleaner({
    store: { path: ":memory:" },
    memory: { path: ":memory:" },
    embed: { provider: "none" },
    server: { port: 0 },
  });
  const server = serveHttp(gleaner);
  try {
    const client = new Client({ name: "arguments-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport,
    );
    try {
      await refusesNonObjects(client, ["search", "scrape_urls", "save_memories", "get_memory"]);
      // A resource error also carries one prefix.
      await rejectsInvalidParams(
        client.readResource({ uri: "gleaner://memory/zzzzzzzz" }),
        "Resource not found: gleaner://memory/zzzzzzzz",
        "unknown memory resource",
      );
    } finally {
      await client.close();
    }

    const deep = new Client({ name: "arguments-test", version: "1" });
    await deep.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/deep-research`)) as Transport,
    );
    try {
      await refusesNonObjects(deep, ["search", "fetch"]);
    } finally {
      await deep.close();
    }
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
});

Deno.test("MCP over stdio: non-object arguments are -32602 for every tool", async () => {
  const home = await Deno.makeTempDir();
  const client = new Client({ name: "arguments-test", version: "1" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", ...DENO_RUN_FLAGS, CLI, "mcp"],
        env: {
          ...Deno.env.toObject(),
          HOME: home,
          XDG_DATA_HOME: home,
          XDG_CONFIG_HOME: "/nonexistent/gleaner-test-config",
          GLEANER_STORE_PATH: ":memory:",
          GLEANER_MEMORY_PATH: ":memory:",
          GLEANER_EMBED_PROVIDER: "none",
          GLEANER_LOG_LEVEL: "warning",
          NO_COLOR: "1",
        },
        stderr: "pipe",
      }) as Transport,
    );
    await refusesNonObjects(client, ["search", "scrape_urls", "current_datetime"]);
  } finally {
    await client.close();
    await Deno.remove(home, { recursive: true });
  }
});
