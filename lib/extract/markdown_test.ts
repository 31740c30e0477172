import assert from "node:assert/strict";
import { htmlToMarkdown } from "./markdown.ts";

Deno.test("htmlToMarkdown: ATX headings, emphasis, lists", () => {
  const md = htmlToMarkdown(
    "<h1>Title</h1><h3>Sub</h3><p>Some <strong>bold</strong> and <em>soft</em> and <del>old</del>.</p>" +
      '<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul><ol start="3"><li>c</li><li>d</li></ol>',
  );
  assert.equal(
    md,
    "# Title\n\n### Sub\n\nSome **bold** and _soft_ and ~old~.\n\n- one\n- two\n  - nested\n\n3. c\n4. d",
  );
});

Deno.test("htmlToMarkdown: fenced code keeps its language and text", () => {
  const md = htmlToMarkdown(
    '<pre><code class="language-python">def f(x):\n    return x * 2\n</code></pre>' +
      '<div class="highlight-source-rust"><pre>fn main() {}</pre></div><pre>plain\n  text</pre>',
  );
  assert.equal(
    md,
    "```python\ndef f(x):\n    return x * 2\n```\n\n```rust\nfn main() {}\n```\n\n```\nplain\n  text\n```",
  );
});

Deno.test("htmlToMarkdown: code containing a fence gets a longer fence", () => {
  const md = htmlToMarkdown("<pre><code>```js\nx\n```</code></pre>");
  assert.equal(md, "````\n```js\nx\n```\n````");
});

Deno.test("htmlToMarkdown: tables with and without header rows", () => {
  const md = htmlToMarkdown(
    "<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody>" +
      "<tr><td>a|b</td><td><p>1</p><p>2</p></td></tr></tbody></table>" +
      "<table><tr><td>x</td><td>y</td></tr><tr><td>z</td></tr></table>",
  );
  assert.equal(
    md,
    "| Name | Value |\n| --- | --- |\n| a\\|b | 1 2 |\n\n| x | y |\n| --- | --- |\n| z |",
  );
});

Deno.test("htmlToMarkdown: layout tables are unwrapped", () => {
  const md = htmlToMarkdown(
    "<table><tr><td><p>Only column</p></td></tr><tr><td>Second</td></tr></table>",
  );
  assert.equal(md, "Only column\n\nSecond");
});

Deno.test("htmlToMarkdown: link targets and images are dropped, anchor text stays", () => {
  const md = htmlToMarkdown(
    '<p>Read <a href="https://example.com/doc">the <em>docs</em></a> now.<img src="x.png" alt="Diagram"></p>' +
      '<figure><img src="y.png"><figcaption>Caption text</figcaption></figure>',
  );
  assert.equal(md, "Read the _docs_ now.\n\nCaption text");
  assert.ok(!md.includes("example.com") && !md.includes("png") && !md.includes("Diagram"));
});

Deno.test("htmlToMarkdown: does not modify its input element unless asked", async () => {
  const { parseDocument } = await import("./dom.ts");
  const doc = parseDocument("<div><table><tr><td>a</td></tr></table></div>");
  const before = doc.body.innerHTML;
  htmlToMarkdown(doc.body);
  assert.equal(doc.body.innerHTML, before);
});
