/**
 * The page cache obeys the policy in force, keys by render mode, and a cache
 * outage never fails a read.
 */
import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { createGleaner, type Gleaner } from "../gleaner.ts";
import { GleanerError } from "../errors.ts";
import { openStore } from "../store/mod.ts";
import { redisRequirement, startRedis } from "../store/testdata/helpers.ts";
import { startFixtureWeb } from "../../testing/fixtures/web.ts";
import { createPageCache, MAX_CACHED_MARKDOWN_CHARS, pageCacheKey } from "./page_cache.ts";
import type { Page } from "./types.ts";

const blocked = (e: unknown) => e instanceof GleanerError && e.code === "blocked_url";

function page(url: string): Page {
  return {
    url,
    finalUrl: url,
    title: "T",
    markdown: "text",
    links: [],
    tier: "http",
    mediaType: "text/html",
    fetchedAt: new Date(0).toISOString(),
  };
}

Deno.test("a page read while an origin could be private is served only while it still can", async () => {
  const store = openStore({ path: ":memory:" });
  try {
    const url = "https://intranet.example/a";
    const request = { url, render: "auto" as const };
    const loose = createPageCache(
      store.cache,
      parseConfig({ network: { allow_private: ["https://intranet.example"] } }),
    );
    const everything = createPageCache(
      store.cache,
      parseConfig({ network: { allow_private: true } }),
    );
    const strict = createPageCache(store.cache, parseConfig({}));
    await loose.set(request, page(url));
    assert.equal((await loose.get(request))?.url, url);
    assert.equal((await everything.get(request))?.url, url);
    assert.equal(await strict.get(request), undefined, "the name may have resolved privately");
    // Read under the strict policy (so from a public address): anyone may be served it.
    await strict.set(request, page(url));
    assert.equal((await strict.get(request))?.url, url);
    // The render mode is part of the key.
    assert.notEqual(pageCacheKey(request), pageCacheKey({ url, render: "never" }));
    assert.equal(await strict.get({ url, render: "never" }), undefined);
  } finally {
    await store.close();
  }
});

async function twoGleaners(
  store: Record<string, unknown>,
  fn: (loose: Gleaner, strict: Gleaner, url: string) => Promise<void>,
) {
  const web = await startFixtureWeb();
  const base = { store, embed: { provider: "none" }, read: { render: "never" } } as const;
  const loose = await createGleaner({ ...base, network: { allow_private: [web.origin] } });
  const strict = await createGleaner({ ...base });
  try {
    await fn(loose, strict, web.url("/pages/wikipedia"));
  } finally {
    await loose.close();
    await strict.close();
    await web.close();
  }
}

Deno.test("two Gleaners sharing one SQLite file: a page cached under allow_private is refused under a stricter policy", async () => {
  const root = await Deno.makeTempDir();
  try {
    await twoGleaners({ path: `${root}/shared.db` }, async (loose, strict, url) => {
      assert.equal((await loose.reader.read({ url })).tier, "http");
      assert.equal((await loose.reader.read({ url })).tier, "cache");
      await assert.rejects(strict.reader.read({ url }), blocked);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name:
    "two Gleaners sharing Valkey: a page cached under allow_private is refused under a stricter policy",
  ignore: redisRequirement.ignore,
  fn: async () => {
    const redis = await startRedis();
    try {
      await twoGleaners({ path: ":memory:", cache_url: redis.url }, async (loose, strict, url) => {
        assert.equal((await loose.reader.read({ url })).tier, "http");
        assert.equal((await loose.reader.read({ url })).tier, "cache");
        await assert.rejects(strict.reader.read({ url }), blocked);
      });
    } finally {
      await redis.stop();
    }
  },
});

Deno.test("a render:never read does not answer an auto caller from the cache", async () => {
  const web = await startFixtureWeb();
  const gleaner = await createGleaner({
    network: { allow_private: [web.origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
  });
  try {
    const url = web.url("/pages/wikipedia");
    assert.equal((await gleaner.reader.read({ url, render: "never" })).tier, "http");
    assert.equal((await gleaner.reader.read({ url, render: "never" })).tier, "cache");
    assert.notEqual((await gleaner.reader.read({ url, render: "auto" })).tier, "cache");
  } finally {
    await gleaner.close();
    await web.close();
  }
});

Deno.test("an unreachable store.cache_url degrades to uncached reads", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close(); // nothing listens there now
  const web = await startFixtureWeb();
  const gleaner = await createGleaner({
    network: { allow_private: [web.origin] },
    store: { path: ":memory:", cache_url: `redis://127.0.0.1:${port}` },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  try {
    const url = web.url("/pages/wikipedia");
    const first = await gleaner.reader.read({ url });
    assert.equal(first.tier, "http");
    assert.match(first.markdown, /\w/);
    assert.equal(
      (await gleaner.reader.read({ url })).tier,
      "http",
      "nothing cached, nothing failed",
    );
  } finally {
    await gleaner.close();
    await web.close();
  }
});

Deno.test("a page with more Markdown than MAX_CACHED_MARKDOWN_CHARS is not cached, nor an older copy served", async () => {
  const config = parseConfig({ store: { path: ":memory:" } });
  const store = openStore(config.store);
  try {
    const pages = createPageCache(store.cache, config);
    const request = { url: "https://example.com/huge", render: "auto" as const };
    await pages.set(request, page(request.url));
    assert.equal((await pages.get(request))?.markdown, "text");
    const huge = {
      ...page(request.url),
      markdown: "word ".repeat(MAX_CACHED_MARKDOWN_CHARS / 5 + 1),
    };
    await pages.set(request, huge);
    assert.equal(await pages.get(request), undefined);
    const fits = { ...huge, markdown: huge.markdown.slice(0, MAX_CACHED_MARKDOWN_CHARS) };
    await pages.set(request, fits);
    assert.equal((await pages.get(request))?.markdown.length, MAX_CACHED_MARKDOWN_CHARS);
  } finally {
    await store.close();
  }
});
