import assert from "node:assert/strict";
import { extensionOf, renderSourceFile, stripMarkdownLinks } from "./markdown_source.ts";

const BASE = "https://github.com/o/r/blob/main/docs/README.md";

Deno.test("stripMarkdownLinks: inline, reference, HTML and autolinks; code untouched", () => {
  const md = [
    "[![Build](https://ci/badge.svg)](https://ci/run)",
    "",
    'Read [the *guide*](guide.md "Guide") and [ref][r], <https://e.com/auto>, <a href="/x">X <b>y</b></a>.',
    '<img src="logo.png" alt="logo"> ![alt][pic]',
    "Inline `[code](kept.md)` stays.",
    "```",
    "[also](kept.md)",
    "```",
    "[r]: https://e.com/ref",
    "[pic]: https://e.com/pic.png",
    "[mail](mailto:a@b.c) and [anchor](#top)",
  ].join("\n");
  const out = stripMarkdownLinks(md, BASE);
  assert.equal(
    out.markdown,
    [
      "Read the *guide* and ref, https://e.com/auto, X y.",
      "Inline `[code](kept.md)` stays.",
      "```",
      "[also](kept.md)",
      "```",
      "mail and anchor",
    ].join("\n"),
  );
  assert.deepEqual(out.links, [
    { url: "https://ci/run", text: "" },
    // Per line: HTML anchors, then Markdown links, then references, then autolinks.
    { url: "https://github.com/x", text: "X y" },
    { url: "https://github.com/o/r/blob/main/docs/guide.md", text: "the *guide*" },
    { url: "https://e.com/ref", text: "ref" },
    { url: "https://e.com/auto", text: "https://e.com/auto" },
  ]);
});

Deno.test("renderSourceFile: Markdown passes, prose plain, code fenced with a safe fence", () => {
  assert.equal(renderSourceFile("a/README.md", "# T\n", BASE).markdown, "# T");
  assert.equal(renderSourceFile("LICENSE", "MIT\n", BASE).markdown, "MIT");
  assert.equal(renderSourceFile("notes.txt", "hello\n", BASE).mediaType, "text/plain");
  assert.equal(
    renderSourceFile("Dockerfile", "FROM x\n", BASE).markdown,
    "```dockerfile\nFROM x\n```",
  );
  assert.equal(renderSourceFile("x.py", "print(1)\n", BASE).markdown, "```python\nprint(1)\n```");
  assert.equal(renderSourceFile("x.weird", "a", BASE).markdown, "```weird\na\n```");
  assert.equal(
    renderSourceFile("doc.rs", "/// ```\n/// x\n/// ```\n", BASE).markdown.slice(0, 8),
    "````rust",
  );
  assert.equal(extensionOf("a/b.tar.GZ"), "gz");
  assert.equal(extensionOf(".env"), "");
});
