/**
 * Domain memory and the cascade: only tier evidence counts, memory is a
 * hint with a short probation, and a failed read names its real cause.
 */
import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { createGleaner } from "../gleaner.ts";
import { GleanerError } from "../errors.ts";
import { createFetcher } from "../net/fetch.ts";
import { openStore } from "../store/mod.ts";
import { startFixtureWeb } from "../../testing/fixtures/web.ts";
import { ignoreBrowser } from "../../testing/fixtures/browser.ts";
import { createReader } from "./cascade.ts";
import { memoryPolicy } from "./outcomes.ts";
import { defaultTiers } from "./tiers.ts";

const MIN = 60_000;

function serve(handler: (req: Request) => Response | Promise<Response>) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    if (new URL(req.url).pathname === "/robots.txt") return new Response("", { status: 404 });
    return handler(req);
  });
  return { server, origin: `http://127.0.0.1:${server.addr.port}` };
}

const code = (c: string, message?: RegExp) => (e: unknown) =>
  e instanceof GleanerError && e.code === c && (!message || message.test(e.message));

Deno.test("policy refusals never count: 10 reads of a blocked port do not touch another port", async () => {
  const web = await startFixtureWeb();
  const gleaner = await createGleaner({
    network: { allow_private: [web.origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  try {
    for (let i = 0; i < 10; i++) {
      await assert.rejects(
        gleaner.reader.read({ url: `http://127.0.0.1:1/page-${i}` }),
        code("blocked_url"),
      );
    }
    const page = await gleaner.reader.read({ url: web.url("/pages/wikipedia") });
    assert.equal(page.tier, "http");
    assert.equal(await gleaner.store.domains.get("http://127.0.0.1:1"), undefined);
    // A 404 is an answer, not a tier failure.
    for (let i = 0; i < 5; i++) {
      await assert.rejects(
        gleaner.reader.read({ url: web.url(`/missing-${i}`) }),
        code("not_found"),
      );
    }
    const rec = await gleaner.store.domains.get(web.origin);
    assert.deepEqual(
      { a: rec?.tiers.http.attempts, f: rec?.tiers.http.failures },
      { a: 1, f: 0 },
    );
  } finally {
    await gleaner.close();
    await web.close();
  }
});

Deno.test("a failing origin keeps its real cause: every read says 503, never 'no reader could read'", async () => {
  let hits = 0;
  const { server, origin } = serve(() => {
    hits++;
    return new Response("down", { status: 503 });
  });
  const gleaner = await createGleaner({
    network: { allow_private: [origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  try {
    for (let i = 0; i < 12; i++) {
      await assert.rejects(
        gleaner.reader.read({ url: `${origin}/page-${i}` }),
        code("provider_unavailable", /answered 503/),
      );
    }
    // HTTP is on probation, but it is the only tier for render "never": tried anyway.
    assert.equal(hits, 12);
    const rec = await gleaner.store.domains.get(origin);
    assert.equal(rec?.tiers.http.failures, 12);
    assert.ok(rec?.tiers.http.skipped_until, "domain_stats shows when the tier is retried");
    assert.equal(rec?.last_failure?.reason, "provider_unavailable");
  } finally {
    await gleaner.close();
    await server.shutdown();
  }
});

Deno.test("a fast 504 is reported as the server's answer, not as a timeout", async () => {
  const { server, origin } = serve(() => new Response("gateway", { status: 504 }));
  const gleaner = await createGleaner({
    network: { allow_private: [origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  try {
    await assert.rejects(
      gleaner.reader.read({ url: `${origin}/slow` }),
      code("provider_unavailable", /answered 504/),
    );
  } finally {
    await gleaner.close();
    await server.shutdown();
  }
});

Deno.test("a one-minute outage does not lock the origin out beyond a short probation", async () => {
  let down = true;
  const { server, origin } = serve(() =>
    down ? new Response("down", { status: 503 }) : new Response(
      "<html><head><title>Back</title></head><body><main><p>" +
        "The service is back and this paragraph is long enough to count as content. ".repeat(8) +
        "</p></main></body></html>",
      { headers: { "content-type": "text/html" } },
    )
  );
  const start = Date.UTC(2026, 0, 5, 12);
  let t = start;
  const config = parseConfig({
    network: { allow_private: [origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  const store = openStore(config.store, { now: () => t });
  const fetcher = createFetcher(config.network);
  const tiers = defaultTiers(config, { fetcher, domains: store.domains });
  const reader = createReader({ config, fetcher, tiers: tiers.tiers, domains: store.domains });
  try {
    for (let i = 0; i < 15; i++) {
      t += 4_000; // 15 failures within a minute
      await assert.rejects(reader.read({ url: `${origin}/p${i}` }), code("provider_unavailable"));
    }
    // Probation began at the 3rd failure (12 s in) and lasts 5 minutes.
    const until = start + 12_000 + 5 * MIN;
    down = false;
    t = until + 1;
    const page = await reader.read({ url: `${origin}/after` });
    assert.equal(page.tier, "http");
    assert.equal(page.title, "Back");
    assert.equal((await store.domains.get(origin))?.tiers.http.consecutive_failures, 0);
  } finally {
    await tiers.close();
    await store.close();
    await server.shutdown();
  }
});

Deno.test("URLs: other schemes and malformed escapes are invalid_arguments, never internal", async () => {
  const { server, origin } = serve((req) => {
    const path = new URL(req.url).pathname;
    return new Response(`notes at ${path}`, { headers: { "content-type": "text/plain" } });
  });
  const gleaner = await createGleaner({
    network: { allow_private: [origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  try {
    for (
      const [url, scheme] of [
        ["gopher://example.com/1", "gopher:"],
        ["ftp://example.com/file.txt", "ftp:"],
        ["file:///etc/passwd", "file:"],
        ["data:text/html,<p>hi</p>", "data:"],
        ["javascript:alert(1)", "javascript:"],
      ]
    ) {
      await assert.rejects(
        gleaner.reader.read({ url }),
        (e: unknown) =>
          e instanceof GleanerError && e.code === "invalid_arguments" && e.message.includes(scheme),
        url,
      );
    }
    await assert.rejects(
      gleaner.reader.read({ url: "http://x.example/%E0%A4%A" }),
      code("invalid_arguments", /percent-encoding/),
    );
    // Well-formed escapes that are not UTF-8 are legal: the title keeps them as written.
    const page = await gleaner.reader.read({ url: `${origin}/notes/%FF.txt` });
    assert.equal(page.tier, "structured");
    assert.equal(page.title, "%FF.txt");
  } finally {
    await gleaner.close();
    await server.shutdown();
  }
});

Deno.test({
  name:
    "preferred strategy in auto mode: after one thin HTTP page the browser reads the origin first",
  ignore: ignoreBrowser,
  fn: async () => {
    const web = await startFixtureWeb();
    const gleaner = await createGleaner({
      network: { allow_private: [web.origin] },
      store: { path: ":memory:" },
      embed: { provider: "none" },
      read: { render: "auto" },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const page = await gleaner.reader.read({ url: web.url("/js-only"), noCache: true });
        assert.equal(page.tier, "browser");
      }
      const rec = await gleaner.store.domains.get(web.origin);
      assert.equal(rec?.capabilities?.preferred_strategy?.tier, "browser");
      assert.equal(rec?.tiers.http.attempts, 1, "HTTP tried once, then the browser goes first");
      assert.equal(rec?.tiers.browser.attempts, 3);
      // Forgetting is immediate.
      assert.equal(await gleaner.store.domains.clear(), 1);
      await gleaner.reader.read({ url: web.url("/js-only"), noCache: true });
      assert.equal((await gleaner.store.domains.get(web.origin))?.tiers.http.attempts, 1);
      // A read that forces the browser says nothing of the origin's preferred strategy.
      await gleaner.store.domains.clear();
      const forced = await gleaner.reader.read({
        url: web.url("/pages/wikipedia"),
        render: "always",
      });
      assert.equal(forced.tier, "browser");
      const after = await gleaner.store.domains.get(web.origin);
      assert.equal(after?.capabilities?.preferred_strategy, undefined);
    } finally {
      await gleaner.close();
      await web.close();
    }
  },
});

Deno.test("capabilities: reads sample JSON-LD and og:title, note the cheap fetch's metadata and the tier that worked", async () => {
  let refuse = false;
  const { server, origin } = serve((req) => {
    if (refuse) return new Response("no bots", { status: 403 });
    const article = new URL(req.url).pathname === "/article";
    const head = article
      ? '<meta property="og:title" content="Tides"><script type="application/ld+json">' +
        '{"@context":"https://schema.org","@type":"NewsArticle","headline":"Tides"}</script>'
      : '<meta property="og:title" content="About">';
    const body = "<p>The tide rises and falls twice a day along this coast. </p>".repeat(20);
    return new Response(`<html><head>${head}</head><body><main>${body}</main></body></html>`, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  });
  const gleaner = await createGleaner({
    network: { allow_private: [origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  try {
    assert.equal((await gleaner.reader.read({ url: `${origin}/article` })).tier, "http");
    assert.equal((await gleaner.reader.read({ url: `${origin}/about` })).tier, "http");
    const caps = (await gleaner.store.domains.get(origin))?.capabilities;
    assert.deepEqual(caps?.json_ld_article, { sampled: 2, present: 1, rate: 0.5 });
    assert.deepEqual(caps?.og_title, { sampled: 2, present: 2, rate: 1 });
    assert.equal(caps?.metadata_fetch?.ok, true);
    assert.equal(caps?.preferred_strategy?.tier, "http");
    // A bot wall: the cheap fetch no longer gives the page's metadata.
    refuse = true;
    await assert.rejects(
      gleaner.reader.read({ url: `${origin}/other`, noCache: true }),
      code("unauthorized"),
    );
    assert.equal(
      (await gleaner.store.domains.get(origin))?.capabilities?.metadata_fetch?.ok,
      false,
    );
  } finally {
    await gleaner.close();
    await server.shutdown();
  }
});

Deno.test("a setup failure (no Chromium at read.chrome_path) is not held against the origin", async () => {
  const web = await startFixtureWeb();
  const gleaner = await createGleaner({
    network: { allow_private: [web.origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "always", chrome_path: "/nonexistent/chromium" },
  });
  try {
    for (let i = 0; i < 4; i++) {
      await assert.rejects(
        gleaner.reader.read({ url: web.url("/pages/wikipedia"), noCache: true }),
        code("provider_unavailable", /chrome_path/),
      );
    }
    assert.equal(await gleaner.store.domains.shouldSkip(web.origin, "browser"), false);
    // Only the robots.txt state may be known; no attempt and no failure counted.
    const record = await gleaner.store.domains.get(web.origin);
    assert.deepEqual(record?.tiers ?? {}, {});
    assert.equal(record?.last_failure, undefined);
    assert.equal(record?.attempts ?? 0, 0);
  } finally {
    await gleaner.close();
    await web.close();
  }
});

Deno.test("a verdict reached under other settings is not inherited: a new user agent is tried at once", async () => {
  let plainHits = 0;
  const { server, origin } = serve((req) => {
    if (req.headers.get("user-agent") === "blocked-agent") {
      return new Response("no bots", { status: 403 });
    }
    plainHits++;
    return new Response(
      "<html><head><title>Welcome</title></head><body><main><p>" +
        "A page with enough words to be read as content by the extractor. ".repeat(8) +
        "</p></main></body></html>",
      { headers: { "content-type": "text/html" } },
    );
  });
  const root = await Deno.makeTempDir();
  const base = {
    store: { path: `${root}/shared.db` },
    embed: { provider: "none" },
    read: { render: "auto" },
  } as const;
  const before = await createGleaner({
    ...base,
    network: { allow_private: [origin], user_agent: "blocked-agent" },
  });
  const after = await createGleaner({
    ...base,
    network: { allow_private: [origin], user_agent: "fixed-agent" },
  });
  try {
    for (let i = 0; i < 3; i++) {
      await before.reader.read({ url: `${origin}/p${i}`, render: "never" }).catch(() => {});
    }
    const policy = (g: typeof before) => ({ policy: memoryPolicy(g.config) });
    assert.equal(await before.store.domains.shouldSkip(origin, "http", policy(before)), true);
    assert.equal(await after.store.domains.shouldSkip(origin, "http", policy(after)), false);
    const page = await after.reader.read({ url: `${origin}/p9` });
    assert.equal(page.tier, "http", "HTTP was tried first under the new user agent");
    assert.equal(plainHits, 1);
  } finally {
    await before.close();
    await after.close();
    await server.shutdown();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a tier under 30 % success over 10+ tries in the window is put off beside probation, and tried last", async () => {
  const config = parseConfig({ store: { path: ":memory:" }, read: { render: "never" } });
  const store = openStore(config.store);
  const origin = "https://flaky.example";
  const scope = { policy: memoryPolicy(config) };
  // 3 of 11 attempts ok (27 %), never three failures in a row: no probation, only a low rate.
  for (const ok of [false, false, true, false, false, true, false, false, true, false, false]) {
    await store.domains.record(
      origin,
      "llms_txt",
      ok,
      ok ? undefined : "provider_unavailable",
      scope,
    );
  }
  const calls: string[] = [];
  let secondWorks = true;
  const page = (tier: "llms_txt" | "http") => ({
    url: `${origin}/a`,
    finalUrl: `${origin}/a`,
    title: "A",
    markdown: "# A\n\nText.",
    links: [],
    tier,
    mediaType: "text/html",
    fetchedAt: new Date().toISOString(),
  });
  const tier = (name: "llms_txt" | "http", works: () => boolean) => ({
    name,
    scope: "shared" as const,
    canHandle: () => true,
    read: () => {
      calls.push(name);
      return Promise.resolve(works() ? page(name) : undefined);
    },
  });
  const reader = createReader({
    config,
    fetcher: createFetcher(config.network),
    tiers: [tier("llms_txt", () => true), tier("http", () => secondWorks)],
    domains: store.domains,
  });
  try {
    const record = await store.domains.get(origin, scope);
    assert.equal(record?.tiers.llms_txt.low_success_rate, true);
    assert.equal(record?.tiers.llms_txt.skipped_until, undefined, "not on probation");
    assert.equal((await reader.read({ url: `${origin}/a`, noCache: true })).tier, "http");
    assert.deepEqual(calls, ["http"], "the low-rate tier was not tried first");
    // When nothing else gives a page, the tier put off is still tried.
    calls.length = 0;
    secondWorks = false;
    assert.equal((await reader.read({ url: `${origin}/b`, noCache: true })).tier, "llms_txt");
    assert.deepEqual(calls, ["http", "llms_txt"]);
  } finally {
    await store.close();
  }
});
