import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { createFetcher } from "../net/fetch.ts";
import { SITEMAP_PAGES, startFixtureWeb } from "../../testing/fixtures/web.ts";
import { discoverSitemapUrls, parseSitemap, sitemapsFromRobots } from "./sitemap.ts";

Deno.test("parseSitemap: urlset, index, namespaces, CDATA and junk", () => {
  const urlset = parseSitemap(
    `<?xml version="1.0"?><ns:urlset xmlns:ns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
      `<ns:url><ns:loc> https://e.com/a </ns:loc><ns:lastmod>2024-01-01</ns:lastmod></ns:url>` +
      `<ns:url><ns:loc><![CDATA[https://e.com/b?x=1&y=2]]></ns:loc></ns:url></ns:urlset>`,
  );
  assert.deepEqual(urlset, {
    kind: "urlset",
    urls: ["https://e.com/a", "https://e.com/b?x=1&y=2"],
  });
  const index = parseSitemap(
    `<sitemapindex><sitemap><loc>https://e.com/s1.xml</loc></sitemap></sitemapindex>`,
  );
  assert.deepEqual(index, { kind: "sitemapindex", urls: ["https://e.com/s1.xml"] });
  assert.deepEqual(parseSitemap("<html><body>not a sitemap</body></html>"), {
    kind: "unknown",
    urls: [],
  });
  assert.deepEqual(parseSitemap("<urlset></urlset>"), { kind: "urlset", urls: [] });
  assert.deepEqual(
    sitemapsFromRobots(
      "sitemap: /s.xml\nSITEMAP:https://e.com/t.xml\nAllow: /",
      "https://e.com/robots.txt",
    ),
    [
      "https://e.com/s.xml",
      "https://e.com/t.xml",
    ],
  );
});

Deno.test("discoverSitemapUrls: robots.txt → index → gzip and plain sitemaps, same site only", async () => {
  const web = await startFixtureWeb();
  try {
    const config = parseConfig({ network: { allow_private: [web.origin] } });
    const found = await discoverSitemapUrls(createFetcher(config.network), new URL(web.url("/")), {
      robots: true,
    });
    assert.deepEqual(
      found.urls,
      SITEMAP_PAGES.map((name) => web.url(`/pages/${name}`)).toSpliced(
        4,
        0,
        web.url("/pages/logo.png"),
      ),
    );
    assert.deepEqual(found.sitemaps, [
      web.url("/sitemap.xml"),
      web.url("/sitemaps/pages.xml"),
      web.url("/sitemaps/more.xml.gz"),
    ]);
    const limited = await discoverSitemapUrls(
      createFetcher(config.network),
      new URL(web.url("/")),
      {
        robots: true,
        maxUrls: 2,
      },
    );
    assert.equal(limited.urls.length, 2);
  } finally {
    await web.close();
  }
});
