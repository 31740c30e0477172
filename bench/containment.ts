/**
 * Answer containment and tokens saved, for `scrape_urls` (5 pages per
 * question, one query) and `research` (search answered by the fake upstream
 * with the same 5 pages), at several budgets, BM25 alone vs hybrid with each
 * shipped embedder. Pages are served from the loopback fixture web.
 *
 * Run alone: `deno run -A bench/containment.ts [--limit N]`.
 *
 * @module
 */
import { createGleaner, research, scrapeUrls } from "../mod.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { gatherEvidence } from "../lib/evidence/gather.ts";
import type { Page } from "../lib/read/types.ts";
import { markdownToText, percentile, words } from "./lib/text_metrics.ts";
import { startTestWorld, type TestWorld } from "../tests/fixtures/world.ts";

/** One question of the set. */
export interface Question {
  id: string;
  page: string;
  question: string;
  answer: string;
  reworded: boolean;
}

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

interface Tally {
  hits: number;
  total: number;
  reworded_hits: number;
  reworded_total: number;
  tokens: number;
  page_tokens: number;
}

function emptyTally(): Tally {
  return { hits: 0, total: 0, reworded_hits: 0, reworded_total: 0, tokens: 0, page_tokens: 0 };
}

function summarize(t: Tally) {
  return {
    containment: round(t.hits / t.total),
    containment_reworded: round(t.reworded_hits / t.reworded_total),
    tokens_mean: Math.round(t.tokens / t.total),
    naive_tokens_mean: Math.round(t.page_tokens / t.total),
    tokens_saved: round(1 - t.tokens / t.page_tokens),
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
  let ranking = "";
  for (const q of questions) {
    const urls = pagesFor(q, allPages).map((p) => world.web.url(`/pages/${p}`));
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
      t.total++;
      t.hits += hit ? 1 : 0;
      if (q.reworded) {
        t.reworded_total++;
        t.reworded_hits += hit ? 1 : 0;
      }
      t.tokens += tokens;
      t.page_tokens += pageTokens;
    }
  }
  return {
    ranking,
    budgets: Object.fromEntries(BUDGETS.map((b) => [String(b), summarize(tallies.get(b)!)])),
  };
}

async function measureRankingTime(
  gleaner: Gleaner,
  world: TestWorld,
  questions: Question[],
  allPages: string[],
) {
  const pages = new Map<string, Page>();
  for (const name of allPages) {
    pages.set(name, await gleaner.reader.read({ url: world.web.url(`/pages/${name}`) }));
  }
  const embedder = await gleaner.embedder();
  const perQuestion: number[] = [];
  const perPage100k: number[] = [];
  for (const q of questions) {
    const set = pagesFor(q, allPages).map((p) => pages.get(p)!);
    const chars = set.reduce((s, p) => s + p.markdown.length, 0);
    const started = performance.now();
    await gatherEvidence({
      reads: set.map((page) => ({ page, query: q.question })),
      maxTokens: 1000,
      rank: gleaner.config.rank,
      embedder,
    });
    const ms = performance.now() - started;
    perQuestion.push(ms);
    perPage100k.push(ms / (chars / 100_000));
  }
  return {
    ms_per_question_p50: round(percentile(perQuestion, 50)),
    ms_per_question_p95: round(percentile(perQuestion, 95)),
    ms_per_100kb_markdown_p50: round(percentile(perPage100k, 50)),
  };
}

/**
 * Runs the containment benchmark for each embedder setting.
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
    providers?: ("none" | "static")[];
    tools?: ("scrape_urls" | "research")[];
  } = {},
): Promise<Record<string, unknown>> {
  const all = await loadQuestions();
  const questions = options.limit ? all.slice(0, options.limit) : all;
  const allPages = [...new Set(all.map((q) => q.page))];
  const result: Record<string, unknown> = {
    questions: questions.length,
    reworded: questions.filter((q) => q.reworded).length,
    pages_per_question: 5,
    naive_baseline: "the same pages' whole main-content Markdown",
  };
  for (const provider of options.providers ?? ["none", "static"]) {
    const world = await startTestWorld({ embed: provider, pages: [] });
    const gleaner = await createGleaner({
      ...world.config,
      read: { render: "never", concurrency: 5 },
    });
    try {
      const label = provider === "none" ? "bm25" : `hybrid_${provider}`;
      const entry: Record<string, unknown> = {};
      for (const tool of options.tools ?? ["scrape_urls", "research"]) {
        const started = performance.now();
        entry[tool] = await measureTool(tool, gleaner, world, questions, allPages);
        (entry[tool] as Record<string, unknown>).seconds = round(
          (performance.now() - started) / 1000,
        );
      }
      entry.ranking_time = await measureRankingTime(gleaner, world, questions, allPages);
      result[label] = entry;
    } finally {
      await gleaner.close();
      await world.close();
    }
  }
  return result;
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--limit");
  const limit = at >= 0 ? Number(Deno.args[at + 1]) : undefined;
  const out = await runContainmentBench({ limit });
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(out, null, 2) + "\n"));
}
