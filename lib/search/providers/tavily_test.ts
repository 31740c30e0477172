import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { createRoleRouter } from "../roles.ts";
import { tavilyProvider } from "./tavily.ts";

const KEY = "tvly-test-789";

function envOf(fakes: Parameters<Parameters<typeof withFakeProviders>[0]>[0], search = {}) {
  const config = parseConfig(fakes.config({ tavily: KEY }, search));
  return { config, fetcher: createFetcher(config.network) };
}

Deno.test("tavily: search sends depth, topic, time range and domains with a Bearer key", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes);
    const tool = tavilyProvider.tools.find((t) => t.name === "tavily_search")!;
    const out = await tool.run(
      tool.input.parse({
        query: "deno kv",
        max_results: 2,
        search_depth: "advanced",
        topic: "news",
        time_range: "day",
        include_domains: ["deno.com"],
        exclude_domains: ["spam.example"],
      }),
      env,
    ) as {
      results: { url: string; published?: string; provider_data?: Record<string, unknown> }[];
    };
    const [req] = fakes.requestsOf("tavily");
    assert.equal(req.path, "/search");
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(req.body, {
      query: "deno kv",
      max_results: 2,
      search_depth: "advanced",
      topic: "news",
      include_answer: false,
      time_range: "day",
      include_domains: ["deno.com"],
      exclude_domains: ["spam.example"],
    });
    assert.equal(out.results.length, 2);
    assert.equal(out.results[0].published, "2024-05-01T00:00:00.000Z");
    assert.equal(out.results[0].provider_data?.score, 0.8);
  });
});

Deno.test("tavily: quick and deep answers ask for basic and advanced", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes);
    const quick = await tavilyProvider.answer!({ query: "why wal", depth: "quick" }, env);
    const quickBody = fakes.requestsOf("tavily")[0].body as Record<string, unknown>;
    assert.equal(quickBody.include_answer, "basic");
    assert.equal(quickBody.search_depth, "basic");
    assert.equal(quick.answer, "The answer to why wal, according to the sources. (basic)");
    assert.equal(quick.citations.length, 3);
    const deep = await tavilyProvider.answer!({ query: "why wal", depth: "deep" }, env);
    const deepBody = fakes.requestsOf("tavily")[1].body as Record<string, unknown>;
    assert.equal(deepBody.include_answer, "advanced");
    assert.equal(deepBody.search_depth, "advanced");
    assert.match(deep.answer, /\(advanced\)$/);
  });
});

Deno.test("tavily: extract returns Markdown per URL; a failed URL fails alone", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes);
    const out = await tavilyProvider.contents!({
      urls: ["https://a.example/1", "https://a.example/missing"],
    }, env);
    const [req] = fakes.requestsOf("tavily");
    assert.equal(req.path, "/extract");
    assert.deepEqual(req.body, {
      urls: ["https://a.example/1", "https://a.example/missing"],
      extract_depth: "basic",
      format: "markdown",
    });
    assert.match(out.pages[0].content, /read by tavily/);
    assert.equal(out.pages[1].error?.code, "provider_unavailable");
    // Tavily's extract results have no title field: the page has none, not an empty one.
    assert.ok(!("title" in out.pages[0]), JSON.stringify(out.pages[0].title));
  });
});

/** A question of 690 characters, words of varying length. */
const LONG = Array.from(
  { length: 80 },
  (_, i) => ["write-ahead", "logging", "in", "sqlite", "checkpoints", "readers"][i % 6],
).join(" ").slice(0, 690).trim();

function routerOf(fakes: Parameters<Parameters<typeof withFakeProviders>[0]>[0]) {
  const config = parseConfig(fakes.config({ tavily: KEY, exa: "ke" }, {
    search_order: ["tavily", "exa"],
    answer_order: ["tavily", "exa"],
  }));
  return createRoleRouter({ config, fetcher: createFetcher(config.network) });
}

Deno.test("tavily: a search query over Tavily's 400 characters is cut at a word boundary, and the answer says so", async () => {
  await withFakeProviders(async (fakes) => {
    assert.ok(LONG.length > 600);
    const out = await routerOf(fakes).search({ query: LONG, max_results: 2 });
    assert.equal(out.provider, "tavily");
    assert.deepEqual(out.fallback_from, []);
    const sent = String((fakes.requestsOf("tavily")[0].body as Record<string, unknown>).query);
    assert.ok(sent.length <= 400, `${sent.length} characters sent`);
    assert.ok(LONG.startsWith(`${sent} `), "a whole-word prefix of the query");
    assert.match(out.notices?.join(" ") ?? "", /tavily.*400 characters/);
  });
});

Deno.test("tavily: a question over 400 characters goes whole to the next answer provider; Tavily is not asked and stays healthy", async () => {
  await withFakeProviders(async (fakes) => {
    const roles = routerOf(fakes);
    const out = await roles.answer({ query: LONG });
    assert.equal(out.provider, "exa");
    assert.deepEqual(out.fallback_from, [{ provider: "tavily", code: "too_large" }]);
    assert.equal(fakes.requestsOf("tavily").length, 0, "nothing over the limit is sent");
    assert.equal(
      (fakes.requestsOf("exa")[0].body as Record<string, unknown>).query,
      LONG,
      "the next provider gets the whole question",
    );
    assert.equal(roles.health().find((h) => h.provider === "tavily")?.last_code, undefined);
    const pinned = await roles.answer({ query: LONG, provider: "tavily" }).then(
      () => assert.fail("expected a refusal"),
      (e) => e,
    );
    assert.equal(pinned.code, "too_large");
    assert.match(pinned.message, /tavily.*at most 400/);
    assert.equal(pinned.details?.field, "query");
  });
});

Deno.test("tavily: every failure class (432 for credit) is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, { providers: { tavily: { timeout_ms: 400 } } });
    await assertFailureClasses(
      fakes,
      "tavily",
      KEY,
      () => tavilyProvider.search!({ query: "x", max_results: 3 }, env),
    );
    await assertFailureClasses(
      fakes,
      "tavily",
      KEY,
      () => tavilyProvider.contents!({ urls: ["https://a.example/"] }, env),
    );
  });
});
