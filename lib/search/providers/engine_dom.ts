/**
 * What the parsers of the keyless engines' result pages share (Mojeek,
 * Brave's HTML page, Yahoo, Yandex): the parsed document, XPath's
 * `contains(@class, …)` test, links made absolute, and the bot-wall phrases
 * of a page without results. Loaded with the first answer (it brings
 * linkedom).
 *
 * @module
 */
import { parseHTML } from "linkedom";
import type { SearchHit } from "../types.ts";
import { cleanText } from "../upstream.ts";
import type { EnginePage } from "./scraped.ts";

/** The few DOM members the parsers use (Deno's default lib has no DOM types). */
export interface El {
  /** The first descendant matching `selector`. */
  querySelector(selector: string): El | null;
  /** Every descendant matching `selector`, in document order. */
  querySelectorAll(selector: string): Iterable<El>;
  /** An attribute's value. */
  getAttribute(name: string): string | null;
  /** The element's children (elements only). */
  readonly children: ArrayLike<El>;
  /** Upper-case tag name. */
  readonly tagName: string;
  /** The element's text. */
  readonly textContent: string | null;
}

/** A parsed document. */
export interface Doc extends El {
  /** The body, when any. */
  readonly body: El | null;
  /** The root element. */
  readonly documentElement: El | null;
}

/** Parses an HTML page. */
export function parseDocument(html: string): Doc {
  return (parseHTML(html) as unknown as { document: Doc }).document;
}

/**
 * XPath's `contains(@class, fragment)`: the class attribute holds `fragment`
 * anywhere (case-sensitive, like XPath).
 *
 * @example
 * ```ts
 * import { classHas, parseDocument } from "./engine_dom.ts";
 * const div = parseDocument(`<div class="compTitle options"></div>`).querySelector("div")!;
 * console.assert(classHas(div, "Title") && !classHas(div, "title"));
 * ```
 */
export function classHas(el: El, fragment: string): boolean {
  return (el.getAttribute("class") ?? "").includes(fragment);
}

/** Descendants of `el` with tag `tag` whose class holds `fragment`, in document order. */
export function withClass(el: El, tag: string, fragment: string): El[] {
  return [...el.querySelectorAll(tag)].filter((child) => classHas(child, fragment));
}

/** The element's text, whitespace collapsed. */
export function textOf(el: El | null | undefined): string {
  return cleanText(el?.textContent);
}

/**
 * An absolute http(s) URL from a result link (`undefined` for anything
 * else: `javascript:`, fragments, unparseable links).
 *
 * @example
 * ```ts
 * import { webUrl } from "./engine_dom.ts";
 * console.assert(webUrl(" https://deno.com/x ") === "https://deno.com/x");
 * console.assert(webUrl("/search?q=x") === undefined && webUrl("javascript:void(0)") === undefined);
 * ```
 */
export function webUrl(href: string | null | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href.trim());
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Phrases of the pages engines serve instead of results to a caller they take
 * for a bot (a captcha, "unusual traffic", "verify you are human").
 */
const WALL_PHRASES =
  /captcha|unusual traffic|automated (?:queries|requests|traffic)|verify (?:that )?you(?:'re| are) (?:a )?human|are you a robot|not a robot/i;

/**
 * The bot-wall phrase a page without results shows, if any.
 *
 * @example
 * ```ts
 * import { parseDocument, wallPhrase } from "./engine_dom.ts";
 * const doc = parseDocument("<p>Please complete the CAPTCHA to continue</p>");
 * console.assert(wallPhrase(doc) === "CAPTCHA");
 * ```
 *
 * @internal exported for tests only
 */
export function wallPhrase(doc: Doc): string | undefined {
  // The page's title and body (not its scripts); a fragment's text when it has no body.
  const body = textOf(doc.body) || textOf(doc.documentElement);
  const text = `${textOf(doc.querySelector("title"))} ${body}`.slice(0, 20_000);
  return WALL_PHRASES.exec(text)?.[0];
}

/** True when the page has the engine's search form (a text field called `field`). */
export function hasSearchField(doc: Doc, field: string): boolean {
  return doc.querySelector(`input[name="${field}"]`) !== null;
}

/**
 * The verdict on a page: results when there are hits; else a bot wall when
 * its text says so; else an empty answer when the engine's own page (its
 * result list or search form) is there; else a layout Gleaner does not know.
 */
export function pageVerdict(doc: Doc, hits: SearchHit[], ownPage: boolean): EnginePage {
  if (hits.length > 0) return { kind: "results", hits };
  const phrase = wallPhrase(doc);
  if (phrase) return { kind: "blocked", sign: `the page says "${phrase}"` };
  return ownPage ? { kind: "empty" } : { kind: "unrecognised" };
}

/** One result as a {@link SearchHit} of `source`; `undefined` without a usable URL. */
export function engineHit(
  source: string,
  title: string,
  url: string | undefined,
  snippet: string,
  published?: string,
): SearchHit | undefined {
  if (!url) return undefined;
  return {
    title: title || url,
    url,
    snippet,
    ...(published ? { published } : {}),
    source,
  };
}

/** Month names as engines print them in English dates. */
const MONTHS = [
  "jan",
  "feb",
  "mar",
  "apr",
  "may",
  "jun",
  "jul",
  "aug",
  "sep",
  "oct",
  "nov",
  "dec",
];

/**
 * A snippet that opens with an English date (`June 30, 2024 - text`): the
 * date as ISO 8601 (UTC midnight) and the text after it.
 *
 * @example
 * ```ts
 * import { leadingDate } from "./engine_dom.ts";
 * const { published, text } = leadingDate("Mar 2, 2024 - Deno ships KV.");
 * console.assert(published === "2024-03-02T00:00:00.000Z" && text === "Deno ships KV.");
 * console.assert(leadingDate("No date here").published === undefined);
 * ```
 */
export function leadingDate(snippet: string): { published?: string; text: string } {
  const match = /^([A-Za-z]{3,9})\.? (\d{1,2}), (\d{4})\s+[-–—]\s+/.exec(snippet);
  if (!match) return { text: snippet };
  const month = MONTHS.indexOf(match[1].slice(0, 3).toLowerCase());
  const day = Number(match[2]);
  if (month < 0 || day < 1 || day > 31) return { text: snippet };
  const date = new Date(Date.UTC(Number(match[3]), month, day));
  return { published: date.toISOString(), text: snippet.slice(match[0].length) };
}
