/**
 * Every refusal names its cause and the setting that changes it, with the
 * value to add: a SearXNG on `localhost` (the usual Docker set-up) and a
 * scrape of a private or local URL. A scrape whose every URL failed is a tool
 * error on MCP (the real SDK client over Streamable HTTP) that still carries
 * each item's error; REST answers it with 200 and the items.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner, search } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { serveLoopback } from "../testing/fixtures/serve.ts";
import { fakeUpstreamConfig, withFakeUpstreams } from "../testing/fixtures/upstreams.ts";

const IN_MEMORY = {
  store: { path: ":memory:" },
  memory: { path: ":memory:" },
  embed: { provider: "none" as const },
};

Deno.test("search: a SearXNG on localhost is refused naming network.allow_private and the origin to add; adding it works", async () => {
  await withFakeUpstreams(async (fakes) => {
    const base = fakeUpstreamConfig(fakes);
    const port = new URL(fakes.origin).port;
    const local = `http://localhost:${port}`;
    const searxng_url = `${local}/searxng`;
    const fix = `add "${local}" to network.allow_private`;

    // SearXNG alone: the search item's error says the SearXNG address is private and how to allow it.
    const alone = await createGleaner({
      ...IN_MEMORY,
      network: base.network,
      search: { ...base.search, searxng_url, search_order: ["searxng"] },
    });
    try {
      const out = await search(alone, { items: [{ query: "deno kv" }] });
      const error = out.items[0].error;
      assert.equal(error?.code, "blocked_url");
      assert.match(error!.message, /searxng: the address in search\.searxng_url is private/);
      assert.ok(error!.message.includes(fix), error!.message);
      assert.ok(!error!.message.includes("duckduckgo"), "names the provider that failed");
    } finally {
      await alone.close();
    }

    // With DuckDuckGo after it: the answer comes from DuckDuckGo, and a notice says why
    // SearXNG was not used; when DuckDuckGo fails too, the error names both causes.
    const both = await createGleaner({
      ...IN_MEMORY,
      network: base.network,
      search: { ...base.search, searxng_url, search_order: ["searxng", "duckduckgo"] },
    });
    try {
      const out = await search(both, { items: [{ query: "deno kv" }] });
      const item = out.items[0];
      assert.equal(item.error, undefined, item.error?.message);
      assert.equal(item.provider, "duckduckgo");
      assert.ok(item.notices?.some((n) => n.includes(fix)), JSON.stringify(item.notices));
    } finally {
      await both.close();
    }
    fakes.setMode("duckduckgo", "error");
    const broken = await createGleaner({
      ...IN_MEMORY,
      network: base.network,
      search: { ...base.search, searxng_url, search_order: ["searxng", "duckduckgo"] },
    });
    try {
      const error = (await search(broken, { items: [{ query: "deno kv" }] })).items[0].error;
      assert.ok(error?.message.includes(fix), error?.message);
      assert.match(error!.message, /duckduckgo/);
    } finally {
      await broken.close();
      fakes.setMode("duckduckgo", "ok");
    }

    // The value the error names, added: SearXNG answers.
    const fixed = await createGleaner({
      ...IN_MEMORY,
      network: { ...base.network, allow_private: [...base.network.allow_private, local] },
      search: { ...base.search, searxng_url, search_order: ["searxng"] },
    });
    try {
      const item = (await search(fixed, { items: [{ query: "deno kv" }] })).items[0];
      assert.equal(item.error, undefined, item.error?.message);
      assert.equal(item.provider, "searxng");
      assert.ok(item.results.length > 0);
    } finally {
      await fixed.close();
    }
  });
});

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: {
    items: { url: string; ok: boolean; error?: { code: string; message: string } }[];
    evidence: unknown[];
  };
  isError?: boolean;
};

Deno.test("scrape over MCP: every URL failed is isError with each item's error and the setting that allows it; REST stays 200", async () => {
  const page = serveLoopback(() =>
    new Response(
      "<html><head><title>Ferry</title></head><body><main><h1>Ferry</h1>" +
        "<p>The harbour ferry leaves every hour from the north pier.</p></main></body></html>",
      { headers: { "content-type": "text/html; charset=utf-8" } },
    )
  );
  const gleaner = await createGleaner({
    ...IN_MEMORY,
    server: { port: 0 },
    network: {
      allow_private: [page.origin],
      allowed_ports: [80, 443, 8080, Number(new URL(page.origin).port)],
      respect_robots: false,
    },
    read: { render: "never" },
  });
  const server = serveHttp(gleaner);
  const client = new Client({ name: "named-causes-test", version: "1" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport,
    );
    const blocked = {
      items: [{ url: "http://localhost:8080/admin" }, { url: "http://10.1.2.3/" }],
    };
    const failed = await client.callTool({ name: "scrape_urls", arguments: blocked }) as ToolResult;
    assert.equal(failed.isError, true, "nothing could be read: a tool error");
    const items = failed.structuredContent!.items;
    assert.deepEqual(items.map((i) => i.error?.code), ["blocked_url", "blocked_url"]);
    assert.ok(
      items[0].error!.message.includes('add "http://localhost:8080" to network.allow_private'),
      items[0].error!.message,
    );
    assert.ok(
      items[1].error!.message.includes('add "http://10.1.2.3" to network.allow_private'),
      items[1].error!.message,
    );
    const text = failed.content[0].text;
    assert.ok(!text.startsWith("(no passage matched)"), text);
    assert.match(text, /network\.allow_private/);

    // One page read: not an error, the blocked item still says why.
    const mixed = await client.callTool({
      name: "scrape_urls",
      arguments: { items: [{ url: `${page.origin}/` }, { url: "http://10.1.2.3/" }] },
    }) as ToolResult;
    assert.notEqual(mixed.isError, true, mixed.content[0].text);
    assert.equal(mixed.structuredContent!.items[0].ok, true);
    assert.equal(mixed.structuredContent!.items[1].error?.code, "blocked_url");

    // REST: the same failed batch is a 200 with the items' errors.
    const response = await fetch(`${server.url}/v1/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(blocked),
    });
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.deepEqual(
      body.items.map((i: { error?: { code: string } }) => i.error?.code),
      ["blocked_url", "blocked_url"],
    );
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
    await page.close();
  }
});
