import assert from "node:assert/strict";
import { extractHtml } from "../../lib/extract/mod.ts";
import { defuddleExtractor } from "./defuddle.ts";

const ARTICLE = "<p>" +
  "Tides rise and fall twice each day because the Moon pulls on the oceans. ".repeat(12) +
  "</p>";

function page(head: string, body: string, htmlAttrs = ""): string {
  return `<!DOCTYPE html><html ${htmlAttrs}><head>${head}</head><body>${body}</body></html>`;
}

Deno.test("extractHtml: defuddle extractor also produces the article", () => {
  const html = page(
    "<title>T</title>",
    `<nav><a href="/a">A</a></nav><article><h2>Part</h2>${ARTICLE}</article>`,
  );
  const result = extractHtml(html, "https://example.com/d", { extractor: defuddleExtractor });
  assert.ok(result.markdown.includes("Tides rise and fall"));
  assert.ok(!result.markdown.includes("](/"));
});
