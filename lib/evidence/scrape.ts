/**
 * Scraping: reads the items concurrently, then ranks their passages inside
 * one budget, with related links per page. The `scrape_urls` tool runs it
 * (loaded on its first call).
 *
 * @module
 */
import { countTokens } from "../text/tokens.ts";
import type { Page } from "../read/types.ts";
import type { EvidenceContext, ScrapeRequest, ScrapeResult } from "./types.ts";
import { archiveOf, gatherEvidence, isWholePageQuery, startRerankQueries } from "./gather.ts";
import { relatedLinks } from "./links.ts";
import { readAll } from "./read_all.ts";
import { ReadCall } from "../read/call.ts";

/**
 * Scrapes pages: reads every item (one failure never sinks the others),
 * picks the passages that answer each item's query (or the page in order
 * without one) inside one token budget, and lists related links per page.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "../gleaner.ts";
 * import { scrape } from "./scrape.ts";
 * const gleaner = await createGleaner();
 * const out = await scrape({ items: [{ url: "https://example.com/", query: "contact" }] }, { gleaner });
 * console.log(out.items[0].ok, out.tokens);
 * ```
 */
export async function scrape(
  input: ScrapeRequest,
  { gleaner, signal, progress }: EvidenceContext,
): Promise<ScrapeResult> {
  const { config } = gleaner;
  const maxTokens = input.max_tokens ?? config.rank.max_tokens;
  let done = 0;
  // The reranker (when configured) embeds the queries while the pages are read.
  const rerankQueries = startRerankQueries(config.rank, input.items.map((i) => i.query), signal);
  const reads = await readAll(
    gleaner.reader,
    input.items,
    (item) => ({
      url: item.url,
      render: input.render,
      targetSelector: item.target_selector,
      waitForSelector: item.wait_for_selector,
      maxAgeS: input.max_age,
      noCache: input.no_cache,
    }),
    {
      concurrency: config.read.concurrency,
      signal,
      // One call: the items take one turn in the browser and share one browser deadline.
      call: new ReadCall(),
      onRead: (item) =>
        progress?.({ progress: ++done, total: input.items.length, message: `read ${item.url}` }),
    },
  );
  const ok = reads.filter((r) => r.page !== undefined) as {
    item: typeof reads[number]["item"];
    page: Page;
  }[];
  const needsEmbedder = ok.some((r) => !isWholePageQuery(r.item.query));
  const packet = await gatherEvidence({
    reads: ok.map((r) => ({ page: r.page, query: r.item.query })),
    maxTokens,
    rank: config.rank,
    embeddingCache: gleaner.store.embeddings,
    expander: needsEmbedder ? await gleaner.expander() : undefined,
    embedder: needsEmbedder ? await gleaner.embedder() : undefined,
    rerankQueries,
    signal,
  });
  const linkBudget = Math.floor(config.rank.links_max_tokens / Math.max(1, ok.length));
  return {
    items: await Promise.all(reads.map(async (r) => {
      if (!r.page) {
        return {
          url: r.item.url,
          ok: false,
          error: { code: r.error!.code, message: r.error!.message },
        };
      }
      const { page } = r;
      return {
        url: r.item.url,
        ok: true,
        final_url: page.finalUrl,
        title: page.title,
        tier: page.tier,
        published: page.published,
        ...archiveOf(page),
        page_tokens: packet.pageTokensByUrl.get(page.finalUrl) ?? countTokens(page.markdown),
        ...(page.truncated ? { truncated: true } : {}),
        links: await relatedLinks(
          page.finalUrl,
          page.links,
          isWholePageQuery(r.item.query) ? undefined : r.item.query,
          {
            max: 10,
            maxTokens: linkBudget,
          },
        ),
      };
    })),
    evidence: packet.items,
    ranking: packet.ranking,
    ...(packet.rerankError ? { ranking_note: packet.rerankError } : {}),
    tokens: packet.tokens,
  };
}
