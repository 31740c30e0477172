/**
 * The text a model reads for evidence and links. Kept apart from ranking so
 * that rendering a result loads no tokenizer: the selection in `select.ts`
 * counts tokens on exactly these strings.
 *
 * @module
 */
import type { ArchiveProvenance, EvidenceItem } from "./evidence_item.ts";
import type { PageLink } from "../extract/links.ts";

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/**
 * The header of one source: its title (or URL) and its URL, and for an
 * archived snapshot a line that says so, so that a model never cites it as
 * the live page: `[Archived snapshot – <time> – <original URL>]`.
 *
 * @example
 * ```ts
 * import { sourceHeader } from "./render.ts";
 * console.assert(sourceHeader("Tides", "https://example.com/t") === "## Tides\nhttps://example.com/t\n");
 * const archived = sourceHeader("Tides", "https://web.archive.org/web/2024/https://example.com/t", {
 *   archived_at: "2024-01-02T03:04:05Z",
 *   original_url: "https://example.com/t",
 * });
 * console.assert(archived.endsWith("\n[Archived snapshot – 2024-01-02T03:04:05Z – https://example.com/t]\n"));
 * ```
 */
export function sourceHeader(title: string, url: string, archive?: ArchiveProvenance): string {
  const header = `## ${oneLine(title) || url}\n${url}\n`;
  if (!archive?.archived_at && !archive?.original_url) return header;
  return `${header}[Archived snapshot – ${archive.archived_at ?? "time unknown"} – ${
    archive.original_url ?? url
  }]\n`;
}

/**
 * The heading path of a passage as one quoted line (empty without headings).
 *
 * @example
 * ```ts
 * import { headingLine } from "./render.ts";
 * console.assert(headingLine(["A", "B"]) === "> A > B\n");
 * console.assert(headingLine([]) === "");
 * ```
 */
export function headingLine(headings: readonly string[]): string {
  return headings.length ? `> ${headings.map(oneLine).join(" > ")}\n` : "";
}

/**
 * The compact text for the model: sources in order of first appearance, the
 * URL once per source, each passage under its heading path (not repeated when
 * unchanged).
 *
 * @example
 * ```ts
 * import { renderEvidence } from "./render.ts";
 * const text = renderEvidence([{
 *   text: "Tides rise twice a day.", url: "https://example.com/t", title: "Tides",
 *   headings: ["Basics"], start: 0, end: 23, score: 1, relevance: "high", query: "tides",
 * }]);
 * console.assert(text === "## Tides\nhttps://example.com/t\n\n> Basics\nTides rise twice a day.\n");
 * ```
 */
export function renderEvidence(items: readonly EvidenceItem[]): string {
  const bySource = new Map<string, EvidenceItem[]>();
  for (const item of items) {
    const list = bySource.get(item.url);
    if (list) list.push(item);
    else bySource.set(item.url, [item]);
  }
  const blocks: string[] = [];
  for (const [url, list] of bySource) {
    let block = sourceHeader(list[0].title, url, list[0]);
    let last = "";
    for (const item of list) {
      const heading = headingLine(item.headings);
      block += `\n${heading === last ? "" : heading}${item.text}\n`;
      last = heading;
    }
    blocks.push(block);
  }
  return blocks.join("\n");
}

/**
 * The line a link takes in the text for the model.
 *
 * @example
 * ```ts
 * import { renderLink } from "./render.ts";
 * console.assert(renderLink({ url: "https://example.com/", text: " Home\n page " }) === "- Home page: https://example.com/");
 * ```
 */
export function renderLink(link: PageLink): string {
  return `- ${link.text.replace(/\s+/g, " ").trim()}: ${link.url}`;
}
