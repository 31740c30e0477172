/**
 * Hosted mode keeps users apart on the web side: through the real HTTP app
 * (proxy token + verified user header, from loopback) against the loopback
 * fixture web, user B never sees what user A read (domain_stats, page and
 * search cache hits, domain memory), B cannot clear A's cache, and the
 * operator's admin key clears everything. Run on SQLite, and on Valkey when
 * `redis-server` is installed (required with GLEANER_REQUIRE_REDIS=1).
 */
import { connectAs, hostedMemory, userHeaders } from "../testing/hosted.ts";
import assert from "node:assert/strict";
import { createGleaner, parseConfig, redactConfig } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { loadConfig } from "../lib/config/config.ts";
import { GleanerError } from "../lib/errors.ts";
import { redisRequirement, startRedis } from "../lib/store/testdata/helpers.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";

const ADMIN_KEY = "admin-key-0123456789abcdef0123456789ab";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Everything one run needs: B must learn nothing of A, whatever the backend. */
async function checkIsolation(store: Record<string, unknown>): Promise<void> {
  const world = await startTestWorld();
  // A site whose every page answers 503: three failures put its http tier on probation.
  const down = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) =>
      new URL(req.url).pathname === "/robots.txt"
        ? new Response("", { status: 404 })
        : new Response("down", { status: 503 }),
  );
  const downOrigin = `http://127.0.0.1:${down.addr.port}`;
  const root = await Deno.makeTempDir();
  const base = world.config;
  const gleaner = await createGleaner({
    ...base,
    network: {
      ...base.network,
      allow_private: [...(base.network!.allow_private as string[]), downOrigin],
    },
    server: { port: 0 },
    store: { path: `${root}/gleaner.db`, ...store },
    memory: hostedMemory(`${root}/memory.db`, { hosted_admin_key: ADMIN_KEY }),
  });
  const server = serveHttp(gleaner);
  const as = (user: string, admin?: string) => async (path: string, body: unknown) => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      ...userHeaders(user),
    };
    if (admin !== undefined) headers["x-gleaner-admin-key"] = admin;
    const res = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() as Json };
  };
  const alice = as("alice");
  const bob = as("bob");
  const page = world.web.url("/pages/mozilla-1");
  const tierOf = async (who: typeof alice, url = page) => {
    const out = await who("/v1/scrape", { items: [{ url }] });
    assert.equal(out.status, 200, JSON.stringify(out.json));
    return out.json.items[0].tier as string | undefined;
  };
  const summaryOf = async (who: typeof alice) => {
    const out = await who("/v1/domains", {});
    assert.equal(out.status, 200, JSON.stringify(out.json));
    return (out.json.summary as { origin: string }[]).map((s) => s.origin);
  };
  const searchCached = async (who: typeof alice) => {
    const out = await who("/v1/search", { items: [{ query: "lighthouse keepers salary" }] });
    assert.equal(out.status, 200, JSON.stringify(out.json));
    assert.ok(out.json.items[0].results.length > 0);
    return out.json.items[0].cached === true;
  };
  try {
    // Alice reads a page and searches; her own second look is served from her cache.
    assert.notEqual(await tierOf(alice), "cache");
    assert.equal(await tierOf(alice), "cache", "Alice's cache works");
    assert.equal(await searchCached(alice), false);
    assert.equal(await searchCached(alice), true, "Alice's search cache works");
    assert.ok((await summaryOf(alice)).includes(world.web.origin));
    let out = await alice("/v1/domains", { domain: world.web.origin });
    const aliceRobots = out.json.origins[0].robots;
    assert.ok(aliceRobots?.state, "Alice's domain memory has the robots.txt state");

    // Bob sees none of it.
    assert.ok(!(await summaryOf(bob)).includes(world.web.origin), "Bob's summary lists no site");
    out = await bob("/v1/domains", { domain: world.web.origin });
    assert.deepEqual(out.json.origins, [], "Bob knows nothing of Alice's origin");
    out = await bob("/v1/domains", { domain: "127.0.0.1" });
    assert.deepEqual(out.json.origins, []);
    const bobReadAt = new Date(Date.now() - 1).toISOString();
    assert.notEqual(await tierOf(bob), "cache", "Bob's read is not answered from Alice's cache");
    out = await bob("/v1/domains", { domain: world.web.origin });
    assert.equal(out.json.origins[0].robots?.state, aliceRobots.state);
    assert.ok(
      out.json.origins[0].robots.checked_at >= bobReadAt,
      "robots.txt is dated by Bob's own read, not by when Alice's read fetched it",
    );
    assert.equal(await searchCached(bob), false, "Bob's search is not Alice's cached answer");
    assert.equal(await tierOf(bob), "cache", "Bob's own cache works");

    // Crawl manifests: Alice's is hers; Bob's crawl of the same site goes to the site.
    const crawl = { url: world.web.url("/maze/"), max_pages: 4, max_depth: 2 };
    out = await alice("/v1/crawl", crawl);
    assert.equal(out.status, 200, JSON.stringify(out.json));
    const crawled = out.json.pages[1].url as string;
    let before = world.web.requests.length;
    await alice("/v1/crawl", crawl);
    assert.equal(world.web.requests.length, before, "Alice's second crawl is her cached manifest");
    before = world.web.requests.length;
    out = await bob("/v1/crawl", crawl);
    assert.equal(out.status, 200);
    assert.ok(world.web.requests.length > before, "Bob's crawl is not Alice's cached manifest");
    assert.equal(await tierOf(alice, crawled), "cache");

    // A site that fails for Alice puts its tier on probation for Alice only.
    for (let i = 0; i < 3; i++) {
      const r = await alice("/v1/scrape", { items: [{ url: `${downOrigin}/p${i}` }] });
      assert.equal(r.json.items[0].ok, false);
    }
    out = await alice("/v1/domains", { domain: downOrigin });
    assert.ok(out.json.origins[0].tiers.http.skipped_until, "probation for Alice");
    await bob("/v1/scrape", { items: [{ url: `${downOrigin}/p0` }] });
    out = await bob("/v1/domains", { domain: downOrigin });
    assert.equal(out.json.origins.length, 1);
    assert.equal(out.json.origins[0].tiers.http.attempts, 1, "Bob's cascade tried http itself");
    assert.equal(out.json.origins[0].tiers.http.consecutive_failures, 1);
    assert.equal(out.json.origins[0].tiers.http.skipped_until, undefined);

    // Bob may not clear the cache, with no key or a wrong one; Alice's cache survives.
    out = await bob("/v1/cache/clear", { target: "all" });
    assert.equal(out.status, 401);
    assert.equal(out.json.error.code, "unauthorized");
    assert.match(out.json.error.message, /operator.*admin key/);
    out = await as("bob", ADMIN_KEY.replace("0", "1"))("/v1/cache/clear", { target: "all" });
    assert.equal(out.status, 401);
    assert.ok(!JSON.stringify(out.json).includes(ADMIN_KEY.slice(10)), "no key echoed");
    const mcp = await connectAs(server.url, "bob");
    const viaMcp = await mcp.callTool({ name: "clear_cache", arguments: {} }) as {
      isError?: boolean;
      content: { text: string }[];
    };
    await mcp.close();
    assert.equal(viaMcp.isError, true);
    assert.match(viaMcp.content[0].text, /^unauthorized: /);
    assert.equal(await tierOf(alice), "cache", "Alice's cache survived Bob's attempts");
    assert.ok((await summaryOf(alice)).includes(world.web.origin));

    // The operator's key clears everything, every user's.
    out = await as("ops", ADMIN_KEY)("/v1/cache/clear", { target: "all" });
    assert.equal(out.status, 200, JSON.stringify(out.json));
    assert.ok(out.json.removed >= 4, `removed ${out.json.removed}`);
    assert.ok(out.json.origins_forgotten >= 2, `forgot ${out.json.origins_forgotten}`);
    assert.deepEqual(await summaryOf(alice), []);
    assert.deepEqual(await summaryOf(bob), []);
    assert.notEqual(await tierOf(alice), "cache", "Alice's cache was cleared");
    assert.notEqual(await tierOf(bob), "cache", "Bob's cache was cleared");
  } finally {
    await server.shutdown();
    await gleaner.close();
    await down.shutdown();
    await world.close();
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("hosted web side (SQLite): B never sees what A read; only the operator clears the cache", async () => {
  await checkIsolation({});
});

Deno.test({
  name: "hosted web side (Valkey): B never sees what A read; only the operator clears the cache",
  ignore: redisRequirement.ignore,
  async fn() {
    const redis = await startRedis();
    try {
      await checkIsolation({ cache_url: redis.url });
    } finally {
      await redis.stop();
    }
  },
});

Deno.test("memory.hosted_admin_key: environment only, redacted in /config", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/config.json`;
    await Deno.writeTextFile(file, JSON.stringify({ memory: { hosted_admin_key: ADMIN_KEY } }));
    await assert.rejects(
      () => loadConfig({ env: {}, file }),
      (e: unknown) =>
        e instanceof GleanerError && e.code === "invalid_arguments" &&
        /environment only/.test(e.message) && !e.message.includes(ADMIN_KEY),
    );
    await assert.rejects(
      () => loadConfig({ env: {}, flags: { "memory.hosted_admin_key": ADMIN_KEY } }),
      /environment only/,
    );
    const config = await loadConfig({ env: { GLEANER_MEMORY_HOSTED_ADMIN_KEY: ADMIN_KEY } });
    assert.equal(config.memory.hosted_admin_key, ADMIN_KEY);
    assert.equal(redactConfig(config).memory.hosted_admin_key, "[redacted]");
    assert.throws(() => parseConfig({ memory: { hosted_admin_key: "short" } }), /32 bytes/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
