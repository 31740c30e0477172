import assert from "node:assert/strict";
import { parseDocument } from "./dom.ts";
import { readabilityExtractor } from "./main_content.ts";
import { paragraphContainer, proseChars, sharedProse, stripChrome } from "./paragraphs.ts";
import { extractHtml } from "./mod.ts";

const sentence = (topic: string) =>
  `The ${topic} section explains in plain words how the tide tables are read by sailors. `;
const section = (topic: string) =>
  `<div class="story-stack-item"><span>Part</span><div class="story"><div class="rich-text"><p>${
    sentence(topic).repeat(2)
  }</p></div></div></div>`;

Deno.test("paragraphContainer: the deepest element holding most prose", () => {
  const doc = parseDocument(
    `<html><body><nav><p>${sentence("menu").repeat(3)}</p></nav>` +
      `<article id="story"><div id="stack">${
        ["first", "second", "third", "fourth"].map(section).join("")
      }</div></article><footer><p>${sentence("footer")}</p></footer></body></html>`,
  );
  const found = paragraphContainer(doc);
  assert.equal(found?.element.id, "stack");
  assert.equal(found?.chars, found?.total);
});

Deno.test("stripChrome and proseChars: chrome and short paragraphs do not count", () => {
  const root = parseDocument(
    `<div><aside><p>${sentence("aside")}</p></aside><div class="sidebar"><p>${
      sentence("side")
    }</p></div><p>${sentence("kept")}</p><p>Short.</p></div>`,
  ).body;
  stripChrome(root);
  assert.equal(proseChars(root), sentence("kept").trim().length);
});

Deno.test("extractHtml: Gleaner's extractor is the default and drops furniture Readability keeps", () => {
  const body = `<p>${sentence("main").repeat(4)}</p>`.repeat(4);
  const html = `<html><head><title>Tides</title></head><body><article class="post">${body}` +
    `<div class="share-tools"><a href="/s">Share this article</a></div>` +
    `<p>Sign up for our weekly newsletter.</p></article></body></html>`;
  const page = extractHtml(html, "https://example.com/tides");
  assert.equal(page.method, "gleaner");
  assert.ok(page.markdown.includes("The main section"));
  assert.ok(!page.markdown.includes("Share this"));
  assert.ok(!page.markdown.includes("newsletter"));
  const plain = extractHtml(html, "https://example.com/tides", { extractor: readabilityExtractor });
  assert.ok(plain.markdown.includes("newsletter"), "precondition: Readability keeps the prompt");
});

Deno.test("stripChrome: inline-style hidden blocks go; sharedProse measures overlap", () => {
  const p = `<p>${sentence("shown")}</p>`;
  const root =
    parseDocument(`<div>${p}<div style="display: none"><p>${sentence("hidden")}</p></div></div>`)
      .body;
  stripChrome(root);
  assert.ok(!root.textContent!.includes("hidden section"));
  const other = parseDocument(`<p>${sentence("other")}</p>`).body;
  assert.equal(sharedProse(parseDocument(p).body, root), 1);
  assert.equal(sharedProse(other, root), 0);
});
