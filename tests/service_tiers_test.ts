/**
 * Firecrawl and Crawl4AI through the real surfaces: REST (`/v1/scrape`,
 * `/v1/crawl`, `/v1/domains`) and the MCP SDK client over Streamable HTTP,
 * against the fakes of `testing/fixtures/fake_firecrawl.ts` and
 * `fake_crawl4ai.ts` (each case with its documentation URL there).
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";
import { startFakeFirecrawl } from "../testing/fixtures/fake_firecrawl.ts";
import { startFakeCrawl4ai } from "../testing/fixtures/fake_crawl4ai.ts";

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function withServices(
  crawl: Record<string, unknown>,
  fn: (ctx: {
    base: string;
    web: { url(path: string): string; origin: string };
    firecrawl: ReturnType<typeof startFakeFirecrawl>;
    crawl4ai: ReturnType<typeof startFakeCrawl4ai>;
  }) => Promise<void>,
) {
  const world = await startTestWorld();
  const firecrawl = startFakeFirecrawl({ apiKey: "fc-key" });
  const crawl4ai = startFakeCrawl4ai();
  const network = world.config.network!;
  const gleaner = await createGleaner({
    ...world.config,
    network: {
      ...network,
      allow_private: [...(network.allow_private as string[]), firecrawl.origin, crawl4ai.origin],
    },
    read: {
      ...world.config.read,
      firecrawl_url: firecrawl.origin,
      firecrawl_api_key: "fc-key",
      crawl4ai_url: crawl4ai.origin,
    },
    crawl: { engine: "firecrawl", poll_interval_ms: 100, ...crawl },
    server: { port: 0 },
  });
  const server = serveHttp(gleaner);
  try {
    await fn({ base: server.url, web: world.web, firecrawl, crawl4ai });
  } finally {
    await server.shutdown();
    await gleaner.close();
    await crawl4ai.close();
    await firecrawl.close();
    await world.close();
  }
}

const post = async (base: string, path: string, body: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

Deno.test("REST: scrape through Firecrawl; crawl partial past max_wait; then Crawl4AI when Firecrawl is out of credit, and crawls left alone; domain memory lists the tiers", async () => {
  await withServices({ max_wait_ms: 1_000, poll_interval_ms: 300 }, async (t) => {
    const first = t.web.url("/pages/basic-tags-cleaning");
    const second = t.web.url("/pages/title-en-dash");
    t.firecrawl.addPage(first, {
      title: "Read by Firecrawl",
      markdown: "# Cleaning\n\nThe text Firecrawl returned for this page.",
    });
    t.crawl4ai.addPage(second, {
      title: "Read by Crawl4AI",
      raw: "Menu\n\n# Dash\n\nThe text Crawl4AI returned.",
      fit: "# Dash\n\nThe text Crawl4AI returned.",
    });
    const one = await post(t.base, "/v1/scrape", { items: [{ url: first }] });
    assert.equal(one.status, 200);
    assert.equal(one.body.items[0].tier, "firecrawl");
    assert.equal(one.body.items[0].title, "Read by Firecrawl");
    assert.ok(
      one.body.evidence.some((e: { text: string }) => e.text.includes("Firecrawl returned")),
    );

    // A crawl job that does not finish in time: what is done, flagged partial.
    for (const path of ["/docs/", "/docs/a", "/docs/b", "/docs/c", "/docs/d"]) {
      t.firecrawl.addPage(t.web.url(path), { title: path, markdown: `# ${path}\n\nText.` });
    }
    t.firecrawl.crawlSteps = Infinity;
    const crawl = await post(t.base, "/v1/crawl", { url: t.web.url("/docs/"), max_pages: 10 });
    assert.equal(crawl.status, 200, JSON.stringify(crawl.body));
    assert.equal(crawl.body.partial, true);
    assert.ok(crawl.body.pages.length >= 1);
    assert.equal(t.firecrawl.cancelled.length, 1);

    t.firecrawl.fail("scrape", 402);
    const two = await post(t.base, "/v1/scrape", { items: [{ url: second }] });
    assert.equal(two.body.items[0].tier, "crawl4ai");
    assert.equal(two.body.items[0].title, "Read by Crawl4AI");

    // Domain memory learns the service tiers like the others.
    const domains = await post(t.base, "/v1/domains", { domain: t.web.origin });
    assert.equal(domains.status, 200, JSON.stringify(domains.body));
    const tiers = JSON.stringify(domains.body);
    assert.match(tiers, /"firecrawl":\{"attempts":1,"successes":1/);
    assert.match(tiers, /"crawl4ai":\{"attempts":1,"successes":1/);

    // Out of credit is Firecrawl's, not the tier's: its crawl jobs are left alone too (one
    // breaker per service), refused without a call, naming the key to check.
    const crawls = t.firecrawl.requests.filter((r) => r.path === "/v1/crawl").length;
    const refused = await post(t.base, "/v1/crawl", { url: t.web.url("/docs/"), max_pages: 10 });
    assert.equal(refused.body.error?.code, "insufficient_balance", JSON.stringify(refused.body));
    assert.equal(refused.body.error?.details?.field, "read.firecrawl_api_key");
    assert.equal(t.firecrawl.requests.filter((r) => r.path === "/v1/crawl").length, crawls);
  });
});

Deno.test("MCP SDK client: crawl_site through a Firecrawl crawl job, then scrape_urls reads its pages from the cache", async () => {
  await withServices({}, async (t) => {
    const paths = ["/guide/", "/guide/install", "/guide/usage"];
    for (const path of paths) {
      t.firecrawl.addPage(t.web.url(path), {
        title: `Guide ${path}`,
        markdown: `# Guide ${path}\n\nHow to use the guide at ${path}.`,
      });
    }
    const client = new Client({ name: "gleaner-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.base}/mcp`)) as Transport,
    );
    try {
      const crawl = await client.callTool({
        name: "crawl_site",
        arguments: { url: t.web.url("/guide/"), max_pages: 5 },
      }) as ToolResult;
      assert.ok(!crawl.isError, crawl.content[0]?.text);
      const out = crawl.structuredContent as {
        pages: { url: string; title: string }[];
        partial?: boolean;
      };
      assert.deepEqual(out.pages.map((p) => p.url), paths.map((p) => t.web.url(p)));
      assert.equal(out.partial, undefined);
      assert.ok(t.firecrawl.requests.some((r) => r.path === "/v1/crawl"));

      const scrapes = t.firecrawl.requests.filter((r) => r.path === "/v1/scrape").length;
      const read = await client.callTool({
        name: "scrape_urls",
        arguments: { items: [{ url: t.web.url("/guide/usage") }] },
      }) as ToolResult;
      assert.ok(!read.isError, read.content[0]?.text);
      const items = (read.structuredContent as { items: { tier: string }[] }).items;
      assert.equal(items[0].tier, "cache");
      assert.equal(t.firecrawl.requests.filter((r) => r.path === "/v1/scrape").length, scrapes);
    } finally {
      await client.close();
    }
  });
});
