/**
 * MCP sessions over Streamable HTTP, through the real server on loopback and the SDK's
 * Streamable HTTP client: `initialize` opens a session (`Mcp-Session-Id`), later requests reach
 * it, `DELETE` ends it and an ended, unknown or idled-out session is the MCP specification's 404
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#session-management);
 * past `server.mcp_max_sessions` a new session is refused with 503 naming the setting; a request
 * without a session is still answered statelessly; `/health` counts sessions for the operator
 * only; a 401 on `/mcp` is a JSON-RPC error with `WWW-Authenticate: Bearer`.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import type { ConfigInput } from "../lib/config/config.ts";
import { createApp } from "../http/app.ts";
import { serveHttp } from "../http/serve.ts";
import { McpSessions } from "../mcp/sessions.ts";
import { serveLoopback } from "../testing/fixtures/serve.ts";

const KEY = "sessions-test-key-0123456789";
const BASE: ConfigInput = {
  store: { path: ":memory:" },
  embed: { provider: "none" },
  read: { render: "never" },
  memory: { enabled: false },
};

const RPC_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

function initialize(id = 1) {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });
}

/** The JSON-RPC messages of an SSE or JSON answer. */
async function messages(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
      JSON.parse(line.slice(6))
    );
  }
  return [JSON.parse(text)];
}

function connect(url: string, headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers },
  });
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  return { client, transport, ready: client.connect(transport as Transport) };
}

Deno.test("MCP sessions: Mcp-Session-Id on initialize, reused, ended by DELETE, then 404", async () => {
  const gleaner = await createGleaner({ ...BASE, server: { port: 0, api_key: KEY } });
  const server = serveHttp(gleaner);
  const auth = { authorization: `Bearer ${KEY}` };
  const { client, transport, ready } = connect(server.url, auth);
  try {
    await ready;
    const id = transport.sessionId;
    assert.ok(id && id.length >= 16, "the server gave a session id");
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool: { name: string }) => tool.name === "search"));
    assert.equal(transport.sessionId, id, "the same session throughout");

    const health = await (await fetch(`${server.url}/health`, { headers: auth })).json();
    assert.equal(health.sessions.mcp.open, 1);
    assert.equal(health.sessions.mcp.max, 100);
    const probe = await (await fetch(`${server.url}/health`)).json();
    assert.equal(probe.sessions, undefined, "a probe without the key sees no sessions");

    // A session id from /mcp does not open /mcp/deep-research.
    const elsewhere = await fetch(`${server.url}/mcp/deep-research`, {
      method: "POST",
      headers: { ...RPC_HEADERS, ...auth, "mcp-session-id": id },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(elsewhere.status, 404);
    await elsewhere.body?.cancel();

    await transport.terminateSession();
    const after = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { ...RPC_HEADERS, ...auth, "mcp-session-id": id },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
    });
    assert.equal(after.status, 404);
    const body = await after.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.error.code, -32001);
    assert.match(body.error.message, /^Session not found/);
    const counted = await (await fetch(`${server.url}/health`, { headers: auth })).json();
    assert.equal(counted.sessions.mcp.open, 0);
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
  }
});

Deno.test("MCP sessions: past server.mcp_max_sessions a new one is refused with 503; stateless calls still work", async () => {
  const gleaner = await createGleaner({ ...BASE, server: { port: 0, mcp_max_sessions: 1 } });
  const server = serveHttp(gleaner);
  const first = connect(server.url);
  let second: ReturnType<typeof connect> | undefined;
  try {
    await first.ready;
    second = connect(server.url);
    await assert.rejects(second.ready, /too many MCP sessions/);
    const refused = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: RPC_HEADERS,
      body: initialize(),
    });
    assert.equal(refused.status, 503);
    const body = await refused.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.match(
      body.error.message,
      /too many MCP sessions: 1 are open \(server\.mcp_max_sessions\)/,
    );

    // A request without a session that is not an initialize is answered on its own.
    const stateless = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: RPC_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    assert.equal(stateless.status, 200);
    assert.equal(stateless.headers.get("mcp-session-id"), null);
    const [answer] = await messages(stateless);
    assert.equal(answer.id, 7);
    assert.ok((answer.result as { tools: unknown[] }).tools.length > 0);

    // The first session still answers; once it ends, a new one opens.
    assert.ok((await first.client.listTools()).tools.length > 0);
    await first.transport.terminateSession();
    const third = connect(server.url);
    await third.ready;
    assert.ok(third.transport.sessionId);
    await third.client.close();
  } finally {
    await first.client.close();
    await second?.client.close();
    await server.shutdown();
    await gleaner.close();
  }
});

Deno.test("MCP sessions: a session unused for server.mcp_session_idle_ms ends; its id is then 404", async () => {
  const gleaner = await createGleaner({ ...BASE, server: { port: 0 } });
  let now = 1_000_000;
  const sessions = new McpSessions({ maxSessions: 10, idleTimeoutMs: 60_000, now: () => now });
  const app = createApp(gleaner, undefined, { mcpSessions: sessions });
  const web = serveLoopback((request) => app.fetch(request));
  try {
    const opened = await fetch(`${web.origin}/mcp`, {
      method: "POST",
      headers: RPC_HEADERS,
      body: initialize(),
    });
    assert.equal(opened.status, 200);
    const id = opened.headers.get("mcp-session-id");
    assert.ok(id);
    await opened.body?.cancel();
    const ask = () =>
      fetch(`${web.origin}/mcp`, {
        method: "POST",
        headers: { ...RPC_HEADERS, "mcp-session-id": id },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
    now += 59_000;
    const used = await ask();
    assert.equal(used.status, 200, "used within the idle time");
    await used.body?.cancel();
    assert.equal(sessions.counts().open, 1);
    now += 61_000;
    assert.equal(sessions.counts().open, 0, "idle past the limit: ended");
    const late = await ask();
    assert.equal(late.status, 404);
    assert.equal((await late.json()).error.code, -32001);
  } finally {
    await sessions.close();
    await web.close();
    await gleaner.close();
  }
});

Deno.test("MCP: a 401 on /mcp is a JSON-RPC error with WWW-Authenticate: Bearer", async () => {
  const gleaner = await createGleaner({ ...BASE, server: { port: 0, api_key: KEY } });
  const server = serveHttp(gleaner);
  try {
    for (const given of [undefined, "Bearer wrong"]) {
      const response = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { ...RPC_HEADERS, ...(given ? { authorization: given } : {}) },
        body: initialize(),
      });
      assert.equal(response.status, 401);
      assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer realm="gleaner"/);
      const body = await response.json();
      assert.equal(body.jsonrpc, "2.0");
      assert.equal(body.id, null);
      assert.equal(body.error.code, -32001);
      assert.equal(body.error.data.code, "unauthorized");
    }
    // REST keeps its own error shape.
    const rest = await fetch(`${server.url}/config`);
    assert.equal(rest.status, 401);
    assert.equal((await rest.json()).error.code, "unauthorized");
    // The SDK client sees the refusal.
    const { client, ready } = connect(server.url);
    await assert.rejects(ready, /401|Unauthorized/);
    await client.close();
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
});
