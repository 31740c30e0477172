/**
 * The real MCP SDK client drives the real server over stdio (a subprocess
 * running the CLI) and over Streamable HTTP, against the loopback world.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import {
  DENO_RUN_FLAGS,
  normalizeText,
  startTestWorld,
  type TestWorld,
} from "../testing/fixtures/world.ts";

const FLAGS = DENO_RUN_FLAGS;
const CLI = new URL("../cli.ts", import.meta.url).pathname;

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function exerciseServer(client: Client, world: TestWorld) {
  const { tools } = await client.listTools();
  const names = tools.map((t: { name: string }) => t.name);
  for (const name of ["search", "scrape_urls", "research", "current_datetime"]) {
    assert.ok(names.includes(name), `tool ${name} listed`);
  }
  const scrapeTool = tools.find((t: { name: string }) => t.name === "scrape_urls")!;
  assert.equal(scrapeTool.inputSchema.type, "object");
  assert.ok(scrapeTool.outputSchema, "scrape_urls declares an output schema");

  const search = await client.callTool({
    name: "search",
    arguments: { items: [{ query: "fetch api streams", max_results: 3 }] },
  }) as ToolResult;
  assert.ok(!search.isError, search.content[0]?.text);
  const searchOut = search.structuredContent as {
    items: { results: { url: string; snippet: string }[]; attempts: { outcome: string }[] }[];
  };
  assert.equal(searchOut.items[0].results.length, 3);
  assert.equal(searchOut.items[0].results[0].url, world.web.url("/pages/mozilla-1"));
  assert.match(searchOut.items[0].results[0].snippet, /fetch api streams/);
  assert.equal(searchOut.items[0].attempts[0].outcome, "ok");
  assert.ok(search.content[0].text.includes(world.web.url("/pages/mozilla-1")));

  const pageUrl = world.web.url("/pages/002");
  const answer =
    "Both interfaces have a boolean attribute bodyUsed to determine if it is safe to read or not.";
  const scrape = await client.callTool({
    name: "scrape_urls",
    arguments: {
      items: [
        { url: pageUrl, query: "how can I tell whether a request body was already consumed" },
        { url: "http://169.254.169.254/latest/meta-data/" },
      ],
      max_tokens: 600,
    },
  }) as ToolResult;
  assert.ok(!scrape.isError, scrape.content[0]?.text);
  const out = scrape.structuredContent as {
    items: { ok: boolean; error?: { code: string } }[];
    evidence: { url: string; text: string; start: number; end: number }[];
    tokens: number;
  };
  assert.equal(out.items[0].ok, true);
  assert.equal(out.items[1].ok, false);
  assert.equal(out.items[1].error?.code, "blocked_url");
  assert.ok(out.tokens <= 600, `tokens ${out.tokens} within budget`);
  assert.ok(out.evidence.length > 0);
  assert.ok(out.evidence.every((e) => e.url === pageUrl));
  const joined = normalizeText(out.evidence.map((e) => e.text).join(" "));
  assert.ok(joined.includes(normalizeText(answer)), "the answering sentence is in the evidence");
  const text = scrape.content[0].text;
  assert.ok(text.includes(pageUrl), "compact text names the source URL");
  assert.ok(text.includes("blocked_url"), "compact text reports the failed item");
}

Deno.test("MCP over stdio: list tools, search, scrape_urls", async () => {
  const world = await startTestWorld();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...FLAGS, CLI, "mcp"],
    env: { ...Deno.env.toObject(), ...world.env, NO_COLOR: "1" },
    stderr: "pipe",
  });
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  try {
    await client.connect(transport as Transport);
    await exerciseServer(client, world);
  } finally {
    await client.close();
    await world.close();
  }
});

Deno.test("MCP over Streamable HTTP: tools and progress notifications", async () => {
  const world = await startTestWorld();
  const gleaner = await createGleaner({ ...world.config, server: { port: 0 } });
  const server = serveHttp(gleaner);
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport,
    );
    await exerciseServer(client, world);

    const progress: { progress: number; total?: number; message?: string }[] = [];
    const research = await client.callTool(
      {
        name: "research",
        arguments: {
          query: "how does the fetch api handle streams",
          max_pages: 3,
          max_tokens: 800,
          domains: ["127.0.0.1"],
        },
      },
      undefined,
      {
        onprogress: (p: { progress: number; total?: number; message?: string }) => progress.push(p),
      },
    ) as ToolResult;
    assert.ok(!research.isError, research.content[0]?.text);
    const out = research.structuredContent as { sources: { url: string }[]; tokens: number };
    assert.equal(out.sources.length, 3);
    assert.ok(out.tokens <= 800);
    assert.ok(progress.length >= 3, `progress notifications seen: ${progress.length}`);
    for (let i = 1; i < progress.length; i++) {
      assert.ok(progress[i].progress >= progress[i - 1].progress, "progress never goes back");
    }
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
    await world.close();
  }
});
