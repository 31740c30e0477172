import assert from "node:assert/strict";
import { parseConfig } from "../config.ts";
import { createFetcher } from "../net/fetch.ts";
import { openStore } from "../store/mod.ts";
import { fakeUpstreamConfig, startFakeUpstreams } from "../../tests/fixtures/upstreams.ts";
import { withSearchCache } from "./cached.ts";
import { createSearchRouter } from "./router.ts";

Deno.test("search cache: the same request asked twice reaches the upstream once", async () => {
  const fakes = await startFakeUpstreams();
  const config = parseConfig(fakeUpstreamConfig(fakes));
  const store = openStore({ path: ":memory:" });
  try {
    const router = withSearchCache(
      createSearchRouter(config, createFetcher(config.network)),
      store.cache,
    );
    const first = await router.search({ query: "Tides", max_results: 3 });
    const upstreamCalls = fakes.requests.length;
    const second = await router.search({ query: "tides ", max_results: 3 });
    assert.equal(fakes.requests.length, upstreamCalls, "answered from the cache");
    assert.deepEqual(second.results, first.results);
    assert.deepEqual(second.attempts, [{ backend: "cache", outcome: "ok", ms: 0 }]);
    await router.search({ query: "tides", max_results: 4 });
    assert.ok(fakes.requests.length > upstreamCalls, "a different request is not a cache hit");
  } finally {
    await store.close();
    await fakes.close();
  }
});
