/**
 * The Firecrawl and Crawl4AI reading tiers through the real reader, fetcher
 * and store, against fakes that answer as the services document (see
 * `testing/fixtures/fake_firecrawl.ts`, `fake_crawl4ai.ts` for each case's source).
 */
import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { createGleaner, type Gleaner } from "../gleaner.ts";
import { createFetcher } from "../net/fetch.ts";
import { startFixtureWeb } from "../../testing/fixtures/web.ts";
import { startFakeFirecrawl } from "../../testing/fixtures/fake_firecrawl.ts";
import { startFakeCrawl4ai } from "../../testing/fixtures/fake_crawl4ai.ts";
import { openStore } from "../store/mod.ts";
import { createReader, type Reader } from "./cascade.ts";
import { createCrawl4aiTier } from "./tiers/crawl4ai.ts";
import { createFirecrawlTier } from "./tiers/firecrawl.ts";
import { httpTier } from "./tiers/http.ts";
import { defaultTiers } from "./tiers.ts";
import type { Tier } from "./types.ts";

const code = (c: string, message?: RegExp) => (e: unknown) =>
  e instanceof GleanerError && e.code === c && (!message || message.test(e.message));

/**
 * The real reader over `service` then the HTTP tier (extraction inline, no
 * worker threads: the pages are small), with real domain memory.
 */
function readerWith(allow: string[], read: Record<string, unknown>, service: Tier) {
  const config = parseConfig({
    network: { allow_private: allow },
    store: { path: ":memory:" },
    read: { render: "never", ...read },
  });
  const store = openStore(config.store);
  const fetcher = createFetcher(config.network);
  const reader: Reader = createReader({
    config,
    fetcher,
    tiers: [service, httpTier],
    domains: store.domains,
    cache: store.cache,
  });
  return { config, fetcher, reader, domains: store.domains, close: () => store.close() };
}

function gleanerWith(allow: string[], read: Record<string, unknown>): Promise<Gleaner> {
  return createGleaner({
    network: { allow_private: allow },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never", ...read },
  });
}

Deno.test("firecrawl: configured, it reads ahead of the built-in tiers with the documented request; absent otherwise", async () => {
  const web = await startFixtureWeb();
  const firecrawl = startFakeFirecrawl({ apiKey: "fc-test-key" });
  const target = web.url("/pages/basic-tags-cleaning");
  firecrawl.addPage(target, {
    title: "Tides (Firecrawl)",
    markdown:
      "# Tides\n\nTides are the rise and fall of sea levels, read by [Firecrawl](https://firecrawl.dev/docs). ![logo](https://x.example/l.png)",
    links: ["https://en.wikipedia.org/wiki/Moon"],
  });
  const with_ = await gleanerWith([web.origin, firecrawl.origin], {
    firecrawl_url: firecrawl.origin,
    firecrawl_api_key: "fc-test-key",
  });
  const without = await gleanerWith([web.origin, firecrawl.origin], {});
  try {
    const page = await with_.reader.read({ url: target });
    assert.equal(page.tier, "firecrawl");
    assert.equal(page.title, "Tides (Firecrawl)");
    assert.equal(
      page.markdown,
      "# Tides\n\nTides are the rise and fall of sea levels, read by Firecrawl.",
    );
    assert.deepEqual(page.links.map((l) => l.url), [
      "https://firecrawl.dev/docs",
      "https://en.wikipedia.org/wiki/Moon",
    ]);
    assert.equal(page.lang, "en");
    const call = firecrawl.requests.find((r) => r.path === "/v1/scrape")!;
    assert.equal(call.method, "POST");
    assert.equal(call.authorization, "Bearer fc-test-key");
    assert.equal(call.body?.url, target);
    assert.deepEqual(call.body?.formats, ["markdown", "links"]);
    assert.equal(call.body?.onlyMainContent, true);
    assert.ok(Number(call.body?.timeout) > 0);
    // The page is cached like any read.
    assert.equal((await with_.reader.read({ url: target })).tier, "cache");
    // A read naming a CSS selector is left to the built-in tiers.
    const calls = firecrawl.requests.length;
    const selected = await with_.reader.read({ url: target, targetSelector: "p", noCache: true });
    assert.equal(selected.tier, "http");
    assert.equal(firecrawl.requests.length, calls);

    const before = firecrawl.requests.length;
    const plain = await without.reader.read({ url: target });
    assert.equal(plain.tier, "http");
    assert.equal(firecrawl.requests.length, before, "no call without read.firecrawl_url");
    const names = defaultTiers(parseConfig({}), {
      fetcher: createFetcher(parseConfig({}).network),
    });
    assert.ok(!names.tiers.some((t) => t.name === "firecrawl" || t.name === "crawl4ai"));
    await names.close();
  } finally {
    await with_.close();
    await without.close();
    await firecrawl.close();
    await web.close();
  }
});

Deno.test("firecrawl: 402, 429, 401 fall through without counting against the site; 500 and 408 count; a paused service is not called", async () => {
  const web = await startFixtureWeb();
  const firecrawl = startFakeFirecrawl();
  const target = web.url("/pages/basic-tags-cleaning");
  firecrawl.addPage(target, { markdown: "# From Firecrawl\n\nbody" });
  try {
    for (
      const [status, counted] of [[402, false], [429, false], [401, false], [500, true], [
        408,
        true,
      ]] as const
    ) {
      const gleaner = readerWith([web.origin, firecrawl.origin], {
        firecrawl_url: firecrawl.origin,
      }, createFirecrawlTier());
      try {
        firecrawl.fail("scrape", status);
        const page = await gleaner.reader.read({ url: target });
        assert.equal(page.tier, "http", `after ${status}`);
        const memory = await gleaner.domains.get(web.origin);
        assert.equal(memory?.tiers.firecrawl?.failures ?? 0, counted ? 1 : 0, `after ${status}`);
        const calls = firecrawl.requests.length;
        const again = await gleaner.reader.read({ url: target, noCache: true });
        if (counted) {
          // The service answered: it is asked again (and now reads the page).
          assert.equal(again.tier, "firecrawl", `after ${status}`);
          assert.equal(firecrawl.requests.length, calls + 1);
        } else {
          // Out of credit, rate limited, key refused: left alone for a while.
          assert.equal(again.tier, "http", `after ${status}`);
          assert.equal(firecrawl.requests.length, calls, `no call after ${status}`);
        }
      } finally {
        await gleaner.close();
      }
    }
  } finally {
    await firecrawl.close();
    await web.close();
  }
});

Deno.test("firecrawl: domain memory learns it like any tier (three failures on a site put it on probation there)", async () => {
  const web = await startFixtureWeb();
  const firecrawl = startFakeFirecrawl();
  const target = web.url("/pages/basic-tags-cleaning");
  firecrawl.addPage(target, { markdown: "# From Firecrawl\n\nbody" });
  const gleaner = readerWith([web.origin, firecrawl.origin], {
    firecrawl_url: firecrawl.origin,
  }, createFirecrawlTier());
  try {
    firecrawl.fail("scrape", 500, 3);
    for (let i = 0; i < 3; i++) {
      assert.equal((await gleaner.reader.read({ url: target, noCache: true })).tier, "http");
    }
    const calls = firecrawl.requests.length;
    assert.equal((await gleaner.reader.read({ url: target, noCache: true })).tier, "http");
    assert.equal(firecrawl.requests.length, calls, "on probation for this origin: not asked");
    const memory = await gleaner.domains.get(web.origin);
    assert.equal(memory?.tiers.firecrawl?.failures, 3);
    assert.ok(memory?.tiers.firecrawl?.skipped_until, "skipped until a later time");
  } finally {
    await gleaner.close();
    await firecrawl.close();
    await web.close();
  }
});

Deno.test("firecrawl: the page URL passes the network policy before it is sent; so does where it ended; the endpoint needs allow_private", async () => {
  const web = await startFixtureWeb();
  const firecrawl = startFakeFirecrawl();
  const config = parseConfig({
    network: { allow_private: [web.origin, firecrawl.origin] },
    read: { firecrawl_url: firecrawl.origin },
  });
  const fetcher = createFetcher(config.network);
  const tier = createFirecrawlTier({ robots: fetcher.robots });
  try {
    for (
      const url of [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/admin",
        "http://127.0.0.1:9/",
      ]
    ) {
      await assert.rejects(
        tier.read(new URL(url), { url }, { config, fetcher }),
        code("blocked_url"),
        url,
      );
    }
    assert.equal(firecrawl.requests.length, 0, "nothing refused reached the service");

    // Firecrawl followed a redirect into a private address: its content is refused.
    const target = web.url("/pages/basic-tags-cleaning");
    firecrawl.addPage(target, {
      markdown: "# Instance metadata\n\nsecret",
      finalUrl: "http://169.254.169.254/latest/meta-data/",
    });
    await assert.rejects(
      tier.read(new URL(target), { url: target }, { config, fetcher }),
      code("blocked_url", /Firecrawl ended on http:\/\/169\.254\.169\.254/),
    );

    // The service itself is an operator setting under the guard: loopback only when listed.
    const unlisted = readerWith(
      [web.origin],
      { firecrawl_url: firecrawl.origin },
      createFirecrawlTier(),
    );
    try {
      const calls = firecrawl.requests.length;
      const page = await unlisted.reader.read({ url: target });
      assert.equal(page.tier, "http");
      assert.equal(firecrawl.requests.length, calls);
      await assert.rejects(
        createFirecrawlTier().read(new URL(target), { url: target }, {
          config: unlisted.config,
          fetcher: unlisted.fetcher,
        }),
        (e: unknown) =>
          e instanceof GleanerError && e.code === "provider_unavailable" &&
          e.details?.field === "read.firecrawl_url" && /network\.allow_private/.test(e.message),
      );
    } finally {
      await unlisted.close();
    }
  } finally {
    await firecrawl.close();
    await web.close();
  }
});

Deno.test("firecrawl: a page whose own status is 404 is not_found, and a hanging service times out", async () => {
  const web = await startFixtureWeb();
  const firecrawl = startFakeFirecrawl();
  const config = parseConfig({
    network: { allow_private: [web.origin, firecrawl.origin], respect_robots: false },
    read: { firecrawl_url: firecrawl.origin, service_timeout_ms: 1_500 },
  });
  const fetcher = createFetcher(config.network);
  const tier = createFirecrawlTier();
  try {
    const missing = web.url("/missing-page");
    await assert.rejects(
      tier.read(new URL(missing), { url: missing }, { config, fetcher }),
      code("not_found"),
    );
    firecrawl.fail("scrape", "hang");
    const target = web.url("/pages/basic-tags-cleaning");
    await assert.rejects(
      tier.read(new URL(target), { url: target }, { config, fetcher }),
      (e: unknown) => e instanceof GleanerError && e.code === "timeout" && !e.details?.field,
    );
  } finally {
    await firecrawl.close();
    await web.close();
  }
});

Deno.test("crawl4ai: configured, it reads fit_markdown ahead of the built-in tiers; 401, 429, 500 fall through", async () => {
  const web = await startFixtureWeb();
  const crawl4ai = startFakeCrawl4ai({ token: "c4ai-token" });
  const target = web.url("/pages/basic-tags-cleaning");
  crawl4ai.addPage(target, {
    title: "Tides (Crawl4AI)",
    raw: "Skip to content\n\nMenu | Home | About\n\n# Tides\n\nTides rise and fall.",
    fit: "# Tides\n\nTides rise and fall, see [the Moon](https://en.wikipedia.org/wiki/Moon).",
  });
  const gleaner = readerWith([web.origin, crawl4ai.origin], {
    crawl4ai_url: crawl4ai.origin,
    crawl4ai_token: "c4ai-token",
  }, createCrawl4aiTier());
  const wrongToken = readerWith([web.origin, crawl4ai.origin], {
    crawl4ai_url: crawl4ai.origin,
    crawl4ai_token: "wrong",
  }, createCrawl4aiTier());
  try {
    const page = await gleaner.reader.read({ url: target });
    assert.equal(page.tier, "crawl4ai");
    assert.equal(page.title, "Tides (Crawl4AI)");
    assert.equal(page.markdown, "# Tides\n\nTides rise and fall, see the Moon.");
    assert.equal(page.links[0].url, "https://en.wikipedia.org/wiki/Moon");
    const call = crawl4ai.requests[0];
    assert.equal(call.path, "/crawl");
    assert.equal(call.authorization, "Bearer c4ai-token");
    assert.deepEqual(call.body?.urls, [target]);
    const run = call.body?.crawler_config as { type: string; params: Record<string, unknown> };
    assert.equal(run.type, "CrawlerRunConfig");
    assert.equal(run.params.cache_mode, "bypass");
    assert.ok(Number(run.params.page_timeout) <= 60_000);

    // 401: the token is refused; the built-in tiers read the page, the site is not blamed.
    assert.equal((await wrongToken.reader.read({ url: target })).tier, "http");
    assert.equal((await wrongToken.domains.get(web.origin))?.tiers.crawl4ai?.failures ?? 0, 0);

    crawl4ai.fail(500);
    assert.equal((await gleaner.reader.read({ url: target, noCache: true })).tier, "http");
    assert.equal((await gleaner.domains.get(web.origin))?.tiers.crawl4ai?.failures, 1);
    // A page the server cannot crawl: 500 "Crawl request failed" (counted), then http.
    const other = web.url("/pages/title-en-dash");
    assert.equal((await gleaner.reader.read({ url: other })).tier, "http");
    crawl4ai.fail(429);
    assert.equal((await gleaner.reader.read({ url: target, noCache: true })).tier, "http");
    const calls = crawl4ai.requests.length;
    assert.equal((await gleaner.reader.read({ url: target, noCache: true })).tier, "http");
    assert.equal(crawl4ai.requests.length, calls, "rate limited: left alone for a while");
  } finally {
    await gleaner.close();
    await wrongToken.close();
    await crawl4ai.close();
    await web.close();
  }
});

Deno.test("both services: Firecrawl first, Crawl4AI when Firecrawl is out of credit", async () => {
  const web = await startFixtureWeb();
  const firecrawl = startFakeFirecrawl();
  const crawl4ai = startFakeCrawl4ai();
  const target = web.url("/pages/basic-tags-cleaning");
  firecrawl.addPage(target, { markdown: "# From Firecrawl\n\nbody" });
  crawl4ai.addPage(target, { raw: "nav\n\n# From Crawl4AI", fit: "# From Crawl4AI\n\nbody" });
  const gleaner = await gleanerWith([web.origin, firecrawl.origin, crawl4ai.origin], {
    firecrawl_url: firecrawl.origin,
    crawl4ai_url: crawl4ai.origin,
  });
  try {
    assert.equal((await gleaner.reader.read({ url: target })).tier, "firecrawl");
    firecrawl.fail("scrape", 402);
    const page = await gleaner.reader.read({ url: target, noCache: true });
    assert.equal(page.tier, "crawl4ai");
    assert.match(page.markdown, /From Crawl4AI/);
  } finally {
    await gleaner.close();
    await crawl4ai.close();
    await firecrawl.close();
    await web.close();
  }
});
