/**
 * Honest MCP surfaces, with the real SDK Client over stdio (the CLI as a
 * subprocess) and Streamable HTTP: a bad call is a tool error with the same
 * code and message as REST; no `listChanged`; `GET /mcp` is 405; the end of
 * stdin closes the server with exit 0; an oversized line fails that request
 * only, and the session goes on.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { DENO_RUN_FLAGS, startTestWorld } from "../testing/fixtures/world.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** The SDK's stdio transport to `gleaner mcp` (the CLI as a subprocess) with `env` added. */
function cliTransport(env: Record<string, string>): StdioClientTransport {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...DENO_RUN_FLAGS, CLI, "mcp"],
    env: { ...Deno.env.toObject(), ...env, NO_COLOR: "1" },
    stderr: "pipe",
  });
}

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, { code: string; message: string }>;
};

/** Calls that must fail validation, the same way on every surface. */
const BAD_CALLS: { name: string; path: string; args: Record<string, unknown>; message: RegExp }[] =
  [
    {
      name: "clear_cache",
      path: "/v1/cache/clear",
      args: { namespace: "search" },
      message: /^clear_cache: unknown key "namespace"$/,
    },
    {
      name: "scrape_urls",
      path: "/v1/scrape",
      args: { items: [{ url: "https://example.com/", qurey: "x" }] },
      message: /^scrape_urls: items\.0: unknown key "qurey" \(did you mean "query"\?\)$/,
    },
    {
      // The usual wrong shapes get the expected one: a list of URLs instead of items, …
      name: "scrape_urls",
      path: "/v1/scrape",
      args: { urls: ["https://example.com/"] },
      message: /^scrape_urls takes `items`: \[\{"url": "https:\/\/…"\}, …\] \(got `urls`\)$/,
    },
    {
      name: "search",
      path: "/v1/search",
      args: { query: "sqlite wal" },
      message: /^search takes `items`: \[\{"query": "…"\}, …\] \(got `query`\)$/,
    },
    {
      // … and a camelCase key its snake_case name.
      name: "scrape_urls",
      path: "/v1/scrape",
      args: { items: [{ url: "https://example.com/" }], maxTokens: 500 },
      message: /^scrape_urls: unknown key "maxTokens" \(did you mean "max_tokens"\?\)$/,
    },
    { name: "search", path: "/v1/search", args: { items: [] }, message: /^search: items: / },
  ];

async function assertBadCalls(client: Client, rest?: string) {
  for (const call of BAD_CALLS) {
    const result = await client.callTool({ name: call.name, arguments: call.args }) as ToolResult;
    assert.equal(result.isError, true, `${call.name}: a tool error, not a protocol error`);
    const text = result.content[0].text;
    assert.ok(text.startsWith("invalid_arguments: "), text);
    const meta = result._meta?.["gleaner/error"];
    assert.equal(meta?.code, "invalid_arguments");
    assert.match(meta!.message, call.message);
    assert.equal(text, `${meta!.code}: ${meta!.message}`);
    assert.equal(result.structuredContent, undefined);
    if (rest) {
      const response = await fetch(`${rest}${call.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(call.args),
      });
      assert.equal(response.status, 400);
      const body = await response.json();
      assert.equal(body.error.code, meta!.code, `${call.name}: same code on MCP and REST`);
      assert.equal(body.error.message, meta!.message, `${call.name}: same message`);
    }
  }
  // A good call still works and carries structured content.
  const ok = await client.callTool({
    name: "clear_cache",
    arguments: { target: "search" },
  }) as ToolResult;
  assert.ok(!ok.isError, ok.content[0]?.text);
  assert.equal((ok.structuredContent as { target: string }).target, "search");
}

function assertCapabilities(client: Client) {
  const capabilities = client.getServerCapabilities();
  assert.ok(capabilities?.tools, "tools capability");
  assert.equal(capabilities.tools.listChanged, undefined, "the tool list never changes");
}

Deno.test("MCP over HTTP: invalid arguments are tool errors with REST's code and message", async () => {
  const world = await startTestWorld();
  const gleaner = await createGleaner({ ...world.config, server: { port: 0 } });
  const server = serveHttp(gleaner);
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport,
    );
    assertCapabilities(client);
    const { tools } = await client.listTools();
    for (const tool of tools) {
      assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} input is strict`);
    }
    await assertBadCalls(client, server.url);

    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${server.url}/mcp`, {
        method,
        headers: { accept: "text/event-stream" },
      });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get("allow"), "POST");
      await response.body?.cancel();
    }
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
    await world.close();
  }
});

// One `gleaner mcp` process and SDK client for both: neither call leaves state the other sees.
Deno.test("MCP over stdio, SDK client (one server)", async (t) => {
  const world = await startTestWorld();
  const transport = cliTransport(world.env);
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  try {
    await client.connect(transport as Transport);
    await t.step("invalid arguments are tool errors; no listChanged", async () => {
      assertCapabilities(client);
      await assertBadCalls(client);
    });
    await t.step("an oversized call fails with -32600, the next one works", async () => {
      // The SDK writes a request's id last: it is found at the end of the line.
      await assert.rejects(
        () =>
          client.callTool({
            name: "current_datetime",
            arguments: { pad: "c".repeat(MAX_LINE_BYTES + 1) },
          }),
        (e: unknown) =>
          e instanceof McpError && (e as McpError).code === -32600 &&
          /longer than 4194304 bytes/.test((e as McpError).message),
      );
      const after = await client.callTool({
        name: "current_datetime",
        arguments: {},
      }) as ToolResult;
      assert.ok(!after.isError, after.content[0]?.text);
      assert.match(String(after.structuredContent?.iso), /^\d{4}-\d\d-\d\dT/);
    });
  } finally {
    await client.close();
    await world.close();
  }
});

function spawnMcp(env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...DENO_RUN_FLAGS, CLI, "mcp"],
    env: { ...env, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

const line = (message: unknown) => new TextEncoder().encode(JSON.stringify(message) + "\n");

Deno.test("MCP over stdio: end of input answers what was asked, then exits 0", async () => {
  const world = await startTestWorld();
  try {
    const child = spawnMcp(world.env);
    const writer = child.stdin.getWriter();
    await writer.write(line({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }));
    await writer.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await writer.write(line({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "current_datetime", arguments: {} },
    }));
    await writer.write(new TextEncoder().encode("this is not json\n"));
    await writer.close();
    const { code, stdout, stderr } = await child.output();
    const err = new TextDecoder().decode(stderr);
    const replies = new TextDecoder().decode(stdout).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(code, 0, err);
    assert.ok(!/Top-level await/.test(err), err);
    const byId = new Map(replies.map((r) => [r.id, r]));
    assert.equal(byId.get(1)?.result?.serverInfo?.name, "gleaner");
    assert.match(byId.get(2)?.result?.structuredContent?.iso ?? "", /^\d{4}-\d\d-\d\dT/);
    assert.equal(byId.get(null)?.error?.code, -32700, "a line that is not JSON: parse error");
  } finally {
    await world.close();
  }
});

/** The child's exit status, or undefined (after killing it) when it has not ended in time. */
async function statusOrKill(child: Deno.ChildProcess, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      child.kill();
      resolve(undefined);
    }, ms);
  });
  const status = await Promise.race([child.status, late]);
  clearTimeout(timer);
  if (!status) await child.status;
  return status;
}

Deno.test("MCP over stdio: a line over 4 MiB fails that request only; the session goes on", async () => {
  const world = await startTestWorld();
  try {
    const child = spawnMcp(world.env);
    const stdout = new Response(child.stdout).text();
    const stderr = new Response(child.stderr).text();
    const writer = child.stdin.getWriter();
    await writer.write(line({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    }));
    await writer.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const chunk = new Uint8Array(1024 * 1024).fill(0x61);
    // Not JSON at all, over the limit: a parse error with id null.
    for (let sent = 0; sent <= MAX_LINE_BYTES; sent += chunk.length) await writer.write(chunk);
    await writer.write(new TextEncoder().encode("\n"));
    // A request over the limit, id first (JSON-RPC's usual key order): refused under its id.
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "current_datetime", arguments: { pad: "b".repeat(MAX_LINE_BYTES) } },
    });
    for (let at = 0; at < big.length; at += chunk.length) {
      await writer.write(new TextEncoder().encode(big.slice(at, at + chunk.length)));
    }
    await writer.write(new TextEncoder().encode("\n"));
    // The session goes on.
    await writer.write(line({
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: { name: "current_datetime", arguments: {} },
    }));
    await writer.close();
    const status = await statusOrKill(child, 60_000);
    assert.ok(status, "the server ends at the end of input");
    assert.equal(status.code, 0, await stderr);
    const replies = (await stdout).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(replies.map((r) => r.id), [1, null, 7, 8]);
    assert.ok(replies[0].result, "initialize answered");
    assert.equal(replies[1].error.code, -32700);
    assert.match(replies[1].error.message, /longer than 4194304 bytes/);
    assert.equal(replies[2].error.code, -32600);
    assert.match(replies[2].error.message, /longer than 4194304 bytes/);
    assert.ok(!replies[3].error && !replies[3].result.isError, JSON.stringify(replies[3]));
    assert.match(replies[3].result.structuredContent.iso, /^\d{4}-\d\d-\d\dT/);
  } finally {
    await world.close();
  }
});
