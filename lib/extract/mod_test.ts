import assert from "node:assert/strict";
import { extractHtml } from "./mod.ts";
import { cleanTitle } from "./metadata.ts";
import { bodyContent } from "./main_content.ts";
import { parseDocument } from "./dom.ts";
import { evalInChild } from "../../testing/fixtures/eval.ts";

const ARTICLE = "<p>" +
  "Tides rise and fall twice each day because the Moon pulls on the oceans. ".repeat(12) +
  "</p>";

function page(head: string, body: string, htmlAttrs = ""): string {
  return `<!DOCTYPE html><html ${htmlAttrs}><head>${head}</head><body>${body}</body></html>`;
}

Deno.test("extractHtml: title cascade og → twitter → <title> → h1 → URL", () => {
  const body = `<article><h1>Heading One</h1>${ARTICLE}</article>`;
  const url = "https://example.com/tides";
  const og = '<meta property="og:title" content="OG Title">';
  const tw = '<meta name="twitter:title" content="Twitter Title">';
  const title = "<title>Real Title | Ocean Site</title>";
  assert.equal(extractHtml(page(og + tw + title, body), url).title, "OG Title");
  assert.equal(extractHtml(page(tw + title, body), url).title, "Twitter Title");
  assert.equal(extractHtml(page(title, body), url).title, "Real Title");
  assert.equal(extractHtml(page("", body), url).title, "Heading One");
  assert.equal(extractHtml(page("", ARTICLE), url).title, url);
});

Deno.test("cleanTitle: strips site suffixes and known site prefixes only", () => {
  assert.equal(cleanTitle("How tides work - Ocean News"), "How tides work");
  assert.equal(cleanTitle("How tides work — Ocean News"), "How tides work");
  assert.equal(cleanTitle("Ocean News | How tides work", "Ocean News"), "How tides work");
  assert.equal(cleanTitle("Tides"), "Tides");
  assert.equal(cleanTitle("Self-driving cars"), "Self-driving cars");
});

Deno.test("extractHtml: links are absolute, http(s), deduped, main content first", () => {
  const html = page(
    '<base href="https://example.com/docs/">',
    '<nav><a href="/home">Home</a><a href="https://other.org/x">Other</a></nav>' +
      `<article><h1>T</h1>${ARTICLE}<p>See <a href="guide.html#part">the guide</a>, ` +
      '<a href="guide.html">again</a>, <a href="#top">top</a>, <a href="mailto:a@b.c">mail</a>, ' +
      '<a href="javascript:void(0)">js</a> and <a href="https://other.org/x">other</a>.</p></article>',
  );
  const result = extractHtml(html, "https://example.com/docs/page");
  assert.deepEqual(result.links.map((l) => l.url), [
    "https://example.com/docs/guide.html",
    "https://other.org/x",
    "https://example.com/home",
  ]);
  assert.equal(result.links[0].text, "the guide");
  assert.ok(result.markdown.includes("See the guide, again, top, mail, js and other."));
  assert.ok(!result.markdown.includes("guide.html"));
});

Deno.test("extractHtml: a <base> inside a <template> is not the page's base", () => {
  const html = page(
    "",
    '<template><base href="https://other.org/"></template>' +
      `<article><h1>T</h1>${ARTICLE}<p>See <a href="guide.html">the guide</a>.</p></article>`,
  );
  const result = extractHtml(html, "https://example.com/docs/page");
  assert.deepEqual(result.links.map((l) => l.url), ["https://example.com/docs/guide.html"]);
});

Deno.test("extractHtml: metadata from meta tags, JSON-LD, canonical and lang", () => {
  const head = '<meta property="article:published_time" content="2024-05-01T10:00:00Z">' +
    '<link rel="canonical" href="/canonical/tides">' +
    '<meta property="og:site_name" content="Ocean News">' +
    '<meta name="description" content="All about tides.">' +
    '<script type="application/ld+json">{"@context":"https://schema.org","@graph":[' +
    '{"@type":"WebSite","name":"x"},{"@type":"NewsArticle","headline":"LD Headline",' +
    '"author":[{"@type":"Person","name":"Ada"},{"@type":"Person","name":"Grace"}]}]}</script>' +
    "<title>Tides</title>";
  const result = extractHtml(
    page(head, `<article>${ARTICLE}</article>`, 'lang="fr"'),
    "https://example.com/t",
  );
  assert.equal(result.lang, "fr");
  assert.equal(result.canonical, "https://example.com/canonical/tides");
  assert.equal(result.published, "2024-05-01T10:00:00Z");
  assert.equal(result.byline, "Ada, Grace");
  assert.equal(result.siteName, "Ocean News");
  assert.equal(result.excerpt, "All about tides.");
  assert.equal(result.method, "gleaner");
});

Deno.test("extractHtml: JSON-LD articleBody replaces thin main content", () => {
  const body = "First paragraph of the real article body, which is long enough. ".repeat(10);
  const head = '<script type="application/ld+json">' +
    JSON.stringify({
      "@type": "Article",
      headline: "H",
      articleBody: `${body}\n\nSecond paragraph.`,
    }) +
    "</script>";
  const result = extractHtml(page(head, "<div>Loading…</div>"), "https://example.com/a");
  assert.equal(result.method, "json-ld");
  assert.ok(result.markdown.startsWith("First paragraph of the real article body"));
  assert.ok(result.markdown.endsWith("\n\nSecond paragraph."));
});

Deno.test("extractHtml: a tiny page still gives its text, never scripts", () => {
  const result = extractHtml(
    "<html><body><p>Short note.</p><script>var x = 1;</script></body></html>",
    "https://example.com/n",
  );
  assert.equal(result.markdown, "Short note.");
});

Deno.test("bodyContent: the fallback keeps body text without chrome or scripts", () => {
  const main = bodyContent(
    parseDocument(
      "<html><body><nav>Menu</nav><p>Short note.</p><script>var x = 1;</script></body></html>",
    ),
  );
  assert.equal(main.method, "body");
  assert.equal(main.root.textContent, "Short note.");
});

Deno.test("extractHtml: hostile pages are bounded (links kept, binary refused, big pages truncated)", async () => {
  const { binaryBytes, manyLinks } = await import("../../testing/fixtures/hostile.ts");
  const { GleanerError } = await import("../errors.ts");
  const links = extractHtml(manyLinks(3_000), "https://example.com/");
  assert.equal(links.links.length, 1_000);
  assert.equal(links.links[0].url, "https://example.com/l/0");
  assert.equal(
    extractHtml(manyLinks(3_000), "https://example.com/", { maxLinks: 10 }).links.length,
    10,
  );
  assert.throws(
    () => extractHtml(new TextDecoder().decode(binaryBytes(100_000)), "https://example.com/bin"),
    (e) =>
      e instanceof GleanerError && e.code === "unsupported_content" &&
      /example\.com\/bin/.test(e.message),
  );
  const big = extractHtml(
    `<title>Big</title><article><p>${"Tides rise. ".repeat(50_000)}</p></article>`,
    "https://example.com/",
    {
      limits: { maxChars: 100_000 },
    },
  );
  assert.equal(big.truncated, true);
  assert.ok(big.markdown.length < 100_000 && big.markdown.startsWith("Tides rise."));
  assert.equal(extractHtml(ARTICLE, "https://example.com/").truncated, undefined);
});

Deno.test("extractHtml: every hostile page finishes (subprocess with a generous watchdog)", async () => {
  // Before the bounds: 1,000 nested divs 6 s, 400,000 elements 50 s, 50,000 nested divs and
  // 200,000 unclosed scripts over a minute each, binary bytes a stack overflow after 35 s.
  const code = `
    import * as h from "./testing/fixtures/hostile.ts";
    import { extractHtml } from "./lib/extract/mod.ts";
    const pages = {
      nested: h.nestedDivs(1_000),
      deep: h.nestedDivs(50_000),
      scripts: h.unclosedScripts(200_000),
      elements: "<html><body>" + "<span>x</span>".repeat(400_000) + "</body></html>",
      bomb: "<html><body><p>start</p>" + "<b>".repeat(1_000_000) + "</body></html>",
    };
    const out = {};
    for (const [name, html] of Object.entries(pages)) {
      const page = extractHtml(html, "https://example.com/");
      out[name] = { chars: page.markdown.length, truncated: page.truncated ?? false };
    }
    console.log(JSON.stringify(out));
  `;
  const out = await evalInChild(code, 120_000);
  assert.ok(
    out.success,
    `extraction did not finish: ${out.stderr.slice(-500)}`,
  );
  const result = JSON.parse(out.stdout);
  assert.ok(result.nested.chars > 500 && result.deep.chars > 500, JSON.stringify(result));
  assert.equal(result.elements.truncated, true);
  assert.ok(result.scripts.chars > 500);
});
