/**
 * `deno task bench deep_research`: how well the Deep Research toolkit's
 * catalogue ranking finds the document that answers a question. The
 * catalogue is every page of `shared/testdata/readability-test-pages` (id,
 * title from `expected-metadata.json`, text from `expected.html`); the
 * queries are the 183 questions of `bench/questions.json`, each answered by
 * one page (145 of them reworded so they share few words with the page).
 * Reports recall@1, recall@10 and MRR@10 for the toolkit's field ranking
 * (`createIndex`), for BM25 over title and text (`lib/rank/bm25.ts`), for
 * the shipped static embedder alone, and for their reciprocal-rank fusions.
 *
 * @module
 */
import { createIndex, type IndexEntry } from "../lib/deep_research/rank.ts";
import { Bm25Index } from "../lib/rank/bm25.ts";
import { fuseRankings } from "../lib/rank/fusion.ts";
import { createStaticEmbedder } from "../lib/embed/static.ts";
import { cosine } from "../lib/embed/vector.ts";
import { READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";

interface Question {
  id: string;
  page: string;
  question: string;
  reworded: boolean;
}

/** The whole corpus the questions were written on (the repository keeps a 12-page sample). */
const PAGES = new URL(`file://${READABILITY_CORPUS}/`);

function plainText(html: string): string {
  return html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/\s+/g, " ").trim();
}

async function catalogue(): Promise<IndexEntry[]> {
  const entries: IndexEntry[] = [];
  const dirs: string[] = [];
  for await (const entry of Deno.readDir(PAGES)) if (entry.isDirectory) dirs.push(entry.name);
  for (const dir of dirs.sort()) {
    const meta = JSON.parse(
      await Deno.readTextFile(new URL(`${dir}/expected-metadata.json`, PAGES)).catch(() => "{}"),
    ) as { title?: string };
    const html = await Deno.readTextFile(new URL(`${dir}/expected.html`, PAGES)).catch(() => "");
    entries.push({
      id: dir,
      title: meta.title ?? dir,
      url: `https://pages.example/${dir}`,
      text: plainText(html),
    });
  }
  return entries;
}

type Ranking = (query: string) => string[] | Promise<string[]>;

interface Scores {
  recall_at_1: number;
  recall_at_10: number;
  mrr_at_10: number;
}

function metrics(ranks: (number | undefined)[]): Scores {
  const n = ranks.length || 1;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    recall_at_1: round(ranks.filter((r) => r === 1).length / n),
    recall_at_10: round(ranks.filter((r) => r !== undefined && r <= 10).length / n),
    mrr_at_10: round(
      ranks.reduce<number>((s, r) => s + (r !== undefined && r <= 10 ? 1 / r : 0), 0) / n,
    ),
  };
}

/** Reciprocal-rank fusion of rankings, equally weighted (k = 60; `lib/rank/fusion.ts`). */
function fuse(...rankings: string[][]): string[] {
  return fuseRankings(rankings.map((order) => ({ order, weight: 1 }))).map((r) => r.key);
}

/** Runs the benchmark; returns the scores per ranking, overall and for reworded questions. */
export async function runDeepResearchBench(): Promise<Record<string, unknown>> {
  const questions = JSON.parse(
    await Deno.readTextFile(new URL("./questions.json", import.meta.url)),
  ) as Question[];
  const entries = await catalogue();
  // The pages and questions are English (the toolkit's default is pt-BR).
  const fields = createIndex(entries, { locale: "en" });
  const toolkitBm25 = createIndex(entries, { scoring: "bm25", locale: "en" });
  const texts = entries.map((e) => `${e.title}\n${e.text}`);
  const bm25 = new Bm25Index(texts);
  const embedder = await createStaticEmbedder();
  const vectors = await embedder.embedDocuments(texts);
  const byScore = (scores: number[]) =>
    scores.map((s, i) => [s, i] as const).filter(([s]) => s > 0).sort((a, b) => b[0] - a[0])
      .map(([, i]) => entries[i].id);
  const rankings: Record<string, Ranking> = {
    fields: (q) => fields.search(q, { limit: 100 }).map((r) => r.id),
    bm25: (q) => byScore(bm25.score(q)),
    toolkit_bm25: (q) => toolkitBm25.search(q, { limit: 100 }).map((r) => r.id),
    embedder: async (q) => {
      const [v] = await embedder.embedQueries([q]);
      return byScore(vectors.map((d) => cosine(v, d) + 1));
    },
  };
  rankings.fields_embedder = async (q) =>
    fuse(await rankings.fields(q), await rankings.embedder(q));
  rankings.bm25_embedder = async (q) => fuse(await rankings.bm25(q), await rankings.embedder(q));
  rankings.fields_bm25 = async (q) => fuse(await rankings.fields(q), await rankings.bm25(q));
  const out: Record<string, unknown> = {
    documents: entries.length,
    questions: questions.length,
    reworded: questions.filter((q) => q.reworded).length,
  };
  for (const [name, rank] of Object.entries(rankings)) {
    const ranks: (number | undefined)[] = [];
    const reworded: (number | undefined)[] = [];
    const started = performance.now();
    for (const q of questions) {
      const ids = await rank(q.question);
      const at = ids.indexOf(q.page);
      const r = at < 0 ? undefined : at + 1;
      ranks.push(r);
      if (q.reworded) reworded.push(r);
    }
    out[name] = {
      all: metrics(ranks),
      reworded: metrics(reworded),
      ms_per_query: Math.round((performance.now() - started) / questions.length * 100) / 100,
    };
  }
  await embedder.close?.();
  return out;
}
