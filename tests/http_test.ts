/**
 * The REST surface over real HTTP on loopback: tool routes, batch failures,
 * validation errors, Host/Origin guard, bearer token.
 */
import { withServer } from "../testing/http_server.ts";
import assert from "node:assert/strict";

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

Deno.test("REST: search, scrape with one bad item, validation errors", async () => {
  await withServer({}, async (base, world) => {
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json()).status, "ok");

    const search = await postJson(`${base}/v1/search`, {
      items: [{ query: "first query", max_results: 2 }, {
        query: "second",
        domains: ["example.org"],
      }],
    });
    assert.equal(search.status, 200);
    assert.equal(search.json.items.length, 2);
    assert.equal(search.json.items[0].results.length, 2);
    assert.equal(search.json.items[1].results.length, 0, "domains is a hard filter");

    const page = world.web.url("/pages/wikipedia");
    const scrape = await postJson(`${base}/v1/scrape`, {
      items: [{ url: page }, { url: world.web.url("/private/secret") }, {
        url: world.web.url("/404"),
      }],
      max_tokens: 300,
    });
    assert.equal(scrape.status, 200);
    const [ok, robots, missing] = scrape.json.items;
    assert.equal(ok.ok, true);
    assert.equal(robots.error.code, "robots_disallowed");
    assert.equal(missing.error.code, "not_found");
    assert.ok(
      scrape.json.tokens <= 300 && scrape.json.tokens > 200,
      `page in order fills the budget: ${scrape.json.tokens}`,
    );
    assert.equal(scrape.json.evidence[0].start, 0, "no query: the page from its start");

    const bad = await postJson(`${base}/v1/scrape`, { items: [] });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.code, "invalid_arguments");
    assert.match(bad.json.error.message, /items/);

    const notJson = await postJson(`${base}/v1/search`, "{nope");
    assert.equal(notJson.status, 400);
    assert.equal(notJson.json.error.code, "invalid_arguments");
  });
});

Deno.test("REST: Host and Origin guard against DNS rebinding", async () => {
  await withServer({}, async (base) => {
    const port = new URL(base).port;
    const { request } = await import("node:http");
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: "127.0.0.1", port: Number(port), path: "/health", headers },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end();
      });
    assert.equal(await status({ host: `localhost:${port}` }), 200);
    assert.equal(await status({ host: `127.0.0.1:${port}` }), 200);
    assert.equal(await status({ host: `attacker.example:${port}` }), 403);
    assert.equal(
      await status({ host: `localhost:${port}`, origin: "http://attacker.example" }),
      403,
    );
    assert.equal(
      await status({ host: `localhost:${port}`, origin: `http://localhost:${port}` }),
      200,
    );
  });
});

Deno.test("REST: bearer token when server.api_key is set; /config redacts it", async () => {
  await withServer({ api_key: "test-secret-key" }, async (base) => {
    const denied = await postJson(`${base}/v1/search`, { items: [{ query: "x" }] });
    assert.equal(denied.status, 401);
    const allowed = await postJson(
      `${base}/v1/search`,
      { items: [{ query: "x", max_results: 1 }] },
      {
        authorization: "Bearer test-secret-key",
      },
    );
    assert.equal(allowed.status, 200);
    const config = await fetch(`${base}/config`, {
      headers: { authorization: "Bearer test-secret-key" },
    });
    const text = await config.text();
    assert.ok(!text.includes("test-secret-key"), "secret never printed");
    assert.equal(JSON.parse(text).server.api_key, "[redacted]");
  });
});

Deno.test("REST: crawl_site maps a site and its pages are then read from the cache", async () => {
  await withServer({}, async (base, world) => {
    const crawl = await postJson(`${base}/v1/crawl`, {
      url: world.web.url("/maze/"),
      max_pages: 5,
      max_depth: 2,
    });
    assert.equal(crawl.status, 200, JSON.stringify(crawl.json));
    assert.ok(crawl.json.pages.length >= 3, `pages: ${crawl.json.pages.length}`);
    assert.equal(crawl.json.from_sitemap, false);
    const before = world.web.requests.length;
    const scrape = await postJson(`${base}/v1/scrape`, {
      items: crawl.json.pages.slice(0, 3).map((p: { url: string }) => ({ url: p.url })),
      max_tokens: 300,
    });
    assert.equal(scrape.status, 200);
    assert.ok(scrape.json.items.every((i: { tier: string }) => i.tier === "cache"));
    assert.equal(world.web.requests.length, before, "no fetch after the crawl");
  });
});

Deno.test("REST: a bad search item fails alone with invalid_arguments", async () => {
  await withServer({}, async (base) => {
    const out = await postJson(`${base}/v1/search`, {
      items: [{ query: "   " }, { query: "good query", max_results: 1 }, {
        query: "x",
        domains: ["not a domain!"],
      }],
    });
    assert.equal(out.status, 200);
    assert.equal(out.json.items[0].error.code, "invalid_arguments");
    assert.equal(out.json.items[1].results.length, 1);
    assert.equal(out.json.items[2].error.code, "invalid_arguments");
  });
});
