/**
 * Passage selection inside a token budget: oversample, dedupe, per-source
 * cap, fill, merge adjacent units back into original passages, render the
 * compact text for the model. The budget holds on the exact rendered text as
 * counted by the tokenizer.
 *
 * @module
 */
import { chunkMarkdown, type Unit } from "../text/chunk.ts";
import { cosine, dedupe, jaccard, tokenSetOf } from "./dedupe.ts";
import { relevanceOf } from "./fusion.ts";
import { countTokens, countTokensUpTo, TOKEN_PIECE_CHARS, tokenReach } from "../text/tokens.ts";
import { headingLine, renderEvidence, sourceHeader } from "./render.ts";
import { type ArchiveProvenance, type EvidenceItem, provenanceOf } from "./evidence_item.ts";
import { memoByText } from "../cache/text_memo.ts";

export type { EvidenceItem } from "./evidence_item.ts";

/** The page a candidate unit comes from (and, for an archived snapshot, its provenance). */
export interface EvidenceSource extends ArchiveProvenance {
  /** Page URL. */
  url: string;
  /** Page title. */
  title: string;
  /** The page Markdown the units were cut from; needed to merge adjacent units. */
  markdown?: string;
}

/** A unit proposed for selection, with its 0..1 score (see `rankUnits`). */
export interface Candidate {
  /** Where it comes from. */
  source: EvidenceSource;
  /** The unit (offsets into `source.markdown`). */
  unit: Unit;
  /** Fused relevance score, 0..1. */
  score: number;
  /** Embedding of the unit, when known (used for paraphrase dedupe). */
  vector?: Float32Array;
}

/** Candidates answering one query; they compete in one ranking. */
export interface QueryGroup {
  /** The query. */
  query: string;
  /** Candidates, in any order (sorted by score here). */
  candidates: Candidate[];
}

/** Input of {@link selectEvidence}. */
export interface SelectOptions {
  /** One group per query; groups get fair shares, unused budget goes to the others. */
  groups: QueryGroup[];
  /** Token budget of the rendered text. */
  maxTokens: number;
  /** Share of the budget one source may take while other sources have candidates (default 0.4). */
  perSourceShare?: number;
  /**
   * The per-source cap holds only while another source has a candidate scoring at least
   * this fraction of the capped one (default 0: the cap always holds; 1: only against
   * equally good rivals).
   */
  shareSlack?: number;
  /** Candidates considered per unit that could fit (default 3). */
  oversample?: number;
  /** Jaccard at or above which a unit is a near-copy (default 0.92). */
  dedupeJaccard?: number;
  /** Cosine at or above which a unit is a paraphrased repeat (default 0.92). */
  dedupeCosine?: number;
}

/** Result of {@link selectEvidence}. */
export interface Selection {
  /** Passages, grouped by source (best source first), page order inside a source. */
  items: EvidenceItem[];
  /** `renderEvidence(items)`. */
  text: string;
  /** `countTokens(text)`, never above `maxTokens`. */
  tokens: number;
  /** Counts for diagnostics. */
  stats: { candidates: number; pooled: number; duplicates: number; units: number };
}

interface Pick {
  c: Candidate;
  query: string;
  cost: number;
  set: ReadonlySet<string>;
  key: string;
}

const TOP_UP_TRIES = 12;

/** Tokens of passages and heading lines seen lately (a page is asked again and again). */
const passageTokens = memoByText(8_192, countTokens, TOKEN_PIECE_CHARS);

/**
 * `countTokensUpTo(text, budget)` where it decides the same: a passage of one piece is counted
 * whole and remembered (its count, when above `budget`, is above it either way).
 */
function passageCost(text: string, budget: number): number {
  return text.length <= TOKEN_PIECE_CHARS ? passageTokens(text) : countTokensUpTo(text, budget);
}

function unitKey(c: Candidate): string {
  return `${c.source.url}#${c.unit.start}:${c.unit.end}`;
}

/** Merges the picked units of each source into passages, page order. */
function toPassages(picks: Pick[]): EvidenceItem[] {
  const bySource = new Map<string, Pick[]>();
  for (const p of picks) {
    const list = bySource.get(p.c.source.url);
    if (list) list.push(p);
    else bySource.set(p.c.source.url, [p]);
  }
  const groups: { best: number; items: EvidenceItem[] }[] = [];
  for (const list of bySource.values()) {
    list.sort((a, b) => a.c.unit.start - b.c.unit.start);
    const items: EvidenceItem[] = [];
    let open: { first: Pick; last: Pick; best: Pick } | null = null;
    const close = () => {
      if (!open) return;
      const { first, last, best } = open;
      const md = first.c.source.markdown;
      const text = first === last || !md
        ? first.c.unit.text
        : md.slice(first.c.unit.start, last.c.unit.end);
      items.push({
        text,
        url: first.c.source.url,
        title: first.c.source.title,
        ...provenanceOf(first.c.source),
        headings: first.c.unit.headings,
        start: first.c.unit.start,
        end: first === last ? first.c.unit.end : last.c.unit.end,
        score: best.c.score,
        relevance: relevanceOf(best.c.score),
        query: best.query,
      });
      open = null;
    };
    for (const p of list) {
      const md = p.c.source.markdown;
      if (
        open && md && open.last.c.unit.end <= p.c.unit.start &&
        md.slice(open.last.c.unit.end, p.c.unit.start).trim() === "" &&
        open.last.c.unit.headings.join("\u0000") === p.c.unit.headings.join("\u0000")
      ) {
        open.last = p;
        if (p.c.score > open.best.c.score) open.best = p;
        continue;
      }
      close();
      open = { first: p, last: p, best: p };
    }
    close();
    groups.push({ best: Math.max(...items.map((i) => i.score)), items });
  }
  groups.sort((a, b) => b.best - a.best);
  return groups.flatMap((g) => g.items);
}

/**
 * Selects evidence passages for one or more queries inside a token budget.
 *
 * Per query group: candidates sorted by score, a pool of `oversample` × the
 * units that could fit, near-copies dropped (Jaccard / cosine, highest rank
 * kept). Groups take turns (the group with the fewest tokens picks next), so
 * queries get fair shares and what one group cannot use goes to the others.
 * A source may take `perSourceShare` of the budget while other sources still
 * have candidates; then the rest is filled in rank order. Adjacent units of a
 * page are merged back into one passage of original text. The budget holds on
 * the rendered text (`countTokens(renderEvidence(items)) <= maxTokens`).
 *
 * @example
 * ```ts
 * import { chunkMarkdown } from "../text/chunk.ts";
 * import { selectEvidence } from "./select.ts";
 * const markdown = "Tides rise twice a day.\n\nThe Moon pulls the oceans.";
 * const source = { url: "https://example.com/t", title: "Tides", markdown };
 * const candidates = chunkMarkdown(markdown, { minWords: 1, maxWords: 6 })
 *   .map((unit, i) => ({ source, unit, score: 1 - i / 10 }));
 * const sel = selectEvidence({ groups: [{ query: "tides", candidates }], maxTokens: 100 });
 * console.assert(sel.items.length === 1 && sel.items[0].text === markdown);
 * console.assert(sel.tokens <= 100);
 * ```
 */
export function selectEvidence(options: SelectOptions): Selection {
  const budget = Math.max(0, Math.floor(options.maxTokens));
  const share = options.perSourceShare ?? 0.4;
  const oversample = Math.max(1, options.oversample ?? 3);
  const cap = share * budget;
  const headerCost = new Map<string, number>();
  const costOfHeader = (s: EvidenceSource) => {
    let cost = headerCost.get(s.url);
    if (cost === undefined) {
      cost = countTokens(sourceHeader(s.title, s.url, s)) + 1;
      headerCost.set(s.url, cost);
    }
    return cost;
  };
  let candidates = 0, pooled = 0, duplicates = 0;
  const pools = options.groups.map((group) => {
    const sorted = group.candidates.filter((c) => c.unit.text.trim() && Number.isFinite(c.score))
      .sort((a, b) => b.score - a.score);
    candidates += sorted.length;
    const picks: Pick[] = [];
    let fitting = 0, used = 0;
    for (const c of sorted) {
      // "\n\n" between passages is one token. A unit over the budget is counted only that far
      // (counting a unit of 200,000 CJK characters whole held the thread for 100 ms).
      const cost = passageCost(c.unit.text, budget) +
        passageTokens(headingLine(c.unit.headings)) + 1;
      if (cost > budget) continue; // can never fit; must not end the pool either
      if (used <= budget) {
        used += cost;
        fitting++;
      }
      if (picks.length >= Math.ceil(oversample * Math.max(1, fitting)) && used > budget) break;
      picks.push({ c, query: group.query, cost, set: tokenSetOf(c.unit.text), key: unitKey(c) });
    }
    pooled += picks.length;
    const kept = dedupe(picks, {
      text: (p) => p.c.unit.text,
      vector: (p) => p.c.vector,
      jaccard: options.dedupeJaccard,
      cosine: options.dedupeCosine,
    });
    duplicates += picks.length - kept.length;
    return { pool: kept, used: 0, done: false };
  });

  const shareSlack = options.shareSlack ?? 0;
  /** Best score left in the pool from another source than `url`. */
  const rivalScore = (pool: Pick[], url: string) => {
    let best = -Infinity;
    for (const q of pool) {
      if (q.c.source.url !== url && !selectedKeys.has(q.key) && q.c.score > best) best = q.c.score;
    }
    return best;
  };
  const selected: Pick[] = [];
  const selectedKeys = new Set<string>();
  const perSource = new Map<string, number>();
  let total = 0;
  const jaccardMin = options.dedupeJaccard ?? 0.92;
  const cosineMin = options.dedupeCosine ?? 0.92;
  const repeats = (p: Pick) =>
    selected.some((s) =>
      s.key === p.key || jaccard(s.set, p.set) >= jaccardMin ||
      cosine(s.c.vector, p.c.vector) >= cosineMin
    );

  for (const capped of [true, false]) {
    for (const g of pools) g.done = false;
    for (;;) {
      const open = pools.filter((g) => !g.done);
      if (!open.length) break;
      const g = open.reduce((a, b) => (b.used < a.used ? b : a));
      let chosen = -1;
      for (let i = 0; i < g.pool.length; i++) {
        const p = g.pool[i];
        if (selectedKeys.has(p.key)) {
          g.pool.splice(i--, 1);
          continue;
        }
        const header = perSource.has(p.c.source.url) ? 0 : costOfHeader(p.c.source);
        if (total + p.cost + header > budget) continue; // kept for the exact top-up
        if (
          capped && (perSource.get(p.c.source.url) ?? 0) + p.cost + header > cap &&
          rivalScore(g.pool, p.c.source.url) >= p.c.score * shareSlack
        ) continue;
        if (repeats(p)) {
          g.pool.splice(i--, 1);
          duplicates++;
          continue;
        }
        chosen = i;
        break;
      }
      if (chosen === -1) {
        g.done = true;
        continue;
      }
      const [p] = g.pool.splice(chosen, 1);
      const header = perSource.has(p.c.source.url) ? 0 : costOfHeader(p.c.source);
      selected.push(p);
      selectedKeys.add(p.key);
      perSource.set(p.c.source.url, (perSource.get(p.c.source.url) ?? 0) + p.cost + header);
      total += p.cost + header;
      g.used += p.cost + header;
    }
  }

  // Exact check on the rendered text; drop the weakest units until it fits.
  const render = () => {
    const items = toPassages(selected);
    const text = renderEvidence(items);
    return { items, text, tokens: countTokens(text) };
  };
  let { items, text, tokens } = render();
  while (tokens > budget && selected.length) {
    let weakest = 0;
    for (let i = 1; i < selected.length; i++) {
      if (selected[i].c.score <= selected[weakest].c.score) weakest = i;
    }
    selected.splice(weakest, 1);
    ({ items, text, tokens } = render());
  }
  // Top up: estimates are conservative, so try a few more candidates exactly.
  const rest = pools.flatMap((g) => g.pool).filter((p) => !selectedKeys.has(p.key))
    .sort((a, b) => b.c.score - a.c.score);
  let tries = 0;
  for (const p of rest) {
    if (tries >= TOP_UP_TRIES || tokens >= budget) break;
    if (p.cost > budget - tokens || repeats(p)) continue;
    tries++;
    selected.push(p);
    const next = render();
    if (next.tokens <= budget) {
      selectedKeys.add(p.key);
      ({ items, text, tokens } = next);
    } else selected.pop();
  }
  return { items, text, tokens, stats: { candidates, pooled, duplicates, units: selected.length } };
}

/** Result of {@link pageInOrder}. */
export interface PageSlice {
  /** Original Markdown from `start` up to a unit boundary. */
  text: string;
  /** Offset where the slice starts. */
  start: number;
  /** Offset where it ends (pass it as `from` to read on). */
  end: number;
  /** `countTokens(text)`, never above the budget. */
  tokens: number;
  /** True when the page goes on after `end`. */
  truncated: boolean;
}

/**
 * Page Markdown in order from `from` until the budget is spent, cut at a unit
 * boundary (for reads without a query).
 *
 * @example
 * ```ts
 * import { pageInOrder } from "./select.ts";
 * const md = "First part of the page.\n\n" + "More text follows here. ".repeat(200);
 * const slice = pageInOrder(md, 50);
 * console.assert(slice.tokens <= 50 && slice.truncated && md.startsWith(slice.text));
 * ```
 */
export function pageInOrder(markdown: string, maxTokens: number, from = 0): PageSlice {
  const start = Math.max(0, Math.min(from, markdown.length));
  const rest = markdown.slice(start);
  const lead = rest.length - rest.trimStart().length;
  const begin = start + lead;
  const whole = markdown.slice(begin).trimEnd();
  const wholeTokens = countTokensUpTo(whole, maxTokens);
  if (wholeTokens <= maxTokens) {
    return {
      text: whole,
      start: begin,
      end: begin + whole.length,
      tokens: wholeTokens,
      truncated: false,
    };
  }
  // Units ending past the point where the budget is spent cannot fit: only the start of a
  // huge page is chunked (with a margin of a few pieces).
  const reach = begin + tokenReach(whole, maxTokens) + 2 * TOKEN_PIECE_CHARS;
  const ends = chunkMarkdown(markdown.length > reach ? markdown.slice(0, reach) : markdown)
    .map((u) => u.end).filter((e) => e > begin);
  // Cut at the last unit that fits. When that leaves over half the budget unused (the next
  // unit is long), fill it inside the next unit: up to a word boundary, or between two
  // characters in text without spaces (CJK, a long word).
  let cut = longestFittingCut(markdown, begin, ends, maxTokens);
  if (!cut || cut.tokens < maxTokens / 2) {
    const from = cut?.end ?? begin;
    const limit = Math.min(ends.find((e) => e > from) ?? markdown.length, reach);
    for (const inside of [wordEnds(markdown, from, limit), charEnds(markdown, from, limit)]) {
      const filled = longestFittingCut(markdown, begin, inside, maxTokens);
      if (filled && filled.end > (cut?.end ?? begin)) cut = filled;
      if (cut && cut.tokens >= maxTokens / 2) break;
    }
  }
  cut ??= { end: begin, tokens: 0 };
  return {
    text: markdown.slice(begin, cut.end),
    start: begin,
    end: cut.end,
    tokens: cut.tokens,
    truncated: true,
  };
}

/** Ends of the words in `[from, limit)` that white space follows, ascending (one pass). */
function wordEnds(markdown: string, from: number, limit: number): number[] {
  const out: number[] = [];
  let end = -1;
  for (let i = from; i < limit; i++) {
    if (/\s/.test(markdown[i])) {
      if (end > from && out[out.length - 1] !== end) out.push(end);
    } else end = i + 1;
  }
  return out;
}

/** Positions in `(from, limit]` between two characters (never inside a surrogate pair). */
function charEnds(markdown: string, from: number, limit: number): number[] {
  const out: number[] = [];
  for (let i = from + 1; i <= limit; i++) {
    const code = markdown.charCodeAt(i);
    if (i === markdown.length || code < 0xdc00 || code > 0xdfff) out.push(i);
  }
  return out;
}

/** The largest of the ascending `ends` whose prefix from `begin` fits the budget (binary search). */
function longestFittingCut(
  markdown: string,
  begin: number,
  ends: readonly number[],
  maxTokens: number,
): { end: number; tokens: number } | undefined {
  let lo = 0, hi = ends.length - 1;
  let best: { end: number; tokens: number } | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const tokens = countTokensUpTo(markdown.slice(begin, ends[mid]), maxTokens);
    if (tokens <= maxTokens) {
      best = { end: ends[mid], tokens };
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
