/**
 * `target_selector` and `wait_for_selector` on `scrape_urls` and
 * `web_contents_tool`, end to end: the real MCP SDK Client over Streamable
 * HTTP and REST against the real server, a loopback page whose script adds
 * an element late, the HTTP tier and real Chromium.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import type { ConfigInput } from "../lib/config/config.ts";
import { serveHttp } from "../http/serve.ts";
import { serveLoopback } from "../testing/fixtures/serve.ts";
import { browserSuffix, ignoreBrowser } from "../testing/fixtures/browser.ts";

const html = (body: string, title: string) =>
  new Response(
    `<!DOCTYPE html><html><head><title>${title}</title></head><body>${body}</body></html>`,
    { headers: { "content-type": "text/html; charset=utf-8" } },
  );

const ARTICLE = Array.from(
  { length: 8 },
  (_, i) =>
    `<p>Paragraph ${i} of the long article about harbour tides and the boats that wait for them, written to be the main content.</p>`,
).join("");

/** The fixture site: a static page with a table, and a page whose script adds `#late` after 400 ms. */
function fixtureSite() {
  return serveLoopback((request) => {
    switch (new URL(request.url).pathname) {
      case "/static":
        return html(
          `<header>Header links</header><article><h1>Harbour tides</h1>${ARTICLE}</article>
          <table id="prices"><tr><th>Item</th><th>Price</th></tr><tr><td>Apple</td><td>3</td></tr></table>
          <footer>Footer text</footer>`,
          "Static page",
        );
      case "/late":
        return html(
          `<nav>Site navigation menu</nav><main><h1>Late page</h1><p>Static intro paragraph.</p></main>
          <script>
            setTimeout(() => {
              const a = document.createElement("article");
              a.id = "late";
              a.innerHTML = "<h2>Tide table</h2><p>Arrived " + "late: high water at noon.</p>";
              document.body.appendChild(a);
            }, 400);
          </script>`,
          "Late page",
        );
      default:
        return new Response("not here", { status: 404 });
    }
  });
}

function configFor(origin: string, extra: ConfigInput = {}): ConfigInput {
  return {
    network: { allow_private: [origin], allowed_ports: [Number(new URL(origin).port)] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "auto", browser_timeout_ms: 4_000 },
    server: { port: 0 },
    ...extra,
  };
}

type ScrapeItem = {
  url: string;
  ok: boolean;
  tier?: string;
  error?: { code: string; message: string };
};
type ScrapeOut = { items: ScrapeItem[]; evidence: { url: string; text: string }[] };

/** The evidence text of one URL, joined. */
const textOf = (out: ScrapeOut, url: string) =>
  out.evidence.filter((e) => e.url === url).map((e) => e.text).join("\n");

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)) as Transport);
  return client;
}

Deno.test("target_selector keeps one element in the HTTP tier; bad selectors are refused by name", async () => {
  const site = fixtureSite();
  const gleaner = await createGleaner(configFor(site.origin, { read: { render: "never" } }));
  const server = serveHttp(gleaner);
  const client = await connect(server.url);
  try {
    const url = `${site.origin}/static`;
    const result = await client.callTool({
      name: "scrape_urls",
      arguments: {
        items: [
          { url, target_selector: "#prices" },
          { url, target_selector: "div[[" },
          { url: `${site.origin}/late`, target_selector: "#late" },
          { url },
        ],
      },
    }) as { isError?: boolean; structuredContent?: ScrapeOut; content: { text: string }[] };
    assert.ok(!result.isError, result.content[0]?.text);
    const out = result.structuredContent!;
    const [table, invalid, missing, whole] = out.items;
    assert.equal(table.ok, true, JSON.stringify(table));
    assert.equal(table.tier, "http");
    assert.equal(invalid.ok, false);
    assert.equal(invalid.error?.code, "invalid_arguments");
    assert.match(invalid.error!.message, /^target_selector: not a valid CSS selector: "div\[\["/);
    // Without the browser, an element only a script adds is not there: said so, by selector.
    assert.equal(missing.error?.code, "selector_not_found");
    assert.match(missing.error!.message, /target_selector "#late" matched nothing on http/);
    assert.equal(whole.ok, true, "the other items of the batch are read");
    // The same URL read whole and by selector: the two reads are cached apart.
    const texts = out.evidence.map((e) => e.text).join("\n");
    assert.match(texts, /\| Apple \| 3 \|/);
    assert.match(texts, /Paragraph 3 of the long article/);
    const selected = out.evidence.filter((e) => /Apple/.test(e.text));
    assert.ok(selected.every((e) => !/Paragraph/.test(e.text)), "only the table was kept");

    // Injection and oversize are schema errors, the same on REST (400, named field).
    for (
      const [selector, message] of [
        ["main{color:red}", /must not contain \{ or \}/],
        ["<script>alert(1)</script>", /must not contain markup/],
        ["a[href='javascript:alert(1)']", /must not contain javascript:/],
        ["p ".repeat(200), /256/],
      ] as const
    ) {
      const response = await fetch(`${server.url}/v1/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ items: [{ url, target_selector: selector }] }),
      });
      assert.equal(response.status, 400, selector);
      const body = await response.json();
      assert.equal(body.error.code, "invalid_arguments");
      assert.match(body.error.message, /items\.0\.target_selector/);
      assert.match(body.error.message, message);
    }
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
    await site.close();
  }
});

Deno.test("web_contents_tool reads one element with target_selector through Gleaner's reader", async () => {
  const site = fixtureSite();
  const gleaner = await createGleaner(
    configFor(site.origin, { read: { render: "never" }, search: { presentation: "roles" } }),
  );
  const server = serveHttp(gleaner);
  const client = await connect(server.url);
  try {
    const result = await client.callTool({
      name: "web_contents_tool",
      arguments: { urls: [`${site.origin}/static`], target_selector: "#prices" },
    }) as {
      isError?: boolean;
      structuredContent?: { provider: string; pages: { content: string; error?: unknown }[] };
      content: { text: string }[];
    };
    assert.ok(!result.isError, result.content[0]?.text);
    const out = result.structuredContent!;
    assert.equal(out.provider, "gleaner");
    assert.match(out.pages[0].content, /\| Apple \| 3 \|/);
    assert.doesNotMatch(out.pages[0].content, /Paragraph/);
    const waited = await client.callTool({
      name: "web_contents_tool",
      arguments: { urls: [`${site.origin}/late`], wait_for_selector: "#late" },
    }) as { structuredContent?: { pages: { error?: { code: string; message: string } }[] } };
    // read.render is never here: waiting needs the browser, and the page says why it failed.
    const error = waited.structuredContent!.pages[0].error!;
    assert.equal(error.code, "invalid_arguments");
    assert.match(error.message, /wait_for_selector needs the browser, but render is never/);
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
    await site.close();
  }
});

Deno.test({
  name:
    `wait_for_selector renders in Chromium; a selector that never shows fails its item only${browserSuffix}`,
  ignore: ignoreBrowser,
  async fn() {
    const site = fixtureSite();
    // "#never" is waited for until shortly before the read's deadline, twice below: a short
    // deadline (still ample for "#late", added 400 ms after load) keeps that wait short.
    const gleaner = await createGleaner(
      configFor(site.origin, { read: { render: "auto", browser_timeout_ms: 2_500 } }),
    );
    const server = serveHttp(gleaner);
    const client = await connect(server.url);
    try {
      const late = `${site.origin}/late`;
      const items = [
        { url: late, wait_for_selector: "#late", target_selector: "#late" },
        { url: late, wait_for_selector: "#never" },
        { url: `${site.origin}/static`, target_selector: "#prices" },
      ];
      const result = await client.callTool({ name: "scrape_urls", arguments: { items } }) as {
        isError?: boolean;
        structuredContent?: ScrapeOut;
        content: { text: string }[];
      };
      assert.ok(!result.isError, result.content[0]?.text);
      const out = result.structuredContent!;
      const [found, never, table] = out.items;
      assert.equal(found.ok, true, JSON.stringify(found));
      assert.equal(found.tier, "browser");
      const text = textOf(out, late);
      assert.match(text, /Arrived late: high water at noon\./);
      assert.doesNotMatch(text, /Static intro|Site navigation/);
      assert.equal(never.ok, false);
      assert.equal(never.error?.code, "selector_not_found");
      assert.match(
        never.error!.message,
        /wait_for_selector "#never" did not appear on .* after \d+ ms/,
      );
      assert.match(result.content[0].text, /selector_not_found/);
      assert.equal(table.ok, true, "the other items are unaffected");
      assert.equal(table.tier, "http", "found in the served HTML: no browser needed");

      // REST answers the same call the same way.
      const response = await fetch(`${server.url}/v1/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ items: items.slice(0, 2), no_cache: true }),
      });
      assert.equal(response.status, 200);
      const body = await response.json() as ScrapeOut;
      assert.equal(body.items[0].tier, "browser");
      assert.match(textOf(body, late), /Arrived late/);
      assert.equal(body.items[1].error?.code, "selector_not_found");
    } finally {
      await client.close();
      await server.shutdown();
      await gleaner.close();
      await site.close();
    }
  },
});

/** A loopback site like {@link fixtureSite} that records the path and query of every request. */
function recordingSite() {
  const hits: string[] = [];
  const site = fixtureSite();
  const server = serveLoopback(async (request) => {
    const url = new URL(request.url);
    hits.push(url.pathname + url.search);
    const upstream = await fetch(`${site.origin}${url.pathname}${url.search}`);
    return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
  });
  return {
    origin: server.origin,
    hits,
    close: async () => {
      await server.close();
      await site.close();
    },
  };
}

type ToolResult = { isError?: boolean; structuredContent?: ScrapeOut; content: { text: string }[] };

Deno.test({
  name:
    `one scrape_urls call has one browser deadline: queued items fail alone with timeout${browserSuffix}`,
  ignore: ignoreBrowser,
  async fn() {
    const site = recordingSite();
    // One page, 1.5 s per item: the call's browser work ends 3 s after its first item got the
    // page, where four items that wait for "#never" would hold it 4 × 1.5 s one after the other.
    // Each holds it at least 1.35 s (the wait ends a tenth before the item's deadline), so at
    // most three can have it before the call's deadline.
    const gleaner = await createGleaner(
      configFor(site.origin, { read: { browser_pages: 1, browser_timeout_ms: 1_500 } }),
    );
    const server = serveHttp(gleaner);
    const client = await connect(server.url);
    try {
      const never = [1, 2, 3, 4].map((n) => ({
        url: `${site.origin}/late?n=${n}`,
        wait_for_selector: "#never",
      }));
      const items = [{ url: `${site.origin}/static`, target_selector: "#prices" }, ...never];
      const result = await client.callTool({
        name: "scrape_urls",
        arguments: { items },
      }) as ToolResult;
      assert.ok(!result.isError, result.content[0]?.text);
      const [table, ...waited] = result.structuredContent!.items;
      assert.equal(table.ok, true, "the item that needs no browser keeps its result");
      assert.ok(waited.every((item) => !item.ok), JSON.stringify(waited));
      const codes = waited.map((item) => item.error!.code);
      assert.ok(
        codes.every((code) => code === "selector_not_found" || code === "timeout"),
        codes.join(),
      );
      const timedOut = waited.filter((item) => item.error!.code === "timeout");
      assert.ok(timedOut.length >= 1, `the items left when the deadline came: ${codes}`);
      for (const item of timedOut) {
        assert.match(
          item.error!.message,
          /the call's browser work reached its deadline of 3000 ms \(2 × read\.browser_timeout_ms\)/,
        );
      }
      // The deadline stopped the work: items still waiting for the page never loaded it.
      const loaded = new Set(site.hits.filter((h) => h.startsWith("/late?n=")));
      assert.ok(loaded.size <= 3, `pages loaded: ${[...loaded]}`);
    } finally {
      await client.close();
      await server.shutdown();
      await gleaner.close();
      await site.close();
    }
  },
});

Deno.test({
  name:
    `a second call's render is served before the first call's queued browser items${browserSuffix}`,
  ignore: ignoreBrowser,
  async fn() {
    const site = recordingSite();
    // Long enough that the first call's items hold their pages for the whole test.
    const gleaner = await createGleaner(
      configFor(site.origin, { read: { browser_pages: 2, browser_timeout_ms: 30_000 } }),
    );
    const server = serveHttp(gleaner);
    const first = await connect(server.url);
    const second = await connect(server.url);
    try {
      // The first call: five items that wait for a selector that never shows, on two pages.
      const slow = first.callTool({
        name: "scrape_urls",
        arguments: {
          items: [1, 2, 3, 4, 5].map((n) => ({
            url: `${site.origin}/late?a=${n}`,
            wait_for_selector: "#never",
          })),
        },
      }) as Promise<ToolResult>;
      let slowDone = false;
      void slow.then(() => slowDone = true, () => slowDone = true);
      // Once it holds both pages and its three other items wait for one, the second call asks
      // for one plain render.
      const firstItems = () => new Set(site.hits.filter((h) => h.startsWith("/late?a=")));
      const browser = async () => (await gleaner.health()).components.browser?.detail ?? "";
      for (let i = 0; i < 600; i++) {
        if (firstItems().size === 2 && /2 pages busy, 0 idle, 3 waiting/.test(await browser())) {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(firstItems().size, 2, "the first call holds both pages");
      assert.match(await browser(), /3 waiting/, "and its other three items wait");
      const plain = await second.callTool({
        name: "scrape_urls",
        arguments: { items: [{ url: `${site.origin}/static?b=1` }], render: "always" },
      }) as ToolResult;
      assert.ok(!plain.isError, plain.content[0]?.text);
      assert.equal(plain.structuredContent!.items[0].ok, true);
      assert.equal(plain.structuredContent!.items[0].tier, "browser");
      assert.equal(slowDone, false, "the second call answered while the first still waits");
      // Order of the pages the server saw: the second call's before the first call's third item.
      const seen = site.hits.filter((h) => h.startsWith("/late?a=") || h === "/static?b=1");
      const plainAt = seen.indexOf("/static?b=1");
      const items = seen.slice(0, plainAt);
      assert.equal(new Set(items).size, 2, `only the first two items loaded before: ${seen}`);
    } finally {
      await first.close();
      await second.close();
      await server.shutdown();
      await gleaner.close();
      await site.close();
    }
  },
});
