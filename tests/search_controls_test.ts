/**
 * searxng-mcp's per-call controls through the `search` tool (the MCP SDK Client): `category`
 * and `engines` reach SearXNG (fake on loopback, https://docs.searxng.org/dev/search_api.html)
 * and are offered only when SearXNG is configured; `llm.expand_always` rewrites every query a
 * call does not exempt, with `llm.rewrite_model` beside the summary model (fake Ollama).
 */
import { linkMcpClient } from "../testing/mcp_client.ts";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createGleaner } from "../mod.ts";
import type { ConfigInput } from "../lib/config/config.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "../mcp/server.ts";
import { fakeUpstreamConfig, withFakeUpstreams } from "../testing/fixtures/upstreams.ts";
import { startFakeOllama } from "../testing/fixtures/fake_quality.ts";

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: { items: { rewritten_query?: string; provider?: string }[] };
  isError?: boolean;
};

async function withClient(
  input: ConfigInput,
  fn: (client: Client) => Promise<void>,
): Promise<void> {
  const gleaner = await createGleaner({
    embed: { provider: "none" },
    store: { path: ":memory:" },
    ...input,
  });
  const { client, close } = await linkMcpClient(createMcpServer(gleaner, toolsFor(gleaner.config)));
  try {
    await fn(client);
  } finally {
    await close();
    await gleaner.close();
  }
}

function itemProperties(tools: { name: string; inputSchema: unknown }[]) {
  const search = tools.find((t) => t.name === "search")!.inputSchema as {
    properties: { items: { items: { properties: Record<string, { enum?: string[] }> } } };
  };
  return search.properties.items.items.properties;
}

Deno.test("search controls: category and engines reach SearXNG per call", async () => {
  await withFakeUpstreams(async (fakes) => {
    const input = fakeUpstreamConfig(fakes, {
      searxng: true,
      search_order: ["searxng"],
      searxng_categories: ["general"],
    }) as ConfigInput;
    await withClient(input, async (client) => {
      const props = itemProperties((await client.listTools()).tools);
      assert.deepEqual(props.category.enum, ["general", "news", "it", "science"]);
      assert.ok(props.engines);
      const out = await client.callTool({
        name: "search",
        arguments: {
          items: [{ query: "deno kv", category: "it", engines: ["github", "stackoverflow"] }],
        },
      }) as ToolResult;
      assert.ok(!out.isError, out.content[0].text);
      const asked = fakes.requests.filter((r) => r.backend === "searxng");
      assert.equal(asked[0].params.categories, "it");
      assert.equal(asked[0].params.engines, "github,stackoverflow");
      // Without them, the configured categories.
      await client.callTool({ name: "search", arguments: { items: [{ query: "other" }] } });
      const plain = fakes.requests.filter((r) => r.backend === "searxng").at(-1)!;
      assert.equal(plain.params.categories, "general");
      assert.equal(plain.params.engines, undefined);
      const bad = await client.callTool({
        name: "search",
        arguments: { items: [{ query: "x", category: "images" }] },
      }) as ToolResult;
      assert.equal(bad.isError, true);
      assert.match(bad.content[0].text, /^invalid_arguments/);
    });
  });
  // Without SearXNG the tool does not offer them (tokens a model cannot use).
  const plain = toolsFor((await import("../lib/config/config.ts")).parseConfig({}));
  const item = (plain.find((t) => t.name === "search")!.input.shape.items.element as {
    shape: Record<string, unknown>;
  }).shape;
  assert.equal(item.category, undefined);
  assert.equal(item.engines, undefined);
});

Deno.test("search controls: expand_always rewrites every query with the rewrite model", async () => {
  await withFakeUpstreams(async (fakes) => {
    const ollama = startFakeOllama({ models: ["big-summarizer", "small-rewriter"] });
    try {
      ollama.setReply(() => "sqlite wal checkpoint");
      const base = fakeUpstreamConfig(fakes, { searxng: true, search_order: ["searxng"] });
      const input = {
        ...base,
        network: {
          allow_private: [...base.network.allow_private, ollama.origin],
          allowed_ports: [...base.network.allowed_ports, Number(new URL(ollama.origin).port)],
        },
        llm: {
          url: ollama.origin,
          model: "big-summarizer",
          rewrite_model: "small-rewriter",
          expand_always: true,
        },
      } as ConfigInput;
      await withClient(input, async (client) => {
        const out = await client.callTool({
          name: "search",
          arguments: { items: [{ query: "why does my database file keep growing" }] },
        }) as ToolResult;
        assert.equal(out.structuredContent!.items[0].rewritten_query, "sqlite wal checkpoint");
        assert.equal(ollama.requests.at(-1)!.body.model, "small-rewriter");
        const searched = fakes.requests.filter((r) => r.backend === "searxng").at(-1)!;
        assert.equal(searched.params.q, "sqlite wal checkpoint");
        // A call's own `expand: false` wins.
        const asked = ollama.requests.length;
        const exempt = await client.callTool({
          name: "search",
          arguments: { items: [{ query: "keep this query", expand: false }] },
        }) as ToolResult;
        assert.equal(exempt.structuredContent!.items[0].rewritten_query, undefined);
        assert.equal(ollama.requests.length, asked);
      });
    } finally {
      await ollama.close();
    }
  });
});
