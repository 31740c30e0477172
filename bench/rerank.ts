/**
 * The cascade's second stage (`rank.rerank: "use-lite"`) against its cost:
 * answer containment of the question set (`bench/questions.json`, the tune and
 * the report half apart) for each number of units reordered
 * (`rank.rerank_top_k`) and words read per unit (`rank.rerank_max_words`),
 * beside the first stage alone (`top_k: 0`), and the ranking time per
 * question (5 pages, 1,000 tokens):
 *
 * - `fresh`: the model loaded and warm, no passage vector computed before (the
 *   first question on 5 pages never read);
 * - `cached`: the same question again through the store's embedding cache and
 *   the in-process memory in front of it, as `scrape_urls` and `research`
 *   answer a question on pages read before (the query itself is embedded again).
 *
 * `*_added_ms` are the reranker's own cost: each timed call minus the first
 * stage alone on the same question, timed just before it (paired).
 *
 * Pages are read once from the loopback fixture web (the ranking alone is
 * measured, not the reads). Containment is computed with one reranker per
 * `max_words` whose in-process LRU is kept across settings (the same vectors,
 * computed once); times with reranker that remembers nothing.
 *
 * Run alone: `deno run -A bench/rerank.ts [--top-k 10,20,40,80] [--max-words 64]
 * [--halves tune,report] [--budgets 500,1000] [--time-questions 12]`, or
 * `deno task bench rerank`.
 *
 * @module
 */
import { READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";
import { createGleaner } from "../mod.ts";
import { gatherEvidence } from "../lib/evidence/gather.ts";
import { withCache } from "../lib/embed/cached.ts";
import { createUseLiteEmbedder } from "../lib/embed/use_lite.ts";
import type { Embedder } from "../lib/embed/types.ts";
import type { Page } from "../lib/read/types.ts";
import { openDatabase } from "../lib/store/sqlite.ts";
import { SqliteEmbeddingCache } from "../lib/store/embeddings.ts";
import { LruCache } from "../lib/cache/lru_cache.ts";
import { RERANKER_MEMORY_VECTORS } from "../lib/embed/reranker.ts";
import { contains, loadQuestions, pagesFor, type Question } from "./containment.ts";
import { percentile } from "../testing/text_metrics.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";

/** Options of {@link runRerankBench}. */
export interface RerankBenchOptions {
  /** Units reordered, each a setting (0: the first stage alone). */
  topK?: number[];
  /** Words read per unit, each a setting. */
  maxWords?: number[];
  /** Halves of the question set measured (default both). */
  halves?: ("tune" | "report")[];
  /** Budgets (tokens) of containment. */
  budgets?: number[];
  /** Questions (first of the report half) timed per setting. */
  timeQuestions?: number;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Runs the sweep; returns containment and time per setting.
 *
 * @example
 * ```ts ignore
 * import { runRerankBench } from "./rerank.ts";
 * console.log(await runRerankBench({ topK: [0, 20], halves: ["tune"] }));
 * ```
 */
export async function runRerankBench(
  options: RerankBenchOptions = {},
): Promise<Record<string, unknown>> {
  const topKs = options.topK ?? [0, 10, 20, 40, 80];
  const maxWordsList = options.maxWords ?? [64];
  const halves = options.halves ?? ["tune", "report"];
  const budgets = options.budgets ?? [500, 1000];
  const all = await loadQuestions();
  const allPages = [...new Set(all.map((q) => q.page))];
  const world = await startTestWorld({ embed: "static", pages: [], pagesDir: READABILITY_CORPUS });
  const gleaner = await createGleaner({ ...world.config, read: { render: "never" } });
  const result: Record<string, unknown> = {
    pages_per_question: 5,
    cores: navigator.hardwareConcurrency,
    load_average_at_start: loadAverage(),
  };
  try {
    const pages = new Map<string, Page>();
    for (const name of allPages) {
      pages.set(name, await gleaner.reader.read({ url: world.web.url(`/pages/${name}`) }));
    }
    const embedder = await gleaner.embedder();
    const expander = gleaner.config.rank.expand_terms > 0 ? await gleaner.expander() : undefined;
    const rank = gleaner.config.rank;
    const gather = (q: Question, budget: number, reranker: Embedder | null, topK: number) =>
      gatherEvidence({
        reads: pagesFor(q, allPages).map((p) => ({ page: pages.get(p)!, query: q.question })),
        maxTokens: budget,
        rank: { ...rank, rerank_top_k: Math.max(1, topK) },
        embedder,
        expander,
        reranker: topK > 0 ? reranker : null,
      });

    const containment: Record<string, unknown> = {};
    for (const maxWords of maxWordsList) {
      const reranker = await createUseLiteEmbedder({ maxWords, lruSize: 200_000 });
      try {
        // Largest K first: the smaller ones then find every vector in the LRU.
        for (const topK of [...topKs].sort((a, b) => b - a)) {
          if (topK === 0 && maxWords !== maxWordsList[0]) continue;
          const label = topK === 0 ? "first_stage" : `top_k=${topK},max_words=${maxWords}`;
          const entry: Record<string, unknown> = {};
          for (const half of halves) {
            const questions = all.filter((q) => q.half === half);
            const perBudget: Record<string, unknown> = {};
            for (const budget of budgets) {
              let hits = 0, reworded = 0, rewordedHits = 0;
              for (const q of questions) {
                const packet = await gather(q, budget, reranker, topK);
                const hit = contains(packet.items.map((i) => i.text).join("\n\n"), q.answer);
                hits += hit ? 1 : 0;
                if (q.reworded) {
                  reworded++;
                  rewordedHits += hit ? 1 : 0;
                }
              }
              perBudget[String(budget)] = {
                containment: round(hits / questions.length),
                containment_reworded: round(rewordedHits / reworded),
              };
            }
            entry[half] = { questions: questions.length, ...perBudget };
          }
          containment[label] = entry;
          progress(`${label}: ${JSON.stringify(entry)}`);
        }
      } finally {
        await reranker.close?.();
      }
    }
    result.containment = containment;

    const timed = all.filter((q) => q.half === "report").slice(0, options.timeQuestions ?? 12);
    const times: Record<string, unknown> = {};
    for (const maxWords of maxWordsList) {
      for (const topK of topKs) {
        if (topK === 0 && maxWords !== maxWordsList[0]) continue;
        const label = topK === 0 ? "first_stage" : `top_k=${topK},max_words=${maxWords}`;
        // Nothing remembered: no LRU (the query is embedded every time), a new embedding cache
        // per setting, in front of it an in-process memory as the shared reranker has.
        const bare = topK > 0 ? await createUseLiteEmbedder({ maxWords, lruSize: 0 }) : null;
        const db = openDatabase(":memory:");
        try {
          const cached = bare
            ? withCache(bare, new SqliteEmbeddingCache(db), {
              memory: new LruCache(RERANKER_MEMORY_VECTORS),
            })
            : null;
          const fresh: number[] = [];
          const again: number[] = [];
          // Paired with the first stage alone on the same question, timed just before: the
          // reranker's own cost, less sensitive to the machine's load than the totals.
          const freshAdded: number[] = [];
          const againAdded: number[] = [];
          const timeOf = async (q: Question, reranker: Embedder | null, k: number) => {
            const started = performance.now();
            await gather(q, 1000, reranker, k);
            return performance.now() - started;
          };
          for (const q of timed) {
            const base1 = topK > 0 ? await timeOf(q, null, 0) : 0;
            const f = await timeOf(q, cached, topK);
            const base2 = topK > 0 ? await timeOf(q, null, 0) : 0;
            const a = await timeOf(q, cached, topK);
            fresh.push(f);
            again.push(a);
            freshAdded.push(f - base1);
            againAdded.push(a - base2);
          }
          const added = (xs: number[]) => topK > 0 ? ` (+${Math.round(percentile(xs, 50))})` : "";
          progress(
            `${label}: fresh ${Math.round(percentile(fresh, 50))} ms${added(freshAdded)}, ` +
              `cached ${Math.round(percentile(again, 50))} ms${added(againAdded)}`,
          );
          times[label] = {
            questions: timed.length,
            fresh_ms_p50: round(percentile(fresh, 50)),
            fresh_ms_p95: round(percentile(fresh, 95)),
            cached_ms_p50: round(percentile(again, 50)),
            cached_ms_p95: round(percentile(again, 95)),
            ...(topK > 0
              ? {
                fresh_added_ms_p50: round(percentile(freshAdded, 50)),
                cached_added_ms_p50: round(percentile(againAdded, 50)),
                cached_added_ms_p95: round(percentile(againAdded, 95)),
              }
              : {}),
          };
        } finally {
          db.close();
          await bare?.close?.();
        }
      }
    }
    result.ranking_time = times;
    result.load_average_at_end = loadAverage();
  } finally {
    await gleaner.close();
    await world.close();
  }
  return result;
}

function progress(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`rerank bench: ${line}\n`));
}

function loadAverage(): number[] | undefined {
  try {
    return Deno.loadavg().map((x) => round(x));
  } catch {
    return undefined;
  }
}

/** Options from `--name=value` or `--name value` arguments. */
export function rerankBenchOptions(args: readonly string[] = Deno.args): RerankBenchOptions {
  const arg = (name: string) => {
    const eq = args.find((a) => a.startsWith(`${name}=`));
    if (eq) return eq.slice(name.length + 1);
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const numbers = (name: string) => arg(name)?.split(",").map(Number);
  return {
    topK: numbers("--top-k"),
    maxWords: numbers("--max-words"),
    halves: arg("--halves")?.split(",") as ("tune" | "report")[] | undefined,
    budgets: numbers("--budgets"),
    timeQuestions: arg("--time-questions") ? Number(arg("--time-questions")) : undefined,
  };
}

if (import.meta.main) {
  const out = await runRerankBench(rerankBenchOptions());
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(out, null, 2) + "\n"));
}
