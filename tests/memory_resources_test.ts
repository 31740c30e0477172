/**
 * Stored memories as MCP resources (`gleaner://memory/{ref}`), driven by the
 * real MCP SDK client over stdio (a subprocess running the CLI) and over
 * Streamable HTTP, hosted mode included: a user lists and reads only their
 * own memories.
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
import { connectAs, hostedMemory } from "../testing/hosted.ts";
import { DENO_RUN_FLAGS } from "../testing/fixtures/world.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** Rejects with the JSON-RPC error a client gets for a resource it may not read (-32602). */
async function rejectsNotFound(call: Promise<unknown>, uri: string): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, ErrorCode.InvalidParams);
    // One "MCP error -32602: " prefix (the client's), then the server's own message.
    assert.ok(error.message.startsWith("MCP error -32602: Resource not found: "), error.message);
    assert.ok(error.message.includes(uri));
    return true;
  });
}

/** Saves `contents` through the `save_memories` tool; their refs in order. */
async function save(client: Client, contents: string[]): Promise<string[]> {
  const saved = await client.callTool({
    name: "save_memories",
    arguments: { memories: contents.map((content) => ({ content })) },
  }) as ToolResult;
  assert.ok(!saved.isError, saved.content[0]?.text);
  return (saved.structuredContent as { results: { ref: string }[] }).results.map((r) => r.ref);
}

/** Everything one client sees of the memory resources of an empty store. */
async function exerciseResources(client: Client): Promise<void> {
  assert.ok(client.getServerCapabilities()?.resources, "the server declares resources");
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(
    resourceTemplates.map((t: { uriTemplate: string; mimeType?: string }) => [
      t.uriTemplate,
      t.mimeType,
    ]),
    [
      ["gleaner://memory/{ref}", "text/plain"],
    ],
  );
  assert.deepEqual((await client.listResources()).resources, []);

  // A page and a bit: 55 memories.
  const refs = await save(
    client,
    Array.from({ length: 55 }, (_, i) => `Locker ${i} of the gym holds box ${1000 + i}.`),
  );
  const first = await client.listResources();
  assert.equal(first.resources.length, 50);
  assert.equal(typeof first.nextCursor, "string");
  const second = await client.listResources({ cursor: first.nextCursor });
  assert.equal(second.resources.length, 5);
  assert.equal(second.nextCursor, undefined);
  const listed = [...first.resources, ...second.resources];
  assert.deepEqual(
    listed.map((r) => r.uri).sort(),
    refs.map((ref) => `gleaner://memory/${ref}`).sort(),
  );
  // Newest first (one batch: the last saved leads).
  assert.equal(listed[0].uri, `gleaner://memory/${refs[54]}`);
  assert.equal(listed[0].name, refs[54]);
  assert.equal(listed[0].title, "Locker 54 of the gym holds box 1054.");
  assert.equal(listed[0].mimeType, "text/plain");

  // Read: the text get_memory renders.
  const uri = `gleaner://memory/${refs[3]}`;
  const read = await client.readResource({ uri });
  const got = await client.callTool({
    name: "get_memory",
    arguments: { ref: refs[3] },
  }) as ToolResult;
  assert.equal(read.contents.length, 1);
  assert.equal(read.contents[0].uri, uri);
  assert.equal(read.contents[0].mimeType, "text/plain");
  assert.equal(read.contents[0].text, got.content[0].text);
  assert.match(String(read.contents[0].text), /Locker 3 of the gym holds box 1003\./);

  // Unknown, malformed and foreign URIs; a cursor the server never gave.
  await rejectsNotFound(client.readResource({ uri: "gleaner://memory/zzzzzzzz" }), "zzzzzzzz");
  await rejectsNotFound(client.readResource({ uri: "gleaner://memory/no%20such" }), "no%20such");
  await rejectsNotFound(client.readResource({ uri: "file:///etc/passwd" }), "file:///etc/passwd");
  await assert.rejects(
    client.listResources({ cursor: "m-1" }),
    (error: unknown) => error instanceof McpError && error.code === ErrorCode.InvalidParams,
  );
}

Deno.test("memory resources over stdio: template, paged list, read as get_memory renders, unknown refs", async () => {
  const dir = await Deno.makeTempDir();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...DENO_RUN_FLAGS, CLI, "mcp"],
    env: {
      ...Deno.env.toObject(),
      GLEANER_MEMORY_PATH: `${dir}/memory.db`,
      GLEANER_STORE_PATH: ":memory:",
      GLEANER_EMBED_PROVIDER: "none",
      GLEANER_LOG_LEVEL: "warning",
      XDG_CONFIG_HOME: "/nonexistent/gleaner-test-config",
      NO_COLOR: "1",
    },
    stderr: "pipe",
  });
  const client = new Client({ name: "memory-resources-test", version: "1.0.0" });
  try {
    await client.connect(transport as Transport);
    await exerciseResources(client);
  } finally {
    await client.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("memory resources over Streamable HTTP; none declared when memory is off", async () => {
  const gleaner = await createGleaner({
    server: { port: 0 },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    memory: { path: ":memory:" },
  });
  const off = await createGleaner({
    server: { port: 0 },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    memory: { enabled: false },
  });
  const server = serveHttp(gleaner);
  const offServer = serveHttp(off);
  const client = new Client({ name: "memory-resources-test", version: "1.0.0" });
  const offClient = new Client({ name: "memory-off-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport,
    );
    await exerciseResources(client);

    await offClient.connect(
      new StreamableHTTPClientTransport(new URL(`${offServer.url}/mcp`)) as Transport,
    );
    assert.equal(offClient.getServerCapabilities()?.resources, undefined);
    await assert.rejects(
      offClient.listResources(),
      (error: unknown) => error instanceof McpError && error.code === ErrorCode.MethodNotFound,
    );
  } finally {
    await client.close();
    await offClient.close();
    await server.shutdown();
    await offServer.shutdown();
    await gleaner.close();
    await off.close();
  }
});

Deno.test("memory resources in hosted mode: each user lists and reads only their own", async () => {
  const root = await Deno.makeTempDir();
  const gleaner = await createGleaner({
    server: { port: 0 },
    store: { path: `${root}/gleaner.db` },
    embed: { provider: "none" },
    memory: hostedMemory(`${root}/memory.db`),
  });
  const server = serveHttp(gleaner);
  const alice = await connectAs(server.url, "alice", "/mcp");
  const bob = await connectAs(server.url, "bob", "/mcp");
  try {
    const [aliceRef] = await save(alice, ["Alice's locker code is 4471."]);
    const [bobRef] = await save(bob, ["Bob parks on level 3."]);
    const uris = async (client: Client) =>
      (await client.listResources()).resources.map((r: { uri: string }) => r.uri);
    assert.deepEqual(await uris(alice), [`gleaner://memory/${aliceRef}`]);
    assert.deepEqual(await uris(bob), [`gleaner://memory/${bobRef}`]);

    const aliceUri = `gleaner://memory/${aliceRef}`;
    const own = await alice.readResource({ uri: aliceUri });
    assert.match(String(own.contents[0].text), /locker code is 4471/);
    // Bob asks for Alice's memory by its exact URI: not found, as for any unknown ref.
    await rejectsNotFound(bob.readResource({ uri: aliceUri }), aliceRef);
    await rejectsNotFound(alice.readResource({ uri: `gleaner://memory/${bobRef}` }), bobRef);
  } finally {
    await alice.close();
    await bob.close();
    await server.shutdown();
    await gleaner.close();
    await Deno.remove(root, { recursive: true });
  }
});
