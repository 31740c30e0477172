/**
 * Runs `scrape_urls`: reads the items concurrently, then ranks their passages
 * inside one budget. Loaded on the tool's first call.
 *
 * @module
 */
import type { z } from "zod";
import { archiveOf, gatherEvidence, isWholePageQuery } from "../../evidence/gather.ts";
import { relatedLinks } from "../../evidence/links.ts";
import { readAll } from "../../evidence/read_all.ts";
import { countTokens } from "../../text/tokens.ts";
import type { Page } from "../../read/types.ts";
import type { ScrapeInput, ScrapeOutput } from "../scrape_urls_schemas.ts";
import type { ToolContext } from "../spec.ts";

/** The `scrape_urls` handler. */
export async function scrapeUrls(
  input: z.output<typeof ScrapeInput>,
  { gleaner, signal, progress }: ToolContext,
): Promise<z.output<typeof ScrapeOutput>> {
  const { config } = gleaner;
  const maxTokens = input.max_tokens ?? config.rank.max_tokens;
  let done = 0;
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
