import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { createFetcher } from "../net/fetch.ts";
import { createReader } from "../read/cascade.ts";
import { httpTier } from "../read/tiers/http.ts";
import { openStore, type Store } from "../store/mod.ts";
import { type FixtureWeb, SITEMAP_PAGES, startFixtureWeb } from "../../testing/fixtures/web.ts";
import { crawlSiteTool } from "../tools/crawl_site.ts";
import { type CrawlDeps, type CrawlProgress, crawlSite, snippetOf } from "./crawl.ts";

interface Setup {
  web: FixtureWeb;
  store: Store;
  deps: CrawlDeps & { cache: Store["cache"] };
}

async function withSite(fn: (setup: Setup) => Promise<void>): Promise<void> {
  const web = await startFixtureWeb();
  const store = openStore({ path: ":memory:" });
  try {
    const config = parseConfig({
      network: { allow_private: [web.origin] },
      read: { render: "never", concurrency: 3 },
    });
    const fetcher = createFetcher(config.network);
    const reader = createReader({ config, fetcher, tiers: [httpTier], cache: store.cache });
    await fn({ web, store, deps: { config, fetcher, reader, cache: store.cache } });
  } finally {
    await store.close();
    await web.close();
  }
}

const path = (url: string) => new URL(url).pathname;

Deno.test("crawl via a sitemap index: every listed page read once, cached, manifest cached", async () => {
  await withSite(async ({ web, deps }) => {
    const updates: CrawlProgress[] = [];
    const result = await crawlSite(deps, {
      url: web.url("/pages/"),
      max_pages: 20,
      max_depth: 1,
      progress: (p) => updates.push(p),
    });
    assert.equal(result.from_sitemap, true);
    // The start page is not one of the sitemap's: the count says what the sitemap gave.
    assert.equal(result.sitemap_pages, SITEMAP_PAGES.length);
    assert.equal(result.pages.length, SITEMAP_PAGES.length + 1);
    assert.deepEqual(result.failed, []);
    // The start page, then the sitemap's pages in sitemap order (both files of the index,
    // the gzip one included); the off-site URL and the image are skipped.
    assert.deepEqual(result.pages.map((p) => path(p.url)), [
      "/pages/",
      ...SITEMAP_PAGES.map((name) => `/pages/${name}`),
    ]);
    assert.deepEqual(result.pages.map((p) => p.depth), [0, ...SITEMAP_PAGES.map(() => 1)]);
    for (const page of result.pages) {
      assert.ok(page.title.length > 0, `title of ${page.url}`);
      assert.ok(page.snippet.length > 0 && page.snippet.length <= 201, `snippet of ${page.url}`);
    }
    assert.equal(updates.length, 1 + SITEMAP_PAGES.length);
    assert.equal(updates.at(-1)?.progress, 1 + SITEMAP_PAGES.length);
    const sitemapFetches = web.requests.filter((p) => p.startsWith("/sitemap"));
    assert.deepEqual(sitemapFetches, [
      "/sitemap.xml",
      "/sitemaps/pages.xml",
      "/sitemaps/more.xml.gz",
    ]);
    for (const name of SITEMAP_PAGES) {
      assert.equal(web.requests.filter((p) => p === `/pages/${name}`).length, 1, name);
    }

    // Every page is in the page cache: reading them again costs no request.
    const before = web.requests.length;
    for (const page of result.pages) {
      const again = await deps.reader.read({ url: page.url });
      assert.equal(again.tier, "cache", page.url);
      assert.equal(again.title, page.title);
    }
    // The manifest is cached too: the same crawl again costs no request.
    const second = await crawlSite(deps, { url: web.url("/pages/"), max_pages: 20, max_depth: 1 });
    assert.deepEqual(second, result);
    assert.equal(web.requests.length, before);
    assert.ok(
      await deps.cache.get(
        "crawl",
        JSON.stringify({
          v: 1,
          url: web.url("/pages/"),
          maxPages: 20,
          maxDepth: 1,
          include: [],
          exclude: [],
        }),
      ),
    );
  });
});

Deno.test("crawl via a sitemap stops at max_pages", async () => {
  await withSite(async ({ web, deps }) => {
    const result = await crawlSite(deps, { url: web.url("/pages/"), max_pages: 3 });
    assert.equal(result.from_sitemap, true);
    assert.equal(result.sitemap_pages, 2);
    assert.equal(
      crawlSiteTool.render(result).split("\n")[0],
      "3 pages (2 listed in the sitemap)",
      "the head of the text counts the sitemap's pages, not all of them",
    );
    assert.deepEqual(result.pages.map((p) => path(p.url)), [
      "/pages/",
      `/pages/${SITEMAP_PAGES[0]}`,
      `/pages/${SITEMAP_PAGES[1]}`,
    ]);
    assert.equal(web.requests.filter((p) => p === `/pages/${SITEMAP_PAGES[2]}`).length, 0);
  });
});

Deno.test("crawl of a link maze: BFS to max_depth, exclude, robots, traps skipped", async () => {
  await withSite(async ({ web, deps }) => {
    const result = await crawlSite(deps, {
      url: web.url("/maze/"),
      max_pages: 50,
      max_depth: 2,
      exclude: ["/maze/skip/"],
    });
    // The sitemap lists nothing under /maze/: links alone.
    assert.equal(result.from_sitemap, false);
    assert.equal(result.sitemap_pages, undefined);
    assert.doesNotMatch(crawlSiteTool.render(result), /sitemap/);
    assert.deepEqual(result.pages.map((p) => [path(p.url), p.depth]), [
      ["/maze/", 0],
      ["/maze/a", 1],
      ["/maze/b", 1],
      ["/maze/a/a", 2],
      ["/maze/a/b", 2],
      ["/maze/b/a", 2],
      ["/maze/b/b", 2],
    ]);
    assert.equal(result.pages[0].title, "Maze entrance");
    assert.match(result.pages[1].snippet, /^This is the maze room a at depth 1\./);
    // robots.txt disallows /private/: reported, never fetched.
    assert.deepEqual(result.failed.map((f) => [path(f.url), f.code]), [[
      "/private/secret",
      "robots_disallowed",
    ]]);
    const fetched = web.requests;
    assert.equal(fetched.filter((p) => p === "/private/secret").length, 0);
    assert.equal(fetched.filter((p) => p.startsWith("/maze/skip")).length, 0, "excluded");
    assert.equal(fetched.filter((p) => p.endsWith(".png")).length, 0, "not a page");
    assert.equal(
      fetched.filter((p) => /^\/maze\/[ab]\/[ab]\/[ab]/.test(p)).length,
      0,
      "beyond max_depth",
    );
    // Each maze page fetched exactly once (the #fragment duplicate was merged).
    for (const page of result.pages) {
      assert.equal(fetched.filter((p) => p === path(page.url)).length, 1, page.url);
    }
    // No request left loopback: the off-site link was never read.
    assert.ok(!result.pages.some((p) => !p.url.startsWith(web.origin)));

    const before = web.requests.length;
    for (const page of result.pages) {
      assert.equal((await deps.reader.read({ url: page.url })).tier, "cache");
    }
    assert.equal(web.requests.length, before);
  });
});

Deno.test("crawl of a link maze: max_pages keeps breadth-first order; include narrows", async () => {
  await withSite(async ({ web, deps }) => {
    const small = await crawlSite(deps, { url: web.url("/maze/"), max_pages: 4, max_depth: 5 });
    // Depth 1 is /maze/a, /maze/b, /maze/skip/one (the robots-disallowed link costs nothing).
    assert.deepEqual(small.pages.map((p) => path(p.url)), [
      "/maze/",
      "/maze/a",
      "/maze/b",
      "/maze/skip/one",
    ]);
    assert.deepEqual(small.failed.map((f) => f.code), ["robots_disallowed"]);
    const deeper = await crawlSite(deps, {
      url: web.url("/maze/"),
      max_pages: 5,
      exclude: ["/maze/skip/"],
    });
    assert.deepEqual(deeper.pages.map((p) => path(p.url)), [
      "/maze/",
      "/maze/a",
      "/maze/b",
      "/maze/a/a",
      "/maze/a/b",
    ]);

    const only = await crawlSite(deps, {
      url: web.url("/maze/"),
      max_pages: 50,
      max_depth: 3,
      include: ["re:^/maze/b"],
      exclude: ["**/a"],
    });
    assert.deepEqual(only.pages.map((p) => path(p.url)), [
      "/maze/",
      "/maze/b",
      "/maze/b/b",
      "/maze/b/b/b",
    ]);
    assert.equal(only.failed.length, 0, "include already leaves /private/ out");
  });
});

Deno.test("crawl: bad input is refused; a cancelled crawl ends in timeout", async () => {
  await withSite(async ({ web, deps }) => {
    for (
      const input of [
        { url: "not a url" },
        { url: "ftp://example.com/" },
        { url: web.url("/maze/"), max_pages: 101 },
        { url: web.url("/maze/"), max_pages: 0 },
        { url: web.url("/maze/"), max_depth: -1 },
        { url: web.url("/maze/"), exclude: ["re:("] },
      ]
    ) {
      await assert.rejects(
        crawlSite(deps, input),
        (e) => e instanceof GleanerError && e.code === "invalid_arguments",
        JSON.stringify(input),
      );
    }
    const controller = new AbortController();
    const crawl = crawlSite(deps, {
      url: web.url("/maze/"),
      max_pages: 30,
      max_depth: 4,
      signal: controller.signal,
      progress: (p) => {
        if (p.progress === 2) controller.abort();
      },
    });
    await assert.rejects(crawl, (e) => e instanceof GleanerError && e.code === "timeout");
  });
});

Deno.test("snippetOf: plain text of the first ~200 characters", () => {
  assert.equal(
    snippetOf("# Title\n\nSome *emphasis* and `code`.", "Title"),
    "Some emphasis and code.",
  );
  assert.equal(
    snippetOf(
      "Intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- item one\n- item_two **bold**\n\n```js\nx()\n```",
    ),
    "Intro a b 1 2 item one item_two bold x()",
  );
  const long = snippetOf("word ".repeat(100));
  assert.ok(long.length <= 201 && long.endsWith("…"));
  assert.ok(!/\s…$/.test(long));
});
