/**
 * The search-result reranker (`search.rerank_url`) and the one ordering of
 * results that combines its relevance with recency (`rerank_recency_weight`)
 * and a domain profile's boost.
 *
 * The reranker speaks Jina's documented format
 * (https://jina.ai/reranker, API reference https://api.jina.ai/openapi.json):
 * `POST` `{ model, query, documents: string[], top_n }` → `{ results: [{ index,
 * relevance_score }, …] }`, most relevant first. Self-hosted servers in the
 * same format (Infinity, text-embeddings-inference behind a shim, LocalAI,
 * vLLM's `/v1/rerank`) work as well. Only titles and snippets are sent.
 *
 * @module
 */
import type { SearchSection } from "../config/sections.ts";
import { GleanerError } from "../errors.ts";
import type { Fetcher } from "../net/types.ts";
import { urlInDomains } from "./domains.ts";
import { postJson } from "./json_endpoint.ts";

/** Characters of one document (title + snippet) sent to the reranker. */
const MAX_DOCUMENT_CHARS = 1_000;
/** Characters of the query sent. */
const MAX_QUERY_CHARS = 2_000;
/** Largest answer accepted (bytes). */
const MAX_RESPONSE_BYTES = 2_000_000;
/** Days after which recency halves. */
const RECENCY_HALF_LIFE_DAYS = 365;
/** Places of the provider's order that span the score range (at least). */
const PLACES = 10;
/** Recency of a result without a (parseable) date. */
const UNDATED_RECENCY = 0.5;

/** Scores documents against a query. */
export interface ResultReranker {
  /** The model named in requests. */
  readonly model: string;
  /**
   * Relevance of each document (by position), higher is better; a document
   * the reranker left out gets `-Infinity`. Throws a `GleanerError` on any
   * failure (status, timeout, malformed answer).
   */
  rerank(query: string, documents: readonly string[], signal?: AbortSignal): Promise<number[]>;
}

/** Options of {@link createResultReranker}. */
export interface ResultRerankerOptions {
  /** The guarded fetcher. */
  fetcher: Fetcher;
  /** The full endpoint URL (`https://api.jina.ai/v1/rerank`). */
  url: string;
  /** Model name. */
  model: string;
  /** Bearer token. */
  apiKey?: string;
  /** Time limit of one call (ms). */
  timeoutMs: number;
}

/**
 * A reranker over a Jina-compatible endpoint.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "../config/parse.ts";
 * import { createFetcher } from "../net/fetch.ts";
 * import { createResultReranker } from "./rerank.ts";
 * const reranker = createResultReranker({
 *   fetcher: createFetcher(parseConfig({}).network),
 *   url: "https://api.jina.ai/v1/rerank",
 *   model: "jina-reranker-v2-base-multilingual",
 *   apiKey: "jina_…",
 *   timeoutMs: 5000,
 * });
 * const scores = await reranker.rerank("sqlite wal", ["WAL mode\nHow it works", "Cats"]);
 * ```
 *
 * @internal exported for tests only
 */
export function createResultReranker(options: ResultRerankerOptions): ResultReranker {
  return {
    model: options.model,
    async rerank(query, documents, signal) {
      if (documents.length === 0) return [];
      const body = await postJson(options.fetcher, {
        what: "reranker",
        urlSetting: "search.rerank_url",
        keySetting: "search.rerank_api_key",
        modelSetting: "search.rerank_model",
        url: options.url,
        body: {
          model: options.model,
          query: query.slice(0, MAX_QUERY_CHARS),
          documents: documents.map((d) => d.slice(0, MAX_DOCUMENT_CHARS)),
          top_n: documents.length,
        },
        apiKey: options.apiKey,
        timeoutMs: options.timeoutMs,
        maxBytes: MAX_RESPONSE_BYTES,
        signal,
      });
      return parseScores(body, documents.length);
    },
  };
}

/**
 * The reranker a configuration names, or `undefined` without
 * `search.rerank_url`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { createFetcher } from "../net/fetch.ts";
 * import { rerankerFromConfig } from "./rerank.ts";
 * const config = parseConfig({});
 * console.assert(rerankerFromConfig(config, createFetcher(config.network)) === undefined);
 * ```
 */
export function rerankerFromConfig(
  config: { search: SearchSection },
  fetcher: Fetcher,
): ResultReranker | undefined {
  const s = config.search;
  if (!s.rerank_url) return undefined;
  return createResultReranker({
    fetcher,
    url: s.rerank_url,
    model: s.rerank_model,
    apiKey: s.rerank_api_key,
    timeoutMs: s.rerank_timeout_ms,
  });
}

function parseScores(body: unknown, count: number): number[] {
  const bad = (why: string) =>
    new GleanerError("provider_unavailable", `reranker: invalid response (${why})`);
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw bad("no results array");
  const scores = new Array<number>(count).fill(-Infinity);
  const seen = new Set<number>();
  for (const item of results) {
    const index = (item as { index?: unknown })?.index;
    const score = (item as { relevance_score?: unknown })?.relevance_score;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count) {
      throw bad("an index out of range");
    }
    if (seen.has(index)) throw bad("a repeated index");
    if (typeof score !== "number" || !Number.isFinite(score)) {
      throw bad("a score that is not a number");
    }
    seen.add(index);
    scores[index] = score;
  }
  if (seen.size === 0) throw bad("no scores");
  return scores;
}

/** A result that can be ordered. */
export interface OrderableHit {
  /** Its URL (for the profile's preferred domains). */
  url: string;
  /** Its publication date, when known. */
  published?: string;
}

/** How {@link orderHits} orders. */
export interface OrderOptions {
  /** The reranker's relevance per hit; absent: the provider's order is the relevance. */
  relevance?: readonly number[];
  /** Weight of recency (applied only with `relevance`). */
  recencyWeight?: number;
  /** Preferred domains (normalised). */
  prefer?: readonly string[];
  /** The raise of a preferred hit. */
  boost?: number;
  /** The time recency is measured from (ms since the epoch). */
  now?: number;
}

/**
 * Orders hits: each scores its relevance (the reranker's, scaled to 0..1
 * over the hits; without one, its place in the provider's order, 0.1 a
 * place), mixed with
 * recency by `recencyWeight` when reranked, plus `boost` on a preferred
 * domain. Ties keep the provider's order.
 *
 * @example
 * ```ts
 * import { orderHits } from "./rerank.ts";
 * const hits = [{ url: "https://a.example/" }, { url: "https://docs.example/" }];
 * const out = orderHits(hits, { relevance: [0.2, 0.9] });
 * console.assert(out[0].url === "https://docs.example/");
 * const boosted = orderHits(hits, { prefer: ["docs.example"], boost: 1 });
 * console.assert(boosted[0].url === "https://docs.example/");
 * ```
 */
export function orderHits<T extends OrderableHit>(hits: readonly T[], options: OrderOptions): T[] {
  const n = hits.length;
  // Without a reranker, each place in the provider's order is worth 1/10 of the score (1/n when
  // there are more than ten): a boost of 0.25 raises a result about two places, 1 to the top.
  const relevance = options.relevance
    ? scaled(options.relevance)
    : hits.map((_, i) => 1 - i / Math.max(n, PLACES));
  const weight = options.relevance ? options.recencyWeight ?? 0 : 0;
  const now = options.now ?? Date.now();
  const prefer = options.prefer ?? [];
  const boost = options.boost ?? 0;
  const scored = hits.map((hit, i) => {
    let score = (1 - weight) * relevance[i];
    if (weight > 0) score += weight * recency(hit.published, now);
    if (prefer.length > 0 && urlInDomains(hit.url, prefer)) score += boost;
    return { hit, i, score };
  });
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return scored.map((s) => s.hit);
}

/** Scores scaled to 0..1 (min-max over the finite ones; left-out documents 0). */
function scaled(scores: readonly number[]): number[] {
  const finite = scores.filter(Number.isFinite);
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  return scores.map((s) => !Number.isFinite(s) ? 0 : max === min ? 1 : (s - min) / (max - min));
}

/**
 * Recency of a date: 1 now (or in the future), halving every 365 days;
 * 0.5 when there is no parseable date.
 *
 * @example
 * ```ts
 * import { recency } from "./rerank.ts";
 * const now = Date.parse("2025-01-01T00:00:00Z");
 * console.assert(recency("2024-01-02T00:00:00Z", now) === 0.5);
 * console.assert(recency(undefined, now) === 0.5 && recency("2025-01-01", now) === 1);
 * ```
 */
export function recency(published: string | undefined, now: number): number {
  const time = published ? Date.parse(published) : NaN;
  if (!Number.isFinite(time)) return UNDATED_RECENCY;
  const days = Math.max(0, (now - time) / 86_400_000);
  return Math.pow(0.5, days / RECENCY_HALF_LIFE_DAYS);
}
