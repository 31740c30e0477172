/**
 * Gleaner's extractor on a fixed sample of extraction-dev pages (read from
 * `shared/`, never copied into the repository), scored with the corpus's own
 * metric: it must reach a minimum F1 and beat plain Readability on the sample.
 */
import assert from "node:assert/strict";
import { extractHtml, gleanerExtractor, readabilityExtractor } from "../lib/extract/mod.ts";
import type { MainContentExtractor } from "../lib/extract/mod.ts";
import {
  aggregate,
  DATASETS,
  fnv1a,
  loadDevPages,
  matchCounts,
} from "../bench/lib/extraction_dev.ts";
import { markdownToText } from "../bench/lib/text_metrics.ts";

// About one page in twelve, picked by a hash of the id (no page chosen by hand).
const sample = loadDevPages(undefined, (id) => fnv1a(`sample:${id}`) % 12 === 0);

function f1(extractor: MainContentExtractor, dataset?: string): number {
  const pages = sample.filter((p) => !dataset || p.dataset === dataset);
  return aggregate(pages.map((page) => {
    const markdown = extractHtml(page.html, page.url, { extractor }).markdown;
    return matchCounts(page.truth, markdownToText(markdown), page.optional);
  })).f1;
}

Deno.test("extraction-dev sample: Gleaner's extractor reaches F1 0.92 and beats Readability", () => {
  assert.ok(sample.length >= 50, `sample has ${sample.length} pages`);
  for (const ds of DATASETS) assert.ok(sample.some((p) => p.dataset === ds), ds);
  const ours = f1(gleanerExtractor);
  const theirs = f1(readabilityExtractor);
  assert.ok(ours >= 0.92, `gleaner F1 ${ours}`);
  assert.ok(ours > theirs, `gleaner ${ours} vs readability ${theirs}`);
});
