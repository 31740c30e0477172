import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import {
  fakeUpstreamConfig,
  type FakeUpstreams,
  withFakeUpstreams,
} from "../../../testing/fixtures/upstreams.ts";
import { searxngProvider } from "./searxng.ts";
import type { ProviderSearchRequest } from "./types.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";

const withFakes = withFakeUpstreams;

/** A search through the SearXNG provider against the fakes. */
function setup(fakes: FakeUpstreams, search: Record<string, unknown> = {}) {
  const config = parseConfig(fakeUpstreamConfig(fakes, { searxng: true, ...search }));
  const env = { config, fetcher: createFetcher(config.network) };
  return (req: ProviderSearchRequest) => searxngProvider.search!(req, env);
}

async function failure(promise: Promise<unknown>): Promise<SearchFailure> {
  const error = await promise.then(() => assert.fail("expected a failure"), (e) => e);
  assert.ok(error instanceof SearchFailure, `not a SearchFailure: ${error}`);
  return error;
}

Deno.test("searxng: JSON results with every parameter sent", async () => {
  await withFakes(async (fakes) => {
    const search = setup(fakes, {
      searxng_engines: ["brave", "wikipedia"],
      searxng_categories: ["general", "it"],
      safesearch: 2,
    });
    const hits = await search({
      query: "deno kv",
      max_results: 5,
      language: "en-US",
      time_range: "month",
    });
    assert.equal(hits.length, 10, "one page of ten");
    assert.equal(hits[0].url, "https://en.wikipedia.org/wiki/Web_search_engine");
    assert.equal(hits[0].source, "searxng");
    assert.match(hits[0].snippet, /deno kv/);
    assert.equal(hits[0].published, "2024-03-02T00:00:00.000Z");
    assert.equal(hits[1].published, undefined);
    assert.equal(fakes.requests.length, 1);
    const { method, path, params } = fakes.requests[0];
    assert.equal(method, "GET");
    assert.equal(path, "/searxng/search");
    assert.deepEqual(params, {
      q: "deno kv",
      format: "json",
      pageno: "1",
      categories: "general,it",
      engines: "brave,wikipedia",
      language: "en-US",
      time_range: "month",
      safesearch: "2",
    });
  });
});

Deno.test("searxng: more pages are fetched while max_results is not reached", async () => {
  await withFakes(async (fakes) => {
    const search = setup(fakes);
    const hits = await search({ query: "x", max_results: 20 });
    assert.equal(hits.length, 12);
    assert.deepEqual(fakes.requests.map((r) => r.params.pageno), ["1", "2", "3"]);
    assert.equal(new Set(hits.map((hit) => hit.url)).size, 12);
  });
});

Deno.test("searxng: 403 names search.formats: json in settings.yml", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("searxng", "forbidden");
    const search = setup(fakes);
    const error = await failure(search({ query: "x", max_results: 5 }));
    assert.equal(error.outcome, "invalid");
    assert.match(error.message, /search\.formats: json/);
    assert.match(error.message, /settings\.yml/);
    assert.ok(!error.message.includes("<h1>"), "upstream body not echoed");
  });
});

Deno.test("searxng: 429 is rate_limited, 500 unavailable, all engines down unavailable", async () => {
  await withFakes(async (fakes) => {
    const search = setup(fakes);
    fakes.setMode("searxng", "ratelimit");
    assert.equal(
      (await failure(search({ query: "x", max_results: 5 }))).outcome,
      "rate_limited",
    );
    fakes.setMode("searxng", "error");
    assert.equal(
      (await failure(search({ query: "x", max_results: 5 }))).outcome,
      "unavailable",
    );
    fakes.setMode("searxng", "captcha");
    const down = await failure(search({ query: "x", max_results: 5 }));
    assert.equal(down.outcome, "unavailable");
    assert.match(down.message, /duckduckgo, brave, startpage/);
    fakes.setMode("searxng", "empty");
    assert.deepEqual(await search({ query: "x", max_results: 5 }), []);
  });
});

Deno.test("searxng: up to 50 results over five pages; default_language when a search names none", async () => {
  await withFakes(async (fakes) => {
    // SearXNG answers ten results a page (https://docs.searxng.org/dev/search_api.html, `pageno`).
    fakes.setResults(
      Array.from({ length: 60 }, (_, i) => ({
        url: `https://r${i}.example/`,
        title: `Result ${i}`,
        snippet: `About {query}, ${i}`,
      })),
      "searxng",
    );
    const search = setup(fakes, {
      providers: { searxng: { default_language: "pt-BR" } },
    });
    const hits = await search({ query: "x", max_results: 50 });
    assert.equal(hits.length, 50);
    assert.deepEqual(fakes.requests.map((r) => r.params.pageno), ["1", "2", "3", "4", "5"]);
    assert.ok(fakes.requests.every((r) => r.params.language === "pt-BR"));

    fakes.requests.length = 0;
    await search({ query: "x", max_results: 5, language: "de" });
    assert.equal(fakes.requests[0].params.language, "de", "the search's own language wins");

    // The provider's own tool offers 50 as well.
    const tool = searxngProvider.tools[0];
    assert.ok(tool.input.safeParse({ query: "x", max_results: 50 }).success);
    assert.ok(!tool.input.safeParse({ query: "x", max_results: 51 }).success);
  });
});
