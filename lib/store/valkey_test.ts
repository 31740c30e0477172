/**
 * Runs against a real redis-server started on a random loopback port. Without
 * `redis-server` the tests are ignored, or fail when GLEANER_REQUIRE_REDIS=1.
 */
import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { openStore } from "./mod.ts";
import {
  checkCapabilities,
  checkClear,
  checkOriginKeys,
  checkPolicy,
  checkProbation,
  checkTenants,
} from "./testdata/domain_contract.ts";
import {
  assertRaceCounts,
  redisRequirement,
  type RedisServer,
  runWriters,
  startRedis,
} from "./testdata/helpers.ts";
import type { Redis } from "iovalkey";
import { connectValkey } from "./valkey_client.ts";
import { ValkeyCache } from "./valkey_cache.ts";
import { ValkeyDomainStats } from "./valkey_domain_stats.ts";

const HAVE_REDIS = redisRequirement.missing === undefined;
const DAY = 86_400_000;

if (!HAVE_REDIS && redisRequirement.required) {
  Deno.test("redis-server is installed (GLEANER_REQUIRE_REDIS=1)", () => {
    redisRequirement.assertPresent();
  });
}

function clock(start = Date.UTC(2025, 5, 15, 12)) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms), advance: (ms: number) => (t += ms), start };
}

async function withServer(fn: (server: RedisServer) => Promise<void>): Promise<void> {
  const server = await startRedis();
  try {
    await fn(server);
  } finally {
    await server.stop();
  }
}

/** A connected client on the server, quit afterwards. */
async function withClient(url: string, fn: (client: Redis) => Promise<void>): Promise<void> {
  const client = await connectValkey(url);
  try {
    await fn(client);
  } finally {
    await client.quit();
  }
}

Deno.test({
  name: "ValkeyCache: namespaces, expiry, maxAgeS, clear counts",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await withClient(url, async (client) => {
        const c = clock();
        const cache = new ValkeyCache(client, {
          prefix: "t1:",
          ttls: { search: 3600, pages: 86_400, crawl: 0 },
          now: c.now,
        });
        await cache.set("search", "q", { n: 1, s: "é ✓" });
        await cache.set("pages", "q", "page");
        await cache.set("crawl", "q", "not kept (ttl 0)");
        assert.deepEqual(await cache.get("search", "q"), { n: 1, s: "é ✓" });
        assert.equal(await cache.get("pages", "q"), "page");
        assert.equal(await cache.get("crawl", "q"), undefined);
        assert.equal(await cache.get("search", "q", { maxAgeS: 0 }), undefined);
        // Server-side expiry equals the namespace TTL.
        const pttl = await client.pttl("t1:c:search:q");
        assert.ok(pttl > 3_590_000 && pttl <= 3_600_000, `pttl ${pttl}`);
        c.advance(3_600_000);
        assert.equal(await cache.get("search", "q"), undefined, "expired at read time");
        assert.equal(await cache.get("pages", "q"), "page");

        // Another prefix is another cache.
        const other = new ValkeyCache(client, { prefix: "t1other:" });
        await other.set("pages", "q", "other");
        for (let i = 0; i < 700; i++) await cache.set("pages", `p${i}`, i); // > one SCAN page
        await cache.set("search", "s1", 1);
        assert.deepEqual((await cache.stats()).entries, { search: 2, pages: 701, crawl: 0 });
        assert.deepEqual(await cache.clear("pages"), {
          removed: 701,
          by_namespace: { search: 0, pages: 701, crawl: 0 },
        });
        assert.deepEqual(await cache.clear("all"), {
          removed: 2,
          by_namespace: { search: 2, pages: 0, crawl: 0 },
        });
        assert.equal(await other.get("pages", "q"), "other");
        assert.equal(await other.delete("pages", "q"), true);
        assert.equal(await other.delete("pages", "q"), false);
        await assert.rejects(cache.get("bad" as "pages", "q"), GleanerError);
      });
    }),
});

Deno.test({
  name: "ValkeyDomainStats: counts, 30-day window, summary, info",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await withClient(url, async (client) => {
        const c = clock();
        const stats = new ValkeyDomainStats(client, { prefix: "t2:", now: c.now });
        const o = "https://example.com";
        assert.equal(await stats.get(o), undefined);
        const at = async (daysAgo: number, origin: string, tier: string, ok: boolean, n = 1) => {
          c.set(c.start - daysAgo * DAY);
          for (let i = 0; i < n; i++) await stats.record(origin, tier, ok, "timeout");
        };
        await at(30, o, "http", false, 6); // just outside the window
        await at(29, o, "http", true, 3); // oldest day inside
        await at(0, "HTTPS://Example.com:443", "browser", false, 1);
        await at(0, o, "browser", true, 1);
        c.set(c.start);
        await stats.setRobots(o, "allow_all");
        await stats.setLlmsTxt(o, false);
        const rec = await stats.get(o);
        assert.ok(rec);
        assert.deepEqual(
          { a: rec.attempts, s: rec.successes, f: rec.failures },
          { a: 5, s: 4, f: 1 },
        );
        assert.deepEqual(rec.tiers.http, {
          attempts: 3,
          successes: 3,
          failures: 0,
          success_rate: 1,
          consecutive_failures: 0,
        });
        assert.deepEqual(rec.last_failure, {
          tier: "browser",
          reason: "timeout",
          at: new Date(c.start).toISOString(),
        });
        assert.equal(rec.robots?.state, "allow_all");
        assert.equal(rec.llms_txt?.exists, false);
        const ttl = await client.ttl(`t2:o:${o}:${Math.floor(c.start / DAY)}`);
        assert.ok(ttl > 30 * 86_400 && ttl <= 31 * 86_400, `ttl ${ttl}`);
        for (let i = 0; i < 9; i++) await stats.record("https://busy.example", "http", true);
        assert.deepEqual((await stats.summary({ limit: 1 })).map((t) => [t.origin, t.attempts]), [
          ["https://busy.example", 9],
        ]);
      });
    }),
});

Deno.test({
  name: "ValkeyDomainStats: keyed by origin, a host lists its origins",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await withClient(url, async (client) => {
        const c = clock();
        await checkOriginKeys(new ValkeyDomainStats(client, { prefix: "t4:", now: c.now }), c);
      });
    }),
});

Deno.test({
  name: "ValkeyDomainStats: probation is short and growing; a one-minute outage is not a lockout",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await withClient(url, async (client) => {
        const c = clock();
        await checkProbation(new ValkeyDomainStats(client, { prefix: "t5:", now: c.now }), c);
      });
    }),
});

Deno.test({
  name: "ValkeyDomainStats: a verdict reached under other settings is not applied",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await withClient(url, async (client) => {
        await checkPolicy(new ValkeyDomainStats(client, { prefix: "t7:" }));
      });
    }),
});

Deno.test({
  name: "ValkeyDomainStats: clear forgets every origin, and the host-keyed keys of old versions",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await withClient(url, async (client) => {
        await client.set("t6:d:127.0.0.1:20000", "1");
        await client.set("t6:c:pages:kept", "1");
        await checkClear(new ValkeyDomainStats(client, { prefix: "t6:" }));
        assert.equal(await client.exists("t6:d:127.0.0.1:20000"), 0);
        assert.equal(await client.exists("t6:c:pages:kept"), 1, "the cache is not touched");
      });
    }),
});

Deno.test({
  name: "two processes recording 200 attempts each through Valkey lose no counts",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await runWriters(2, {
        backend: "valkey",
        target: url,
        domain: "https://race.example",
        n: 200,
        prefix: "t3:",
      });
      await withClient(url, async (client) => {
        const rec = await new ValkeyDomainStats(client, { prefix: "t3:" }).get(
          "https://race.example",
        );
        assertRaceCounts(rec);
      });
    }),
});

Deno.test({
  name: "openStore picks Valkey for cache and domains when cache_url is set",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      const a = openStore({ path: ":memory:", cache_url: url });
      const b = openStore({ path: ":memory:", cache_url: url });
      try {
        assert.equal(a.backend, "valkey");
        await a.cache.set("search", "shared", [1]);
        assert.deepEqual(await b.cache.get("search", "shared"), [1], "second process sees it");
        await a.domains.record("https://x.example", "http", true);
        await b.domains.record("https://x.example", "http", false, "timeout");
        assert.equal((await a.domains.get("https://x.example"))?.attempts, 2);
        // Embeddings stay in SQLite.
        await a.embeddings.put("m", new Map([["h", new Float32Array([1])]]));
        assert.equal((await b.embeddings.get("m", ["h"])).size, 0);
      } finally {
        await a.close();
        await b.close();
        await a.close(); // twice is fine
      }
    }),
});

Deno.test("connectValkey: bad URLs are invalid_arguments, no server is provider_unavailable", async () => {
  await assert.rejects(
    connectValkey("http://127.0.0.1:1"),
    (e) => e instanceof GleanerError && e.code === "invalid_arguments",
  );
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  await assert.rejects(
    connectValkey(`redis://:s3cret@127.0.0.1:${port}`, { connectTimeoutMs: 1_000 }),
    (e) =>
      e instanceof GleanerError && e.code === "provider_unavailable" &&
      !e.message.includes("s3cret"),
  );
});

Deno.test({
  name:
    "ValkeyDomainStats tenants: each sees, lists and clears its own origins; the operator's clear forgets all",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await withClient(url, async (client) => {
        await client.set("t9:c:pages:tenant:tenant-a:kept", "1");
        await checkTenants((tenant) => new ValkeyDomainStats(client, { prefix: "t9:", tenant }));
        assert.equal(await client.exists("t9:c:pages:tenant:tenant-a:kept"), 1, "cache untouched");
        assert.deepEqual(await client.keys("t9:t:*"), [], "no tenant key left");
      });
    }),
});

Deno.test({
  name: "ValkeyDomainStats: capabilities and their snapshot, as on SQLite",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await withClient(url, async (client) => {
        const c = clock();
        await checkCapabilities(new ValkeyDomainStats(client, { prefix: "t10:", now: c.now }), c);
      });
    }),
});

Deno.test({
  name: "ValkeyDomainStats: origins seen in search are counted once per call, as on SQLite",
  ignore: !HAVE_REDIS,
  fn: () =>
    withServer(async ({ url }) => {
      await withClient(url, async (client) => {
        const c = clock();
        const stats = new ValkeyDomainStats(client, { prefix: "t9:", now: c.now });
        await stats.noteSeenInSearch([
          "https://seen.example/a",
          "https://seen.example/b",
          "https://other.example/",
        ]);
        await stats.noteSeenInSearch(["https://seen.example/c"]);
        const seen = await stats.get("https://seen.example");
        assert.deepEqual(seen?.seen_in_search, {
          count: 2,
          last_at: new Date(c.start).toISOString(),
        });
        assert.equal(seen?.attempts, 0);
        assert.equal((await stats.get("https://other.example"))?.seen_in_search?.count, 1);
        assert.deepEqual((await stats.forHost("seen.example")).map((r) => r.origin), [
          "https://seen.example",
        ]);
      });
    }),
});
