/**
 * The management views (`tinysuite.manage/1`) through the real server on loopback: off by
 * default (404); on, they need the management token (401 with `WWW-Authenticate: Bearer`
 * without it, whatever the API key), and serve the manifest (Memories, Overview, Service) and
 * each view; the config refuses a token under 24 characters and the views without a token; no
 * secret appears in any view.
 */
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { parseConfig } from "../lib/config/config.ts";
import { serveHttp } from "../http/serve.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DENO_RUN_FLAGS } from "../testing/fixtures/world.ts";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

const TOKEN = "management-token-0123456789";
const API_KEY = "api-key-for-the-rest-0123456789";
const BASE = {
  store: { path: ":memory:" },
  embed: { provider: "none" as const },
  read: { render: "never" as const },
  memory: { path: ":memory:" },
};

Deno.test("config: the management views need a token of at least 24 characters", () => {
  assert.throws(
    () =>
      parseConfig({ server: { management: true, management_token: "short-token-23-chars-xx" } }),
    /server\.management_token: must be at least 24 characters/,
  );
  assert.throws(
    () => parseConfig({ server: { management: true } }),
    /server\.management: the management views need server\.management_token/,
  );
  const config = parseConfig({ server: { management: true, management_token: TOKEN } });
  assert.equal(config.server.management, true);
});

Deno.test("management views: off by default (404)", async () => {
  const gleaner = await createGleaner({ ...BASE, server: { port: 0 } });
  const server = serveHttp(gleaner);
  try {
    const response = await fetch(`${server.url}/manage`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(response.status, 404);
    await response.body?.cancel();
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
});

Deno.test("management views: manifest, Memories, Overview and Service behind the management token", async () => {
  const gleaner = await createGleaner({
    ...BASE,
    server: { port: 0, api_key: API_KEY, management: true, management_token: TOKEN },
  });
  const server = serveHttp(gleaner);
  const get = async (path: string, token?: string) => {
    const response = await fetch(`${server.url}${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
  };
  try {
    for (const path of ["/manage", "/manage/memories", "/manage/overview", "/manage/service"]) {
      for (const token of [undefined, API_KEY, "wrong-token-0123456789-abcdef"]) {
        const refused = await get(path, token);
        assert.equal(refused.status, 401, `${path} with ${token ?? "no token"}`);
        assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer /);
        assert.equal(refused.body.error.code, "unauthorized");
      }
    }
    const manifest = await get("/manage", TOKEN);
    assert.equal(manifest.status, 200);
    assert.equal(manifest.body.protocol, "tinysuite.manage/1");
    assert.deepEqual(
      manifest.body.views.map((view: { title: string }) => view.title),
      ["Memories", "Overview", "Service"],
    );

    const saved = await fetch(`${server.url}/v1/memories/save`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        memories: [{ content: "The user prefers tea." }, { content: "The user lives in Lisbon." }],
      }),
    });
    assert.equal(saved.status, 200);
    await saved.body?.cancel();

    const memories = await get("/manage/memories?limit=1", TOKEN);
    assert.equal(memories.status, 200, memories.text);
    assert.equal(memories.body.view, "memories");
    assert.equal(memories.body.memories.length, 1);
    assert.equal(memories.body.total_count, 2);
    assert.equal(memories.body.has_more, true);

    const overview = await get("/manage/overview", TOKEN);
    assert.equal(overview.status, 200);
    assert.equal(overview.body.status, "ok");
    assert.equal(overview.body.components.store.status, "ok");
    assert.equal(overview.body.sessions.mcp.open, 0);
    assert.equal(overview.body.memories.total, 2);

    const service = await get("/manage/service", TOKEN);
    assert.equal(service.status, 200);
    assert.equal(service.body.name, "gleaner");
    assert.ok(service.body.tools.includes("save_memories"));
    assert.equal(service.body.settings.server.management, true);
    for (const view of [manifest, memories, overview, service]) {
      assert.ok(!view.text.includes(TOKEN), "the management token is never shown");
      assert.ok(!view.text.includes(API_KEY), "the API key is never shown");
    }
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
});

/** An MCP client of the server's `/mcp` (Streamable HTTP), with the given request headers. */
async function mcpClient(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers },
    }) as Transport,
  );
  return client;
}

const MANIFEST = "manage://gleaner/manifest";
const META = "tinysuite/management_token";

Deno.test("MCP: the management views are resources only when turned on", async () => {
  const gleaner = await createGleaner({ ...BASE, server: { port: 0, api_key: API_KEY } });
  const server = serveHttp(gleaner);
  const client = await mcpClient(server.url, { authorization: `Bearer ${API_KEY}` });
  try {
    const { resources } = await client.listResources() as {
      resources: { uri: string; title?: string }[];
    };
    assert.deepEqual(resources.filter((r) => r.uri.startsWith("manage://")), []);
    await assert.rejects(
      client.readResource({ uri: MANIFEST, _meta: { [META]: TOKEN } }),
      /Resource not found/,
    );
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
  }
});

Deno.test("MCP: the manifest (Memories, Overview, Service) and each view as resources, behind the management token", async () => {
  const gleaner = await createGleaner({
    ...BASE,
    server: { port: 0, api_key: API_KEY, management: true, management_token: TOKEN },
  });
  const server = serveHttp(gleaner);
  const client = await mcpClient(server.url, { authorization: `Bearer ${API_KEY}` });
  const withHeader = await mcpClient(server.url, {
    authorization: `Bearer ${API_KEY}`,
    "x-management-token": TOKEN,
  });
  try {
    const { resources } = await client.listResources() as {
      resources: { uri: string; title?: string }[];
    };
    assert.deepEqual(
      resources.filter((r) => r.uri.startsWith("manage://")).map((r) => [r.uri, r.title]),
      [
        [MANIFEST, "Management views"],
        ["manage://gleaner/memories", "Memories"],
        ["manage://gleaner/overview", "Overview"],
        ["manage://gleaner/service", "Service"],
      ],
    );
    // No token, or another one: refused, whatever the API key.
    for (
      const meta of [undefined, { [META]: "another-token-0123456789abcdef" }, { [META]: API_KEY }]
    ) {
      await assert.rejects(
        client.readResource({ uri: MANIFEST, ...(meta ? { _meta: meta } : {}) }),
        (error: Error) => /unauthorized/.test(error.message) && !error.message.includes(TOKEN),
      );
    }
    const read = async (c: Client, uri: string, meta?: Record<string, string>) => {
      const result = await c.readResource({ uri, ...(meta ? { _meta: meta } : {}) });
      const [content] = result.contents as { uri: string; mimeType: string; text: string }[];
      assert.equal(content.mimeType, "application/json");
      assert.ok(!content.text.includes(TOKEN), "the management token is never shown");
      return JSON.parse(content.text);
    };
    const manifest = await read(client, MANIFEST, { [META]: TOKEN });
    assert.equal(manifest.protocol, "tinysuite.manage/1");
    assert.deepEqual(
      manifest.views.map((v: { title: string; uri: string }) => [v.title, v.uri]),
      [
        ["Memories", "manage://gleaner/memories"],
        ["Overview", "manage://gleaner/overview"],
        ["Service", "manage://gleaner/service"],
      ],
    );
    const memories = await read(client, "manage://gleaner/memories", { [META]: TOKEN });
    assert.equal(memories.view, "memories");
    // The token in the X-Management-Token header does as well.
    const overview = await read(withHeader, "manage://gleaner/overview");
    assert.equal(overview.view, "overview");
    assert.ok(overview.sessions.mcp, "the sessions of /mcp are counted");
    const service = await read(withHeader, "manage://gleaner/service");
    assert.equal(service.view, "service");
    assert.ok(service.tools.includes("search"));
  } finally {
    await withHeader.close();
    await client.close();
    await server.shutdown();
    await gleaner.close();
  }
});

Deno.test("gleaner mcp (stdio): GLEANER_MANAGEMENT and its token serve the views as resources", async () => {
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", ...DENO_RUN_FLAGS, new URL("../cli.ts", import.meta.url).pathname, "mcp"],
      env: {
        ...Deno.env.toObject(),
        GLEANER_STORE_PATH: ":memory:",
        GLEANER_EMBED_PROVIDER: "none",
        GLEANER_MANAGEMENT: "1",
        GLEANER_MANAGEMENT_TOKEN: TOKEN,
        NO_COLOR: "1",
      },
      stderr: "pipe",
    }) as Transport,
  );
  try {
    const { resources } = await client.listResources() as { resources: { uri: string }[] };
    assert.ok(resources.some((r) => r.uri === MANIFEST));
    await assert.rejects(client.readResource({ uri: MANIFEST }), /unauthorized/);
    const service = await client.readResource({
      uri: "manage://gleaner/service",
      _meta: { [META]: TOKEN },
    });
    const body = JSON.parse((service.contents as { text: string }[])[0].text);
    assert.equal(body.view, "service");
    assert.ok(!JSON.stringify(body).includes(TOKEN));
  } finally {
    await client.close();
  }
});
