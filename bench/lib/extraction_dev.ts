/**
 * The extraction-dev corpus (`shared/testdata/extraction-dev/`: 799 pages from
 * WCXB, Dragnet and Fundus with ground-truth main text) and its scorer, the
 * scrapinghub article-extraction-benchmark metric as `score.ts` there
 * implements it (word 4-gram shingle multisets, per-page TP/FP/FN normalised,
 * precision and recall averaged over pages, F1 of the two means).
 *
 * The data stays in `shared/` (the Dragnet part is AGPL) and is read at run
 * time; nothing of it is copied into the repository.
 *
 * @module
 */
import { gunzipSync } from "node:zlib";

/** Where the corpus lives: `shared/` beside the repository (override with GLEANER_EXTRACTION_DEV). */
export const EXTRACTION_DEV_DIR: string = Deno.env.get("GLEANER_EXTRACTION_DEV") ??
  decodeURIComponent(
    new URL("../../../shared/testdata/extraction-dev", import.meta.url).pathname,
  );

/** The four source datasets, in report order. */
export const DATASETS = ["wcxb", "dragnet", "fundus-eval", "fundus-fixtures"] as const;

/** One page of the corpus. */
export interface DevPage {
  /** File stem in `pages/`. */
  id: string;
  /** `wcxb`, `dragnet`, `fundus-eval` or `fundus-fixtures`. */
  dataset: string;
  /** The page URL (a placeholder when the source gives none). */
  url: string;
  /** Ground-truth main text. */
  truth: string;
  /** Paragraphs whose shingles are not false positives (fundus-eval). */
  optional?: string[];
  /** `dev` (tuned on) or `heldout` (only scored), by a hash of the id. */
  split: "dev" | "heldout";
  /** Page HTML. */
  html: string;
}

/** FNV-1a 32-bit hash of a string (for the deterministic dev/held-out split). */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The half a page belongs to: `dev` when the FNV-1a hash of its id is even.
 *
 * @example
 * ```ts
 * import { splitOf } from "./extraction_dev.ts";
 * console.assert(["dev", "heldout"].includes(splitOf("wcxb-0001")));
 * ```
 */
export function splitOf(id: string): "dev" | "heldout" {
  return fnv1a(id) % 2 === 0 ? "dev" : "heldout";
}

/** Loads the corpus (all pages, or those whose id passes `filter`). */
export function loadDevPages(
  dir = EXTRACTION_DEV_DIR,
  filter: (id: string) => boolean = () => true,
): DevPage[] {
  const decoder = new TextDecoder();
  const pages: DevPage[] = [];
  for (const line of Deno.readTextFileSync(`${dir}/truth.jsonl`).split("\n")) {
    if (!line.trim()) continue;
    const t = JSON.parse(line);
    if (!filter(t.id)) continue;
    const html = decoder.decode(gunzipSync(Deno.readFileSync(`${dir}/pages/${t.id}.html.gz`)));
    pages.push({
      id: t.id,
      dataset: t.source_dataset,
      url: t.url ?? `http://example.invalid/${t.id}`,
      truth: t.article_body,
      optional: t.optional_text,
      split: splitOf(t.id),
      html,
    });
  }
  return pages;
}

/** Per-page share of true positives, false positives and false negatives. */
export type Counts = [tp: number, fp: number, fn: number];

const TOKEN_RE = /[\p{L}\p{N}_]+/gu;

function shingles(text: string): Map<string, number> {
  const t = text.match(TOKEN_RE) ?? [];
  const out = new Map<string, number>();
  const last = Math.max(1, t.length - 3);
  for (let i = 0; i < last; i++) {
    const s = t.slice(i, i + 4);
    if (s.length === 0) continue;
    const key = s.join("\u0001");
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/**
 * TP, FP, FN shares of a prediction against the truth (score.ts `match`).
 *
 * @example
 * ```ts
 * import { matchCounts } from "./extraction_dev.ts";
 * console.assert(matchCounts("a b c d e", "a b c d e")[0] === 1);
 * ```
 */
export function matchCounts(truth: string, pred: string, optional?: string[]): Counts {
  const ts = shingles(truth);
  const ps = shingles(pred);
  const opt = new Set<string>();
  for (const o of optional ?? []) for (const k of shingles(o).keys()) opt.add(k);
  let tp = 0, fp = 0, fn = 0;
  for (const k of new Set([...ts.keys(), ...ps.keys()])) {
    const tc = ts.get(k) ?? 0;
    const pc = ps.get(k) ?? 0;
    tp += Math.min(tc, pc);
    if (!opt.has(k)) fp += Math.max(0, pc - tc);
    fn += Math.max(0, tc - pc);
  }
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [0, 0, 0];
}

/** Precision of one page (score.ts `precisionScore`). */
export function pagePrecision([tp, fp, fn]: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

/** Recall of one page (score.ts `recallScore`). */
export function pageRecall([tp, fp, fn]: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

/** Precision, recall and F1 of a set of pages, as score.ts aggregates them. */
export interface Aggregate {
  /** Pages aggregated. */
  pages: number;
  /** Mean per-page precision (pages with any predicted shingle). */
  precision: number;
  /** Mean per-page recall (pages with any true shingle). */
  recall: number;
  /** F1 of the two means. */
  f1: number;
}

const mean = (xs: number[]) => xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
const round4 = (x: number) => Number.isFinite(x) ? Math.round(x * 10000) / 10000 : NaN;

/**
 * Aggregates per-page counts: mean precision, mean recall, F1 of the means.
 *
 * @example
 * ```ts
 * import { aggregate } from "./extraction_dev.ts";
 * console.assert(aggregate([[1, 0, 0]]).f1 === 1);
 * ```
 */
export function aggregate(rows: Counts[]): Aggregate {
  const p = mean(rows.filter(([tp, fp]) => tp + fp > 0).map(pagePrecision));
  const r = mean(rows.filter(([tp, , fn]) => tp + fn > 0).map(pageRecall));
  const f1 = p + r > 0 ? (2 * p * r) / (p + r) : 0;
  return { pages: rows.length, precision: round4(p), recall: round4(r), f1: round4(f1) };
}

/** One scored page. */
export interface ScoredPage {
  /** The page. */
  page: DevPage;
  /** Its TP/FP/FN shares. */
  counts: Counts;
}

/** Overall, per dataset and per split aggregates of scored pages. */
export function report(scored: ScoredPage[]): Record<string, unknown> {
  const pick = (f: (s: ScoredPage) => boolean) => aggregate(scored.filter(f).map((s) => s.counts));
  const perDataset: Record<string, Aggregate> = {};
  for (const ds of DATASETS) perDataset[ds] = pick((s) => s.page.dataset === ds);
  return {
    overall: pick(() => true),
    mean_f1_of_datasets: round4(mean(Object.values(perDataset).map((d) => d.f1))),
    per_dataset: perDataset,
    dev: pick((s) => s.page.split === "dev"),
    heldout: pick((s) => s.page.split === "heldout"),
    heldout_per_dataset: Object.fromEntries(
      DATASETS.map((ds) => [ds, pick((s) => s.page.split === "heldout" && s.page.dataset === ds)]),
    ),
  };
}
