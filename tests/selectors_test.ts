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
