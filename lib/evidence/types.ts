/**
 * The contract of the evidence runs (`research.ts`, `scrape.ts`): what they
 * work with (the sources a Gleaner holds, cancellation, progress; a tool's
 * context fits as is), what they are asked and what they answer (the shapes
 * of the `research` and `scrape_urls` tools' input and output).
 *
 * @module
 */
import type { Config } from "../config/config.ts";
import type { Embedder, EmbeddingCache } from "../embed/types.ts";
import type { QueryExpander } from "../rank/expand.ts";
import type { Reader } from "../read/cascade.ts";
import type { SearchResponse, SearchRouter } from "../search/router.ts";
import type { SearchRequest } from "../search/types.ts";
import type { ArchiveProvenance } from "../rank/evidence_item.ts";
import type { EvidenceItem } from "../rank/select.ts";
import type { PageLink, ReadRequest } from "../read/types.ts";
import type { EvidencePacket } from "./gather.ts";

/** The sources an evidence run reads from (a `Gleaner` is one). */
export interface EvidenceSources {
  /** The validated configuration (`read.concurrency`, `rank.*`). */
  readonly config: Config;
  /** Web search. */
  readonly search: Pick<SearchRouter, "search">;
  /** Page reading through the tier cascade. */
  readonly reader: Reader;
  /** Where reranker passage vectors are cached. */
  readonly store: { readonly embeddings?: EmbeddingCache };
  /** The embedder, loaded on first use; `undefined` when none is configured. */
  embedder(): Promise<Embedder | undefined>;
  /** The BM25 query expander, loaded on first use; `undefined` when turned off. */
  expander(): Promise<QueryExpander | undefined>;
}

/** Progress of a long run. */
export interface EvidenceProgress {
  /** Work done so far. */
  progress: number;
  /** Total work, when known. */
  total?: number;
  /** A short human-readable status. */
  message?: string;
}

/** The context of one evidence run. */
export interface EvidenceContext {
  /** The sources to read from. */
  gleaner: EvidenceSources;
  /** Cancels the run. */
  signal?: AbortSignal;
  /** Reports progress; absent when nobody listens. */
  progress?: (update: EvidenceProgress) => void;
}

/** What one research run asks for (the `research` tool's input). */
export interface ResearchRequest
  extends Pick<SearchRequest, "query" | "domains" | "time_range" | "language"> {
  /** Search results to weigh; `search.max_results` when absent. */
  max_results?: number;
  /** Pages to read at most. */
  max_pages: number;
  /** The evidence budget (tokens); `rank.max_tokens` when absent. */
  max_tokens?: number;
  /** A domain profile for the search. */
  domain_profile?: string;
  /** Rewrite the query with the configured language model first. */
  expand?: boolean;
}

/** What a research run found (the `research` tool's output). */
export interface ResearchResult {
  /** The question. */
  query: string;
  /** Passages of original page text, grouped by source. */
  evidence: EvidenceItem[];
  /** The pages read, in reading order. */
  sources: { url: string; title: string; tier: string }[];
  /** The pages that could not be read, with why. */
  failed: { url: string; code: string; message: string }[];
  /** Every search backend call. */
  attempts: SearchResponse["attempts"];
  /** How passages were ranked (`none` when no page was read). */
  ranking: EvidencePacket["ranking"];
  /** Why the configured reranker was not used, when it failed. */
  ranking_note?: string;
  /** Tokens of the evidence. */
  tokens: number;
  /** Tokens of the read pages' whole Markdown. */
  page_tokens: number;
  /** The query the language model wrote (`expand`). */
  rewritten_query?: string;
  /** Whether the search reranker's order was used. */
  reranked?: boolean;
  /** What changed on the way in the search. */
  notices?: string[];
}

/** One page to scrape. */
export interface ScrapeItem {
  /** The page's URL. */
  url: string;
  /** What to find on it; the page in order without one. */
  query?: string;
  /** Read only the first element this CSS selector matches. */
  target_selector?: string;
  /** Render the page and wait for this CSS selector. */
  wait_for_selector?: string;
}

/** What one scrape asks for (the `scrape_urls` tool's input). */
export interface ScrapeRequest {
  /** The pages. */
  items: ScrapeItem[];
  /** Browser use for every item. */
  render?: ReadRequest["render"];
  /** Accept a cached page no older than this (seconds). */
  max_age?: number;
  /** Bypass the page cache. */
  no_cache?: boolean;
  /** The evidence budget (tokens); `rank.max_tokens` when absent. */
  max_tokens?: number;
}

/** One scraped item: the page read, or why it could not be. */
export interface ScrapedItem extends ArchiveProvenance {
  /** The URL asked for. */
  url: string;
  /** Whether the page was read. */
  ok: boolean;
  /** Why it could not be read. */
  error?: { code: string; message: string };
  /** The URL the content came from. */
  final_url?: string;
  /** The page's title. */
  title?: string;
  /** The tier that read it. */
  tier?: string;
  /** Publication date, when known. */
  published?: string;
  /** Tokens of the page's whole Markdown. */
  page_tokens?: number;
  /** True when only the start of the page was read. */
  truncated?: boolean;
  /** Related links worth following. */
  links?: PageLink[];
}

/** What a scrape found (the `scrape_urls` tool's output). */
export interface ScrapeResult {
  /** Each item, in the order asked. */
  items: ScrapedItem[];
  /** Passages of original page text, grouped by source. */
  evidence: EvidenceItem[];
  /** How passages were ranked. */
  ranking: EvidencePacket["ranking"];
  /** Why the configured reranker was not used, when it failed. */
  ranking_note?: string;
  /** Tokens of the evidence. */
  tokens: number;
}
