/**
 * Answer containment and tokens saved, for `scrape_urls` (5 pages per
 * question, one query) and `research` (search answered by the fake upstream
 * with the same 5 pages), at several budgets, for each shipped ranking
 * setting: BM25 alone, hybrid with the static model, the cascade (hybrid,
 * then USE-lite reorders the top units), and a local transformers.js model
 * when one is present. Pages are served from the loopback fixture web.
 *
 * Run alone: `deno run -A bench/containment.ts [--limit N]
 * [--settings bm25,hybrid_static,hybrid_static_rerank_use_lite,transformers]
 * [--tools scrape_urls,research|none] [--rank unit_min_words=10,dense_weight=0.7]`.
 *
 * @module
 */
import { naivePageTokens } from "./lib/naive.ts";
import { READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";
import { createGleaner, research, scrapeUrls } from "../mod.ts";
import type { ConfigInput } from "../lib/config/config.ts";
import { readHostEnv } from "../lib/config/env.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { gatherEvidence } from "../lib/evidence/gather.ts";
import { defaultModelsDir, isModelDir, TRANSFORMERS_PRESETS } from "../lib/embed/mod.ts";
import { createUseLiteEmbedder } from "../lib/embed/use_lite.ts";
import { withCache } from "../lib/embed/cached.ts";
import { expanderOptions, loadQueryExpander } from "../lib/rank/expand.ts";
import type { Embedder } from "../lib/embed/types.ts";
import type { Page } from "../lib/read/types.ts";
import { markdownToText, percentile, words } from "../testing/text_metrics.ts";
import { startTestWorld, type TestWorld } from "../testing/fixtures/world.ts";

/** One question of the set. */
export interface Question {
  id: string;
  page: string;
  question: string;
  answer: string;
  reworded: boolean;
  /**
   * `tune` or `report`: fixed by page (pages sorted by name, alternating) before any model was
   * trained or setting tuned on this set. Tune on `tune`; report `report`. No text of a
   * `report` page may be used to train a model.
   */
  half: "tune" | "report";
}

/** The two halves of the question set. */
export const HALVES = ["tune", "report"] as const;

/** Budgets measured. */
export const BUDGETS = [500, 1000, 4000];

/** Loads `bench/questions.json`. */
export async function loadQuestions(): Promise<Question[]> {
  return JSON.parse(await Deno.readTextFile(new URL("./questions.json", import.meta.url)));
}

/** True when the answer sentence appears, word for word, in the evidence text. */
export function contains(evidenceMarkdown: string, answer: string): boolean {
  const haystack = ` ${words(markdownToText(evidenceMarkdown)).join(" ")} `;
  const needle = ` ${words(answer).join(" ")} `;
  return haystack.includes(needle);
}

/** The 5 pages of a question: its own page and 4 others, fixed by the question id. */
export function pagesFor(q: Question, allPages: string[]): string[] {
  const others = allPages.filter((p) => p !== q.page);
  let seed = [...q.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  const picked: string[] = [];
  while (picked.length < 4) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const candidate = others[seed % others.length];
    if (!picked.includes(candidate)) picked.push(candidate);
  }
  const position = seed % 5;
  picked.splice(position, 0, q.page);
  return picked;
}

const wholePageCache = new Map<string, number>();

/** Tokens of a page as a plain fetch tool returns it: the whole page as Markdown, links inline. */
async function wholePageTokensOf(name: string): Promise<number> {
  let tokens = wholePageCache.get(name);
  if (tokens === undefined) {
    tokens = naivePageTokens(await Deno.readTextFile(`${READABILITY_CORPUS}/${name}/source.html`));
    wholePageCache.set(name, tokens);
  }
  return tokens;
}

interface Tally {
  hits: number;
  total: number;
  reworded_hits: number;
  reworded_total: number;
  tokens: number;
  page_tokens: number;
  whole_page_tokens: number;
}

function emptyTally(): Tally {
  return {
    hits: 0,
    total: 0,
    reworded_hits: 0,
    reworded_total: 0,
    tokens: 0,
    page_tokens: 0,
    whole_page_tokens: 0,
  };
}

function summarize(t: Tally, halves?: Record<string, Tally>) {
  return {
    ...(halves
      ? Object.fromEntries(
        Object.entries(halves).filter(([, h]) => h.total > 0).map(([name, h]) => [name, {
          questions: h.total,
          containment: round(h.hits / h.total),
          containment_reworded: round(h.reworded_hits / h.reworded_total),
        }]),
      )
      : {}),
    containment: round(t.hits / t.total),
    containment_reworded: round(t.reworded_hits / t.reworded_total),
    tokens_mean: Math.round(t.tokens / t.total),
    naive_tokens_mean: Math.round(t.page_tokens / t.total),
    tokens_saved: round(1 - t.tokens / t.page_tokens),
    whole_page_tokens_mean: Math.round(t.whole_page_tokens / t.total),
    tokens_saved_vs_whole_page: round(1 - t.tokens / t.whole_page_tokens),
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

async function measureTool(
  tool: "scrape_urls" | "research",
  gleaner: Gleaner,
  world: TestWorld,
  questions: Question[],
  allPages: string[],
) {
  const tallies = new Map(BUDGETS.map((b) => [b, emptyTally()]));
  const halfTallies = new Map(
    BUDGETS.map((b) => [b, Object.fromEntries(HALVES.map((h) => [h, emptyTally()]))]),
  );
  let ranking = "";
  for (const q of questions) {
    const names = pagesFor(q, allPages);
    const urls = names.map((p) => world.web.url(`/pages/${p}`));
    let wholePageTokens = 0;
    for (const name of names) wholePageTokens += await wholePageTokensOf(name);
    if (tool === "research") {
      world.fakes.setResults(urls.map((url) => ({ url, title: url, snippet: "{query}" })));
    }
    for (const budget of BUDGETS) {
      let text: string;
      let pageTokens: number;
      let tokens: number;
      if (tool === "scrape_urls") {
        const out = await scrapeUrls(gleaner, {
          items: urls.map((url) => ({ url, query: q.question })),
          max_tokens: budget,
        });
        text = out.evidence.map((e) => e.text).join("\n\n");
        pageTokens = out.items.reduce((s, i) => s + (i.page_tokens ?? 0), 0);
        tokens = out.tokens;
        ranking = out.ranking;
      } else {
        const out = await research(gleaner, {
          query: q.question,
          max_pages: 5,
          max_tokens: budget,
          domains: ["127.0.0.1"],
        });
        text = out.evidence.map((e) => e.text).join("\n\n");
        pageTokens = out.page_tokens;
        tokens = out.tokens;
        ranking = out.ranking;
      }
      const t = tallies.get(budget)!;
      const hit = contains(text, q.answer);
      for (const tally of [t, halfTallies.get(budget)![q.half]]) {
        tally.total++;
        tally.hits += hit ? 1 : 0;
        if (q.reworded) {
          tally.reworded_total++;
          tally.reworded_hits += hit ? 1 : 0;
        }
      }
      t.tokens += tokens;
      t.page_tokens += pageTokens;
      t.whole_page_tokens += wholePageTokens;
    }
  }
  return {
    ranking,
    budgets: Object.fromEntries(
      BUDGETS.map((b) => [String(b), summarize(tallies.get(b)!, halfTallies.get(b))]),
    ),
  };
}

/** Settings measured: embedder and reranker. */
export const SETTINGS = ["bm25", "hybrid_static", "hybrid_static_rerank_use_lite", "transformers"];

/** A local transformers.js preset directory, if one is present. */
function localTransformersModel(): string | undefined {
  const dir = defaultModelsDir(readHostEnv());
  if (!dir) return undefined;
  for (const spec of Object.values(TRANSFORMERS_PRESETS)) {
    if (isModelDir(`${dir}/${spec.hubId}`)) return `${dir}/${spec.hubId}`;
  }
  return undefined;
}

async function measureRankingTime(
  gleaner: Gleaner,
  world: TestWorld,
  questions: Question[],
  allPages: string[],
  reranker: Embedder | null,
) {
  const pages = new Map<string, Page>();
  for (const name of allPages) {
    pages.set(name, await gleaner.reader.read({ url: world.web.url(`/pages/${name}`) }));
  }
  const embedder = await gleaner.embedder();
  // Cold as well: no neighbour lists remembered from the containment runs.
  const { rank } = gleaner.config;
  const expander = rank.expand_terms > 0
    ? await loadQueryExpander({ ...expanderOptions(rank), cacheSize: 0 })
    : undefined;
  const run = async (q: Question, which: Embedder | null) => {
    const set = pagesFor(q, allPages).map((p) => pages.get(p)!);
    const started = performance.now();
    await gatherEvidence({
      reads: set.map((page) => ({ page, query: q.question })),
      maxTokens: 1000,
      rank: gleaner.config.rank,
      embedder,
      expander,
      reranker: which,
    });
    return performance.now() - started;
  };
  const perQuestion: number[] = [];
  const perPage100k: number[] = [];
  for (const q of questions) {
    const chars = pagesFor(q, allPages).reduce((s, p) => s + pages.get(p)!.markdown.length, 0);
    const ms = await run(q, reranker);
    perQuestion.push(ms);
    perPage100k.push(ms / (chars / 100_000));
  }
  const figures: Record<string, number> = {
    ms_per_question_p50: round(percentile(perQuestion, 50)),
    ms_per_question_p95: round(percentile(perQuestion, 95)),
    ms_per_100kb_markdown_p50: round(percentile(perPage100k, 50)),
  };
  if (!reranker) return figures;
  // With the reranker: "fresh" is the figures above (the model loaded, no passage vector
  // computed before: the first call on 5 pages never read); "cached" asks each question again
  // through the store's embedding cache, as scrape_urls and research do for pages read before.
  const cached = withCache(reranker, gleaner.store.embeddings);
  const again: number[] = [];
  for (const q of questions) {
    await run(q, cached);
    again.push(await run(q, cached));
  }
  return {
    fresh_ms_per_question_p50: figures.ms_per_question_p50,
    fresh_ms_per_question_p95: figures.ms_per_question_p95,
    cached_ms_per_question_p50: round(percentile(again, 50)),
    cached_ms_per_question_p95: round(percentile(again, 95)),
    ms_per_100kb_markdown_p50: figures.ms_per_100kb_markdown_p50,
  };
}

/**
 * Runs the containment benchmark for each ranking setting ({@link SETTINGS}).
 *
 * @example
 * ```ts ignore
 * import { runContainmentBench } from "./containment.ts";
 * console.log(JSON.stringify(await runContainmentBench({ limit: 20 }), null, 2));
 * ```
 */
export async function runContainmentBench(
  options: {
    limit?: number;
    settings?: string[];
    tools?: ("scrape_urls" | "research")[];
    /** Ranking settings over the defaults (`rank.*` of the config), for every setting measured. */
    rank?: Record<string, unknown>;
  } = {},
): Promise<Record<string, unknown>> {
  const all = await loadQuestions();
  const questions = options.limit ? all.slice(0, options.limit) : all;
  const allPages = [...new Set(all.map((q) => q.page))];
  const result: Record<string, unknown> = {
    questions: questions.length,
    reworded: questions.filter((q) => q.reworded).length,
    pages_per_question: 5,
    naive_baseline:
      "tokens_saved: vs the same pages' main-content Markdown; tokens_saved_vs_whole_page: vs each whole page as Markdown with links (what a plain fetch tool returns)",
  };
  for (const label of options.settings ?? SETTINGS) {
    const world = await startTestWorld({
      embed: label === "bm25" ? "none" : "static",
      pages: [],
      pagesDir: READABILITY_CORPUS,
    });
    const config: ConfigInput = {
      ...world.config,
      read: { render: "never", concurrency: 5 },
      rank: { ...options.rank },
    };
    // The reranker's ranking time is measured cold: a fresh one without its in-process LRU.
    let coldReranker: Embedder | null = null;
    if (label === "hybrid_static_rerank_use_lite") {
      config.rank = { ...config.rank, rerank: "use-lite" };
      coldReranker = await createUseLiteEmbedder({ lruSize: 0 });
    } else if (label === "transformers") {
      const model = localTransformersModel();
      if (!model) {
        result[label] = `not present (no preset under ${
          defaultModelsDir(readHostEnv()) ?? "(no models dir)"
        })`;
        await world.close();
        continue;
      }
      config.embed = { provider: "transformers", model };
    }
    const gleaner = await createGleaner(config);
    try {
      const entry: Record<string, unknown> = {};
      for (const tool of options.tools ?? ["scrape_urls", "research"]) {
        const started = performance.now();
        entry[tool] = await measureTool(tool, gleaner, world, questions, allPages);
        (entry[tool] as Record<string, unknown>).seconds = round(
          (performance.now() - started) / 1000,
        );
      }
      entry.ranking_time = await measureRankingTime(
        gleaner,
        world,
        questions,
        allPages,
        coldReranker,
      );
      result[label] = entry;
    } finally {
      await coldReranker?.close?.();
      await gleaner.close();
      await world.close();
    }
  }
  return result;
}

if (import.meta.main) {
  const arg = (name: string) => {
    const at = Deno.args.indexOf(name);
    return at >= 0 ? Deno.args[at + 1] : undefined;
  };
  const limit = arg("--limit") ? Number(arg("--limit")) : undefined;
  const settings = arg("--settings")?.split(",");
  // `--tools none` measures the ranking time alone.
  const tools = arg("--tools")?.split(",").filter((t) => t === "scrape_urls" || t === "research") as
    | ("scrape_urls" | "research")[]
    | undefined;
  const rank = arg("--rank")
    ? Object.fromEntries(
      arg("--rank")!.split(",").map((pair) => {
        const [key, value] = pair.split("=");
        return [key, JSON.parse(value)];
      }),
    )
    : undefined;
  const out = await runContainmentBench({ limit, settings, tools, rank });
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(out, null, 2) + "\n"));
}
