/**
 * Extraction benchmark: for each page of the readability test corpus, word
 * 4-gram F1 of our Markdown's text against the expected article text, and
 * milliseconds per page of `extractHtml`, for Readability and defuddle.
 *
 * Run alone: `deno run -A bench/extraction.ts` (prints JSON).
 *
 * @module
 */
import { PAGES_PATH } from "../tests/fixtures/web.ts";
import {
  extractHtml,
  type MainContentExtractor,
  readabilityExtractor,
} from "../lib/extract/mod.ts";
import { defuddleExtractor } from "./lib/defuddle.ts";
import { parseDocument } from "../lib/extract/dom.ts";
import { markdownToText, ngramF1, percentile } from "./lib/text_metrics.ts";

/** Where the corpus lives: `shared/` beside the repository (override with GLEANER_READABILITY_PAGES). */
export const PAGES_DIR: string = Deno.env.get("GLEANER_READABILITY_PAGES") ?? PAGES_PATH;

/** The Readability test suite's page URL. */
const PAGE_URL = "http://fakehost/test/page.html";

/** One page of the corpus. */
export interface Page {
  name: string;
  html: string;
  expected: string;
}

/** Loads the corpus: page name, source HTML, expected article text. */
export async function loadPages(dir = PAGES_DIR): Promise<Page[]> {
  const pages: Page[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isDirectory) continue;
    try {
      const html = await Deno.readTextFile(`${dir}/${entry.name}/source.html`);
      const expectedHtml = await Deno.readTextFile(`${dir}/${entry.name}/expected.html`);
      pages.push({
        name: entry.name,
        html,
        expected: parseDocument(expectedHtml).body.textContent ?? "",
      });
    } catch {
      // not a page folder
    }
  }
  return pages.sort((a, b) => a.name.localeCompare(b.name));
}

function round(n: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Timed passes per page; the fastest is kept (the machine is shared, so noise only adds). */
const REPS = Number(Deno.env.get("GLEANER_BENCH_REPS") ?? "3");

function measure(pages: Page[], extractor: MainContentExtractor) {
  // Warm-up pass (JIT), then REPS timed passes.
  for (const page of pages) extractHtml(page.html, PAGE_URL, { extractor });
  const times = pages.map(() => Infinity);
  const scores: { name: string; f1: number }[] = [];
  let failures = 0;
  for (let rep = 0; rep < REPS; rep++) {
    pages.forEach((page, i) => {
      const t0 = performance.now();
      let markdown = "";
      try {
        markdown = extractHtml(page.html, PAGE_URL, { extractor }).markdown;
      } catch {
        if (rep === 0) failures++;
      }
      times[i] = Math.min(times[i], performance.now() - t0);
      if (rep === 0) {
        scores.push({ name: page.name, f1: ngramF1(markdownToText(markdown), page.expected) });
      }
    });
  }
  const f1s = scores.map((s) => s.f1);
  return {
    extractor: extractor.name,
    pages: pages.length,
    failures,
    f1_mean: round(f1s.reduce((a, b) => a + b, 0) / f1s.length),
    f1_median: round(percentile(f1s, 50)),
    ms_p50: round(percentile(times, 50), 2),
    ms_p95: round(percentile(times, 95), 2),
    ms_mean: round(times.reduce((a, b) => a + b, 0) / times.length, 2),
    worst: scores.sort((a, b) => a.f1 - b.f1).slice(0, 8).map((s) => ({
      ...s,
      f1: round(s.f1, 3),
    })),
  };
}

/**
 * Runs the benchmark and returns its JSON-able result.
 *
 * @example
 * ```ts ignore
 * import { runExtractionBench } from "./extraction.ts";
 * const result = await runExtractionBench();
 * ```
 */
export async function runExtractionBench(): Promise<Record<string, unknown>> {
  const pages = await loadPages();
  const readability = measure(pages, readabilityExtractor);
  const defuddle = measure(pages, defuddleExtractor);
  const best =
    [readability, defuddle].sort((a, b) =>
      Math.abs(b.f1_mean - a.f1_mean) > 0.005 ? b.f1_mean - a.f1_mean : a.ms_p50 - b.ms_p50
    )[0];
  return {
    bench: "extraction",
    metric:
      "word 4-gram F1 of extracted Markdown text vs expected.html text; ms per extractHtml call",
    targets: { f1: 0.95, ms_p50: 15 },
    chosen: best.extractor,
    readability,
    defuddle,
  };
}

if (import.meta.main) {
  const result = await runExtractionBench();
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(result, null, 2) + "\n"));
}
