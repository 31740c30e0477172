/**
 * Extraction benchmark, two corpora:
 *
 * - `readability_test_pages`: for each page of the Readability test corpus,
 *   word 4-gram F1 of our Markdown's text against Readability's expected
 *   output, for plain Readability, Gleaner's extractor and defuddle (a
 *   regression guard: the expected text is Readability's own output).
 * - `extraction_dev`: the 799 pages of `shared/testdata/extraction-dev/` with
 *   human or curated ground truth, scored with its `score.ts` metric (the
 *   scrapinghub one) per dataset, overall and per dev/held-out half, for
 *   plain Readability and Gleaner's extractor.
 *
 * Both time whole `extractHtml` calls (warm-up pass, then the fastest of
 * GLEANER_BENCH_REPS passes per page). GLEANER_EXTRACTION_CORPUS=readability|dev
 * runs one corpus only.
 *
 * Run alone: `deno run -A bench/extraction.ts` (prints JSON).
 *
 * @module
 */
import { READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";
import {
  extractHtml,
  type MainContentExtractor,
  readabilityExtractor,
} from "../lib/extract/mod.ts";
import { defuddleExtractor } from "./lib/defuddle.ts";
import { gleanerExtractor } from "../lib/extract/gleaner_extractor.ts";
import { corpusPages, type TestPage } from "../testing/fixtures/test_pages.ts";
import { markdownToText, ngramF1, percentile } from "../testing/text_metrics.ts";
import {
  type DevPage,
  EXTRACTION_DEV_DIR,
  loadDevPages,
  matchCounts,
  report,
  type ScoredPage,
} from "../testing/fixtures/extraction_dev.ts";

/** Where the corpus lives: `shared/` beside the repository (override with GLEANER_READABILITY_PAGES). */
export const PAGES_DIR: string = READABILITY_CORPUS;

/** The Readability test suite's page URL. */
const PAGE_URL = "http://fakehost/test/page.html";

/** One page of the corpus. */
export type Page = TestPage;

/** Loads the corpus: page name, source HTML, expected article text. */
export function loadPages(dir: string = PAGES_DIR): Promise<Page[]> {
  return corpusPages(dir);
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

function timing(times: number[]) {
  return {
    ms_p50: round(percentile(times, 50), 2),
    ms_p95: round(percentile(times, 95), 2),
    ms_mean: round(times.reduce((a, b) => a + b, 0) / times.length, 2),
  };
}

/** Scores one extractor on extraction-dev: score.ts aggregates plus timing. */
function measureDev(pages: DevPage[], extractor: MainContentExtractor) {
  for (const page of pages) extractHtml(page.html, page.url, { extractor });
  const times = pages.map(() => Infinity);
  const scored: ScoredPage[] = [];
  let failures = 0;
  for (let rep = 0; rep < REPS; rep++) {
    pages.forEach((page, i) => {
      const t0 = performance.now();
      let markdown = "";
      try {
        markdown = extractHtml(page.html, page.url, { extractor }).markdown;
      } catch {
        if (rep === 0) failures++;
      }
      times[i] = Math.min(times[i], performance.now() - t0);
      if (rep === 0) {
        scored.push({
          page,
          counts: matchCounts(page.truth, markdownToText(markdown), page.optional),
        });
      }
    });
  }
  return {
    extractor: extractor.name,
    pages: pages.length,
    failures,
    ...report(scored),
    ...timing(times),
  };
}

/**
 * Runs the extraction-dev part alone.
 *
 * @example
 * ```ts ignore
 * import { runExtractionDevBench } from "./extraction.ts";
 * const result = runExtractionDevBench();
 * ```
 */
export function runExtractionDevBench(): Record<string, unknown> {
  const pages = loadDevPages();
  return {
    corpus: EXTRACTION_DEV_DIR,
    metric: "score.ts (scrapinghub): word 4-gram shingles of the Markdown's plain text vs " +
      "article_body; per-page TP/FP/FN shares, P and R averaged over pages, F1 of the means",
    split: "dev = FNV-1a(id) even (tuned on), heldout = odd (scored only)",
    targets: { f1: 0.93, every_dataset_at_least: "readability", ms_p50: 15 },
    readability: measureDev(pages, readabilityExtractor),
    gleaner: measureDev(pages, gleanerExtractor),
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
  const corpus = Deno.env.get("GLEANER_EXTRACTION_CORPUS") ?? "all";
  const result: Record<string, unknown> = { bench: "extraction" };
  if (corpus !== "dev") {
    const pages = await loadPages();
    const readability = measure(pages, readabilityExtractor);
    const gleaner = measure(pages, gleanerExtractor);
    const defuddle = measure(pages, defuddleExtractor);
    result.readability_test_pages = {
      metric: "word 4-gram F1 of extracted Markdown text vs expected.html text (Readability's " +
        "own output); ms per extractHtml call",
      targets: { f1: 0.95, ms_p50: 15 },
      readability,
      gleaner,
      defuddle,
    };
  }
  if (corpus !== "readability") result.extraction_dev = runExtractionDevBench();
  return result;
}

if (import.meta.main) {
  const result = await runExtractionBench();
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(result, null, 2) + "\n"));
}
