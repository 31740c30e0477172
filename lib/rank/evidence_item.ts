/**
 * The unit of evidence: a passage of original page text with its source,
 * chosen by the selection (`select.ts`) and written out by the renderer
 * (`render.ts`). Its own module so that both can name it without importing
 * each other.
 *
 * @module
 */
import type { Relevance } from "./fusion.ts";

/**
 * Where a page was read from when it is not the live page: a snapshot from
 * the web archive, with the time it was taken and the URL it captured.
 */
export interface ArchiveProvenance {
  /** When the snapshot was taken (ISO 8601). */
  archived_at?: string;
  /** The URL the snapshot captured (the page as it was, not as it is). */
  original_url?: string;
}

/**
 * The provenance fields of `source`, present only when set (so a live page's
 * evidence carries no empty keys).
 *
 * @example
 * ```ts
 * import { provenanceOf } from "./evidence_item.ts";
 * console.assert(Object.keys(provenanceOf({})).length === 0);
 * console.assert(provenanceOf({ archived_at: "2024-01-02T03:04:05Z" }).archived_at === "2024-01-02T03:04:05Z");
 * ```
 */
export function provenanceOf(source: ArchiveProvenance): ArchiveProvenance {
  return {
    ...(source.archived_at ? { archived_at: source.archived_at } : {}),
    ...(source.original_url ? { original_url: source.original_url } : {}),
  };
}

/** A passage of original page text selected as evidence. */
export interface EvidenceItem extends ArchiveProvenance {
  /** Original text: `markdown.slice(start, end)` of the page. */
  text: string;
  /** Source URL. */
  url: string;
  /** Source title. */
  title: string;
  /** Heading path above the passage. */
  headings: string[];
  /** Offset of the passage in the page Markdown. */
  start: number;
  /** End offset of the passage in the page Markdown. */
  end: number;
  /** Best score among its units, 0..1. */
  score: number;
  /** Label of `score`. */
  relevance: Relevance;
  /** Query of its best unit. */
  query: string;
}
