/**
 * The HTTP tier: one guarded fetch, then the body is read by what it is —
 * HTML through extraction, structured data and text as such, PDF as text.
 * The page reports the tier that produced it (`http`, `structured` or `pdf`).
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { extractHtml } from "../extract/mod.ts";
import type { FetchedResponse } from "../net/types.ts";
import { pdfToMarkdown } from "./convert/pdf.ts";
import { isStructuredType, looksLikeHtml, structuredToMarkdown } from "./convert/structured.ts";
import { assertPageStatus } from "./status.ts";
import { looksThin } from "./thin.ts";
import type { Page, ReadContext, ReadRequest, Tier } from "./types.ts";

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/**
 * Turns an HTML document into a {@link Page}.
 *
 * @example
 * ```ts ignore
 * import { pageFromHtml } from "./http.ts";
 * const page = pageFromHtml("<title>T</title><p>Hello</p>", "https://example.com/", "https://example.com/", "http");
 * ```
 */
export function pageFromHtml(
  html: string,
  requestedUrl: string,
  finalUrl: string,
  tier: Page["tier"],
): Page {
  const extracted = extractHtml(html, finalUrl);
  return {
    url: requestedUrl,
    finalUrl,
    title: extracted.title,
    markdown: extracted.markdown,
    links: extracted.links,
    tier,
    mediaType: "text/html",
    lang: extracted.lang,
    published: extracted.published,
    byline: extracted.byline,
    canonical: extracted.canonical,
    fetchedAt: new Date().toISOString(),
    ...(tier === "http" && looksThin(html, extracted.markdown) ? { thin: true } : {}),
  };
}

/** Turns a fetched response into a {@link Page}, whatever it holds. */
export async function pageFromResponse(
  response: FetchedResponse,
  requestedUrl: string,
  options: { maxPdfPages?: number } = {},
): Promise<Page> {
  const { mediaType } = response;
  const base = {
    url: requestedUrl,
    finalUrl: response.url,
    links: [],
    fetchedAt: new Date().toISOString(),
  };
  if (HTML_TYPES.has(mediaType)) {
    return pageFromHtml(response.text(), requestedUrl, response.url, "http");
  }
  if (mediaType === "application/pdf") {
    const pdf = await pdfToMarkdown(response.body, { maxPages: options.maxPdfPages });
    return {
      ...base,
      title: pdf.title ?? titleFromUrl(response.url),
      markdown: pdf.markdown,
      tier: "pdf",
      mediaType,
    };
  }
  if (isStructuredType(mediaType) || mediaType.startsWith("text/")) {
    const text = response.text();
    if (looksLikeHtml(text)) return pageFromHtml(text, requestedUrl, response.url, "http");
    const effective = isStructuredType(mediaType) ? mediaType : "text/plain";
    return {
      ...base,
      title: titleFromUrl(response.url),
      markdown: structuredToMarkdown(text, effective),
      tier: "structured",
      mediaType,
    };
  }
  throw new GleanerError(
    "unsupported_content",
    `${response.url} is ${mediaType || "binary"}, not a readable page`,
  );
}

/** A title for content that has none: the last path segment or the host. */
export function titleFromUrl(url: string): string {
  const parsed = new URL(url);
  const last = parsed.pathname.split("/").filter(Boolean).pop();
  if (!last) return parsed.hostname;
  try {
    return decodeURIComponent(last);
  } catch {
    return last; // malformed escapes: the segment as written
  }
}

/** The HTTP tier. */
export const httpTier: Tier = {
  name: "http",
  canHandle: (_url, request) => request.render !== "always",
  async read(url: URL, request: ReadRequest, context: ReadContext): Promise<Page> {
    const response = await context.fetcher.fetch(url, {
      signal: request.signal,
      robots: context.config.network.respect_robots,
      headers: {
        accept: "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5",
      },
    });
    assertPageStatus(response.status, url.href);
    return await pageFromResponse(response, request.url);
  },
};
