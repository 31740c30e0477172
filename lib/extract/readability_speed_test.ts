import assert from "node:assert/strict";
import { Readability } from "@mozilla/readability";
import { parseDocument } from "./dom.ts";
import { speedUpReadability } from "./readability_speed.ts";

const para = (topic: string) =>
  `<p>The ${topic} paragraph explains, in plain words, how tide tables are read by sailors ` +
  `who leave the harbour at dawn and come back before the evening tide turns.</p>`;

/** Pages that take the paths the hooks touch: hidden blocks, bylines, templates, retries. */
const PAGES = [
  // Long enough for one attempt; hidden by style, attribute and aria; a byline; a template.
  `<html><body><div class="byline" rel="author">By Ann Reed</div><article>${
    ["first", "second", "third", "fourth"].map(para).join("")
  }<div style="display: none">${para("hidden")}</div><div hidden>${para("attribute")}</div>` +
  `<div aria-hidden="true">${para("aria")}</div><div aria-hidden="true" class="fallback-image">` +
  `${para("fallback")}</div><template><p>${para("template")}</p></template>` +
  `<div style="color: red">${para("styled")}</div>` +
  // Text only in a <span>: Readability's "text density" (tags asked for in upper case) keeps it.
  `<div><span>Tide heights are given in metres above chart datum.</span></div></article>` +
  `<div class="comments"><p>${para("comment")}</p></div></body></html>`,
  // Too short for the first attempt (under 500 characters): Readability retries with looser flags.
  `<html><body><div class="sidebar">${para("side")}</div><div class="content">${
    para("only")
  }<span itemprop="author">Ben Ode</span></div></body></html>`,
];

function parse(html: string, hooked: boolean) {
  const doc = parseDocument(html);
  const reader = new Readability<Element>(doc, {
    keepClasses: true,
    serializer: (node) => node as Element,
  });
  const restore = hooked ? speedUpReadability(reader) : () => {};
  try {
    const article = reader.parse();
    return {
      html: article?.content?.innerHTML,
      text: article?.textContent,
      byline: article?.byline,
      body: doc.body.innerHTML,
    };
  } finally {
    restore();
  }
}

Deno.test("speedUpReadability: the same article, byline and leftover page as plain Readability", () => {
  for (const html of PAGES) {
    const plain = parse(html, false);
    assert.ok(plain.text?.includes("paragraph explains"), "precondition: an article is found");
    assert.deepEqual(parse(html, true), plain);
  }
});

Deno.test("speedUpReadability: the hooks are in place on Readability 0.6.0 and leave nothing behind", () => {
  const doc = parseDocument(PAGES[0]);
  const reader = new Readability<Element>(doc, { serializer: (node) => node as Element });
  const own = Object.keys(reader);
  speedUpReadability(reader)();
  const hooked = Object.keys(reader).filter((k) => !own.includes(k)).sort();
  assert.deepEqual(hooked, [
    "_getAllNodesWithTag",
    "_grabArticle",
    "_isProbablyVisible",
    "_isValidByline",
    "_postProcessContent",
  ]);
  const article = reader.parse();
  assert.ok(article?.content);
  assert.ok(!Object.hasOwn(article.content, "innerHTML"), "no innerHTML override left");
  assert.ok(article.content.innerHTML.includes("paragraph explains"));
});
