/**
 * `crawl_site` through a Firecrawl crawl job: the real crawl, reader, fetcher
 * and store against the fake Firecrawl (its crawl routes answer as
 * https://docs.firecrawl.dev/v1/api-reference/endpoint/crawl-post and
 * https://docs.firecrawl.dev/v1/api-reference/endpoint/crawl-get document).
 */
import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { createFetcher } from "../net/fetch.ts";
import { createReader } from "../read/cascade.ts";
import { httpTier } from "../read/tiers/http.ts";
import { defaultTiers } from "../read/tiers.ts";
import { openStore } from "../store/mod.ts";
import { startFakeFirecrawl } from "../../testing/fixtures/fake_firecrawl.ts";
import { crawlSite } from "./crawl.ts";
import { firecrawlEngine } from "./firecrawl.ts";

/** A site the fake crawls (never fetched: Firecrawl "reads" it). */
const SITE = "http://127.0.0.1:8080";

function setup(origin: string, crawl: Record<string, unknown> = {}) {
  const config = parseConfig({
    network: { allow_private: [SITE, origin] },
    store: { path: ":memory:" },
    read: { render: "never", firecrawl_url: origin, firecrawl_api_key: "fc-key" },
    crawl: { engine: "firecrawl", poll_interval_ms: 100, ...crawl },
  });
  const store = openStore(config.store);
  const fetcher = createFetcher(config.network);
  const reader = createReader({ config, fetcher, tiers: [httpTier], cache: store.cache });
  const deps = { config, fetcher, reader, cache: store.cache, engine: firecrawlEngine };
  return { config, reader, deps, close: () => store.close() };
}

function addSite(firecrawl: ReturnType<typeof startFakeFirecrawl>, paths: string[]) {
  for (const path of paths) {
    firecrawl.addPage(`${SITE}${path}`, {
      title: `Page ${path}`,
      markdown: `# Page ${path}\n\nText of ${path} about tides, with [a link](${SITE}/elsewhere).`,
    });
  }
}

Deno.test("firecrawl crawl: starts a job, polls, follows next once per slice, maps and caches the pages", async () => {
  const firecrawl = startFakeFirecrawl({ apiKey: "fc-key" });
  addSite(firecrawl, ["/docs/", "/docs/a", "/docs/b", "/docs/c", "/docs/drafts/x"]);
  const { deps, reader, close } = setup(firecrawl.origin);
  try {
    const progress: number[] = [];
    const result = await crawlSite(deps, {
      url: `${SITE}/docs/`,
      max_pages: 10,
      max_depth: 3,
      exclude: ["/docs/drafts/"],
      progress: (p) => progress.push(p.progress),
    });
    assert.equal(result.partial, undefined);
    assert.equal(result.from_sitemap, false);
    assert.deepEqual(result.pages.map((p) => [p.url, p.depth]), [
      [`${SITE}/docs/`, 0],
      [`${SITE}/docs/a`, 1],
      [`${SITE}/docs/b`, 1],
      [`${SITE}/docs/c`, 1],
    ]);
    assert.equal(result.pages[1].title, "Page /docs/a");
    assert.match(result.pages[1].snippet, /^Text of \/docs\/a about tides, with a link\.$/);
    assert.ok(progress.length >= 2);

    const start = firecrawl.requests.find((r) => r.path === "/v1/crawl")!;
    assert.equal(start.method, "POST");
    assert.equal(start.authorization, "Bearer fc-key");
    assert.deepEqual(start.body, {
      url: `${SITE}/docs/`,
      limit: 10,
      maxDiscoveryDepth: 3,
      scrapeOptions: { formats: ["markdown", "links"], onlyMainContent: true },
    });
    const polls = firecrawl.requests.filter((r) => r.method === "GET").map((r) => r.path);
    const id = polls[0].split("/").pop();
    // First poll from the start, then each `next` slice: no document is fetched twice.
    assert.deepEqual(polls, [
      `/v1/crawl/${id}`,
      `/v1/crawl/${id}?skip=1`,
      `/v1/crawl/${id}?skip=3`,
    ]);
    assert.deepEqual(firecrawl.cancelled, [], "a finished job is not cancelled");

    // Each page is in the page cache: reading it costs no fetch.
    const page = await reader.read({ url: `${SITE}/docs/b` });
    assert.equal(page.tier, "cache");
    assert.equal(page.markdown, "# Page /docs/b\n\nText of /docs/b about tides, with a link.");
    // The manifest is cached too.
    const calls = firecrawl.requests.length;
    const again = await crawlSite(deps, {
      url: `${SITE}/docs/`,
      max_pages: 10,
      max_depth: 3,
      exclude: ["/docs/drafts/"],
    });
    assert.deepEqual(again, result);
    assert.equal(firecrawl.requests.length, calls);
  } finally {
    await close();
    await firecrawl.close();
  }
});

Deno.test("firecrawl crawl: past max_wait_ms it returns what is done, partial, and cancels the job", async () => {
  const firecrawl = startFakeFirecrawl();
  addSite(firecrawl, ["/", "/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i", "/j", "/k"]);
  firecrawl.crawlSteps = Infinity;
  const { deps, close } = setup(firecrawl.origin, { max_wait_ms: 1_000, poll_interval_ms: 300 });
  try {
    const result = await crawlSite(deps, { url: `${SITE}/`, max_pages: 20 });
    assert.equal(result.partial, true);
    assert.ok(
      result.pages.length >= 1 && result.pages.length < 12,
      `${result.pages.length} pages ${
        JSON.stringify([result, firecrawl.requests.map((r) => r.path)])
      }`,
    );
    assert.equal(firecrawl.cancelled.length, 1, "the running job was cancelled");
    // A partial manifest is not cached: the next call starts a new job.
    await crawlSite(deps, { url: `${SITE}/`, max_pages: 20 });
    assert.equal(firecrawl.requests.filter((r) => r.path === "/v1/crawl").length, 2);
  } finally {
    await close();
    await firecrawl.close();
  }
});

Deno.test("firecrawl crawl: a failed job is partial; 402 at the start is insufficient_balance; limits hold", async () => {
  const firecrawl = startFakeFirecrawl();
  addSite(firecrawl, ["/", "/a", "/b", "/c", "/gone"]);
  firecrawl.addPage(`${SITE}/gone`, { markdown: "", statusCode: 404 });
  firecrawl.crawlEnd = "failed";
  const { deps, close } = setup(firecrawl.origin);
  try {
    const failed = await crawlSite(deps, { url: `${SITE}/`, max_pages: 20 });
    assert.equal(failed.partial, true);
    assert.deepEqual(failed.failed.map((f) => [f.url, f.code]), [[`${SITE}/gone`, "not_found"]]);
    assert.equal(failed.pages.length, 4);

    firecrawl.crawlEnd = "completed";
    const two = await crawlSite(deps, { url: `${SITE}/`, max_pages: 2, no_cache: true });
    assert.equal(two.pages.length, 2);
    assert.equal(firecrawl.requests.filter((r) => r.path === "/v1/crawl").at(-1)?.body?.limit, 2);

    firecrawl.fail("crawl", 402);
    await assert.rejects(
      crawlSite(deps, { url: `${SITE}/a`, max_pages: 5 }),
      (e: unknown) =>
        e instanceof GleanerError && e.code === "insufficient_balance" &&
        e.details?.field === "read.firecrawl_api_key",
    );
    // The start URL passes the network policy before it is sent.
    const before = firecrawl.requests.length;
    await assert.rejects(
      crawlSite(deps, { url: "http://169.254.169.254/latest/" }),
      (e: unknown) => e instanceof GleanerError && e.code === "blocked_url",
    );
    assert.equal(firecrawl.requests.length, before);
  } finally {
    await close();
    await firecrawl.close();
  }
});

Deno.test("firecrawl crawl: crawl.max_bytes bounds the results read; what fits is returned, partial", async () => {
  const firecrawl = startFakeFirecrawl();
  addSite(firecrawl, ["/", "/a", "/b", "/c", "/d", "/e", "/f", "/g"]);
  firecrawl.crawlSteps = 1;
  firecrawl.crawlPageSize = 1;
  // About two status answers of one page each.
  const { deps, close } = setup(firecrawl.origin, { max_bytes: 900 });
  try {
    const result = await crawlSite(deps, { url: `${SITE}/`, max_pages: 20 });
    assert.equal(result.partial, true);
    assert.ok(result.pages.length >= 1 && result.pages.length < 8, `${result.pages.length} pages`);
  } finally {
    await close();
    await firecrawl.close();
  }
});

Deno.test("firecrawl crawl: an outage the crawl jobs see is skipped by the reading tier too (one breaker)", async () => {
  const firecrawl = startFakeFirecrawl();
  const { config, deps, close } = setup(firecrawl.origin);
  try {
    // Refused credentials: the service, not the page (the breaker opens at once).
    firecrawl.fail("crawl", 401);
    await assert.rejects(
      crawlSite(deps, { url: `${SITE}/`, max_pages: 2 }),
      (e: unknown) => e instanceof GleanerError && e.code === "unauthorized",
    );
    // The reading tier of the same configuration, as a Gleaner builds it.
    const tier = defaultTiers(config, { fetcher: deps.fetcher }).tiers.find((t) =>
      t.name === "firecrawl"
    );
    assert.ok(tier, "read.firecrawl_url set: the tier is there");
    const scrapes = firecrawl.requests.filter((r) => r.path === "/v1/scrape").length;
    await assert.rejects(
      tier.read(new URL(`${SITE}/a`), { url: `${SITE}/a` }, { config, fetcher: deps.fetcher }),
      (e: unknown) =>
        e instanceof GleanerError && e.code === "unauthorized" &&
        /left alone for a while/.test(e.message),
    );
    assert.equal(firecrawl.requests.filter((r) => r.path === "/v1/scrape").length, scrapes);
  } finally {
    await close();
    await firecrawl.close();
  }
});

Deno.test("crawl.engine firecrawl needs read.firecrawl_url", () => {
  assert.throws(
    () => parseConfig({ crawl: { engine: "firecrawl" } }),
    (e: unknown) =>
      e instanceof GleanerError && e.code === "invalid_arguments" &&
      e.details?.field === "crawl.engine",
  );
});
