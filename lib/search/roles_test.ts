import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { createFetcher } from "../net/fetch.ts";
import { openStore } from "../store/mod.ts";
import { type FakeProviders, withFakeProviders } from "../../testing/fixtures/fake_providers.ts";
import {
  fakeUpstreamConfig,
  type FakeUpstreams,
  withFakeUpstreams,
} from "../../testing/fixtures/upstreams.ts";
import { createRoleRouter, type RoleRouterOptions } from "./roles.ts";

const KEYS = { brave: "kb", exa: "ke", tavily: "kt" };

function routerOf(
  fakes: FakeProviders,
  search: Record<string, unknown> = {},
  options: Partial<RoleRouterOptions> = {},
) {
  const config = parseConfig(fakes.config(KEYS, {
    search_order: ["brave", "exa", "tavily"],
    ...search,
  }));
  return createRoleRouter({ config, fetcher: createFetcher(config.network), ...options });
}

async function failureOf(promise: Promise<unknown>): Promise<GleanerError> {
  const error = await promise.then(() => assert.fail("expected a failure"), (e) => e);
  assert.ok(error instanceof GleanerError, String(error));
  return error;
}

Deno.test("roles: credit, rate limit and outage fall back; the answer names who served it", async () => {
  await withFakeProviders(async (fakes) => {
    const roles = routerOf(fakes);
    assert.deepEqual(roles.providers("search"), ["brave", "exa", "tavily"]);
    fakes.setMode("brave", "balance");
    fakes.setMode("exa", "unavailable");
    const out = await roles.search({ query: "wal", max_results: 2 });
    assert.equal(out.role, "search");
    assert.equal(out.provider, "tavily");
    assert.deepEqual(out.fallback_from, [
      { provider: "brave", code: "insufficient_balance" },
      { provider: "exa", code: "provider_unavailable" },
    ]);
    assert.deepEqual(out.attempts.map((a) => [a.backend, a.outcome]), [
      ["brave", "unavailable"],
      ["exa", "unavailable"],
      ["tavily", "ok"],
    ]);
    assert.equal(out.results.length, 2);
    assert.ok(out.results.every((r) => r.source === "tavily"));
    assert.equal(out.cached, false);

    // Out of credit: brave cools down at once, so the next call does not ask it.
    const braveCalls = fakes.requestsOf("brave").length;
    const next = await roles.search({ query: "wal 2", max_results: 2 });
    assert.equal(fakes.requestsOf("brave").length, braveCalls, "brave skipped while cooling down");
    assert.deepEqual(next.fallback_from[0], {
      provider: "brave",
      code: "provider_unavailable",
      skipped: true,
    });
  });
});

Deno.test("roles: an invalid request or an unclassified failure stops the call", async () => {
  await withFakeProviders(async (fakes) => {
    const roles = routerOf(fakes);
    fakes.setMode("brave", "invalid");
    const invalid = await failureOf(roles.search({ query: "x", max_results: 2 }));
    assert.equal(invalid.code, "invalid_arguments");
    assert.equal(fakes.requestsOf("exa").length, 0, "no silent switch on a bad request");
    assert.deepEqual(invalid.details?.fallback_from, [{
      provider: "brave",
      code: "invalid_arguments",
    }]);

    fakes.setMode("brave", "unclassified");
    const odd = await failureOf(roles.search({ query: "y", max_results: 2 }));
    assert.equal(odd.code, "internal");
    assert.equal(fakes.requestsOf("exa").length, 0);

    fakes.setMode("brave", "unauthorized");
    const out = await roles.search({ query: "z", max_results: 2 });
    assert.equal(out.provider, "exa", "a refused key is the provider's problem: next one");
    assert.deepEqual(out.fallback_from, [{ provider: "brave", code: "unauthorized" }]);
  });
});

Deno.test("roles: a pinned provider answers alone, without fallback", async () => {
  await withFakeProviders(async (fakes) => {
    const roles = routerOf(fakes);
    const pinned = await roles.search({ query: "q", max_results: 3, provider: "tavily" });
    assert.equal(pinned.provider, "tavily");
    assert.equal(fakes.requestsOf("brave").length, 0);

    fakes.setMode("exa", "ratelimit");
    const failed = await failureOf(roles.search({ query: "q", max_results: 3, provider: "exa" }));
    assert.equal(failed.code, "rate_limited");
    assert.equal(fakes.requestsOf("tavily").length, 1, "no fallback when pinned");

    const unknown = await failureOf(roles.search({ query: "q", max_results: 3, provider: "nope" }));
    assert.equal(unknown.code, "invalid_arguments");
    const wrongRole = await failureOf(roles.answer({ query: "q", provider: "brave" }));
    assert.match(wrongRole.message, /brave does not serve answer/);
    const unconfigured = await failureOf(
      roles.search({ query: "q", max_results: 3, provider: "keenable" }),
    );
    assert.match(
      unconfigured.message,
      /keenable is not configured \(set search\.providers\.keenable\.api_key/,
    );
  });
});

Deno.test("roles: quick and deep answers reach the provider as such", async () => {
  await withFakeProviders(async (fakes) => {
    const roles = routerOf(fakes);
    assert.deepEqual(roles.providers("answer"), ["exa", "tavily"]);
    const quick = await roles.answer({ query: "what is wal" });
    assert.equal(quick.depth, "quick");
    assert.equal(quick.provider, "exa");
    assert.equal(quick.answer, "The answer to what is wal, according to the sources.");
    assert.deepEqual(fakes.requestsOf("exa")[0].body, { query: "what is wal", text: false });
    const deep = await roles.answer({ query: "what is wal", depth: "deep" });
    assert.equal(deep.depth, "deep");
    assert.deepEqual(fakes.requestsOf("exa")[1].body, { query: "what is wal", text: true });

    fakes.setMode("exa", "balance");
    const fallback = await roles.answer({ query: "what is wal", depth: "deep" });
    assert.equal(fallback.provider, "tavily");
    assert.deepEqual(fallback.fallback_from, [{ provider: "exa", code: "insufficient_balance" }]);
    const body = fakes.requestsOf("tavily")[0].body as Record<string, unknown>;
    assert.equal(body.include_answer, "advanced");
    assert.equal(body.search_depth, "advanced");
    assert.equal(fallback.citations.length, 3);
  });
});

Deno.test("roles: a provider that keeps failing cools down, then is asked again and recovers", async () => {
  await withFakeProviders(async (fakes) => {
    let now = 1_000_000;
    const roles = routerOf(
      fakes,
      { breaker_failures: 2, breaker_cooldown_ms: 60_000, search_order: ["exa", "tavily"] },
      { now: () => now },
    );
    fakes.setMode("exa", "unavailable");
    for (let i = 0; i < 2; i++) {
      const out = await roles.search({ query: `q${i}`, max_results: 2 });
      assert.equal(out.provider, "tavily");
      assert.deepEqual(out.fallback_from, [{ provider: "exa", code: "provider_unavailable" }]);
    }
    assert.equal(fakes.requestsOf("exa").length, 2);
    assert.equal(roles.health().find((h) => h.provider === "exa")?.state, "open");

    const skipped = await roles.search({ query: "q2", max_results: 2 });
    assert.equal(fakes.requestsOf("exa").length, 2, "not asked while cooling down");
    assert.deepEqual(skipped.fallback_from, [
      { provider: "exa", code: "provider_unavailable", skipped: true },
    ]);

    fakes.setMode("exa", "ok");
    now += 60_001;
    const recovered = await roles.search({ query: "q3", max_results: 2 });
    assert.equal(recovered.provider, "exa");
    assert.deepEqual(recovered.fallback_from, []);
    assert.equal(roles.health().find((h) => h.provider === "exa")?.state, "closed");
  });
});

Deno.test("roles: Retry-After keeps a rate-limited provider aside for that long", async () => {
  await withFakeProviders(async (fakes) => {
    let now = 5_000_000;
    const roles = routerOf(fakes, { search_order: ["exa", "tavily"] }, { now: () => now });
    fakes.setMode("exa", "ratelimit", 1);
    assert.equal((await roles.search({ query: "a", max_results: 2 })).provider, "tavily");
    assert.equal((await roles.search({ query: "b", max_results: 2 })).provider, "tavily");
    assert.equal(fakes.requestsOf("exa").length, 1, "the 30 s of Retry-After are respected");
    now += 31_000;
    assert.equal((await roles.search({ query: "c", max_results: 2 })).provider, "exa");
  });
});

Deno.test("roles: when every provider fails, the error names each provider and code", async () => {
  await withFakeProviders(async (fakes) => {
    const roles = routerOf(fakes);
    fakes.setMode("brave", "unavailable");
    fakes.setMode("exa", "ratelimit");
    fakes.setMode("tavily", "balance");
    const error = await failureOf(roles.search({ query: "x", max_results: 2 }));
    assert.match(
      error.message,
      /search: every provider failed: brave \(provider_unavailable\), exa \(rate_limited\), tavily \(insufficient_balance\)/,
    );
    assert.equal(error.code, "provider_unavailable");
    assert.deepEqual(error.details?.fallback_from, [
      { provider: "brave", code: "provider_unavailable" },
      { provider: "exa", code: "rate_limited" },
      { provider: "tavily", code: "insufficient_balance" },
    ]);
    assert.ok(!error.message.includes("secret-detail"), "no upstream body");
  });
});

Deno.test("roles: a provider's rate limit is respected before sending", async () => {
  await withFakeProviders(async (fakes) => {
    const roles = routerOf(fakes, {
      search_order: ["exa", "tavily"],
      providers: { exa: { requests_per_second: 0.01, timeout_ms: 1000 } },
    });
    const first = await roles.search({ query: "one", max_results: 2 });
    assert.equal(first.provider, "exa");
    // The next slot for exa is 100 s away, beyond its timeout: not sent, next provider.
    const second = await roles.search({ query: "two", max_results: 2 });
    assert.equal(second.provider, "tavily");
    assert.deepEqual(second.fallback_from, [{ provider: "exa", code: "rate_limited" }]);
    assert.equal(fakes.requestsOf("exa").length, 1);
  });
});

Deno.test("roles: search answers are cached with their age; no_cache asks again", async () => {
  await withFakeProviders(async (fakes) => {
    const store = openStore({ path: ":memory:" });
    try {
      const roles = routerOf(fakes, {}, { cache: store.cache });
      const first = await roles.search({ query: "Deno KV", max_results: 2 });
      assert.equal(first.cached, false);
      const calls = fakes.requests.length;
      const second = await roles.search({ query: "deno  kv", max_results: 2 });
      assert.equal(fakes.requests.length, calls, "answered from the cache");
      assert.equal(second.cached, true);
      assert.equal(typeof second.age_s, "number");
      assert.equal(second.provider, "brave");
      assert.deepEqual(second.results, first.results);

      const fresh = await roles.search({ query: "deno kv", max_results: 2, no_cache: true });
      assert.equal(fresh.cached, false);
      assert.equal(fakes.requests.length, calls + 1);
      await roles.search({ query: "deno kv", max_results: 2, provider: "exa" });
      assert.equal(fakes.requestsOf("exa").length, 1, "a pinned provider is another answer");
      await roles.search({ query: "deno kv", max_results: 2, topic: "news" });
      assert.equal(fakes.requests.length, calls + 3, "topic changes the answer");
    } finally {
      await store.close();
    }
  });
});

Deno.test("roles: search filters domains for every provider and hints site: when not native", async () => {
  await withFakeProviders(async (fakes) => {
    const roles = routerOf(fakes);
    const out = await roles.search({
      query: "q",
      max_results: 5,
      domains: ["sqlite.org"],
    });
    assert.deepEqual(out.results.map((r) => r.url), ["https://sqlite.org/wal.html"]);
    assert.equal(fakes.requestsOf("brave")[0].query.q, "q site:sqlite.org");
    await roles.search({ query: "q", max_results: 5, domains: ["sqlite.org"], provider: "exa" });
    const body = fakes.requestsOf("exa")[0].body as Record<string, unknown>;
    assert.equal(body.query, "q", "exa filters natively");
    assert.deepEqual(body.includeDomains, ["sqlite.org"]);
    const excluded = await roles.search({
      query: "q",
      max_results: 5,
      exclude_domains: ["deno.com"],
      no_cache: true,
    });
    assert.ok(excluded.results.every((r) => !r.url.includes("deno.com")));
  });
});

Deno.test("roles: contents fall back between providers; a bad URL list is refused up front, a bad URL alone", async () => {
  await withFakeProviders(async (fakes) => {
    const roles = routerOf(fakes, { contents_order: ["exa", "tavily"] });
    assert.deepEqual(roles.providers("contents"), ["exa", "tavily"]);
    fakes.setMode("exa", "unavailable");
    const out = await roles.contents({
      urls: ["https://a.example/1", "https://a.example/missing"],
    });
    assert.equal(out.role, "contents");
    assert.equal(out.provider, "tavily");
    assert.deepEqual(out.fallback_from, [{ provider: "exa", code: "provider_unavailable" }]);
    assert.match(out.pages[0].content, /read by tavily/);
    assert.equal(out.pages[1].error?.code, "provider_unavailable", "one URL fails alone");

    const none = await failureOf(roles.contents({ urls: [] }));
    assert.equal(none.code, "invalid_arguments");
    const eleven = Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`);
    assert.equal((await failureOf(roles.contents({ urls: eleven }))).code, "invalid_arguments");
    assert.equal(fakes.requestsOf("tavily").length, 1, "refused requests reach no provider");
    const scheme = await roles.contents({ urls: ["file:///etc/passwd"] });
    assert.equal(scheme.pages[0].error?.code, "blocked_url", "a file: URL fails alone");
    assert.equal(fakes.requestsOf("tavily").length, 1, "and reaches no provider");
  });
});

Deno.test("roles: a misspelt provider in an order is a configuration error", async () => {
  await withFakeProviders((fakes) => {
    const config = parseConfig(fakes.config(KEYS, { search_order: ["exa", "bingo"] }));
    assert.throws(
      () => createRoleRouter({ config, fetcher: createFetcher(config.network) }),
      /search\.search_order: bingo is not a provider that serves search/,
    );
    const answerOrder = parseConfig(fakes.config(KEYS, { answer_order: ["brave"] }));
    assert.throws(
      () => createRoleRouter({ config: answerOrder, fetcher: createFetcher(answerOrder.network) }),
      /brave is not a provider that serves answer/,
    );
    return Promise.resolve();
  });
});

Deno.test("roles: a provider host that does not resolve is named with its setting", async () => {
  await withFakeProviders(async (fakes) => {
    const input = fakes.config(KEYS, { search_order: ["brave", "exa"] });
    const search = input.search as { providers: Record<string, { base_url: string }> };
    const port = new URL(fakes.baseUrl("brave")).port;
    search.providers.brave.base_url = `http://brave.lan:${port}/brave`;
    search.providers.exa.base_url = `http://exa.lan:${port}/exa`;
    const config = parseConfig(input);
    // The system resolver answering ENOTFOUND for both names (no DNS traffic in tests).
    const resolver = (host: string) =>
      Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), {
        code: "ENOTFOUND",
        hostname: host,
      }));
    const roles = createRoleRouter({
      config,
      fetcher: createFetcher(config.network, { resolver }),
    });
    const error = await failureOf(roles.search({ query: "x", max_results: 2 }));
    assert.match(error.message, /^search: every provider failed: brave \(provider_unavailable\)/);
    assert.match(error.message, /could not resolve brave\.lan: no such host name/);
    assert.match(error.message, /check search\.providers\.brave\.base_url/);
    assert.match(
      error.message,
      /could not resolve exa\.lan: .*check search\.providers\.exa\.base_url/,
    );
    assert.equal(fakes.requestsOf("brave").length + fakes.requestsOf("exa").length, 0);
  });
});

/** Keyless fakes (DuckDuckGo, SearXNG) and keyed fakes (Brave, …) in one config. */
function mixedConfig(
  providers: FakeProviders,
  upstreams: FakeUpstreams,
  search: Record<string, unknown>,
) {
  const keyed = providers.config({ brave: "kb" }, search);
  const keyless = fakeUpstreamConfig(upstreams, { searxng: true });
  return parseConfig({
    ...keyed,
    network: {
      allow_private: [...keyless.network.allow_private, providers.origin],
      allowed_ports: [...keyless.network.allowed_ports, Number(new URL(providers.origin).port)],
    },
    // The keyed fakes' config points the keyless engines at a dead end; the keyless fakes win.
    search: {
      ...keyless.search,
      ...keyed.search,
      providers: {
        ...keyed.search?.providers,
        ...(keyless.search.providers as Record<string, unknown>),
      },
    },
  });
}

Deno.test("roles: a keyless provider's empty answer falls through to a keyed one", async () => {
  await withFakeProviders(async (providers) => {
    await withFakeUpstreams(async (upstreams) => {
      // DuckDuckGo's documented empty page ("No results.") and SearXNG's `results: []`.
      upstreams.setMode("duckduckgo", "empty");
      upstreams.setMode("searxng", "empty");
      const config = mixedConfig(providers, upstreams, {
        search_order: ["searxng", "duckduckgo", "brave"],
      });
      const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
      const out = await roles.search({ query: "rare words", max_results: 2 });
      assert.equal(out.provider, "brave");
      assert.equal(out.results.length, 2);
      assert.ok(out.results.every((r) => r.source === "brave"));
      assert.deepEqual(out.fallback_from, [
        { provider: "searxng", code: "empty" },
        { provider: "duckduckgo", code: "empty" },
      ]);
      assert.deepEqual(out.attempts.map((a) => [a.backend, a.outcome]), [
        ["searxng", "empty"],
        ["duckduckgo", "empty"],
        ["brave", "ok"],
      ]);

      // The keyed provider fails too: the keyless empty answer stands, its failure recorded.
      providers.setMode("brave", "unavailable");
      const stands = await roles.search({ query: "rarer words", max_results: 2 });
      assert.equal(stands.provider, "searxng");
      assert.deepEqual(stands.results, []);
      assert.deepEqual(stands.fallback_from, [
        { provider: "duckduckgo", code: "empty" },
        { provider: "brave", code: "provider_unavailable" },
      ]);
      assert.deepEqual(stands.attempts.map((a) => [a.backend, a.outcome]), [
        ["searxng", "empty"],
        ["duckduckgo", "empty"],
        ["brave", "unavailable"],
      ]);
    });
  });
});

Deno.test("roles: with fallback_on_empty off, or no keyed provider after it, zero results stand", async () => {
  await withFakeProviders(async (providers) => {
    await withFakeUpstreams(async (upstreams) => {
      upstreams.setMode("duckduckgo", "empty");
      const off = mixedConfig(providers, upstreams, {
        search_order: ["duckduckgo", "brave"],
        fallback_on_empty: false,
      });
      const quiet = createRoleRouter({ config: off, fetcher: createFetcher(off.network) });
      const one = await quiet.search({ query: "nothing here", max_results: 2 });
      assert.equal(one.provider, "duckduckgo");
      assert.deepEqual(one.results, []);
      assert.deepEqual(one.fallback_from, []);
      assert.deepEqual(one.attempts.map((a) => [a.backend, a.outcome]), [["duckduckgo", "empty"]]);

      // Keyless only after it: DuckDuckGo's empty answer is the answer.
      const keyless = mixedConfig(providers, upstreams, {
        search_order: ["searxng", "duckduckgo"],
      });
      upstreams.setMode("searxng", "empty");
      const roles = createRoleRouter({ config: keyless, fetcher: createFetcher(keyless.network) });
      const two = await roles.search({ query: "nothing there", max_results: 2 });
      assert.equal(two.provider, "searxng");
      assert.deepEqual(two.fallback_from, []);
      assert.equal(providers.requestsOf("brave").length, 0);
      assert.equal(upstreams.requests.filter((r) => r.backend !== "searxng").length, 1);

      // Pinned, no fall-through.
      const pinned = await createRoleRouter({ config: off, fetcher: createFetcher(off.network) })
        .search({ query: "pinned", max_results: 2, provider: "duckduckgo" });
      assert.equal(pinned.provider, "duckduckgo");
      assert.equal(providers.requestsOf("brave").length, 0);
    });
  });
});

Deno.test("roles: a quick-only provider pinned with depth deep is invalid_arguments; in a chain it answers at quick depth and says so", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ parallel: "p-key" }, { answer_order: ["parallel"] }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const pinned = await failureOf(
      roles.answer({ query: "what is wal", depth: "deep", provider: "parallel" }),
    );
    assert.equal(pinned.code, "invalid_arguments");
    assert.equal(pinned.details?.field, "depth");
    assert.equal(fakes.requestsOf("parallel").length, 0, "nothing sent");
    const chained = await roles.answer({ query: "what is wal", depth: "deep" });
    assert.equal(chained.provider, "parallel");
    assert.ok(chained.notices?.some((n) => /quick depth/.test(n)), JSON.stringify(chained.notices));
    const quick = await roles.answer({
      query: "what is wal",
      depth: "quick",
      provider: "parallel",
    });
    assert.equal(quick.provider, "parallel");
  });
});
