/**
 * The `scrape_urls` tool: read up to five pages and return only the passages
 * that answer each item's query (or the page in order without one), inside
 * one token budget.
 *
 * @module
 */
import type { z } from "zod";
import { renderEvidence as renderEvidenceText, renderLink } from "../rank/render.ts";
import { defineTool, lazyHandler, type ToolSpec } from "./spec.ts";
import { ScrapeInput, ScrapeOutput } from "./scrape_urls_schemas.ts";

export { ScrapeInput, ScrapeOutput } from "./scrape_urls_schemas.ts";

/** The tool definition. */
export const scrapeUrlsTool: ToolSpec<typeof ScrapeInput, typeof ScrapeOutput> = defineTool({
  name: "scrape_urls",
  scope: "tenant",
  title: "Read pages",
  description:
    "Reads pages (HTML, JavaScript apps, PDF, JSON, GitHub) and returns only the original passages that answer each item's query, with their URLs, within max_tokens; without a query, the page text in order. Lists related links.",
  input: ScrapeInput,
  output: ScrapeOutput,
  http: { path: "/v1/scrape" },
  readOnly: true,
  openWorld: true,
  // The evidence run itself is lib/evidence/scrape.ts; a tool's context is its context.
  handler: lazyHandler(() => import("../evidence/scrape.ts").then((m) => m.scrape)),
  render: (out) => renderScrape(out),
});

/** The compact text of a scrape: evidence by source, then failures and links. */
function renderScrape(out: z.output<typeof ScrapeOutput>): string {
  const parts: string[] = [];
  if (out.evidence.length) parts.push(renderEvidenceText(out.evidence));
  else if (out.items.every((item) => item.error)) parts.push("(no page could be read)");
  else parts.push("(no passage matched)");
  for (const item of out.items) {
    if (item.error) parts.push(`! ${item.url}: ${item.error.code}: ${item.error.message}`);
  }
  const links = out.items.flatMap((item) => item.links ?? []);
  if (links.length) parts.push(`Related links:\n${links.map(renderLink).join("\n")}`);
  return parts.join("\n\n");
}
