import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { exaProvider } from "./exa.ts";
import type { ProviderEnv } from "./types.ts";

const KEY = "exa-test-key-123";

function envFor(config: ReturnType<typeof parseConfig>): ProviderEnv {
  return { config, fetcher: createFetcher(config.network) };
}

Deno.test("exa: search sends Exa's request and normalizes results", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envFor(parseConfig(fakes.config({ exa: KEY })));
    assert.ok(exaProvider.isConfigured(env.config));
    const hits = await exaProvider.search!({
      query: "sqlite wal",
      max_results: 2,
      domains: ["sqlite.org"],
      exclude_domains: ["spam.example"],
      time_range: "week",
      topic: "news",
      depth: "deep",
    }, env);
    const [req] = fakes.requestsOf("exa");
    assert.equal(req.method, "POST");
    assert.equal(req.path, "/search");
    assert.equal(req.headers["x-api-key"], KEY);
    assert.equal(req.headers["content-type"], "application/json");
    const body = req.body as Record<string, unknown>;
    assert.equal(body.query, "sqlite wal");
    assert.equal(body.numResults, 2);
    assert.equal(body.type, "deep");
    assert.equal(body.category, "news");
    assert.deepEqual(body.includeDomains, ["sqlite.org"]);
    assert.deepEqual(body.excludeDomains, ["spam.example"]);
    assert.deepEqual(body.contents, { highlights: true });
    const since = Date.parse(String(body.startPublishedDate));
    assert.ok(Date.now() - since > 6 * 86_400_000 && Date.now() - since < 8 * 86_400_000);

    assert.equal(hits.length, 2);
    assert.deepEqual(
      { ...hits[0], provider_data: undefined },
      {
        title: "Write-Ahead Logging",
        url: "https://sqlite.org/wal.html",
        snippet: "The default method by which SQLite implements atomic commit; about sqlite wal.",
        published: "2024-05-01T00:00:00.000Z",
        source: "exa",
        provider_data: undefined,
      },
    );
    assert.equal(hits[0].provider_data?.author, "A. Writer");
    assert.equal(hits[0].provider_data?.score, 0.9);
    assert.equal(hits[1].title, "Deno runtime", "tags stripped from titles");
    assert.match(hits[1].snippet, /JavaScript & TypeScript/, "entities decoded");
  });
});

Deno.test("exa: find-similar, contents and answer use their endpoints", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envFor(parseConfig(fakes.config({ exa: KEY })));
    const similar = exaProvider.tools.find((t) => t.name === "exa_find_similar")!;
    const out = await similar.run(
      similar.input.parse({ url: "https://sqlite.org/", max_results: 3 }),
      env,
    ) as { results: { url: string }[] };
    assert.equal(out.results.length, 3);
    // /findSimilar is deprecated (https://exa.ai/docs/reference/deprecations): the page is read
    // with /contents and described to /search.
    const [read, search] = fakes.requestsOf("exa").slice(-2);
    assert.equal(read.path, "/contents");
    assert.deepEqual(read.body, { urls: ["https://sqlite.org/"], text: { maxCharacters: 2000 } });
    assert.equal(search.path, "/search");
    const sent = search.body as Record<string, unknown>;
    assert.match(
      String(sent.query),
      /^Page https:\/\/sqlite\.org\/ /,
      "title and text describe it",
    );
    assert.ok(String(sent.query).length <= 400);
    assert.deepEqual(sent.excludeDomains, ["sqlite.org"]);
    assert.ok(!fakes.requestsOf("exa").some((r) => r.path === "/findSimilar"));
    assert.ok(
      out.results.every((r) => r.url.replace(/\/$/, "") !== "https://sqlite.org"),
      "never the page itself",
    );
    let req = search;

    const contents = await exaProvider.contents!({
      urls: ["https://a.example/one", "https://a.example/missing"],
    }, env);
    req = fakes.requestsOf("exa").at(-1)!;
    assert.equal(req.path, "/contents");
    assert.deepEqual(req.body, {
      urls: ["https://a.example/one", "https://a.example/missing"],
      text: true,
    });
    assert.equal(contents.pages[0].title, "Page https://a.example/one");
    assert.match(contents.pages[0].content, /main content of https:\/\/a\.example\/one/);
    assert.equal(contents.pages[1].error?.code, "not_found", "a failed URL fails alone");

    const quick = await exaProvider.answer!({ query: "what is wal", depth: "quick" }, env);
    req = fakes.requestsOf("exa").at(-1)!;
    assert.equal(req.path, "/answer");
    assert.deepEqual(req.body, { query: "what is wal", text: false });
    assert.equal(quick.answer, "The answer to what is wal, according to the sources.");
    assert.equal(quick.citations.length, 2);
    assert.equal(quick.citations[0].url, "https://sqlite.org/wal.html");
    assert.equal(quick.provider_data?.cost_dollars, 0.005);
    await exaProvider.answer!({ query: "what is wal", depth: "deep" }, env);
    assert.deepEqual(fakes.requestsOf("exa").at(-1)!.body, { query: "what is wal", text: true });
  });
});

Deno.test("exa: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envFor(parseConfig(fakes.config({ exa: KEY }, {
      providers: { exa: { timeout_ms: 400 } },
    })));
    await assertFailureClasses(
      fakes,
      "exa",
      KEY,
      () => exaProvider.search!({ query: "x", max_results: 3 }, env),
    );
    await assertFailureClasses(
      fakes,
      "exa",
      KEY,
      () => exaProvider.answer!({ query: "x", depth: "quick" }, env),
    );
  });
});

Deno.test("exa: find-similar of a page Exa cannot read is described by its URL, even with a malformed escape", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envFor(parseConfig(fakes.config({ exa: KEY })));
    const similar = exaProvider.tools.find((t) => t.name === "exa_find_similar")!;
    await similar.run(
      similar.input.parse({ url: "https://docs.example/missing/wal-mode%E0%A4%A", max_results: 2 }),
      env,
    );
    const search = fakes.requestsOf("exa").at(-1)!;
    assert.equal(search.path, "/search");
    assert.match(
      String((search.body as { query: string }).query),
      /^docs example\s+missing wal mode/,
    );
  });
});
