/**
 * `/health` for operators, through the real HTTP server: probes get 200 and
 * `{status, version}`; the components (store, cache, browser, memory) only
 * with the API key when one is set; a real Redis stopped under a running
 * server turns the cache `degraded` with the reason; no secret or URL in any
 * answer.
 */
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import type { ConfigInput } from "../lib/config/config.ts";
import { serveHttp } from "../http/serve.ts";
import { redisRequirement, startRedis } from "../lib/store/testdata/helpers.ts";

const HAVE_REDIS = redisRequirement.missing === undefined;

if (!HAVE_REDIS && redisRequirement.required) {
  Deno.test("redis-server is installed (GLEANER_REQUIRE_REDIS=1)", () => {
    redisRequirement.assertPresent();
  });
}

async function health(base: string, key?: string) {
  const response = await fetch(`${base}/health`, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}

Deno.test("/health: the components only with the API key; probes get the status alone", async () => {
  const key = "health-test-key-0123456789";
  const config: ConfigInput = {
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
    server: { port: 0, api_key: key },
  };
  const gleaner = await createGleaner(config);
  const server = serveHttp(gleaner);
  try {
    for (const given of [undefined, "wrong-key"]) {
      const open = await health(server.url, given);
      assert.equal(open.status, 200, "a probe needs no key");
      assert.deepEqual(Object.keys(open.body).sort(), ["status", "version"]);
      assert.equal(open.body.status, "ok");
    }
    const detailed = await health(server.url, key);
    assert.equal(detailed.status, 200);
    const { components } = detailed.body;
    assert.equal(components.store.status, "ok");
    assert.equal(components.cache.status, "ok");
    assert.equal(components.cache.backend, "sqlite");
    assert.deepEqual(components.browser, { status: "off", reason: "read.render is never" });
    assert.equal(components.memory.status, "ok");
    assert.ok(!detailed.text.includes(key), "the key is never echoed");
    // The rest of the API still wants the key.
    assert.equal((await fetch(`${server.url}/config`)).status, 401);
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
});

Deno.test({
  name: "/health: Redis stopped under a running server turns the cache degraded, with the reason",
  ignore: !HAVE_REDIS,
  async fn() {
    const redis = await startRedis();
    let stopped = false;
    const gleaner = await createGleaner({
      store: { path: ":memory:", cache_url: redis.url },
      embed: { provider: "none" },
      read: { render: "never" },
      memory: { enabled: false },
      server: { port: 0, health_ttl_ms: 0 },
    });
    const server = serveHttp(gleaner);
    try {
      // No API key and not hosted: the API is open, and so is the detail.
      const up = await health(server.url);
      assert.equal(up.body.status, "ok", up.text);
      assert.deepEqual(up.body.components.cache, { status: "ok", backend: "valkey" });
      assert.deepEqual(up.body.components.memory.status, "off");

      await redis.stop();
      stopped = true;
      // A stale report is answered while the checks run again in the background: ask until
      // the refresh that saw the outage has landed (the client's reconnect attempts take a
      // few hundred milliseconds).
      let down = await health(server.url);
      for (let i = 0; i < 100 && down.body.status !== "degraded"; i++) {
        await new Promise((r) => setTimeout(r, 50));
        down = await health(server.url);
      }
      assert.equal(down.status, 200, "degraded still answers 200: the server serves");
      assert.equal(down.body.status, "degraded", down.text);
      const cache = down.body.components.cache;
      assert.equal(cache.status, "degraded");
      assert.match(cache.reason, /store\.cache_url|did not answer|no answer/);
      assert.equal(down.body.components.store.status, "ok");
      assert.ok(!down.text.includes(redis.url), "no URL of the cache server");
      assert.ok(!down.text.includes("redis://"));
    } finally {
      await server.shutdown();
      await gleaner.close();
      if (!stopped) await redis.stop();
    }
  },
});
