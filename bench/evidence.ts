/**
 * The evidence judges: passage selection scored on data the project did not write, at 500, 1,000
 * and 2,000 tokens, default settings, each question asked with its own page and four others (as
 * `scrape_urls` with the question does), direct and reworded questions apart.
 *
 * - `readability_questions`: `bench/questions.json` over the readability test pages (the answer
 *   sentence must appear word for word in the evidence; `reworded` as the set marks it).
 * - `extraction_dev`: questions cut from the human ground truth of `extraction-dev` (English
 *   collections): `direct` asks with eight consecutive words of a body sentence (the sentence must
 *   be in the evidence); `headline` asks with the page's own title (written by the publisher,
 *   not from the body) for the article's lead sentence. `main_text_precision` scores the
 *   evidence with the corpus's own metric (word 4-gram shingles, `score.ts`) against the five
 *   pages' ground-truth text: the share of evidence that is article text, not page furniture.
 *
 * Every call is timed (`ms_per_question`: one `gatherEvidence` over 5 pages read before, the
 * static model's passage vectors cached as in the product): that is the ranking alone, fetch and
 * extraction excluded (the pages are read before the clock starts). `ranking_ms` gives its
 * p50/p95 by budget (the target: ≤ 100 ms a question for 5 pages); `ranking_ms_new_pages` the
 * calls where one of the 5 pages had not been ranked before in the run (its units, term counts
 * and vectors not remembered yet: a question on pages just read).
 *
 * `GLEANER_EVIDENCE_DUMP=<file>` writes every selection (judge, question, budget, the passages'
 * page and character span) as JSON lines, to check that a speed change selects the same
 * passages: `diff` two dumps.
 *
 * Run alone: `deno run -A bench/evidence.ts [--judges readability_questions,extraction_dev]
 * [--limit N] [--dev-pages N] [--rank key=value,...]` or `deno task bench evidence`.
 *
 * @module
 */
import { READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";
import { createGleaner } from "../mod.ts";
import type { ConfigInput } from "../lib/config/config.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { gatherEvidence } from "../lib/evidence/gather.ts";
import type { Page } from "../lib/read/types.ts";
import { markdownToText, percentile, words } from "../testing/text_metrics.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";
import {
  EXTRACTION_DEV_DIR,
  fnv1a,
  loadDevPages,
  matchCounts,
  pagePrecision,
} from "../testing/fixtures/extraction_dev.ts";
import { contains, loadQuestions, pagesFor } from "./containment.ts";

/** Budgets of every judge. */
export const EVIDENCE_BUDGETS: readonly number[] = [500, 1000, 2000];

/** The judges, in report order. */
export const JUDGES = ["readability_questions", "extraction_dev"] as const;

/** One question of a judge. */
export interface JudgeQuestion {
  /** Stable id. */
  id: string;
  /** The page it is about (a page name of the judge). */
  page: string;
  /** What is asked. */
  question: string;
  /** The sentence the evidence must hold. */
  answer: string;
  /** Kind it is reported under (`direct`, `reworded`, `headline`). */
  kind: string;
}

/** English collections of extraction-dev (fundus-fixtures is multilingual). */
const DEV_DATASETS = ["wcxb", "dragnet", "fundus-eval"];

/** Sentences of a ground-truth text (paragraphs split at sentence ends). */
export function sentencesOf(text: string): string[] {
  return text.split(/\n+/).flatMap((p) =>
    p.replace(/\s+/g, " ").trim().split(/(?<=[.!?]["”’)]?)\s+(?=["“‘(]?[A-Z0-9])/)
  ).map((s) => s.trim()).filter((s) => s.length > 0);
}

function normal(text: string): string {
  return ` ${words(text).join(" ")} `;
}

/**
 * Questions cut from one extraction-dev page: a `direct` one (eight consecutive words from the
 * middle of a body sentence of 14–45 words, chosen by a hash of the page id) and a `headline`
 * one (the page's title, answered by the first body sentence of 8+ words that is not the
 * headline itself). Only sentences present in the page's extracted text are used, so a miss is
 * the ranking's, not the extractor's.
 */
export function devQuestions(
  id: string,
  truth: string,
  title: string,
  pageText: string,
): JudgeQuestion[] {
  const out: JudgeQuestion[] = [];
  const present = normal(pageText);
  const sentences = sentencesOf(truth).filter((s) => present.includes(normal(s)));
  const titleWords = new Set(words(title));
  const lead = sentences.find((s) => {
    const w = words(s);
    if (w.length < 8) return false;
    const shared = w.filter((x) => titleWords.has(x)).length;
    return shared / w.length < 0.5;
  });
  if (lead && words(title).length >= 3) {
    out.push({ id: `${id}#headline`, page: id, question: title, answer: lead, kind: "headline" });
  }
  const body = sentences.filter((s) => s !== lead).filter((s) => {
    const n = words(s).length;
    return n >= 14 && n <= 45;
  });
  if (body.length) {
    const answer = body[fnv1a(id) % body.length];
    const w = answer.replace(/[^\p{L}\p{N}'’\- ]+/gu, " ").split(/\s+/).filter(Boolean);
    const from = Math.max(0, Math.floor((w.length - 8) / 2));
    const question = `${w.slice(from, from + 8).join(" ")}?`;
    out.push({ id: `${id}#direct`, page: id, question, answer, kind: "direct" });
  }
  return out;
}

interface Cell {
  hits: number;
  total: number;
  precision: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

async function readPages(
  gleaner: Gleaner,
  url: (name: string) => string,
  names: readonly string[],
): Promise<Map<string, Page>> {
  const pages = new Map<string, Page>();
  for (const name of names) {
    // A loaded machine can time a read out: tried again, so every run asks the same questions.
    for (let attempt = 0; attempt < 3 && !pages.has(name); attempt++) {
      try {
        pages.set(name, await gleaner.reader.read({ url: url(name) }));
      } catch {
        // Tried again; a page never read leaves its questions out (counted as `unread`).
      }
    }
  }
  return pages;
}

/**
 * Asks every question at every budget; containment by kind, evidence precision against the
 * pages' ground truth (when `truthOf` is given), time per call.
 */
async function judge(
  judgeName: string,
  gleaner: Gleaner,
  asked: JudgeQuestion[],
  names: string[],
  pages: Map<string, Page>,
  truthOf?: (name: string) => string,
) {
  const cells = new Map<string, Cell>();
  const missed: Record<string, string[]> = {};
  const times: number[] = [];
  const timesByBudget = new Map<number, number[]>(EVIDENCE_BUDGETS.map((b) => [b, []]));
  // Calls where a page had not been ranked before in this run (nothing of it remembered yet).
  const firstAsk: number[] = [];
  const ranked = new Set<string>();
  const dump = Deno.env.get("GLEANER_EVIDENCE_DUMP");
  const questions = asked.filter((q) =>
    pagesFor({ id: q.id, page: q.page } as never, names).every((n) => pages.has(n))
  );
  const embedder = await gleaner.embedder();
  const expander = embedder ? await gleaner.expander() : undefined;
  for (const [n, q] of questions.entries()) {
    if (n % 25 === 0) {
      Deno.stderr.writeSync(new TextEncoder().encode(`evidence: ${n}/${questions.length}\n`));
    }
    const set = pagesFor({ id: q.id, page: q.page } as never, names);
    const reads = set.map((name) => ({ page: pages.get(name)!, query: q.question }));
    const truth = truthOf ? set.map(truthOf).join("\n\n") : "";
    for (const budget of EVIDENCE_BUDGETS) {
      const started = performance.now();
      const packet = await gatherEvidence({
        reads,
        maxTokens: budget,
        rank: gleaner.config.rank,
        embeddingCache: gleaner.store.embeddings,
        expander,
        embedder,
      });
      const took = performance.now() - started;
      times.push(took);
      if (set.some((name) => !ranked.has(name))) firstAsk.push(took);
      set.forEach((name) => ranked.add(name));
      timesByBudget.get(budget)!.push(took);
      if (dump) {
        const spans = packet.items.map((e) => [e.url, e.start, e.end]);
        const line = { judge: judgeName, id: q.id, budget, tokens: packet.tokens, spans };
        Deno.writeTextFileSync(dump, JSON.stringify(line) + "\n", { append: true });
      }
      const text = packet.items.map((e) => e.text).join("\n\n");
      const hit = contains(text, q.answer);
      const precision = truthOf ? pagePrecision(matchCounts(truth, markdownToText(text))) : 0;
      for (const kind of [q.kind, "all"]) {
        const key = `${budget}/${kind}`;
        const cell = cells.get(key) ?? { hits: 0, total: 0, precision: 0 };
        cell.total++;
        cell.hits += hit ? 1 : 0;
        cell.precision += precision;
        cells.set(key, cell);
      }
      if (!hit) (missed[`${budget}/${q.kind}`] ??= []).push(q.id);
    }
  }
  const kinds = ["all", ...new Set(questions.map((q) => q.kind))];
  const budgets: Record<string, Record<string, unknown>> = {};
  for (const budget of EVIDENCE_BUDGETS) {
    const row: Record<string, unknown> = {};
    for (const kind of kinds) {
      const cell = cells.get(`${budget}/${kind}`);
      if (!cell) continue;
      row[kind] = round(cell.hits / cell.total);
    }
    if (truthOf) {
      const all = cells.get(`${budget}/all`)!;
      row.main_text_precision = round(all.precision / all.total);
    }
    budgets[String(budget)] = row;
  }
  return {
    questions: Object.fromEntries(
      kinds.map((
        k,
      ) => [k, k === "all" ? questions.length : questions.filter((q) => q.kind === k).length]),
    ),
    budgets,
    unread: asked.length - questions.length,
    ms_per_question_p50: round(percentile(times, 50)),
    ms_per_question_p95: round(percentile(times, 95)),
    ranking_ms_new_pages: {
      calls: firstAsk.length,
      p50: round(percentile(firstAsk, 50)),
      p95: round(percentile(firstAsk, 95)),
    },
    ranking_ms: Object.fromEntries(
      [...timesByBudget].map(([budget, ms]) => [
        String(budget),
        { p50: round(percentile(ms, 50)), p95: round(percentile(ms, 95)) },
      ]),
    ),
    missed,
  };
}

async function withGleaner<T>(
  pagesDir: string,
  rank: Record<string, unknown> | undefined,
  run: (gleaner: Gleaner, url: (name: string) => string) => Promise<T>,
): Promise<T> {
  const world = await startTestWorld({ embed: "static", pages: [], pagesDir });
  const config: ConfigInput = {
    ...world.config,
    read: { render: "never", concurrency: 5, extract_timeout_ms: 120_000 },
    rank: { ...rank },
  };
  const gleaner = await createGleaner(config);
  try {
    return await run(gleaner, (name) => world.web.url(`/pages/${name}`));
  } finally {
    await gleaner.close();
    await world.close();
  }
}

async function readabilityJudge(options: EvidenceBenchOptions) {
  const all = await loadQuestions();
  const picked = options.limit ? all.slice(0, options.limit) : all;
  const questions: JudgeQuestion[] = picked.map((q) => ({
    id: q.id,
    page: q.page,
    question: q.question,
    answer: q.answer,
    kind: q.reworded ? "reworded" : "direct",
  }));
  const names = [...new Set(all.map((q) => q.page))];
  return await withGleaner(READABILITY_CORPUS, options.rank, async (gleaner, url) => {
    const pages = await readPages(gleaner, url, names);
    return {
      corpus: "bench/questions.json over the readability test pages",
      ...(await judge("readability_questions", gleaner, questions, names, pages)),
    };
  });
}

async function extractionDevJudge(options: EvidenceBenchOptions) {
  const perDataset = options.devPages ?? 60;
  // Deterministic sample: per English collection, the pages with the smallest id hash.
  const sample = new Set<string>();
  const byDataset = new Map<string, { id: string; hash: number }[]>();
  for (const line of Deno.readTextFileSync(`${EXTRACTION_DEV_DIR}/truth.jsonl`).split("\n")) {
    if (!line.trim()) continue;
    const t = JSON.parse(line);
    if (!DEV_DATASETS.includes(t.source_dataset)) continue;
    const list = byDataset.get(t.source_dataset) ?? [];
    list.push({ id: t.id, hash: fnv1a(`evidence:${t.id}`) });
    byDataset.set(t.source_dataset, list);
  }
  for (const list of byDataset.values()) {
    list.sort((a, b) => a.hash - b.hash).slice(0, perDataset).forEach((p) => sample.add(p.id));
  }
  const devPages = loadDevPages(undefined, (id) => sample.has(id));
  const dir = await Deno.makeTempDir({ prefix: "gleaner-evidence-" });
  try {
    for (const page of devPages) {
      await Deno.mkdir(`${dir}/${page.id}`);
      await Deno.writeTextFile(`${dir}/${page.id}/source.html`, page.html);
    }
    const truths = new Map(devPages.map((p) => [p.id, p.truth]));
    const ids = devPages.map((p) => p.id);
    return await withGleaner(dir, options.rank, async (gleaner, url) => {
      const pages = await readPages(gleaner, url, ids);
      let questions: JudgeQuestion[] = [];
      for (const [id, page] of pages) {
        questions.push(
          ...devQuestions(id, truths.get(id)!, page.title ?? "", markdownToText(page.markdown)),
        );
      }
      questions.sort((a, b) => a.id < b.id ? -1 : 1);
      if (options.limit) questions = questions.slice(0, options.limit);
      return {
        corpus: "extraction-dev (wcxb, dragnet, fundus-eval): questions cut from the ground truth",
        pages: pages.size,
        ...(await judge(
          "extraction_dev",
          gleaner,
          questions,
          ids,
          pages,
          (name) => truths.get(name)!,
        )),
      };
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Options of {@link runEvidenceBench}. */
export interface EvidenceBenchOptions {
  /** Judges to run (default all of {@link JUDGES}). */
  judges?: string[];
  /** First N questions of each judge. */
  limit?: number;
  /** extraction-dev pages per English collection (default 60). */
  devPages?: number;
  /** Ranking settings over the defaults (`rank.*`). */
  rank?: Record<string, unknown>;
}

/** Options from the command line: `--judges a,b --limit N --dev-pages N --rank k=v,...`. */
export function evidenceBenchOptions(args: readonly string[] = Deno.args): EvidenceBenchOptions {
  const arg = (name: string) => {
    const eq = args.find((a) => a.startsWith(`${name}=`));
    if (eq) return eq.slice(name.length + 1);
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const rank = arg("--rank");
  return {
    judges: arg("--judges")?.split(","),
    limit: arg("--limit") ? Number(arg("--limit")) : undefined,
    devPages: arg("--dev-pages") ? Number(arg("--dev-pages")) : undefined,
    rank: rank
      ? Object.fromEntries(
        rank.split(",").map((pair) => {
          const [key, value] = pair.split("=");
          return [key, JSON.parse(value)];
        }),
      )
      : undefined,
  };
}

/**
 * Runs the evidence judges.
 *
 * @example
 * ```ts ignore
 * import { runEvidenceBench } from "./evidence.ts";
 * console.log(JSON.stringify(await runEvidenceBench({ limit: 10 }), null, 2));
 * ```
 */
export async function runEvidenceBench(
  options: EvidenceBenchOptions = {},
): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = {
    budgets: EVIDENCE_BUDGETS,
    pages_per_question: 5,
    settings: { embed: "static", ...(options.rank ? { rank: options.rank } : {}) },
  };
  for (const name of options.judges ?? JUDGES) {
    if (name === "readability_questions") result[name] = await readabilityJudge(options);
    else if (name === "extraction_dev") result[name] = await extractionDevJudge(options);
    else result[name] = { error: `unknown judge; choose from ${JUDGES.join(", ")}` };
  }
  return result;
}

if (import.meta.main) {
  const out = await runEvidenceBench(evidenceBenchOptions());
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(out, null, 2) + "\n"));
}
