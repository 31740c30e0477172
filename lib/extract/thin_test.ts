import { corpora, READABILITY_CORPUS } from "../../testing/fixtures/corpora.ts";
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { looksThin } from "./thin.ts";

const PAGES = READABILITY_CORPUS;

/** Visible text of a page: the document minus head, scripts, styles, templates and noscript. */
function visibleText(html: string): string {
  // linkedom's types assume the DOM lib, which Deno's default lib lacks.
  // deno-lint-ignore no-explicit-any
  const { document } = parseHTML(html) as any;
  for (const node of [...document.querySelectorAll("head,script,style,noscript,template")]) {
    node.remove();
  }
  return (document.documentElement?.textContent ?? "").replace(/\s+/g, " ").trim();
}

const script = '<script src="/static/app.js"></script>';
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");

Deno.test("looksThin flags script shells", () => {
  const cases: [string, string][] = [
    [`<html><body><div id="root"></div>${script}</body></html>`, ""],
    [
      `<html><body><div id="app"></div><footer>${words(60)}</footer>${script}</body></html>`,
      words(60),
    ],
    [
      `<html><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{}</script>${script}</body></html>`,
      "",
    ],
    [`<html><body><main id="__next"></main>${script}<p>${words(80)}</p></body></html>`, words(80)],
    [
      `<html ng-app="shop"><body><h1>{{ product.name }}</h1><p>${
        words(400)
      }</p>${script}</body></html>`,
      `{{ product.name }} ${words(400)}`,
    ],
    [
      `<html><body><noscript>You need to enable JavaScript to run this app.</noscript><nav>${
        words(80)
      }</nav>${script}</body></html>`,
      words(80),
    ],
    [`<html><body><p>Loading…</p><script>render()</script></body></html>`, "Loading…"],
    [`<html><body><p>Hi</p><script type="module" src="/m.js"></script></body></html>`, "Hi"],
  ];
  for (const [html, text] of cases) assert.equal(looksThin(html, text), true, html.slice(0, 80));
});

Deno.test("looksThin leaves full or script-free pages alone", () => {
  const article = `<p>${words(300)}</p>`;
  const cases: [string, string][] = [
    // No scripts: rendering cannot add anything, however short the page.
    [`<html><body><p>Short note.</p></body></html>`, "Short note."],
    [`<html><body><div id="root"></div></body></html>`, ""],
    [`<html><body><p>Hi</p><script type="application/ld+json">{}</script></body></html>`, "Hi"],
    // Server-rendered pages with plenty of text, whatever markers they carry.
    [`<html><body><div id="root">${article}</div>${script}</body></html>`, words(300)],
    [
      `<html><body>${article}<noscript>Please enable JavaScript to view the comments.</noscript>${script}</body></html>`,
      words(300),
    ],
    [`<html><body>${article}<div id="app"></div>${script}</body></html>`, words(300)],
  ];
  for (const [html, text] of cases) assert.equal(looksThin(html, text), false, html.slice(0, 80));
});

Deno.test({
  name: `looksThin: none of the 130 real-world readability pages is thin${corpora.suffix}`,
  ignore: corpora.ignore,
}, async () => {
  corpora.assertPresent();
  const thin: string[] = [];
  let pages = 0;
  for await (const entry of Deno.readDir(PAGES)) {
    if (!entry.isDirectory) continue;
    const html = await Deno.readTextFile(`${PAGES}/${entry.name}/source.html`);
    pages++;
    if (looksThin(html, visibleText(html))) thin.push(entry.name);
  }
  assert.equal(pages, 130);
  assert.deepEqual(thin, []);
});
