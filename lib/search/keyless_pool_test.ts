import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { createFetcher } from "../net/fetch.ts";
import {
  type FakeSearchSettings,
  fakeUpstreamConfig,
  type FakeUpstreams,
  withFakeUpstreams,
} from "../../testing/fixtures/upstreams.ts";
import { createRoleRouter } from "./roles.ts";

const ENGINES = ["duckduckgo", "mojeek", "brave_html", "yahoo", "yandex", "wikipedia"];

function rolesOf(fakes: FakeUpstreams, settings: FakeSearchSettings = {}) {
  const config = parseConfig(fakeUpstreamConfig(fakes, settings));
  return createRoleRouter({ config, fetcher: createFetcher(config.network) });
}

const asked = (out: { attempts: { backend: string; outcome: string }[] }) =>
  out.attempts.map((a) => [a.backend, a.outcome]);

Deno.test("keyless pool: DuckDuckGo's bot wall no longer sinks a keyless search", async () => {
  await withFakeUpstreams(async (fakes) => {
    // DuckDuckGo answers both its pages with its real bot challenge (202, the anomaly page).
    fakes.setMode("duckduckgo", "captcha");
    const roles = rolesOf(fakes);
    const out = await roles.search({ query: "wall", max_results: 5 });
    assert.equal(out.results.length, 5);
    assert.deepEqual(asked(out), [["duckduckgo", "blocked"], ["mojeek", "ok"], [
      "brave_html",
      "ok",
    ]]);
    assert.equal(out.provider, "mojeek+brave_html");
    assert.deepEqual(out.fallback_from, [{ provider: "duckduckgo", code: "provider_unavailable" }]);
    assert.ok(out.results.every((hit) => hit.source === "mojeek" || hit.source === "brave_html"));
    assert.match(out.results[0].snippet, /wall/);

    // A bot wall opens DuckDuckGo's breaker at once: the next searches leave it alone.
    assert.equal(roles.health().find((h) => h.provider === "duckduckgo")?.state, "open");
    const before = fakes.requests.filter((r) => r.backend.startsWith("duckduckgo")).length;
    const calls: Record<string, number> = {};
    for (let i = 0; i < 5; i++) {
      const next = await roles.search({ query: `wall ${i}`, max_results: 5, no_cache: true });
      assert.equal(next.results.length, 5);
      assert.deepEqual(next.fallback_from[0], {
        provider: "duckduckgo",
        code: "provider_unavailable",
        skipped: true,
      });
      for (const a of next.attempts) calls[a.backend] = (calls[a.backend] ?? 0) + 1;
    }
    const after = fakes.requests.filter((r) => r.backend.startsWith("duckduckgo")).length;
    assert.equal(after, before, "no request reached DuckDuckGo while it cools down");
    // The rotation runs over the five engines left: each took an even share.
    assert.deepEqual(calls, { mojeek: 2, brave_html: 2, yahoo: 2, yandex: 2, wikipedia: 2 });
  });
});

Deno.test("keyless pool: searches rotate over the engines, two at a time", async () => {
  await withFakeUpstreams(async (fakes) => {
    const roles = rolesOf(fakes);
    assert.deepEqual(roles.providers("search"), ENGINES);
    const seen: string[][] = [];
    for (let i = 0; i < 4; i++) {
      const out = await roles.search({ query: `turn ${i}`, max_results: 4 });
      assert.ok(out.results.length > 0);
      seen.push(out.attempts.map((a) => a.backend));
    }
    assert.deepEqual(seen, [
      ["duckduckgo", "mojeek"],
      ["brave_html", "yahoo"],
      ["yandex", "wikipedia"],
      ["duckduckgo", "mojeek"],
    ]);
  });
});

Deno.test("keyless pool: a failing engine is replaced by the next; answers merge and dedupe", async () => {
  await withFakeUpstreams(async (fakes) => {
    fakes.setMode("mojeek", "error");
    fakes.setResults([
      { url: "https://a.example/one", title: "A1", snippet: "first from DuckDuckGo" },
      { url: "https://shared.example/page", title: "S", snippet: "short" },
      { url: "https://a.example/two", title: "A2", snippet: "" },
    ], "duckduckgo_html");
    fakes.setResults([
      { url: "http://www.shared.example/page/", title: "S", snippet: "the longer snippet" },
      { url: "https://b.example/one", title: "B1", snippet: "first from Brave" },
    ], "brave_html");
    const out = await rolesOf(fakes).search({ query: "merge", max_results: 10 });
    assert.deepEqual(asked(out), [["duckduckgo", "ok"], ["mojeek", "unavailable"], [
      "brave_html",
      "ok",
    ]]);
    assert.deepEqual(out.fallback_from, [{ provider: "mojeek", code: "provider_unavailable" }]);
    // Found by both: first; then each engine's first, then their seconds.
    assert.deepEqual(out.results.map((hit) => hit.title), ["S", "A1", "B1", "A2"]);
    assert.equal(out.results[0].snippet, "the longer snippet");
    assert.deepEqual(out.results[0].provider_data?.found_by, ["duckduckgo", "brave_html"]);
  });
});

Deno.test("keyless pool: engines that cannot honour a time range are left out", async () => {
  await withFakeUpstreams(async (fakes) => {
    const roles = rolesOf(fakes, { keyless_engines_per_query: 6 });
    const week = await roles.search({ query: "recent", max_results: 5, time_range: "week" });
    assert.deepEqual(week.attempts.map((a) => a.backend).sort(), [
      "brave_html",
      "duckduckgo",
      "mojeek",
      "yahoo",
    ]);
    const year = await roles.search({ query: "recent", max_results: 5, time_range: "year" });
    assert.deepEqual(year.attempts.map((a) => a.backend).sort(), [
      "brave_html",
      "duckduckgo",
      "mojeek",
    ]);
    assert.equal(year.notices, undefined, "nothing was dropped: Yahoo was not asked");
  });
});

Deno.test("keyless pool: one engine per search when so configured; a pinned engine alone", async () => {
  await withFakeUpstreams(async (fakes) => {
    const roles = rolesOf(fakes, { keyless_engines_per_query: 1 });
    const one = await roles.search({ query: "one", max_results: 3 });
    assert.deepEqual(asked(one), [["duckduckgo", "ok"]]);
    assert.equal(one.provider, "duckduckgo");
    const two = await roles.search({ query: "two", max_results: 3 });
    assert.deepEqual(asked(two), [["mojeek", "ok"]]);
    const pinned = await rolesOf(fakes).search({ query: "p", max_results: 3, provider: "yahoo" });
    assert.deepEqual(asked(pinned), [["yahoo", "ok"]]);
    assert.ok(pinned.results.every((hit) => hit.source === "yahoo"));
  });
});

Deno.test("keyless pool: each engine keeps its pace; the pool prefers an engine free now", async () => {
  await withFakeUpstreams(async (fakes) => {
    // The engines' own pace (one call a second), and a call may wait at most 200 ms for it.
    const roles = rolesOf(fakes, { defaultPace: true, timeout_ms: 200 });
    await roles.search({ query: "first", max_results: 3, provider: "mojeek" });
    const again = await roles.search({ query: "again", max_results: 3, provider: "mojeek" }).then(
      () => assert.fail("a second call within the second is refused, not sent"),
      (e) => e,
    );
    assert.equal(again.code, "rate_limited");
    assert.equal(again.details?.local, true);
    assert.equal(fakes.requests.filter((r) => r.backend === "mojeek").length, 1);

    // Rotation would ask DuckDuckGo and Mojeek; Mojeek must wait, so Brave's page goes instead.
    const pooled = await roles.search({ query: "pooled", max_results: 3 });
    assert.deepEqual(asked(pooled), [["duckduckgo", "ok"], ["brave_html", "ok"]]);
  });
});
