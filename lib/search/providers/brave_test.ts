import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { GleanerError } from "../../errors.ts";
import { braveLocale, braveProvider } from "./brave.ts";
import { fitQuery } from "./http.ts";

const KEY = "brave-test-key-456";

Deno.test("brave: web search sends the token and Brave's parameters; results normalized", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await braveProvider.search!({
      query: "sqlite wal",
      max_results: 50,
      time_range: "month",
      language: "de-DE",
    }, env);
    const [req] = fakes.requestsOf("brave");
    assert.equal(req.method, "GET");
    assert.equal(req.path, "/res/v1/web/search");
    assert.equal(req.headers["x-subscription-token"], KEY);
    assert.equal(req.headers.accept, "application/json");
    assert.deepEqual(req.query, {
      q: "sqlite wal",
      count: "20",
      freshness: "pm",
      search_lang: "de",
      country: "DE",
    });
    assert.equal(hits.length, 3);
    assert.equal(
      hits[0].snippet,
      "The default method by which SQLite implements atomic commit; about sqlite wal.",
      "<strong> stripped",
    );
    assert.equal(hits[0].published, "2024-05-01T00:00:00.000Z");
    assert.equal(hits[0].source, "brave");
    assert.equal(hits[0].provider_data?.hostname, "sqlite.org");
    assert.deepEqual(hits[0].provider_data?.extra_snippets, ["More text from the page."]);
    assert.equal(hits[1].published, undefined);
  });
});

Deno.test("brave: news search uses the news endpoint", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const viaTopic = await braveProvider.search!(
      { query: "n", max_results: 2, topic: "news" },
      env,
    );
    assert.equal(fakes.requestsOf("brave")[0].path, "/res/v1/news/search");
    assert.equal(viaTopic.length, 2);
    const tool = braveProvider.tools.find((t) => t.name === "brave_news_search")!;
    const out = await tool.run(tool.input.parse({ query: "n" }), env) as { results: unknown[] };
    assert.equal(out.results.length, 3);
    assert.equal(fakes.requestsOf("brave")[1].path, "/res/v1/news/search");
  });
});

Deno.test("brave: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }, {
      providers: { brave: { timeout_ms: 400 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(
      fakes,
      "brave",
      KEY,
      () => braveProvider.search!({ query: "x", max_results: 3 }, env),
    );
  });
});

Deno.test("brave: BCP 47 tags map onto Brave's search_lang and country vocabularies", () => {
  const table: [string, string | undefined, string | undefined, number][] = [
    ["ja", "jp", undefined, 0],
    ["ja-JP", "jp", "JP", 0],
    ["zh-TW", "zh-hant", "TW", 0],
    ["zh-HK", "zh-hant", "HK", 0],
    ["zh-Hant", "zh-hant", undefined, 0],
    ["zh-Hans-CN", "zh-hans", "CN", 0],
    ["zh", "zh-hans", undefined, 0],
    ["pt-BR", "pt-br", "BR", 0],
    ["pt-PT", "pt-pt", "PT", 0],
    ["nb", "nb", undefined, 0],
    ["no-NO", "nb", "NO", 0],
    ["en-GB", "en-gb", "GB", 0],
    ["en_US", "en", "US", 0],
    ["de-AT", "de", "AT", 0],
    ["es-419", "es", undefined, 0],
    ["fr-SN", "fr", undefined, 1],
    ["kl", undefined, undefined, 1],
  ];
  for (const [tag, lang, country, dropped] of table) {
    const locale = braveLocale(tag);
    assert.equal(locale.search_lang, lang, tag);
    assert.equal(locale.country, country, tag);
    assert.equal(locale.dropped.length, dropped, `${tag}: ${locale.dropped}`);
  }
});

Deno.test("brave: fitQuery cuts at a word boundary, keeps the site: hint, refuses what cannot fit", () => {
  const words = Array.from({ length: 80 }, (_, i) => `word${i}`);
  const hint = "(site:a.example OR site:b.example)";
  const fitted = fitQuery(`${words.join(" ")} ${hint}`, {
    provider: "brave",
    maxChars: 400,
    maxWords: 50,
    keep: hint,
  });
  assert.ok(fitted.query.endsWith(` ${hint}`));
  assert.equal(fitted.query.split(" ").length, 50);
  assert.ok(fitted.query.startsWith(words.slice(0, 47).join(" ") + " "));
  assert.match(fitted.notice ?? "", /first 47 of 80 words/);
  assert.throws(
    () => fitQuery("y".repeat(401), { provider: "brave", maxChars: 400, maxWords: 50 }),
    (e: unknown) => e instanceof GleanerError && e.code === "invalid_arguments",
  );
  assert.deepEqual(fitQuery("a b", { provider: "brave", maxChars: 400 }), { query: "a b" });
});
