/**
 * The unit of evidence: a passage of original page text with its source,
 * chosen by the selection (`select.ts`) and written out by the renderer
 * (`render.ts`). Its own module so that both can name it without importing
 * each other.
 *
 * @module
 */
import type { Relevance } from "./fusion.ts";

/** A passage of original page text selected as evidence. */
export interface EvidenceItem {
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
