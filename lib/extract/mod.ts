/**
 * HTML → clean Markdown of the main content, with metadata and the links
 * worth following.
 *
 * @module
 */
import { baseUrlOf, parseDocument, stripScripts } from "./dom.ts";
import {
  bodyContent,
  extractMainContent,
  type ExtractorName,
  type MainContent,
  type MainContentExtractor,
} from "./main_content.ts";
import { gleanerExtractor } from "./gleaner_extractor.ts";
import { htmlToMarkdown } from "./markdown.ts";
import { type PageMetadata, readMetadata } from "./metadata.ts";
import { collectLinks, mergeLinks, type PageLink } from "./links.ts";
import { assertNotBinary, boundHtml, HTML_LIMITS, type HtmlLimits } from "./guard.ts";
import { selectTarget } from "./selector.ts";

export type { ExtractorName, MainContent, MainContentExtractor } from "./main_content.ts";
export { readabilityExtractor } from "./main_content.ts";
export { gleanerExtractor } from "./gleaner_extractor.ts";
export type { JsonLdArticle, PageMetadata, PageSignals } from "./metadata.ts";
export type { PageLink } from "./links.ts";
export { htmlToMarkdown } from "./markdown.ts";
export { cleanTitle, readMetadata } from "./metadata.ts";
export { collectLinks } from "./links.ts";
export { parseDocument } from "./dom.ts";
export { boundHtml, HTML_LIMITS, type HtmlLimits, looksBinary } from "./guard.ts";

/** A page reduced to what an agent reads: its metadata (see {@link PageMetadata}), Markdown and links. */
export interface ExtractedPage extends Omit<PageMetadata, "jsonLd"> {
  /** Markdown of the main content; no link targets, no images. */
  markdown: string;
  /** Absolute http(s) links, main content first, then the rest of the page. */
  links: PageLink[];
  /** What produced `markdown`. */
  method: ExtractorName | "json-ld";
  /** True when the HTML was cut before parsing (see {@link HtmlLimits}). */
  truncated?: boolean;
  /** o200k tokens of `markdown`, when the extractor counted them (the extraction threads do). */
  markdownTokens?: number;
}

/** Options of {@link extractHtml}. */
export interface ExtractOptions {
  /** Main-content extractor; default {@link gleanerExtractor} (Readability with boilerplate removal; best F1 on extraction-dev in bench/extraction.ts). */
  extractor?: MainContentExtractor;
  /** Bounds on the HTML parsed (size, nesting depth, element count); defaults in `HTML_LIMITS`. */
  limits?: HtmlLimits;
  /** Links kept, main content first (default {@link MAX_LINKS}). */
  maxLinks?: number;
  /**
   * CSS selector of the one element whose content is kept instead of the
   * main content (the extractor is then not run); `selector_not_found` when
   * nothing matches, `invalid_arguments` when it is not a valid selector.
   */
  targetSelector?: string;
}

/** Links kept per page by default, main content first. */
const MAX_LINKS = 1_000;

const THIN_WORDS = 60;

function wordCount(text: string): number {
  return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
}

/**
 * Extracts the main content of an HTML page as Markdown, with metadata and links.
 *
 * Hostile pages are bounded before parsing (see `guard.ts`): binary bodies
 * throw `unsupported_content`; size, nesting depth and element count are
 * capped (the page is then `truncated`), and at most `maxLinks` links are kept.
 *
 * @example
 * ```ts
 * import { extractHtml } from "./mod.ts";
 * const page = extractHtml(
 *   '<html lang="en"><head><title>Tides | Ocean News</title></head><body>' +
 *     '<article><h1>Tides</h1><p>Tides rise and fall twice a day. <a href="/moon">Moon</a></p></article>' +
 *     "</body></html>",
 *   "https://example.com/tides",
 * );
 * console.assert(page.title === "Tides");
 * console.assert(page.links[0].url === "https://example.com/moon");
 * ```
 */
export function extractHtml(
  html: string,
  url: string,
  options: ExtractOptions = {},
): ExtractedPage {
  assertNotBinary(html, url);
  const maxChars = options.limits?.maxChars ?? HTML_LIMITS.maxChars;
  // Scripts are stripped from a slice a little longer than the parse limit: it is linear anyway.
  const bounded = boundHtml(stripScripts(html.slice(0, maxChars * 2)), options.limits);
  const truncated = bounded.truncated || html.length > maxChars * 2;
  const cleaned = bounded.html;
  const maxLinks = options.maxLinks ?? MAX_LINKS;
  const doc = parseDocument(cleaned);
  const meta = readMetadata(doc, url);
  const base = baseUrlOf(doc, url);
  const pageLinks = collectLinks(doc, base, url, maxLinks);
  const main = options.targetSelector !== undefined
    ? targetContent(doc, options.targetSelector, url)
    : extractMainContent(doc, url, options.extractor ?? gleanerExtractor) ??
      bodyContent(parseDocument(cleaned));
  const mainLinks = collectLinks(main.root, base, url, maxLinks);
  let markdown = htmlToMarkdown(main.root, { mutate: true });
  let method: ExtractedPage["method"] = main.method;
  const body = meta.jsonLd?.articleBody;
  if (
    body && main.method !== "selector" && wordCount(markdown) < THIN_WORDS &&
    wordCount(body) > wordCount(markdown)
  ) {
    markdown = body.split(/\n\s*\n|\r\n\s*\r\n/).map((p) => p.replace(/\s+/g, " ").trim())
      .filter(Boolean).join("\n\n");
    method = "json-ld";
  }
  return {
    title: meta.title,
    markdown,
    links: mergeLinks(mainLinks, pageLinks).slice(0, maxLinks),
    lang: meta.lang ?? main.lang,
    byline: meta.byline ?? main.byline,
    published: meta.published ?? main.published,
    excerpt: meta.excerpt ?? main.excerpt,
    siteName: meta.siteName ?? main.siteName,
    canonical: meta.canonical,
    signals: meta.signals,
    method,
    ...(truncated ? { truncated } : {}),
  };
}

/** The element a `targetSelector` names, without what is never read (`noscript`, `template`). */
function targetContent(doc: Document, selector: string, url: string): MainContent {
  const root = selectTarget(doc, selector, url);
  for (const el of root.querySelectorAll("noscript, template")) el.remove();
  return { root, method: "selector" };
}
