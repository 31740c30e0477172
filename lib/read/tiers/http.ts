/**
 * The HTTP tier: one guarded fetch, then the body is read by what it is —
 * HTML through extraction, structured data and text as such, PDF as text.
 * The page reports the tier that produced it (`http`, `structured` or `pdf`).
 *
 * @module
 */
import { type ErrorCode, GleanerError } from "../../errors.ts";
import { pace } from "../../async/pace.ts";
import {
  type ExtractedPage,
  extractHtml,
  type ExtractOptions,
  HTML_LIMITS,
} from "../../extract/mod.ts";
import { DECODE_WHOLE_BYTES, htmlTextSlices } from "../../extract/body.ts";
import type { BodyExtractor, HtmlExtractor } from "../../extract/pool.ts";
import type { FetchedResponse } from "../../net/types.ts";
import { pdfToMarkdown } from "../convert/pdf.ts";
import { isStructuredType, looksLikeHtml, structuredToMarkdown } from "../convert/structured.ts";
import { assertPageStatus } from "../status.ts";
import { looksThin } from "../../extract/thin.ts";
import type { ReadSection } from "../../config/sections.ts";
import type { Page, Tier } from "../types.ts";
import { defineTier } from "./define.ts";

/** The settings inline extraction reads: the size limit and the link count. */
export interface ExtractSettings {
  /** `read.max_html_chars` and `read.max_links`. */
  readonly read: Pick<ReadSection, "max_html_chars" | "max_links">;
}

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/** How {@link pageFromHtml} extracts: the tiers' context and the read's signal. */
export interface HtmlReadOptions {
  /** Off-main-thread extraction (else inline {@link extractHtml} with the limits of `config`). */
  extract?: HtmlExtractor;
  /**
   * Off-main-thread decoding and extraction of a fetched HTML body (preferred
   * over `extract` for responses: the main thread never decodes the body).
   */
  extractBody?: BodyExtractor;
  /** Settings (`read.max_html_chars`, `read.max_links`) for inline extraction. */
  config?: ExtractSettings;
  /** Cancels the extraction. */
  signal?: AbortSignal;
  /** The body was already cut at the network size limit. */
  truncated?: boolean;
  /** Keep only the element this CSS selector matches (`selector_not_found` when none does). */
  targetSelector?: string;
  /**
   * Judge whether the page looks thin (likely to need JavaScript, so the browser tier may read
   * it again): for a plain fetch. A rendered or archived page is what it is.
   */
  judgeThin?: boolean;
}

/**
 * Turns an HTML document into a {@link Page}: through the extraction pool
 * when the context has one, else inline.
 *
 * @example
 * ```ts ignore
 * import { pageFromHtml } from "./http.ts";
 * const page = await pageFromHtml("<title>T</title><p>Hello</p>", "https://example.com/", "https://example.com/", "http");
 * ```
 */
export async function pageFromHtml(
  html: string,
  requestedUrl: string,
  finalUrl: string,
  tier: Page["tier"],
  options: HtmlReadOptions = {},
): Promise<Page> {
  const target = options.targetSelector;
  const extracted = options.extract
    ? await options.extract(html, finalUrl, options.signal, { targetSelector: target })
    : extractHtml(html, finalUrl, { ...inlineOptions(options.config), targetSelector: target });
  return pageFromExtracted(extracted, requestedUrl, finalUrl, tier, {
    truncated: options.truncated,
    // The element asked for was found: it is what the caller wants, however short.
    thin: options.judgeThin === true && target === undefined &&
      looksThin(html, extracted.markdown),
  });
}

/** The {@link Page} of an extracted HTML document. */
function pageFromExtracted(
  extracted: ExtractedPage,
  requestedUrl: string,
  finalUrl: string,
  tier: Page["tier"],
  flags: { truncated?: boolean; thin: boolean },
): Page {
  const truncated = flags.truncated || extracted.truncated;
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
    ...(extracted.signals ? { signals: extracted.signals } : {}),
    fetchedAt: new Date().toISOString(),
    ...(flags.thin ? { thin: true } : {}),
    ...(truncated ? { truncated: true } : {}),
    ...(extracted.markdownTokens !== undefined ? { markdownTokens: extracted.markdownTokens } : {}),
  };
}

/** {@link extractHtml} options from the read settings. */
export function inlineOptions(config?: ExtractSettings): ExtractOptions {
  return config
    ? { limits: { maxChars: config.read.max_html_chars }, maxLinks: config.read.max_links }
    : {};
}

/** Turns a fetched response into a {@link Page}, whatever it holds. */
export async function pageFromResponse(
  response: FetchedResponse,
  requestedUrl: string,
  options: { maxPdfPages?: number } & HtmlReadOptions = {},
): Promise<Page> {
  const htmlOptions: HtmlReadOptions = {
    ...options,
    truncated: options.truncated || (response as { truncated?: boolean }).truncated,
    // A fetched body: it may be a shell that needs JavaScript.
    judgeThin: true,
  };
  const { mediaType } = response;
  const base = {
    url: requestedUrl,
    finalUrl: response.url,
    links: [],
    fetchedAt: new Date().toISOString(),
  };
  if (HTML_TYPES.has(mediaType)) {
    if (options.extractBody) {
      // Decoded, extracted and judged thin in an extraction thread.
      const { page, cut, thin } = await options.extractBody(
        { bytes: response.body, charset: response.charset },
        response.url,
        options.signal,
        { targetSelector: options.targetSelector },
      );
      return pageFromExtracted(page, requestedUrl, response.url, "http", {
        truncated: htmlOptions.truncated || cut,
        thin,
      });
    }
    const maxChars = options.config?.read.max_html_chars ?? HTML_LIMITS.maxChars;
    const { text, cut } = await decodeHtmlBody(response, maxChars);
    return await pageFromHtml(text, requestedUrl, response.url, "http", {
      ...htmlOptions,
      truncated: htmlOptions.truncated || cut,
    });
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
    if (looksLikeHtml(text)) {
      return await pageFromHtml(text, requestedUrl, response.url, "http", htmlOptions);
    }
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

/**
 * Decodes an HTML body 256 KB at a time ({@link htmlTextSlices}), yielding to
 * the event loop between slices, and only as far as extraction reads. `cut`
 * says bytes were left undecoded. The extraction pool's `extractBody`
 * decodes the same slices as it posts a body to a thread.
 */
export async function decodeHtmlBody(
  response: FetchedResponse,
  maxChars: number,
): Promise<{ text: string; cut: boolean }> {
  const body = response.body;
  if (body.length <= DECODE_WHOLE_BYTES) return { text: response.text(), cut: false };
  const { cut, slices } = htmlTextSlices(body, response.charset, maxChars);
  const parts: string[] = [];
  for (const slice of slices) {
    if (parts.length > 0) await pace();
    parts.push(slice);
  }
  return { text: parts.join(""), cut };
}

/** A title for content that has none: the last path segment or the host. */
function titleFromUrl(url: string): string {
  const parsed = new URL(url);
  const last = parsed.pathname.split("/").filter(Boolean).pop();
  if (!last) return parsed.hostname;
  try {
    return decodeURIComponent(last);
  } catch {
    return last; // malformed escapes: the segment as written
  }
}

/**
 * HTTP failures a real browser may get past (a target element missing from
 * the served HTML may be added by the page's scripts).
 */
const RENDER_AFTER: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "unauthorized",
  "rate_limited",
  "unsupported_content",
  "selector_not_found",
]);

/**
 * The HTTP tier. In `auto` mode its thin pages, the failures a browser may
 * get past, and its probation call in the rendering tiers (`renderAfter`).
 */
export const httpTier: Tier = defineTier({
  name: "http",
  scope: "shared",
  settings: { read: ["max_html_chars", "max_links"] },
  renderAfter: RENDER_AFTER,
  canHandle: (_url, request) => request.render !== "always",
  async read(url, request, context): Promise<Page> {
    const response = await context.fetcher.fetch(url, {
      signal: request.signal,
      robots: context.config.network.respect_robots,
      headers: {
        accept: "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5",
      },
    });
    assertPageStatus(response.status, url.href);
    return await pageFromResponse(response, request.url, {
      extract: context.extract,
      extractBody: context.extractBody,
      config: context.config,
      signal: request.signal,
      targetSelector: request.targetSelector,
    });
  },
});
