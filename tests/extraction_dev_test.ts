/**
 * Gleaner's extractor on a fixed sample of extraction-dev pages (read from
 * `shared/`, never copied into the repository), scored with the corpus's own
 * metric: it must reach a minimum F1 and beat plain Readability on the sample.
 * Ignored (one line on stderr) when the corpus is absent, as in a fresh clone;
 * failing instead when `GLEANER_REQUIRE_CORPORA=1`.
 */
import assert from "node:assert/strict";
import { Readability } from "@mozilla/readability";
import { parseDocument, stripScripts } from "../lib/extract/dom.ts";
import { extractHtml, gleanerExtractor, readabilityExtractor } from "../lib/extract/mod.ts";
import type { MainContentExtractor } from "../lib/extract/mod.ts";
import {
  aggregate,
  DATASETS,
  fnv1a,
  loadDevPages,
  matchCounts,
} from "../testing/fixtures/extraction_dev.ts";
import { markdownToText } from "../testing/text_metrics.ts";
import { corpora } from "../testing/fixtures/corpora.ts";

// About one page in twelve, picked by a hash of the id (no page chosen by hand).
const sample = corpora.missing === undefined
  ? loadDevPages(undefined, (id) => fnv1a(`sample:${id}`) % 12 === 0)
  : [];

function f1(extractor: MainContentExtractor, dataset?: string): number {
  const pages = sample.filter((p) => !dataset || p.dataset === dataset);
  return aggregate(pages.map((page) => {
    const markdown = extractHtml(page.html, page.url, { extractor }).markdown;
    return matchCounts(page.truth, markdownToText(markdown), page.optional);
  })).f1;
}

Deno.test({
  name:
    `extraction-dev sample: Gleaner's extractor reaches F1 0.92 and beats Readability${corpora.suffix}`,
  ignore: corpora.ignore,
}, () => {
  corpora.assertPresent();
  assert.ok(sample.length >= 50, `sample has ${sample.length} pages`);
  for (const ds of DATASETS) assert.ok(sample.some((p) => p.dataset === ds), ds);
  const ours = f1(gleanerExtractor);
  const theirs = f1(readabilityExtractor);
  assert.ok(ours >= 0.92, `gleaner F1 ${ours}`);
  assert.ok(ours > theirs, `gleaner ${ours} vs readability ${theirs}`);
});

Deno.test({
  name:
    `extraction-dev sample: Readability with the speed hooks returns what plain Readability does${corpora.suffix}`,
  ignore: corpora.ignore,
}, () => {
  corpora.assertPresent();
  let compared = 0;
  for (const page of sample) {
    const plainDoc = parseDocument(stripScripts(page.html));
    const plain = new Readability<Element>(plainDoc, {
      keepClasses: true,
      serializer: (node) => node as Element,
    }).parse();
    const hooked = readabilityExtractor.extract(parseDocument(stripScripts(page.html)), page.url);
    if (!plain?.content || !(plain.textContent ?? "").trim()) {
      assert.equal(hooked, null, page.id);
      continue;
    }
    // Links are made absolute against the page URL by the extractor only: compare the text.
    assert.equal(hooked?.root.textContent, plain.content.textContent, page.id);
    assert.equal(hooked?.byline, plain.byline?.replace(/\s+/g, " ").trim() || undefined, page.id);
    compared++;
  }
  assert.ok(compared >= 50, `${compared} pages compared`);
});
