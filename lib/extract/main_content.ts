/**
 * Main-content extraction: Mozilla Readability on linkedom (chosen by
 * measurement in `bench/extraction.ts`, which also measures defuddle through
 * the same {@link MainContentExtractor} interface), with a body-text fallback.
 *
 * @module
 */
import { Readability } from "@mozilla/readability";
import { getGleanerLogger } from "../log.ts";
import { baseUrlOf } from "./dom.ts";
import { speedUpReadability } from "./readability_speed.ts";

/** Name of a main-content extractor (`readability` ships; others can be plugged in). */
export type ExtractorName = string;

/** Finds the main content of a parsed page, or `null` when it finds nothing. */
export interface MainContentExtractor {
  /** Name reported as the page's extraction `method`. */
  readonly name: ExtractorName;
  /** Extracts from the document (which it may mutate). */
  extract(doc: Document, url: string): MainContent | null;
}

/** The main content of a page and what the extractor learned on the way. */
export interface MainContent {
  /** Element holding the main content (detached from the page or a fresh fragment). */
  root: Element;
  /** Which path produced it: the extractor's name, or `body` for the fallback. */
  method: ExtractorName;
  /** Title as the extractor saw it. */
  title?: string;
  /** Author(s). */
  byline?: string;
  /** Description / excerpt. */
  excerpt?: string;
  /** Site name. */
  siteName?: string;
  /** Publication time. */
  published?: string;
  /** Language. */
  lang?: string;
}

const log = getGleanerLogger("extract");

function clean(value: string | null | undefined): string | undefined {
  const v = value?.replace(/\s+/g, " ").trim();
  return v ? v : undefined;
}

/**
 * Mozilla Readability: the default extractor.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { readabilityExtractor } from "./main_content.ts";
 * const text = "Tides rise and fall twice a day because of the Moon. ".repeat(20);
 * const doc = parseDocument(`<html><body><article><p>${text}</p></article></body></html>`);
 * console.assert(readabilityExtractor.extract(doc, "https://example.com/")?.method === "readability");
 * ```
 */
export const readabilityExtractor: MainContentExtractor = {
  name: "readability",
  extract(doc: Document, url: string): MainContent | null {
    // Readability resolves relative links against the document's base URI, which linkedom
    // takes from `globalThis.location` (a worker thread's own script URL): pin it to the page.
    const base = baseUrlOf(doc, url);
    Object.defineProperty(doc, "baseURI", { value: base, configurable: true });
    Object.defineProperty(doc, "documentURI", { value: url, configurable: true });
    const reader = new Readability<Element>(doc, {
      keepClasses: true,
      serializer: (node) => node as Element,
    });
    const restore = speedUpReadability(reader);
    let article;
    try {
      article = reader.parse();
    } finally {
      restore();
    }
    if (!article?.content || !(article.textContent ?? "").trim()) return null;
    return {
      root: article.content,
      method: "readability",
      title: clean(article.title),
      byline: clean(article.byline),
      excerpt: clean(article.excerpt),
      siteName: clean(article.siteName),
      published: clean(article.publishedTime),
      lang: clean(article.lang),
    };
  },
};

/**
 * Finds the main content of a parsed page with the chosen extractor; `null`
 * when it finds nothing (or throws). The document is mutated: read metadata
 * and page links first.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { extractMainContent } from "./main_content.ts";
 * const text = "Tides rise and fall twice a day because of the Moon. ".repeat(20);
 * const doc = parseDocument(`<html><body><nav>Menu</nav><article><p>${text}</p></article></body></html>`);
 * const main = extractMainContent(doc, "https://example.com/");
 * console.assert(main !== null && main.root.textContent!.includes("Tides"));
 * ```
 */
export function extractMainContent(
  doc: Document,
  url: string,
  extractor: MainContentExtractor = readabilityExtractor,
): MainContent | null {
  try {
    return extractor.extract(doc, url);
  } catch (error) {
    log.debug("{extractor} failed on {url}: {error}", {
      extractor: extractor.name,
      url,
      error: String(error),
    });
    return null;
  }
}

/**
 * The fallback main content: the page body without scripts, styles and
 * navigation chrome. Mutates the document.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { bodyContent } from "./main_content.ts";
 * const main = bodyContent(parseDocument("<nav>Menu</nav><p>Text</p>"));
 * console.assert(main.root.textContent === "Text");
 * ```
 */
export function bodyContent(doc: Document): MainContent {
  const root = doc.body;
  for (const el of root.querySelectorAll("script, style, noscript, template, nav, footer")) {
    el.remove();
  }
  return { root, method: "body" };
}
