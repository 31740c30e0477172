/**
 * A single page must never stall the server: hostile pages read through the
 * REST surface end in bounded outcomes (truncated pages, `unsupported_content`,
 * `timeout` from the extraction deadline) and `/health` keeps answering.
 * Latency figures are in `deno task bench health`.
 */
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { serveHostile } from "../testing/fixtures/hostile.ts";

async function withHostileServer(
  read: Record<string, unknown>,
  fn: (base: string, url: (path: string) => string) => Promise<void>,
) {
  const web = serveHostile();
  const gleaner = await createGleaner({
    network: {
      allow_private: [web.origin],
      allowed_ports: [Number(new URL(web.origin).port)],
      respect_robots: false,
    },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never", ...read },
    server: { port: 0 },
  });
  const server = serveHttp(gleaner);
  try {
    await fn(server.url, web.url);
  } finally {
    await server.shutdown();
    await gleaner.close();
    await web.close();
  }
}

async function scrape(base: string, urls: string[]) {
  const response = await fetch(`${base}/v1/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ items: urls.map((url) => ({ url })), max_tokens: 300 }),
  });
  assert.equal(response.status, 200);
  return (await response.json()).items as {
    ok: boolean;
    truncated?: boolean;
    page_tokens?: number;
    links?: unknown[];
    error?: { code: string; message: string };
  }[];
}

Deno.test("hostile pages over REST: bounded outcomes, the server keeps answering", async () => {
  await withHostileServer({}, async (base, url) => {
    const [nested, binary, bomb] = await scrape(base, [
      url("/nested-divs"),
      url("/binary-as-html"),
      url("/gzip-bomb"),
    ]);
    const [deep, links, cjk] = await scrape(base, [
      url("/deep-nesting"),
      url("/many-links"),
      url("/cjk-run"),
    ]);
    assert.equal(nested.ok, true);
    assert.ok(nested.page_tokens! > 100);
    assert.equal(binary.error?.code, "unsupported_content");
    assert.match(binary.error!.message, /binary-as-html/);
    assert.equal(bomb.ok, true);
    assert.equal(bomb.truncated, true, "the bomb is cut before parsing");
    assert.equal(deep.ok, true);
    assert.ok(deep.page_tokens! > 100, "text nested 50,000 deep is kept");
    assert.equal(links.ok, true);
    assert.equal(cjk.ok, true);
    assert.ok(cjk.page_tokens! > 100_000);
    const health = await fetch(`${base}/health`);
    assert.equal((await health.json()).status, "ok");
  });
});

Deno.test("extraction deadline: a page over read.extract_timeout_ms fails with timeout, the next one reads", async () => {
  await withHostileServer({ extract_timeout_ms: 50 }, async (base, url) => {
    const [slow] = await scrape(base, [url("/many-elements")]);
    assert.equal(slow.error?.code, "timeout");
    assert.match(slow.error!.message, /longer than 50 ms/);
  });
  await withHostileServer({ extract_timeout_ms: 60_000 }, async (base, url) => {
    const [nested] = await scrape(base, [url("/nested-divs")]);
    assert.equal(nested.ok, true);
  });
});
