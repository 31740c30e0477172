import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { createFetcher } from "../net/fetch.ts";
import {
  type FakeSearchSettings,
  fakeUpstreamConfig,
  type FakeUpstreams,
  withFakeUpstreams,
} from "../../testing/fixtures/upstreams.ts";
import { createSearchRouter } from "./router.ts";
import { type Attempt, SearchFailure } from "../net/upstream_failure.ts";

const withFakes = withFakeUpstreams;

function router(fakes: FakeUpstreams, settings: FakeSearchSettings = {}) {
  const config = parseConfig(fakeUpstreamConfig(fakes, settings));
  return createSearchRouter(config, createFetcher(config.network));
}

function assertAttempts(attempts: Attempt[], expected: [string, string][]) {
  assert.deepEqual(attempts.map((a) => [a.backend, a.outcome]), expected);
  for (const attempt of attempts) {
    assert.ok(Number.isInteger(attempt.ms) && attempt.ms >= 0, `ms recorded: ${attempt.ms}`);
  }
}

const ENGINES = ["duckduckgo", "mojeek", "brave_html", "yahoo", "yandex", "wikipedia"];

Deno.test("router: auto without SearXNG asks two keyless engines and caps results", async () => {
  await withFakes(async (fakes) => {
    const search = router(fakes);
    assert.deepEqual(search.backends, ENGINES);
    const { results, attempts, provider } = await search.search({ query: "caps", max_results: 3 });
    assert.equal(results.length, 3);
    assert.equal(provider, "duckduckgo+mojeek");
    assertAttempts(attempts, [["duckduckgo", "ok"], ["mojeek", "ok"]]);
    assert.deepEqual(fakes.requests.map((r) => r.backend).sort(), ["duckduckgo_html", "mojeek"]);
  });
});

Deno.test("router: auto prefers SearXNG when configured", async () => {
  await withFakes(async (fakes) => {
    const search = router(fakes, { searxng: true });
    assert.deepEqual(search.backends, ["searxng", ...ENGINES]);
    const { results, attempts } = await search.search({ query: "pref", max_results: 4 });
    assert.equal(results.length, 4);
    assert.ok(results.every((hit) => hit.source === "searxng"));
    assertAttempts(attempts, [["searxng", "ok"]]);
  });
});

Deno.test("router: auto falls back from SearXNG to the keyless engines, recording each", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("searxng", "forbidden");
    const search = router(fakes, { searxng: true });
    const { results, attempts } = await search.search({ query: "fallback", max_results: 5 });
    assert.equal(results.length, 5);
    assert.ok(results.every((hit) => hit.source === "duckduckgo" || hit.source === "mojeek"));
    assert.match(results[0].snippet, /fallback/);
    assertAttempts(attempts, [["searxng", "invalid"], ["duckduckgo", "ok"], ["mojeek", "ok"]]);
    assert.deepEqual(fakes.requests.map((r) => r.backend).sort(), [
      "duckduckgo_html",
      "mojeek",
      "searxng",
    ]);
  });
});

Deno.test("router: when every backend fails the error carries all attempts", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("searxng", "ratelimit");
    fakes.setMode("duckduckgo", "captcha");
    for (const engine of ENGINES.slice(1)) fakes.setMode(engine as "mojeek", "captcha");
    const search = router(fakes, { searxng: true });
    const error = await search.search({ query: "x", max_results: 5 }).then(
      () => assert.fail("expected a failure"),
      (e) => e,
    );
    assert.ok(error instanceof SearchFailure);
    // Wikipedia's refusal (its `ratelimited` API error) is the last failure, and is thrown.
    assert.equal(error.outcome, "rate_limited", "the last failure is thrown");
    const expected: [string, string][] = [
      ["searxng", "rate_limited"],
      ...ENGINES.slice(0, 5).map((name): [string, string] => [name, "blocked"]),
      ["wikipedia", "rate_limited"],
    ];
    assertAttempts(error.attempts, expected);
    const json = error.toJSON();
    assert.deepEqual(
      (json.details?.attempts as Attempt[]).map((a) => a.outcome),
      expected.map(([, outcome]) => outcome),
    );
  });
});

Deno.test("router: a pinned backend is asked alone", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("searxng", "error");
    const search = router(fakes, { searxng: true, backend: "searxng", pin_backend: true });
    assert.deepEqual(search.backends, ["searxng"]);
    const error = await search.search({ query: "x", max_results: 5 }).then(
      () => assert.fail("expected a failure"),
      (e) => e,
    );
    assert.ok(error instanceof SearchFailure);
    assertAttempts(error.attempts, [["searxng", "unavailable"]]);
    assert.ok(fakes.requests.every((r) => r.backend === "searxng"));

    const noUrl = router(fakes, { backend: "searxng" });
    const missing = await noUrl.search({ query: "x", max_results: 5 }).then(
      () => assert.fail("expected a failure"),
      (e) => e,
    );
    assert.equal(missing.code, "invalid_arguments");
    assert.match(missing.message, /search\.searxng_url/);
  });
});

Deno.test("router: backend searxng falls back to DuckDuckGo when SearXNG answers 5xx", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("searxng", "error");
    const search = router(fakes, { searxng: true, backend: "searxng" });
    assert.deepEqual(search.backends, ["searxng", "duckduckgo"]);
    const out = await search.search({ query: "outage", max_results: 3 });
    assert.equal(out.provider, "duckduckgo");
    assert.equal(out.results.length, 3);
    assert.ok(out.results.every((hit) => hit.source === "duckduckgo"));
    assert.deepEqual(out.fallback_from, [{ provider: "searxng", code: "provider_unavailable" }]);
    assertAttempts(out.attempts, [["searxng", "unavailable"], ["duckduckgo", "ok"]]);
    assert.deepEqual(fakes.requests.map((r) => r.backend), ["searxng", "duckduckgo_html"]);
  });
});

Deno.test("router: backend searxng falls back to DuckDuckGo when SearXNG refuses connections", async () => {
  await withFakes(async (fakes) => {
    // A loopback port nobody listens on: the instance is down.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const down = `http://127.0.0.1:${port}`;
    const input = fakeUpstreamConfig(fakes, { backend: "searxng", searxng_url: down });
    // The test opens loopback to exactly the fakes' origin and the closed port.
    input.network.allow_private.push(down);
    input.network.allowed_ports.push(port);
    const config = parseConfig(input);
    const search = createSearchRouter(config, createFetcher(config.network));
    const out = await search.search({ query: "refused", max_results: 2 });
    assert.equal(out.provider, "duckduckgo");
    assert.equal(out.results.length, 2);
    assert.deepEqual(out.fallback_from, [{ provider: "searxng", code: "provider_unavailable" }]);
    assertAttempts(out.attempts, [["searxng", "unavailable"], ["duckduckgo", "ok"]]);

    // Pinned, the outage is the answer.
    const pinnedConfig = parseConfig({ ...input, search: { ...input.search, pin_backend: true } });
    const pinned = createSearchRouter(pinnedConfig, createFetcher(pinnedConfig.network));
    const error = await pinned.search({ query: "refused", max_results: 2 }).then(
      () => assert.fail("expected a failure"),
      (e) => e,
    );
    assert.ok(error instanceof SearchFailure);
    assert.equal(error.code, "provider_unavailable");
    assertAttempts(error.attempts, [["searxng", "unavailable"]]);
  });
});

Deno.test("router: domains restrict results (subdomains, case, www) and hint site:", async () => {
  await withFakes(async (fakes) => {
    fakes.setResults([
      { url: "https://docs.example.com/a", title: "A", snippet: "{query}" },
      { url: "https://evil-example.com/b", title: "B", snippet: "{query}" },
      { url: "https://WWW.Example.COM/c", title: "C", snippet: "{query}" },
      { url: "https://example.com.attacker.net/d", title: "D", snippet: "{query}" },
      { url: "https://other.org/e", title: "E", snippet: "{query}" },
      { url: "https://rfc-editor.org/f", title: "F", snippet: "{query}" },
    ]);
    const search = router(fakes);
    const one = await search.search({ query: "q", max_results: 10, domains: ["www.example.com"] });
    assert.deepEqual(one.results.map((hit) => hit.title), ["A", "C"]);
    const asked = () => fakes.requests.splice(0).map((r) => r.query);
    assert.deepEqual(asked(), ["q site:example.com", "q site:example.com"]);

    const two = await search.search({
      query: "q",
      max_results: 10,
      domains: ["Example.com", "https://www.rfc-editor.org/"],
    });
    assert.deepEqual(two.results.map((hit) => hit.title), ["A", "C", "F"]);
    assert.deepEqual(asked(), [
      "q (site:example.com OR site:rfc-editor.org)",
      "q (site:example.com OR site:rfc-editor.org)",
    ]);

    // Nothing in the domain anywhere: every engine was asked, each once, and answered nothing.
    const none = await search.search({ query: "q", max_results: 10, domains: ["nowhere.test"] });
    assert.deepEqual(none.results, []);
    assert.deepEqual(none.attempts.map((a) => a.backend).sort(), [...ENGINES].sort());
    assert.ok(none.attempts.every((a) => a.outcome === "empty"));
  });
});

Deno.test("router: duplicate URLs are dropped (fragment, trailing slash)", async () => {
  await withFakes(async (fakes) => {
    fakes.setResults([
      { url: "https://a.example/page", title: "1", snippet: "" },
      { url: "https://a.example/page/", title: "2", snippet: "" },
      { url: "https://a.example/page#section", title: "3", snippet: "" },
      { url: "https://a.example/other", title: "4", snippet: "" },
    ]);
    const { results } = await router(fakes).search({ query: "d", max_results: 10 });
    assert.deepEqual(results.map((hit) => hit.title), ["1", "4"]);
  });
});

Deno.test("router: zero results is empty, not a failure", async () => {
  await withFakes(async (fakes) => {
    fakes.setMode("searxng", "empty");
    const { results, attempts } = await router(fakes, { searxng: true }).search({
      query: "nothing",
      max_results: 5,
    });
    assert.deepEqual(results, []);
    assertAttempts(attempts, [["searxng", "empty"]]);
  });
});

Deno.test("router: bad requests are invalid_arguments naming the field", async () => {
  await withFakes(async (fakes) => {
    const search = router(fakes);
    const cases: [Parameters<typeof search.search>[0], string][] = [
      [{ query: "  ", max_results: 5 }, "query"],
      [{ query: "x", max_results: 0 }, "max_results"],
      [{ query: "x", max_results: 5, domains: ["not a domain"] }, "domains"],
    ];
    for (const [req, field] of cases) {
      const error = await search.search(req).then(
        () => assert.fail("expected a failure"),
        (e) => e,
      );
      assert.ok(error instanceof GleanerError);
      assert.equal(error.code, "invalid_arguments");
      assert.equal(error.details?.field, field);
    }
    assert.equal(fakes.requests.length, 0);
  });
});
