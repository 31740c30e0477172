/**
 * The reading pipeline on the 130 real pages served from loopback:
 * - read + extract + chunk + BM25 ranking per page (BM25 only, no cache):
 *   ms per page p50/p95 for the local work (extraction + ranking, network excluded)
 *   and end to end, and pages/s;
 * - a cached re-read of a page (the `pages` cache of the embedded store).
 *
 * Run alone: `deno run -A bench/pipeline.ts`.
 *
 * @module
 */
import { createGleaner } from "../mod.ts";
import { extractHtml } from "../lib/extract/mod.ts";
import { chunkMarkdown } from "../lib/text/chunk.ts";
import { rankUnits } from "../lib/rank/mod.ts";
import { selectEvidence } from "../lib/rank/select.ts";
import { percentile } from "../testing/text_metrics.ts";
import { startFixtureWeb } from "../testing/fixtures/web.ts";
import { READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Page folder names of the real-world set. */
export async function pageNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(READABILITY_CORPUS)) {
    if (entry.isDirectory) names.push(entry.name);
  }
  return names.sort();
}

/**
 * Measures the pipeline and the cached re-read.
 *
 * @example
 * ```ts ignore
 * import { runPipelineBench } from "./pipeline.ts";
 * console.log(await runPipelineBench());
 * ```
 */
export async function runPipelineBench(): Promise<Record<string, unknown>> {
  const web = await startFixtureWeb({ pagesDir: READABILITY_CORPUS });
  const gleaner = await createGleaner({
    network: { allow_private: [web.origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
  });
  try {
    const names = await pageNames();
    const local: number[] = [];
    const endToEnd: number[] = [];
    const query = "what is this article about";
    // Warm-up: JIT and lazy imports.
    for (const name of names.slice(0, 5)) {
      const res = await gleaner.fetcher.fetch(web.url(`/pages/${name}`));
      extractHtml(res.text(), res.url);
    }
    const started = performance.now();
    for (const name of names) {
      const t0 = performance.now();
      const response = await gleaner.fetcher.fetch(web.url(`/pages/${name}`));
      const html = response.text();
      const t1 = performance.now();
      const page = extractHtml(html, response.url);
      const units = chunkMarkdown(page.markdown);
      const { ranked } = await rankUnits(query, units);
      selectEvidence({
        groups: [{
          query,
          candidates: ranked.map((r) => ({
            source: { url: response.url, title: page.title, markdown: page.markdown },
            unit: r.unit,
            score: r.score,
          })),
        }],
        maxTokens: 1000,
      });
      const t2 = performance.now();
      local.push(t2 - t1);
      endToEnd.push(t2 - t0);
    }
    const seconds = (performance.now() - started) / 1000;

    // Cached re-read through the reader (cache hit in the SQLite store).
    const url = web.url("/pages/wikipedia");
    await gleaner.reader.read({ url });
    const cached: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      const page = await gleaner.reader.read({ url });
      cached.push(performance.now() - t0);
      if (page.tier !== "cache") throw new Error("expected a cache hit");
    }
    return {
      pages: names.length,
      local_ms_per_page: { p50: round(percentile(local, 50)), p95: round(percentile(local, 95)) },
      end_to_end_ms_per_page: {
        p50: round(percentile(endToEnd, 50)),
        p95: round(percentile(endToEnd, 95)),
      },
      pages_per_second: round(names.length / seconds),
      cached_reread_ms: { p50: round(percentile(cached, 50)), p95: round(percentile(cached, 95)) },
    };
  } finally {
    await gleaner.close();
    await web.close();
  }
}

if (import.meta.main) {
  const out = await runPipelineBench();
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(out, null, 2) + "\n"));
}
