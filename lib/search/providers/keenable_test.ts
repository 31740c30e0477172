import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { timeRangeStart } from "../time_range.ts";
import { keenableProvider } from "./keenable.ts";
import { createRoleRouter } from "../roles.ts";

const KEY = "keen_test_654";

Deno.test("keenable: keyless uses the public endpoints with X-Keenable-Title", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({}, { providers: { keenable: { enabled: true } } }));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await keenableProvider.search!({ query: "wal", max_results: 2 }, env);
    let req = fakes.requestsOf("keenable")[0];
    assert.equal(req.method, "POST");
    assert.equal(req.path, "/v1/search/public");
    assert.equal(req.headers["x-keenable-title"], "Gleaner");
    assert.equal(req.headers["x-api-key"], undefined);
    assert.deepEqual(req.body, { query: "wal" });
    assert.equal(hits.length, 2);
    assert.equal(hits[0].published, "2024-05-01T00:00:00.000Z");
    assert.equal(hits[0].source, "keenable");

    const out = await keenableProvider.contents!({ urls: ["https://a.example/p?q=1"] }, env);
    req = fakes.requestsOf("keenable")[1];
    assert.equal(req.path, "/v1/fetch/public");
    assert.deepEqual(req.query, { url: "https://a.example/p?q=1" });
    assert.match(out.pages[0].content, /read by keenable/);
    assert.equal(out.pages[0].provider_data?.author, "A. Writer");
  });
});

Deno.test("keenable: a key switches to the keyed endpoints", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ keenable: KEY }));
    assert.ok(keenableProvider.isConfigured(config));
    const env = { config, fetcher: createFetcher(config.network) };
    await keenableProvider.search!({ query: "wal", max_results: 2 }, env);
    const out = await keenableProvider.contents!({
      urls: ["https://a.example/", "https://a.example/missing", "https://a.example/unindexed"],
    }, env);
    const [search, ...fetches] = fakes.requestsOf("keenable");
    assert.equal(search.path, "/v1/search");
    assert.equal(search.headers["x-api-key"], KEY);
    assert.ok(fetches.every((r) => r.path === "/v1/fetch" && r.headers["x-api-key"] === KEY));
    assert.equal(out.pages[0].error, undefined);
    assert.equal(
      out.pages[1].error?.code,
      "not_found",
      "a page Keenable has not indexed nor can fetch live fails alone, as not found",
    );
    // Keenable's documented move on a 404: one live fetch.
    const live = fetches.filter((r) => r.query.live === "true").map((r) => r.query.url).sort();
    assert.deepEqual(live, ["https://a.example/missing", "https://a.example/unindexed"]);
    assert.equal(out.pages[2].error, undefined, "the live fetch found the unindexed page");
    assert.match(out.pages[2].content, /read by keenable/);
    // The pages that failed are counted, as TinySearch's keenable_fetch reports them.
    assert.deepEqual(out.provider_data, { failed_count: 1 });
  });
});

Deno.test("keenable: failed_count reaches the contents role's answer", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ keenable: KEY }, { contents_order: ["keenable"] }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const out = await roles.contents({
      urls: ["https://a.example/", "https://a.example/missing"],
      provider: "keenable",
    });
    assert.equal(out.provider, "keenable");
    assert.deepEqual(out.provider_data, { failed_count: 1 });
  });
});

Deno.test("keenable: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ keenable: KEY }, {
      providers: { keenable: { timeout_ms: 400 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(
      fakes,
      "keenable",
      KEY,
      () => keenableProvider.search!({ query: "x", max_results: 2 }, env),
    );
    await assertFailureClasses(
      fakes,
      "keenable",
      KEY,
      () => keenableProvider.contents!({ urls: ["https://a.example/"] }, env),
    );
  });
});

Deno.test("keenable: one domain is sent as `site`, a time range as `published_after`; what it cannot filter is named", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({}, { providers: { keenable: { enabled: true } } }));
    const notices: string[] = [];
    const env = {
      config,
      fetcher: createFetcher(config.network),
      notice: (t: string) => void notices.push(t),
    };
    const today = new Date().toISOString();
    fakes.setResults([
      { url: "https://sqlite.org/wal.html", title: "WAL", snippet: "s", published: today },
      { url: "https://docs.deno.com/kv", title: "KV", snippet: "s", published: today },
    ]);
    const hits = await keenableProvider.search!({
      query: "wal",
      max_results: 5,
      domains: ["sqlite.org"],
      time_range: "month",
    }, env);
    assert.deepEqual(fakes.requestsOf("keenable")[0].body, {
      query: "wal",
      site: "sqlite.org",
      published_after: timeRangeStart("month"),
    });
    assert.deepEqual(hits.map((h) => h.url), ["https://sqlite.org/wal.html"]);
    assert.deepEqual(notices, [], "everything asked was sent");

    await keenableProvider.search!({
      query: "wal",
      max_results: 5,
      domains: ["sqlite.org", "deno.com"],
      exclude_domains: ["spam.example"],
      language: "fr",
      topic: "news",
    }, env);
    assert.deepEqual(fakes.requestsOf("keenable")[1].body, { query: "wal" });
    assert.equal(notices.length, 1);
    assert.match(
      notices[0],
      /^keenable: 2 domains \(it filters one site\), exclude_domains, language "fr", topic "news" not sent/,
    );
    assert.ok(keenableProvider.nativeDomains, "the router adds no site: hint to Keenable's query");
  });
});

Deno.test("keenable: keyless requests are held to Keenable's 1,000 an hour (and 10 a second); a key lifts the hourly limit", () => {
  const keyless = parseConfig({ search: { providers: { keenable: { enabled: true } } } });
  assert.deepEqual(keenableProvider.rateLimit?.(keyless), {
    perSecond: 10,
    budget: { count: 1_000, ms: 3_600_000 },
  });
  const keyed = parseConfig({ search: { keenable_api_key: KEY } });
  assert.deepEqual(keenableProvider.rateLimit?.(keyed), { perSecond: 10 });
});
