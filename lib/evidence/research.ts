/**
 * Research: search, pick the pages worth reading, read them in rounds (a
 * failed page is replaced by the next candidate), rank across all of them.
 * The `research` and `search_and_summarize` tools run it (loaded on their
 * first call).
 *
 * @module
 */
import type { Page } from "../read/types.ts";
import type { EvidenceContext, ResearchRequest, ResearchResult } from "./types.ts";
import { gatherEvidence, startRerankQueries } from "./gather.ts";
import { canonicalKey, pickPages } from "./pick.ts";
import { readAll } from "./read_all.ts";
import { ReadCall } from "../read/call.ts";

/**
 * Researches a question: searches, reads the best pages (at most two per
 * domain unless `domains` is given), replaces failed reads with the next
 * candidates, and ranks passages across every page within the budget.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "../gleaner.ts";
 * import { research } from "./research.ts";
 * const gleaner = await createGleaner();
 * const found = await research({ query: "deno permissions", max_results: 10, max_pages: 3 }, { gleaner });
 * console.log(found.sources.map((s) => s.url), found.tokens);
 * ```
 */
export async function research(
  input: ResearchRequest,
  { gleaner, signal, progress }: EvidenceContext,
): Promise<ResearchResult> {
  const { config } = gleaner;
  const maxTokens = input.max_tokens ?? config.rank.max_tokens;
  const total = input.max_pages + 2;
  progress?.({ progress: 0, total, message: "searching" });
  // The reranker (when configured) embeds the query while the search runs and pages are read.
  const rerankQueries = startRerankQueries(config.rank, [input.query], signal);
  const found = await gleaner.search.search({
    query: input.query,
    max_results: input.max_results ?? config.search.max_results,
    domains: input.domains,
    time_range: input.time_range,
    language: input.language,
    domain_profile: input.domain_profile,
    expand: input.expand,
    signal,
  });
  const { results, attempts } = found;
  const perDomain = input.domains?.length ? Infinity : 2;
  const candidates = pickPages(results.map((r) => r.url), perDomain);
  progress?.({
    progress: 1,
    total,
    message: `found ${results.length} results, reading ${
      Math.min(candidates.length, input.max_pages)
    } pages`,
  });

  const pages: Page[] = [];
  const failed: { url: string; code: string; message: string }[] = [];
  const seen = new Set<string>();
  // Every round is one call: one turn in the browser and one browser deadline for all of them.
  const call = new ReadCall();
  let next = 0;
  let done = 0;
  // Read in rounds: a page that fails is replaced by the next candidate.
  while (pages.length < input.max_pages && next < candidates.length) {
    const batch = candidates.slice(next, next + (input.max_pages - pages.length));
    next += batch.length;
    const reads = await readAll(gleaner.reader, batch, (url) => ({ url }), {
      concurrency: config.read.concurrency,
      signal,
      call,
      onRead: (url) =>
        progress?.({
          progress: 1 + Math.min(++done, input.max_pages),
          total,
          message: `read ${url}`,
        }),
    });
    for (const read of reads) {
      if (read.page) {
        const key = canonicalKey(read.page.canonical ?? read.page.finalUrl);
        if (seen.has(key)) continue;
        seen.add(key);
        pages.push(read.page);
      } else failed.push({ url: read.item, code: read.error.code, message: read.error.message });
    }
  }
  const packet = await gatherEvidence({
    reads: pages.map((page) => ({ page, query: input.query })),
    maxTokens,
    rank: config.rank,
    embeddingCache: gleaner.store.embeddings,
    expander: await gleaner.expander(),
    embedder: pages.length ? await gleaner.embedder() : undefined,
    rerankQueries,
    signal,
  });
  progress?.({ progress: total, total, message: "ranked" });
  return {
    query: input.query,
    evidence: packet.items,
    sources: pages.map((p) => ({ url: p.finalUrl, title: p.title, tier: p.tier })),
    failed,
    attempts,
    ranking: pages.length ? packet.ranking : "none",
    ...(packet.rerankError ? { ranking_note: packet.rerankError } : {}),
    tokens: packet.tokens,
    page_tokens: packet.pageTokens,
    ...(found.rewritten_query !== undefined ? { rewritten_query: found.rewritten_query } : {}),
    ...(found.reranked !== undefined ? { reranked: found.reranked } : {}),
    ...(found.notices ? { notices: found.notices } : {}),
  };
}
