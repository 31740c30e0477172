import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import {
  fakeUpstreamConfig,
  type FakeUpstreams,
  withFakeUpstreams,
} from "../../../testing/fixtures/upstreams.ts";
import { duckduckgoRegion, unwrapDuckDuckGoUrl } from "./duckduckgo_call.ts";
import { duckduckgoProvider } from "./duckduckgo.ts";
import type { ProviderSearchRequest } from "./types.ts";
import { parseDuckDuckGoHtml } from "./duckduckgo_parse.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";

const withFakes = withFakeUpstreams;

/** A search through the DuckDuckGo provider against the fakes. */
function setup(fakes: FakeUpstreams) {
  const config = parseConfig(fakeUpstreamConfig(fakes));
  const env = { config, fetcher: createFetcher(config.network) };
  return (req: ProviderSearchRequest) => duckduckgoProvider.search!(req, env);
}

Deno.test("duckduckgo: HTML page is parsed, links unwrapped, the ad dropped", async () => {
  await withFakes(async (fakes) => {
    const search = setup(fakes);
    const hits = await search({ query: "permission flags", max_results: 20 });
    assert.equal(hits.length, 12);
    assert.equal(hits[0].url, "https://en.wikipedia.org/wiki/Web_search_engine");
    assert.equal(hits[0].title, "Search engine - Wikipedia");
    assert.equal(hits[0].source, "duckduckgo");
    assert.equal(hits[0].published, "2024-03-02T00:00:00.000Z");
    assert.equal(hits[1].published, undefined);
    // the query arrived: the fake echoes it into the snippet
    assert.match(hits[0].snippet, /matching permission flags\.$/);
    // query-string URLs survive the uddg round trip
    assert.ok(hits.some((hit) => hit.url === "https://news.ycombinator.com/item?id=39012345"));
    for (const hit of hits) {
      assert.ok(!hit.url.includes("duckduckgo.com"), `wrapped or ad link leaked: ${hit.url}`);
      assert.ok(!/example-ads/.test(hit.url), `ad leaked: ${hit.url}`);
    }
    assert.deepEqual(fakes.requests.map((r) => [r.backend, r.method]), [[
      "duckduckgo_html",
      "POST",
    ]]);
    assert.deepEqual(fakes.requests[0].params, {
      q: "permission flags",
      b: "",
      kl: "us-en",
      df: "",
    });
  });
});

Deno.test("duckduckgo: time_range maps to df and language to kl", async () => {
  await withFakes(async (fakes) => {
    const search = setup(fakes);
    const cases = [["day", "d"], ["week", "w"], ["month", "m"], ["year", "y"]] as const;
    for (const [range] of cases) {
      await search({ query: "q", max_results: 5, time_range: range, language: "de" });
    }
    assert.deepEqual(fakes.requests.map((r) => r.params.df), cases.map(([, df]) => df));
    assert.ok(fakes.requests.every((r) => r.params.kl === "de-de"));
    assert.equal(fakes.requests[0].headers["accept-language"], "de");
  });
});

Deno.test("duckduckgo: falls back to the lite page when the HTML page errors", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("duckduckgo_html", "error");
    const search = setup(fakes);
    const hits = await search({ query: "lite fallback", max_results: 20 });
    assert.deepEqual(fakes.requests.map((r) => r.backend), ["duckduckgo_html", "duckduckgo_lite"]);
    assert.equal(fakes.requests[1].method, "POST");
    assert.equal(fakes.requests[1].params.q, "lite fallback");
    assert.equal(hits.length, 12, "sponsored row dropped, every organic row kept");
    assert.equal(hits[0].url, "https://en.wikipedia.org/wiki/Web_search_engine");
    assert.match(hits[0].snippet, /lite fallback/);
    assert.equal(hits[4].published, "2010-11-27T00:00:00.000Z");
    assert.ok(hits.every((hit) => !hit.url.includes("duckduckgo.com")));
  });
});

Deno.test("duckduckgo: the bot challenge is blocked, not zero results", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("duckduckgo", "captcha");
    const search = setup(fakes);
    const error = await search({ query: "x", max_results: 5 }).then(
      () => assert.fail("expected a failure"),
      (e) => e,
    );
    assert.ok(error instanceof SearchFailure);
    assert.equal(error.outcome, "blocked");
    assert.equal(error.code, "provider_unavailable");
    assert.match(error.message, /bot challenge/);
    assert.deepEqual(fakes.requests.map((r) => r.backend), ["duckduckgo_html", "duckduckgo_lite"]);
  });
});

Deno.test("duckduckgo: challenge served with 200 is detected too", () => {
  const page = parseDuckDuckGoHtml(
    `<html><body><div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
     <form id="challenge-form" action="//duckduckgo.com/anomaly.js"></form></body></html>`,
  );
  assert.equal(page.kind, "blocked");
  assert.equal(
    parseDuckDuckGoHtml("<html><body><p>maintenance</p></body></html>").kind,
    "unrecognised",
  );
});

Deno.test("duckduckgo: 429 is rate_limited and the lite page is not hammered", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("duckduckgo_html", "ratelimit");
    const search = setup(fakes);
    const error = await search({ query: "x", max_results: 5 }).then(
      () => assert.fail("expected a failure"),
      (e) => e,
    );
    assert.ok(error instanceof SearchFailure);
    assert.equal(error.outcome, "rate_limited");
    assert.equal(error.code, "rate_limited");
    assert.deepEqual(fakes.requests.map((r) => r.backend), ["duckduckgo_html"]);
  });
});

Deno.test("duckduckgo: a no-results page is an empty list", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("duckduckgo", "empty");
    const search = setup(fakes);
    assert.deepEqual(await search({ query: "zzzz", max_results: 5 }), []);
    assert.equal(fakes.requests.length, 1, "empty is an answer: no lite fallback");
  });
});

Deno.test("duckduckgo: unwrap handles protocol-relative, double-wrapped ads, direct links", () => {
  assert.equal(
    unwrapDuckDuckGoUrl(
      "//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fp%3Fx%3D1%26y%3D2&rut=f",
    ),
    "https://a.example/p?x=1&y=2",
  );
  assert.equal(
    unwrapDuckDuckGoUrl(
      "//duckduckgo.com/l/?uddg=https%3A%2F%2Fduckduckgo.com%2Fy.js%3Fad_domain%3Dshop.example&rut=d",
    ),
    undefined,
  );
  assert.equal(
    unwrapDuckDuckGoUrl("https://direct.example.org/page"),
    "https://direct.example.org/page",
  );
  assert.equal(unwrapDuckDuckGoUrl("javascript:alert(1)"), undefined);
  assert.equal(duckduckgoRegion("pt-BR", "us-en"), "br-pt");
  assert.equal(duckduckgoRegion("ja", "us-en"), "jp-jp");
  assert.equal(duckduckgoRegion("all", "us-en"), "wt-wt");
  assert.equal(duckduckgoRegion("xx", "us-en"), "us-en");
});
