import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { GleanerError } from "../../errors.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { queritLocale, queritProvider } from "./querit.ts";

const KEY = "querit-test-key-321";

Deno.test("querit: POST /v1/search with Bearer and Querit's filters; results.result[] normalized", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ querit: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await queritProvider.search!({
      query: " sqlite wal ",
      max_results: 50,
      time_range: "month",
      language: "pt-BR",
      domains: ["sqlite.org"],
      exclude_domains: ["spam.example"],
    }, env);
    const [req] = fakes.requestsOf("querit");
    assert.equal(req.method, "POST");
    assert.equal(req.path, "/v1/search");
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(req.body, {
      query: "sqlite wal",
      count: 20,
      filters: {
        sites: { include: ["sqlite.org"], exclude: ["spam.example"] },
        timeRange: { date: "m1" },
        languages: { include: ["portuguese"] },
        geo: { countries: { include: ["brazil"] } },
      },
    });
    assert.equal(hits.length, 3);
    assert.equal(hits[0].title, "Write-Ahead Logging");
    assert.equal(
      hits[0].snippet,
      "The default method by which SQLite implements atomic commit; about sqlite wal.",
    );
    assert.equal(hits[0].published, "2024-05-01T00:00:00.000Z");
    assert.equal(hits[0].source, "querit");
    assert.equal(hits[0].provider_data?.site_name, "sqlite.org");
    assert.equal(hits[1].title, "Deno runtime");
    assert.equal(
      hits[1].snippet,
      "Deno is a JavaScript & TypeScript runtime; notes on sqlite wal.",
    );
    assert.equal(hits[1].published, undefined, "a relative page_age is no date");
    assert.equal(hits[1].provider_data?.page_age, "1 day ago");
  });
});

Deno.test("querit: a query over 1,000 characters is cut to fit, and an unknown language is dropped, both said", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ querit: KEY }));
    const notices: string[] = [];
    const env = {
      config,
      fetcher: createFetcher(config.network),
      notice: (n: string) => notices.push(n),
    };
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ");
    const hits = await queritProvider.search!(
      { query: words, max_results: 2, language: "zh-TW" },
      env,
    );
    assert.equal(hits.length, 2, "Querit accepted it (the fake validates)");
    const body = fakes.requestsOf("querit")[0].body as Record<string, unknown>;
    const sent = String(body.query);
    assert.ok(sent.length <= 1000, `${sent.length} characters`);
    assert.ok(words.startsWith(sent) && words[sent.length] === " ", "cut at a word boundary");
    assert.equal(body.filters, undefined, "neither language nor region sent");
    assert.ok(
      notices.some((n) => /querit: the query was cut .* 1000 characters/.test(n)),
      `${notices}`,
    );
    assert.ok(
      notices.some((n) =>
        /querit: language "zh-TW" and region TW not in Querit's vocabulary/.test(n)
      ),
      `${notices}`,
    );
  });
});

Deno.test("querit: error_code in an HTTP 200 answer is a classified failure; error_code 200 is success", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ querit: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const call = () => queritProvider.search!({ query: "x", max_results: 2 }, env);
    const cases: [unknown, string][] = [
      [{ error_code: "429", error_msg: "Search quota exceeded." }, "insufficient_balance"],
      [{ error_code: 429, error_msg: "Too many searches." }, "rate_limited"],
      [{ error_code: 401, error_msg: "Invalid API key" }, "unauthorized"],
      [{ error_code: 400, error_msg: "unsupported language" }, "invalid_arguments"],
      [{ error_code: 503, error_msg: "busy" }, "provider_unavailable"],
      [{ error_code: "E_WEIRD", error_msg: "?" }, "internal"],
      [{ error_code: 200, results: [] }, "provider_unavailable"],
    ];
    for (const [body, code] of cases) {
      fakes.reply("querit", { status: 200, body }, 1);
      const error = await call().then(
        () => assert.fail(`${JSON.stringify(body)}: a failure`),
        (e) => e,
      );
      assert.ok(error instanceof GleanerError);
      assert.equal(error.code, code, `${JSON.stringify(body)}: ${error.message}`);
      assert.ok(!error.message.includes("Search quota exceeded"), "the body is never shown");
    }
    fakes.reply("querit", { status: 200, body: { error_code: "200", results: { result: [] } } }, 1);
    assert.deepEqual(await call(), []);
  });
});

Deno.test("querit: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ querit: KEY }, {
      providers: { querit: { timeout_ms: 400 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(
      fakes,
      "querit",
      KEY,
      () => queritProvider.search!({ query: "x", max_results: 3 }, env),
    );
  });
});

Deno.test("querit: BCP 47 tags map onto Querit's language and country names", () => {
  const table: [string, string | undefined, string | undefined, number][] = [
    ["en", "english", undefined, 0],
    ["en-US", "english", "united states", 0],
    ["en_GB", "english", "united kingdom", 0],
    ["ja-JP", "japanese", "japan", 0],
    ["ko-KR", "korean", "south korea", 0],
    ["de-AT", "german", undefined, 1],
    ["fr-CA", "french", "canada", 0],
    ["es-419", "spanish", undefined, 0],
    ["es-MX", "spanish", "mexico", 0],
    ["pt-PT", "portuguese", undefined, 1],
    ["hi-IN", undefined, "india", 1],
    ["zh-Hant-TW", undefined, undefined, 2],
    ["kl", undefined, undefined, 1],
  ];
  for (const [tag, language, country, dropped] of table) {
    const locale = queritLocale(tag);
    assert.equal(locale.language, language, tag);
    assert.equal(locale.country, country, tag);
    assert.equal(locale.dropped.length, dropped, `${tag}: ${locale.dropped}`);
  }
});
