import assert from "node:assert/strict";
import { boundHtml, HTML_LIMITS, looksBinary } from "./guard.ts";
import { stripScripts } from "./dom.ts";
import { corpusPages, fixturePages, type TestPage } from "../../testing/fixtures/test_pages.ts";
import { corpora } from "../../testing/fixtures/corpora.ts";
import { binaryBytes, nestedDivs } from "../../testing/fixtures/hostile.ts";

/** Real pages pass `boundHtml` unchanged and are not taken for binary. */
function assertPagesPass(pages: TestPage[]): void {
  assert.ok(pages.length > 0);
  for (const page of pages) {
    const cleaned = stripScripts(page.html);
    const bounded = boundHtml(cleaned);
    assert.equal(bounded.html, cleaned, page.name);
    assert.equal(bounded.truncated, false, page.name);
    assert.equal(looksBinary(page.html), false, page.name);
  }
}

Deno.test("boundHtml: real pages pass unchanged; looksBinary is false on them", async () => {
  assertPagesPass(await fixturePages());
});

Deno.test({
  name: `boundHtml: the Readability corpus passes unchanged${corpora.suffix}`,
  ignore: corpora.ignore,
}, async () => {
  corpora.assertPresent();
  assertPagesPass(await corpusPages());
});

Deno.test("boundHtml: deep nesting is flattened, text and shallow structure kept", () => {
  const bounded = boundHtml(nestedDivs(50_000));
  assert.equal(bounded.truncated, false);
  assert.match(bounded.html, /Tides rise and fall/);
  const kept = bounded.html.match(/<div>/g)?.length ?? 0;
  assert.ok(kept > HTML_LIMITS.maxDepth - 5 && kept < HTML_LIMITS.maxDepth, String(kept));
  assert.equal(bounded.flattened, 50_000 - kept + 1); // the divs and the paragraph inside
  assert.equal(bounded.html.match(/<\/div>/g)?.length, kept);
  // Unclosed formatting tags (a decompression bomb of `<b>`) are flattened too.
  const bombed = boundHtml(`<p>start</p>${"<b>".repeat(100_000)}end`);
  assert.ok((bombed.html.match(/<b>/g)?.length ?? 0) <= HTML_LIMITS.maxDepth);
  assert.match(bombed.html, /end$/);
});

Deno.test("boundHtml: element count and size are capped, the page is flagged truncated", () => {
  const many = boundHtml(`<body>${"<span>x</span>".repeat(100)}<p>tail</p></body>`, {
    maxElements: 50,
  });
  assert.equal(many.truncated, true);
  assert.equal(many.html.match(/<span>/g)?.length, 49);
  assert.doesNotMatch(many.html, /tail/);
  const big = boundHtml(`<p>${"word ".repeat(1_000)}</p><p>end</p>`, { maxChars: 2_000 });
  assert.equal(big.truncated, true);
  assert.ok(big.html.length <= 2_000);
  // Hostile tag soup without ">" is scanned once, not once per "<".
  assert.equal(boundHtml("<a".repeat(200_000)).truncated, false);
});

Deno.test("looksBinary: random bytes and control characters, not UTF-8 text", () => {
  assert.equal(looksBinary(new TextDecoder().decode(binaryBytes(200_000))), true);
  assert.equal(looksBinary(new TextDecoder("windows-1252").decode(binaryBytes(200_000))), true);
  assert.equal(looksBinary("<p>" + "日本語のテキスト。Grüße! ".repeat(10_000) + "</p>"), false);
  // A little binary at the end of a long text page is not enough.
  assert.equal(looksBinary("<p>text</p>".repeat(50_000) + "\u0000\u0001"), false);
});
