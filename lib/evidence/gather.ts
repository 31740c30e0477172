/**
 * From pages read to one evidence packet: reads that share a query compete in
 * one ranking (best passages win whichever page they come from, with a
 * per-source cap), different queries get fair shares, reads without a query
 * get the page in order, and budget one group cannot use goes to the others.
 *
 * @module
 */
import type { RankSection } from "../config/sections.ts";
import type { Embedder, EmbeddingCache } from "../embed/types.ts";
import { sharedReranker } from "../embed/reranker.ts";
import { withCache } from "../embed/cached.ts";
import { chunkMarkdownPaced, type Unit } from "../text/chunk.ts";
import type { QueryExpander } from "../rank/expand.ts";
import { type Ranking, rankUnits } from "../rank/mod.ts";
import { type Candidate, type EvidenceItem, pageInOrder, selectEvidence } from "../rank/select.ts";
import { renderEvidence } from "../rank/render.ts";
import { type ArchiveProvenance, provenanceOf } from "../rank/evidence_item.ts";
import {
  countTokens,
  countTokensPaced,
  countTokensUpTo,
  TOKEN_PIECE_CHARS,
  tokenReach,
} from "../text/tokens.ts";
import type { Page } from "../read/types.ts";
import { telemetry } from "../telemetry/mod.ts";
import { shareBudget } from "./budget.ts";
import { pace } from "../async/pace.ts";
import { LruCache } from "../cache/lru_cache.ts";

/** Pages whose units are kept, per unit size (a page is asked again and again). */
const CHUNKED_PAGES = 64;
/** Longest page whose units are kept. */
const CHUNKED_CHARS = 512 * 1024;
const chunked = new Map<string, LruCache<string, Unit[]>>();

/**
 * The units of a page's Markdown, as `chunkMarkdownPaced` cuts them, remembered for the pages
 * ranked lately. Each call gets its own unit objects (a ranking tells units apart by identity:
 * two pages with the same text must not share them).
 */
async function unitsOf(markdown: string, sizes: { minWords: number; maxWords: number }) {
  if (markdown.length > CHUNKED_CHARS) return await chunkMarkdownPaced(markdown, sizes);
  const key = `${sizes.minWords}/${sizes.maxWords}`;
  let pages = chunked.get(key);
  if (!pages) chunked.set(key, pages = new LruCache(CHUNKED_PAGES));
  let units = pages.get(markdown);
  if (!units) {
    units = await chunkMarkdownPaced(markdown, sizes);
    pages.set(markdown, units);
  }
  return units.map((unit) => ({ ...unit }));
}

/** One page read, with the query it should answer (none: the page in order). */
export interface EvidenceRead {
  /** The page. */
  page: Page;
  /** The question; empty or `*` means the page in order. */
  query?: string;
}

/** Input of {@link gatherEvidence}. */
export interface GatherOptions {
  /** Pages read. */
  reads: EvidenceRead[];
  /** Token budget of the rendered evidence text. */
  maxTokens: number;
  /** Ranking settings. */
  rank: RankSection;
  /** Embedder for hybrid ranking; BM25 alone without it. */
  embedder?: Embedder;
  /**
   * Reranker of the cascade; default the one `rank.rerank` names (loaded once per process),
   * `null` for none.
   */
  reranker?: Embedder | null;
  /** Adds related words to each query's BM25 side (see `rank/expand.ts`). */
  expander?: QueryExpander;
  /**
   * Cache of reranker passage vectors, keyed by the reranker's id and the passage's hash (e.g.
   * the store's embedding cache): used by the configured reranker and by `reranker`.
   */
  embeddingCache?: EmbeddingCache;
  /** Cancels embedding. */
  signal?: AbortSignal;
  /**
   * The configured reranker's query vectors, already asked for by the caller (see
   * {@link startRerankQueries}); a query not in it is embedded here.
   */
  rerankQueries?: ReadonlyMap<string, Promise<Float32Array>>;
}

/**
 * Asks the configured reranker (`rank.rerank`) for the vectors of these queries now, so a
 * caller that still has pages to read gets them embedded meanwhile (the encoder works in its own
 * thread); pass the result to {@link gatherEvidence} as `rerankQueries`. Empty for `"none"`.
 * A failure surfaces (as the ranking's note) only where a vector is used.
 *
 * @example
 * ```ts
 * import { parseConfig } from "@gleaner/gleaner";
 * import { startRerankQueries } from "./gather.ts";
 * console.assert(startRerankQueries(parseConfig({}).rank, ["when was it built"]).size === 0);
 * ```
 */
export function startRerankQueries(
  rank: RankSection,
  queries: Iterable<string | undefined>,
  signal?: AbortSignal,
): Map<string, Promise<Float32Array>> {
  const out = new Map<string, Promise<Float32Array>>();
  if (rank.rerank === "none") return out;
  const loading = sharedReranker(rank);
  for (const query of queries) {
    if (isWholePageQuery(query) || out.has(query!.trim())) continue;
    const key = query!.trim();
    const vector = loading.then(async (loaded) => {
      if (!loaded?.embedder) throw new Error(loaded?.error ?? "no reranker");
      return (await loaded.embedder.embedQueries([key], signal))[0];
    });
    vector.catch(() => {});
    out.set(key, vector);
  }
  return out;
}

/** An evidence packet. */
export interface EvidencePacket {
  /** Passages of original page text, grouped by source. */
  items: EvidenceItem[];
  /** The compact text for the model (`renderEvidence(items)`). */
  text: string;
  /** Tokens of `text`, never above the budget. */
  tokens: number;
  /**
   * How passages were ranked: `hybrid`, `bm25`, with `+rerank` when the cascade's second stage
   * ran, or `none` (no query).
   */
  ranking: Ranking | "none";
  /** Why the configured reranker was not used, when it failed (the call still succeeds). */
  rerankError?: string;
  /** Tokens of every read page's whole Markdown (what a naive tool would return). */
  pageTokens: number;
  /** Tokens of each read page's whole Markdown, by final URL. */
  pageTokensByUrl: Map<string, number>;
}

/** True when a query asks for the page in order rather than ranked passages. */
export function isWholePageQuery(query: string | undefined): boolean {
  return query === undefined || query.trim() === "" || query.trim() === "*";
}

/**
 * Renders `items`, dropping the weakest (from `items` itself) until the text fits `maxTokens`:
 * token counts of joined texts are not exactly additive.
 */
function trimToBudget(items: EvidenceItem[], maxTokens: number): { text: string; tokens: number } {
  let text = renderEvidence(items);
  let tokens = countTokens(text);
  while (tokens > maxTokens && items.length > 0) {
    let weakest = 0;
    items.forEach((item, i) => {
      if (item.score <= items[weakest].score) weakest = i;
    });
    items.splice(weakest, 1);
    text = renderEvidence(items);
    tokens = countTokens(text);
  }
  return { text, tokens };
}

/**
 * Builds the evidence packet for a set of reads inside a token budget.
 *
 * @example
 * ```ts ignore
 * import { gatherEvidence } from "./gather.ts";
 * const packet = await gatherEvidence({ reads: [{ page, query: "when was it built" }], maxTokens: 500, rank: config.rank });
 * console.log(packet.text);
 * ```
 */
export function gatherEvidence(options: GatherOptions): Promise<EvidencePacket> {
  return telemetry().span("rank", "rank", {}, async (span) => {
    const packet = await gatherPacket(options);
    span.set({
      "gleaner.ranking": packet.ranking,
      "gleaner.tokens": packet.tokens,
      "gleaner.page_tokens": packet.pageTokens,
    });
    telemetry().tokensSaved(packet.pageTokens - packet.tokens, {
      "gleaner.ranking": packet.ranking,
    });
    return packet;
  });
}

async function gatherPacket(options: GatherOptions): Promise<EvidencePacket> {
  const { reads, maxTokens, rank } = options;
  const queryGroups = new Map<string, Page[]>();
  const wholePages: Page[] = [];
  for (const read of reads) {
    if (isWholePageQuery(read.query)) wholePages.push(read.page);
    else {
      const key = read.query!.trim();
      const list = queryGroups.get(key);
      if (list) {
        if (!list.some((p) => p.finalUrl === read.page.finalUrl)) list.push(read.page);
      } else queryGroups.set(key, [read.page]);
    }
  }
  const pageTokensByUrl = new Map<string, number>();
  let pageTokens = 0;
  for (const read of reads) {
    let count = pageTokensByUrl.get(read.page.finalUrl);
    if (count === undefined) {
      count = read.page.markdownTokens ?? await countTokensPaced(read.page.markdown);
      pageTokensByUrl.set(read.page.finalUrl, count);
    }
    pageTokens += count;
  }

  // A demand above the budget weighs as the budget: counting stops there (huge pages stay cheap).
  const wholeDemands: number[] = [];
  for (const page of wholePages) {
    wholeDemands.push(wholeDemand(page, maxTokens + 1));
    // Pages are counted and cut in turns, so a server answers between them.
    await pace();
  }
  const demands = [...wholeDemands, ...(queryGroups.size ? [Infinity] : [])];
  const weights = [...wholePages.map(() => 1), queryGroups.size];
  const shares = weightedShares(maxTokens, demands, weights);

  const items: EvidenceItem[] = [];
  for (const [i, page] of wholePages.entries()) {
    const header = countTokens(renderEvidence([wholeItem(page, "", 0)]));
    const slice = pageInOrder(page.markdown, Math.max(0, shares[i] - header));
    if (slice.text) items.push({ ...wholeItem(page, slice.text, slice.start), end: slice.end });
    await pace();
  }

  let ranking: EvidencePacket["ranking"] = "none";
  let rerankError: string | undefined;
  if (queryGroups.size) {
    const groups = [];
    let hybrid = true;
    let reranker = options.reranker ?? undefined;
    if (options.reranker === undefined && rank.rerank !== "none") {
      const loaded = await sharedReranker(rank, options.embeddingCache);
      reranker = loaded?.embedder;
      rerankError = loaded?.error;
    } else if (reranker && options.embeddingCache) {
      // A reranker given by the caller reads and fills the cache as well: a passage of a page
      // read before is never embedded twice.
      reranker = withCache(reranker, options.embeddingCache);
    }
    let reranked = reranker !== undefined;
    // Each query's reranker vector is asked for now: the encoder works in its own thread while
    // this one chunks the pages and runs the first stage, and the query is embedded once.
    const queryVectors = new Map<string, Promise<Float32Array>>();
    if (reranker) {
      for (const query of queryGroups.keys()) {
        const early = options.reranker === undefined
          ? options.rerankQueries?.get(query)
          : undefined;
        if (early) {
          queryVectors.set(query, early);
          continue;
        }
        const vector = reranker.embedQueries([query], options.signal).then(([v]) => v);
        // A failure is reported where the vector is used (or ignored when it is not).
        vector.catch(() => {});
        queryVectors.set(query, vector);
      }
    }
    for (const [query, pages] of queryGroups) {
      const units: Unit[] = [];
      const sourceOf: Page[] = [];
      for (const page of pages) {
        // BM25 alone needs more words per unit to match on (measured: bench/containment.ts).
        const scale = options.embedder ? 1 : 2;
        const sizes = {
          minWords: rank.unit_min_words * scale,
          maxWords: rank.unit_max_words * scale,
        };
        for (const unit of await unitsOf(page.markdown, sizes)) {
          units.push(unit);
          sourceOf.push(page);
        }
      }
      const ranked = await rankUnits(query, units, {
        embedder: options.embedder,
        denseWeight: rank.dense_weight,
        bm25Weight: 1 - rank.dense_weight,
        rrfK: rank.rrf_k,
        lexicalAnchor: rank.lexical_anchor,
        expansion: options.expander?.expand(query),
        signal: options.signal,
        rerank: reranker
          ? {
            embedder: reranker,
            topK: rank.rerank_top_k,
            weight: rank.rerank_weight,
            queryVector: queryVectors.get(query),
          }
          : undefined,
      });
      if (!ranked.ranking.startsWith("hybrid")) hybrid = false;
      if (!ranked.ranking.endsWith("+rerank")) reranked = false;
      rerankError ??= ranked.rerankError;
      const index = new Map(units.map((unit, i) => [unit, i]));
      const candidates: Candidate[] = ranked.ranked.map((r) => {
        const page = sourceOf[index.get(r.unit)!];
        return {
          source: {
            url: page.finalUrl,
            title: page.title,
            markdown: page.markdown,
            ...archiveOf(page),
          },
          unit: r.unit,
          score: r.score,
          vector: r.vector,
        };
      });
      groups.push({ query, candidates });
    }
    ranking = `${hybrid ? "hybrid" : "bm25"}${reranked ? "+rerank" : ""}`;
    const selection = selectEvidence({
      groups,
      maxTokens: shares[shares.length - 1],
      perSourceShare: rank.per_source_share,
      shareSlack: rank.share_slack,
      oversample: rank.oversample,
      dedupeJaccard: rank.dedupe_jaccard,
      dedupeCosine: rank.dedupe_cosine,
    });
    items.push(...selection.items);
  }

  const { text, tokens } = trimToBudget(items, maxTokens);
  return {
    items,
    text,
    tokens,
    ranking,
    pageTokens,
    pageTokensByUrl,
    ...(rerankError ? { rerankError } : {}),
  };
}

/**
 * `countTokensUpTo(renderEvidence([wholeItem(page, markdown)]), limit)`
 * without rendering a huge page whole (a copy of megabytes): a rendered
 * prefix gives the same count once the limit is passed more than a piece
 * ({@link TOKEN_PIECE_CHARS}) before the prefix ends, since counting never
 * looks further ahead than that to cut a piece.
 */
function wholeDemand(page: Page, limit: number): number {
  const text = page.markdown.trim();
  for (let chars = 1 << 16; chars < text.length; chars *= 4) {
    const rendered = renderEvidence([wholeItem(page, text.slice(0, chars), 0)]);
    if (tokenReach(rendered, limit) + TOKEN_PIECE_CHARS + 2 < rendered.length) {
      return countTokensUpTo(rendered, limit);
    }
  }
  return countTokensUpTo(renderEvidence([wholeItem(page, text, 0)]), limit);
}

function wholeItem(page: Page, text: string, start: number): EvidenceItem {
  return {
    text,
    url: page.finalUrl,
    title: page.title,
    ...archiveOf(page),
    headings: [],
    start,
    end: start + text.length,
    score: 1,
    relevance: "high",
    query: "",
  };
}

/** Like {@link shareBudget}, with the query groups' single entry weighted by their number. */
function weightedShares(total: number, demands: number[], weights: number[]): number[] {
  const expanded: number[] = [];
  const owner: number[] = [];
  demands.forEach((demand, i) => {
    for (let k = 0; k < weights[i]; k++) {
      expanded.push(demand === Infinity ? Infinity : demand / weights[i]);
      owner.push(i);
    }
  });
  const parts = shareBudget(total, expanded);
  const shares = demands.map(() => 0);
  parts.forEach((part, k) => shares[owner[k]] += part);
  return shares.map(Math.floor);
}

/** The archive provenance of `page` in evidence form (empty for a live page). */
export function archiveOf(page: Page): ArchiveProvenance {
  return provenanceOf({ archived_at: page.archivedAt, original_url: page.originalUrl });
}
