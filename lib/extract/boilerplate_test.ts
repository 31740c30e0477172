import assert from "node:assert/strict";
import { parseDocument, textOf } from "./dom.ts";
import { precleanDocument, pruneContent } from "./boilerplate.ts";

const PROSE = "Tides rise and fall twice each day because the Moon pulls on the oceans. ";
const para = (n = 3) => `<p>${PROSE.repeat(n)}</p>`;

function pruned(html: string): Element {
  const root = parseDocument(`<div id="root">${html}</div>`).getElementById("root")!;
  pruneContent(root);
  return root;
}

Deno.test("pruneContent: drops share, newsletter, related, author and caption blocks by class", () => {
  const root = pruned(
    para() +
      '<div class="share-bar"><a href="/x">Share on X</a></div>' +
      '<div class="newsletter-component"><h3>Get our free weekly email</h3></div>' +
      '<section class="related-articles"><a href="/a">Another story entirely</a></section>' +
      '<figure><img src="a.jpg"><figcaption>The Moon over the sea. Photo: Agency</figcaption></figure>' +
      '<p class="wp-caption-text">Low tide at dawn</p>' +
      para() +
      '<div class="author-bio">Jane writes about the sea.</div>',
  );
  const text = textOf(root);
  for (const gone of ["Share on X", "weekly email", "Another story", "Photo: Agency", "Low tide"]) {
    assert.ok(!text.includes(gone), gone);
  }
  assert.ok(!text.includes("Jane writes"));
  assert.equal(text, `${PROSE.repeat(3).trim()} ${PROSE.repeat(3).trim()}`);
});

Deno.test("pruneContent: keeps a block whose class looks like furniture when it holds the article", () => {
  const root = pruned(`<div class="post social-post">${para(6)}</div><p>Short note.</p>`);
  assert.ok(textOf(root).startsWith("Tides rise"));
});

Deno.test("pruneContent: newsletter and copyright prompts go, prose mentioning newsletters stays", () => {
  const keep = "<p>The reader delivers every newsletter and blog post from thirty sources.</p>";
  const root = pruned(
    para() + "<p>Sign up for our daily newsletter.</p>" + keep +
      "<p>© 2012 The Associated Press. All rights reserved.</p>",
  );
  const text = textOf(root);
  assert.ok(!text.includes("Sign up"));
  assert.ok(!text.includes("Associated Press"));
  assert.ok(text.includes("every newsletter and blog post"));
});

Deno.test("pruneContent: a comments heading ends the article; a related heading drops only its teasers", () => {
  const root = pruned(
    para(5) +
      "<h3>Related</h3><ul><li><a href='/1'>One teaser</a></li><li><a href='/2'>Two</a></li></ul>" +
      para(3) +
      "<h2>3 Comments</h2><p>Great post, thanks for writing it up for everyone!</p>" +
      `<p>${"I disagree with the second part of this. ".repeat(5)}</p>`,
  );
  const text = textOf(root);
  assert.ok(!text.includes("teaser"));
  assert.ok(!text.includes("Comments"));
  assert.ok(!text.includes("disagree"));
  assert.equal(text, `${PROSE.repeat(5).trim()} ${PROSE.repeat(3).trim()}`);
});

Deno.test("pruneContent: link lists and link-only paragraphs go, prose lists stay", () => {
  const root = pruned(
    para() +
      "<ul><li><a href='/a'>Home</a></li><li><a href='/b'>News</a></li><li><a href='/c'>Sport</a></li></ul>" +
      "<p><a href='/d'>MAN BITES DOG IN TOWN CENTRE</a></p>" +
      "<ul><li>Flour</li><li>Water</li><li>Salt, and <a href='/s'>a starter</a></li></ul>",
  );
  const text = textOf(root);
  assert.ok(!text.includes("Sport"));
  assert.ok(!text.includes("MAN BITES"));
  assert.ok(text.includes("Flour") && text.includes("Salt, and a starter"));
});

Deno.test("precleanDocument: moves React streamed content into its placeholder", () => {
  const doc = parseDocument(
    "<html><body><main><p>Intro</p><template id='B:0'></template></main>" +
      `<div hidden id="S:0">${para()}</div></body></html>`,
  );
  precleanDocument(doc);
  assert.ok(textOf(doc.querySelector("main")).includes("Tides rise"));
  assert.equal(doc.querySelector("[hidden]"), null);
});

Deno.test("precleanDocument: unwraps nested html/body and drops consent banners and dialogs", () => {
  const doc = parseDocument(
    "<html><body><div id='content'><html><body>" + para() + "</body></html></div>" +
      "<div class='cookie-banner'>We use cookies to improve your experience. Accept</div>" +
      "<div role='dialog'>Subscribe now!</div>" +
      "<div class='tag-cookie-recipes'>" + para(2) + "</div></body></html>",
  );
  precleanDocument(doc);
  const text = textOf(doc.body);
  assert.equal(doc.body.querySelector("html, body"), null);
  assert.ok(!text.includes("We use cookies"));
  assert.ok(!text.includes("Subscribe now"));
  assert.equal(doc.querySelectorAll("p").length, 2, "a recipe class naming cookies stays");
});

Deno.test("precleanDocument: removes comment sections", () => {
  const doc = parseDocument(
    `<html><body><article>${para(4)}</article><div id="comments"><p>First!</p></div></body></html>`,
  );
  precleanDocument(doc);
  assert.ok(!textOf(doc.body).includes("First!"));
});

Deno.test("pruneContent: image embeds' captions, 'Also read' lead-ins and a trailing author bio go", () => {
  const root = pruned(
    '<div class="InlineImage-imageEmbed"><p>Planes on the tarmac at dawn.</p><p>Agency | Getty</p></div>' +
      para(4) +
      "<p>Also read: <a href='/x'>Why the tides are late this year</a></p>" +
      para(4) +
      "<p>Jane Doe is a science writer who covers oceans and the Moon for the paper.</p>",
  );
  const text = textOf(root);
  assert.ok(!text.includes("tarmac"));
  assert.ok(!text.includes("Also read"));
  assert.ok(!text.includes("Jane Doe"));
  assert.equal(text, `${PROSE.repeat(4).trim()} ${PROSE.repeat(4).trim()}`);
});

Deno.test("pruneContent: a bio-like sentence in the middle of the article stays", () => {
  const mid = "<p>Jane Doe is a science writer who has followed the tides for decades.</p>";
  const root = pruned(para(4) + mid + para(6));
  assert.ok(textOf(root).includes("Jane Doe"));
});

Deno.test("pruneContent: a related heading at the very end touches nothing outside the root", () => {
  const doc = parseDocument(
    `<div id="root">${para(5)}<div><h3>Related</h3></div></div><p id="outside">After</p>`,
  );
  pruneContent(doc.getElementById("root")!);
  assert.ok(doc.getElementById("outside"));
  assert.ok(!textOf(doc.body).includes("Related"));
});

Deno.test("pruneContent: a section heading that merely reads 'Response' does not end the article", () => {
  const root = pruned(para(5) + "<h2>Response</h2>" + para(5) + "<h2>12 Responses</h2>" + para(2));
  const text = textOf(root);
  assert.ok(text.includes("Response"));
  assert.ok(!text.includes("12 Responses"));
  assert.equal(text, `${PROSE.repeat(5).trim()} Response${PROSE.repeat(5).trim()}`);
});
