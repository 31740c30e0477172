import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { seltzProvider } from "./seltz.ts";

const KEY = "seltz-test-key-789";

Deno.test("seltz: POST /v1/search with x-api-key and Seltz's fields; documents normalized", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ seltz: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const notices: string[] = [];
    const before = Date.now();
    const hits = await seltzProvider.search!({
      query: "  sqlite wal ",
      max_results: 50,
      time_range: "week",
      topic: "news",
      language: "de-DE",
      domains: ["sqlite.org"],
      exclude_domains: ["spam.example"],
    }, { ...env, notice: (n) => notices.push(n) });
    const [req] = fakes.requestsOf("seltz");
    assert.equal(req.method, "POST");
    assert.equal(req.path, "/v1/search");
    assert.equal(req.headers["x-api-key"], KEY);
    assert.equal(req.headers["content-type"], "application/json");
    const body = req.body as Record<string, unknown>;
    const from = Date.parse(String(body.from_date));
    assert.ok(
      from <= before - 6 * 86_400_000 && from >= before - 8 * 86_400_000,
      `from_date a week back: ${body.from_date}`,
    );
    assert.deepEqual({ ...body, from_date: undefined }, {
      query: "sqlite wal",
      max_results: 20,
      include_domains: ["sqlite.org"],
      exclude_domains: ["spam.example"],
      scope: "news",
      from_date: undefined,
    }, "no language field: Seltz has none");
    assert.match(String(body.from_date), /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(
      notices.some((n) => /seltz: language "de-DE" not sent/.test(n)),
      `the answer says the language was dropped: ${notices}`,
    );
    assert.equal(hits.length, 3);
    assert.equal(hits[0].title, "Write-Ahead Logging", "the title is the content's heading");
    assert.equal(hits[0].url, "https://sqlite.org/wal.html");
    assert.equal(
      hits[0].snippet,
      "The default method by which SQLite implements atomic commit; about sqlite wal.",
    );
    assert.equal(hits[0].published, "2024-05-01T00:00:00.000Z");
    assert.equal(hits[0].source, "seltz");
    assert.equal(hits[1].published, undefined, "published_date null is no date");
    assert.equal(hits[1].title, "Deno runtime", "tags stripped from the heading");
  });
});

Deno.test("seltz: an answer without documents is an empty result; a non-web URL is dropped", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ seltz: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    fakes.setResults([]);
    assert.deepEqual(await seltzProvider.search!({ query: "nothing", max_results: 5 }, env), []);
    fakes.setResults([
      { url: "javascript:alert(1)", title: "x", snippet: "x" },
      { url: "https://a.example/", title: "A", snippet: "Text" },
    ]);
    const hits = await seltzProvider.search!({ query: "a", max_results: 5 }, env);
    assert.deepEqual(hits.map((h) => h.url), ["https://a.example/"]);
    const tool = seltzProvider.tools.find((t) => t.name === "seltz_search")!;
    const out = await tool.run(tool.input.parse({ query: "a" }), env) as { results: unknown[] };
    assert.equal(out.results.length, 1);
    assert.equal(
      (fakes.requestsOf("seltz").at(-1)!.body as { max_results: number }).max_results,
      10,
    );
  });
});

Deno.test("seltz: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ seltz: KEY }, {
      providers: { seltz: { timeout_ms: 400 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(
      fakes,
      "seltz",
      KEY,
      () => seltzProvider.search!({ query: "x", max_results: 3 }, env),
    );
  });
});
