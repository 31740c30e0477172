/**
 * domain_stats and clear_cache through the real MCP client: per-origin
 * records, when a skipped tier is retried, and forgetting on demand.
 */
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { createMcpServer } from "../mcp/mod.ts";
import { linkMcpClient } from "../testing/mcp_client.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";

type ToolResult = {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
};

Deno.test("MCP: domain_stats shows origins of a host and their probation; clear_cache domains forgets", async () => {
  const down = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) =>
      new URL(req.url).pathname === "/robots.txt"
        ? new Response("", { status: 404 })
        : new Response("down", { status: 503 }),
  );
  const origin = `http://127.0.0.1:${down.addr.port}`;
  const gleaner = await createGleaner({
    network: { allow_private: [origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  const { client, close } = await linkMcpClient(createMcpServer(gleaner));
  try {
    const call = async (name: string, args: Record<string, unknown>) =>
      await client.callTool({ name, arguments: args }) as ToolResult;
    for (let i = 0; i < 3; i++) {
      const r = await call("scrape_urls", { items: [{ url: `${origin}/p${i}` }] });
      assert.doesNotMatch(JSON.stringify(r), /no reader could read|Input validation/);
      assert.match(JSON.stringify(r), /answered 503/);
    }
    for (const query of [origin, "127.0.0.1"]) {
      const stats = await call("domain_stats", { domain: query });
      assert.ok(!stats.isError, stats.content[0]?.text);
      const origins = stats.structuredContent?.origins as {
        origin: string;
        tiers: Record<string, { failures: number; skipped_until?: string }>;
      }[];
      assert.equal(origins.length, 1, query);
      assert.equal(origins[0].origin, origin);
      assert.equal(origins[0].tiers.http.failures, 3);
      assert.ok(origins[0].tiers.http.skipped_until, "when the skipped tier is retried");
      assert.match(stats.content[0].text, /skipped until/);
    }
    const bad = await call("domain_stats", { domain: "example.com", extra: 1 });
    assert.ok(bad.isError, "inputs are strict");

    const cleared = await call("clear_cache", { target: "domains" });
    assert.ok(!cleared.isError, cleared.content[0]?.text);
    assert.equal(cleared.structuredContent?.origins_forgotten, 1);
    const after = await call("domain_stats", { domain: "127.0.0.1" });
    assert.deepEqual(after.structuredContent?.origins, []);
    const all = await call("clear_cache", {});
    assert.equal(all.structuredContent?.target, "all");
    assert.equal(all.structuredContent?.origins_forgotten, 0);
  } finally {
    await close();
    await gleaner.close();
    await down.shutdown();
  }
});

Deno.test("MCP: domain_stats shows a tier put off for its success rate, and an expired window apart from no data", async () => {
  const gleaner = await createGleaner({
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  const { memoryPolicy } = await import("../lib/read/outcomes.ts");
  const scope = { policy: memoryPolicy(gleaner.config) };
  const domains = gleaner.store.domains;
  // 3 of 11 ok (27 %), never three failures in a row: no probation, a low success rate.
  for (const ok of [false, false, true, false, false, true, false, false, true, false, false]) {
    await domains.record("https://flaky.example", "http", ok, ok ? undefined : "timeout", scope);
  }
  // Read 40 days ago only: every count is older than the 30-day window.
  const day = Math.floor(Date.now() / 86_400_000) - 40;
  await domains.restore({
    origin: "https://old.example",
    days: [{ day, tier: "http", attempts: 4, successes: 1, failures: 3 }],
    probation: [],
    last_failure: { tier: "http", reason: "timeout", at: day * 86_400_000 },
  });
  const { client, close } = await linkMcpClient(createMcpServer(gleaner));
  try {
    const call = async (domain: string) =>
      await client.callTool({ name: "domain_stats", arguments: { domain } }) as ToolResult;
    type Shown = {
      window: string;
      attempts: number;
      tiers: Record<string, { low_success_rate?: boolean; skipped_until?: string }>;
    };
    const flaky = await call("flaky.example");
    const [f] = flaky.structuredContent?.origins as Shown[];
    assert.equal(f.window, "current");
    assert.equal(f.tiers.http.low_success_rate, true);
    assert.equal(f.tiers.http.skipped_until, undefined);
    assert.match(flaky.content[0].text, /http: 3\/11 ok, skipped: under 30 % success/);
    const old = await call("https://old.example");
    const [o] = old.structuredContent?.origins as Shown[];
    assert.equal(o.window, "expired");
    assert.equal(o.attempts, 0);
    assert.match(old.content[0].text, /no reads in the last 30 days \(older counts expired\)/);
    const none = await call("never-read.example");
    assert.deepEqual(none.structuredContent?.origins, []);
    assert.equal(none.content[0].text, "Nothing recorded for this site.");
  } finally {
    await close();
    await gleaner.close();
  }
});

Deno.test("MCP: every search notes its results' origins (seen_in_search) without waiting for the store", async () => {
  const world = await startTestWorld();
  const gleaner = await createGleaner(world.config);
  const { client, close } = await linkMcpClient(createMcpServer(gleaner));
  try {
    const found = await client.callTool({
      name: "search",
      arguments: { items: [{ query: "request body consumed", max_results: 3 }] },
    }) as ToolResult;
    assert.ok(!found.isError, found.content[0]?.text);
    await client.callTool({
      name: "search",
      arguments: { items: [{ query: "another question", max_results: 3 }] },
    });
    // Noted after the answers, in the background: wait until both searches are counted.
    let shown: ToolResult | undefined;
    for (let i = 0; i < 100; i++) {
      shown = await client.callTool({
        name: "domain_stats",
        arguments: { domain: world.web.origin },
      }) as ToolResult;
      const [o] = (shown.structuredContent?.origins ?? []) as {
        seen_in_search?: { count: number };
      }[];
      if (o?.seen_in_search?.count === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [origin] = shown?.structuredContent?.origins as {
      window: string;
      seen_in_search: { count: number; last_at: string };
    }[];
    assert.equal(origin.seen_in_search.count, 2, "each search counts an origin once");
    assert.equal(origin.window, "no_reads", "seen, never read");
    assert.match(shown!.content[0].text, /seen in search results: 2 times/);
  } finally {
    await close();
    await gleaner.close();
    await world.close();
  }
});

Deno.test("MCP: domain_stats shows what reads learnt of an origin's capabilities", async () => {
  const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    if (new URL(req.url).pathname === "/robots.txt") return new Response("", { status: 404 });
    const body = "<p>Low tide uncovers the rock pools twice a day on this shore.</p>".repeat(20);
    return new Response(
      '<html><head><meta property="og:title" content="Rock pools">' +
        '<script type="application/ld+json">{"@type":"Article","headline":"Rock pools"}</script>' +
        `</head><body><article>${body}</article></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  });
  const origin = `http://127.0.0.1:${site.addr.port}`;
  const gleaner = await createGleaner({
    network: { allow_private: [origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  const { client, close } = await linkMcpClient(createMcpServer(gleaner));
  try {
    const read = await client.callTool({
      name: "scrape_urls",
      arguments: { items: [{ url: `${origin}/pools` }] },
    }) as ToolResult;
    assert.ok(!read.isError, read.content[0]?.text);
    const stats = await client.callTool({
      name: "domain_stats",
      arguments: { domain: origin },
    }) as ToolResult;
    const [shown] = stats.structuredContent?.origins as {
      capabilities?: Record<string, Record<string, unknown>>;
    }[];
    assert.equal(shown.capabilities?.preferred_strategy?.tier, "http");
    assert.equal(shown.capabilities?.metadata_fetch?.ok, true);
    assert.deepEqual(shown.capabilities?.json_ld_article, { sampled: 1, present: 1, rate: 1 });
    assert.deepEqual(shown.capabilities?.og_title, { sampled: 1, present: 1, rate: 1 });
    assert.match(stats.content[0].text, /capabilities: preferred http, metadata fetch ok/);
    assert.match(stats.content[0].text, /JSON-LD article 100% of 1, og:title 100% of 1/);
  } finally {
    await close();
    await gleaner.close();
    await site.shutdown();
  }
});
