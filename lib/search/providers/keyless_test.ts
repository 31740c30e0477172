import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import { type FakeUpstreams, withFakeUpstreams } from "../../../testing/fixtures/upstreams.ts";
import { serveLoopback } from "../../../testing/fixtures/serve.ts";
import { duckduckgoProvider } from "./duckduckgo.ts";
import { searxngProvider } from "./searxng.ts";

function configFor(origin: string, search: Record<string, unknown>) {
  return parseConfig({
    network: { allow_private: [origin], allowed_ports: [80, 443, Number(new URL(origin).port)] },
    search,
  });
}

/** DuckDuckGo and SearXNG both on the fakes. */
function bothOn(fakes: FakeUpstreams) {
  const config = configFor(fakes.origin, {
    providers: { duckduckgo: { base_url: fakes.origin } },
    searxng_url: fakes.searxngUrl,
  });
  return { config, fetcher: createFetcher(config.network) };
}

Deno.test("keyless providers: base_url overrides, enable switches, normalized hits", async () => {
  await withFakeUpstreams(async (fakes) => {
    const config = configFor(fakes.origin, {
      providers: {
        duckduckgo: { base_url: fakes.origin, max_results: 2 },
        searxng: { base_url: fakes.searxngUrl },
      },
    });
    const env = { config, fetcher: createFetcher(config.network) };
    assert.ok(duckduckgoProvider.isConfigured(config));
    assert.ok(searxngProvider.isConfigured(config), "a base_url configures SearXNG");
    const ddg = await duckduckgoProvider.search!({ query: "keyless", max_results: 5 }, env);
    assert.equal(fakes.requests[0].backend, "duckduckgo_html");
    assert.equal(fakes.requests[0].path, "/html/");
    assert.ok(ddg.length >= 2 && ddg.every((h) => h.source === "duckduckgo"));
    const searx = await searxngProvider.search!({ query: "keyless", max_results: 3 }, env);
    assert.equal(fakes.requests.at(-1)!.backend, "searxng");
    assert.ok(searx.length >= 3 && searx.every((h) => h.source === "searxng"));

    const off = configFor(fakes.origin, { providers: { duckduckgo: { enabled: false } } });
    assert.ok(!duckduckgoProvider.isConfigured(off), "enabled: false turns DuckDuckGo off");
  });
});

Deno.test("keyless providers: their failures carry the classified codes", async () => {
  await withFakeUpstreams(async (fakes) => {
    const env = bothOn(fakes);
    const cases: [
      Parameters<typeof fakes.setMode>[0],
      Parameters<typeof fakes.setMode>[1],
      string,
    ][] = [
      ["duckduckgo", "ratelimit", "rate_limited"],
      ["duckduckgo", "captcha", "provider_unavailable"],
      ["duckduckgo", "error", "provider_unavailable"],
      ["searxng", "ratelimit", "rate_limited"],
      ["searxng", "error", "provider_unavailable"],
      ["searxng", "forbidden", "provider_unavailable"],
    ];
    for (const [backend, mode, code] of cases) {
      fakes.setMode("duckduckgo", "ok");
      fakes.setMode("searxng", "ok");
      fakes.setMode(backend, mode);
      const provider = backend === "searxng" ? searxngProvider : duckduckgoProvider;
      const error = await provider.search!({ query: "x", max_results: 3 }, env).then(
        () => assert.fail(`${backend} ${mode}: expected a failure`),
        (e) => e,
      );
      assert.ok(error instanceof GleanerError);
      assert.equal(error.code, code, `${backend} ${mode}`);
    }
  });
});

Deno.test("keyless providers: a timeout is provider_unavailable, as for every provider", async () => {
  const hanging = serveLoopback((request) =>
    new Promise<Response>((resolve) => {
      const done = () => resolve(new Response("late"));
      request.signal.addEventListener("abort", done, { once: true });
      setTimeout(done, 5_000);
    })
  );
  try {
    const config = configFor(hanging.origin, {
      providers: { duckduckgo: { base_url: hanging.origin, timeout_ms: 300 } },
    });
    const env = { config, fetcher: createFetcher(config.network) };
    const error = await duckduckgoProvider.search!({ query: "x", max_results: 3 }, env).then(
      () => assert.fail("expected a timeout"),
      (e) => e,
    );
    assert.ok(error instanceof GleanerError);
    assert.equal(error.code, "provider_unavailable");
    assert.match(error.message, /timed out/);
  } finally {
    await hanging.close();
  }
});

Deno.test("keyless providers: a 429 keeps its Retry-After, as for every provider", async () => {
  await withFakeUpstreams(async (fakes) => {
    const env = bothOn(fakes);
    for (const provider of [duckduckgoProvider, searxngProvider]) {
      fakes.setMode(provider.name === "searxng" ? "searxng" : "duckduckgo", "ratelimit");
      const error = await provider.search!({ query: "x", max_results: 3 }, env).then(
        () => assert.fail(`${provider.name}: expected a failure`),
        (e) => e,
      );
      assert.ok(error instanceof GleanerError);
      assert.equal(error.code, "rate_limited", provider.name);
      // The fake answers 429 with `Retry-After: 60`; the breaker waits that long.
      assert.equal(error.details?.retry_after_s, 60, provider.name);
    }
  });
});
