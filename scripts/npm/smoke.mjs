// deno-lint-ignore-file no-console
// The npm package as a Node user meets it: run by scripts/npm_smoke.sh with
// Node 22 inside a fresh project where the packed tarball is installed.
// Serves one page on 127.0.0.1 from this process, reads it with scrape_urls
// through the library and over the HTTP API, saves and recalls a memory in a memory file (when the
// package has the memory tools), lists the tools over MCP stdio
// (`npx gleaner mcp`) with the real SDK client, registers the Deep Research
// toolkit (`@gleaner/gleaner/deep-research`) on a fresh SDK server and calls
// it over the SDK's in-memory transport, and prints one line per check.
import assert from "node:assert/strict";
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lib from "@gleaner/gleaner";
import { serveHttp } from "@gleaner/gleaner/http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createIndex, registerDeepResearchTools } from "@gleaner/gleaner/deep-research";

const { createGleaner, scrapeUrls, TOOLS, VERSION } = lib;
const ANSWER = "The lighthouse keeper lit the lamp at dusk every evening for forty years.";
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>The Lighthouse at Point Reyes</title></head><body><main><article>
<h1>The Lighthouse at Point Reyes</h1>
<p>The Point Reyes Lighthouse stands on a headland west of San Francisco, where fog is common for much of the summer.</p>
<p>${ANSWER}</p>
<p>Visitors walk down more than three hundred steps to reach the lens room, which holds a first-order Fresnel lens made in Paris.</p>
<p>Grey whales pass the headland on their migration between Alaska and Mexico in winter and spring.</p>
</article></main></body></html>`;

async function freePort() {
  const probe = http.createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const server = http.createServer((req, res) => {
  if (req.url === "/lighthouse") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
  } else {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();
const origin = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), "gleaner-npm-"));

try {
  assert.equal(process.versions.node.split(".")[0], "22", `Node ${process.versions.node}`);
  assert.ok(TOOLS.some((t) => t.name === "scrape_urls"));
  const hasMemory = typeof lib.saveMemories === "function";
  const gleaner = await createGleaner({
    network: { allow_private: [origin], allowed_ports: [port] },
    store: { path: join(dir, "gleaner.db") },
    read: { render: "never" },
    // A fixed free port: on Node the listening socket is bound after serveHttp returns,
    // so with port 0 its `url` could not name the port.
    server: { host: "127.0.0.1", port: await freePort() },
    ...(hasMemory ? { memory: { path: join(dir, "memory.db") } } : {}),
  });
  try {
    const out = await scrapeUrls(gleaner, {
      items: [{ url: `${origin}/lighthouse`, query: "when did the keeper light the lamp" }],
      max_tokens: 300,
    });
    assert.equal(out.items[0].ok, true, JSON.stringify(out.items[0].error));
    assert.equal(out.items[0].title, "The Lighthouse at Point Reyes");
    assert.ok(out.evidence.some((e) => e.text.includes(ANSWER)), JSON.stringify(out.evidence));
    assert.ok(out.tokens <= 300);
    console.log(
      `ok scrape_urls on Node ${process.versions.node} (gleaner ${VERSION}, ranking ${
        JSON.stringify(out.ranking)
      })`,
    );
    if (hasMemory) {
      const fact = "The user's favourite lighthouse is Point Reyes, visited every June.";
      const saved = await lib.saveMemories(gleaner, { memories: [{ content: fact }] });
      assert.equal(saved.saved, 1, JSON.stringify(saved));
      const recalled = await lib.recallMemories(gleaner, {
        query: "which lighthouse does the user like",
      });
      assert.ok(recalled.memories.some((m) => m.content === fact), JSON.stringify(recalled));
      console.log(`ok memory round trip (retrievers ${recalled.retrievers.join("+")})`);
    } else {
      console.log("skip memory round trip: this build has no memory tools");
    }
    // The HTTP surface on Node's http server (Deno.serve over @hono/node-server).
    const http = serveHttp(gleaner);
    try {
      const health = await fetch(`${http.url}/health`);
      assert.equal(health.status, 200);
      assert.equal((await health.json()).version, VERSION);
      const scrape = await fetch(`${http.url}/v1/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ items: [{ url: `${origin}/lighthouse`, query: "keeper lamp" }] }),
      });
      assert.equal(scrape.status, 200);
      const body = await scrape.json();
      assert.ok(body.evidence.some((e) => e.text.includes(ANSWER)), JSON.stringify(body));
      console.log(`ok HTTP on Node: ${http.url} /health and POST /v1/scrape`);
    } finally {
      await http.shutdown();
    }
  } finally {
    await gleaner.close();
  }

  const transport = new StdioClientTransport({
    command: "npx",
    args: ["--no-install", "gleaner", "mcp"],
    env: { ...process.env, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: join(dir, "config") },
    stderr: "inherit",
  });
  const client = new Client({ name: "npm-smoke", version: "1" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "scrape_urls"), "scrape_urls listed");
    console.log(`ok npx gleaner mcp: tools/list gives ${tools.length} tools`);
  } finally {
    await client.close();
  }

  // The Deep Research toolkit on a fresh SDK server, called by the SDK client.
  const entries = [
    { id: "t1", title: "População residente", url: "https://stats.example.org/t1" },
    { id: "t2", title: "Índice de preços", url: "https://stats.example.org/t2" },
  ];
  const index = createIndex(entries, { locale: "pt-BR" });
  const toolkit = new McpServer({ name: "toolkit-smoke", version: "1" });
  registerDeepResearchTools(toolkit, {
    corpus: "a toy catalogue",
    locale: "pt-BR",
    search: (query) => index.search(query),
    fetch: (id) => {
      const entry = entries.find((e) => e.id === id);
      return entry ? { document: { ...entry, text: `# ${entry.title}` } } : null;
    },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await toolkit.connect(serverSide);
  const drClient = new Client({ name: "npm-smoke-deep-research", version: "1" });
  await drClient.connect(clientSide);
  try {
    const { tools } = await drClient.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["search", "fetch"]);
    assert.equal(tools[0].inputSchema.additionalProperties, false);
    const found = await drClient.callTool({ name: "search", arguments: { query: "populacao" } });
    assert.deepEqual(JSON.parse(found.content[0].text), { results: [entries[0]] });
    const missing = await drClient.callTool({ name: "fetch", arguments: { id: "t9" } });
    assert.equal(missing.isError, true);
    assert.match(missing.content[0].text, /Documento não encontrado/);
    console.log("ok @gleaner/gleaner/deep-research: search and fetch on a fresh SDK server");
  } finally {
    await drClient.close();
    await toolkit.close();
  }
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
