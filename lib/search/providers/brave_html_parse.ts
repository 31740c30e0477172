/**
 * The parser of Brave Search's HTML result page, after the `ddgs` library's
 * Brave engine (`ddgs/engines/brave.py` at
 * a97a4fcbad658fe488bcd84d42fb32a7ba54b45a): results are the `div`s with
 * `data-type="web"` (ads carry another type); the link is the `a` that has a
 * title `div` child (class holding `title`), whose text is the title; the
 * snippet is the `div` whose class holds `content` inside the one whose class
 * holds `snippet` (`generic-snippet`). A snippet that opens with a date
 * (`June 30, 2024 - …`) gives the publication date. Links to Brave's own
 * pages are dropped.
 *
 * @module
 */
import type { SearchHit } from "../types.ts";
import {
  classHas,
  type El,
  engineHit,
  hasSearchField,
  leadingDate,
  pageVerdict,
  parseDocument,
  textOf,
  webUrl,
  withClass,
} from "./engine_dom.ts";
import type { EnginePage } from "./scraped.ts";

/** The result link: an `a` with a `div` child whose class holds `title`; and that `div`. */
function titleLink(item: El): { link: El; title: El } | undefined {
  for (const link of item.querySelectorAll("a")) {
    const title = Array.from(link.children).find((child) =>
      child.tagName === "DIV" && classHas(child, "title")
    );
    if (title) return { link, title };
  }
  return undefined;
}

/** The snippet: a `div[class*=content]` inside a `div[class*=snippet]` below the result. */
function snippetOf(item: El): string {
  for (const box of withClass(item, "div", "snippet")) {
    const content = withClass(box, "div", "content")[0];
    if (content) return textOf(content);
  }
  return "";
}

/** True for Brave's own pages (search, settings, goggles), never a result. */
function isBraveOwn(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return host === "search.brave.com" || host.endsWith(".search.brave.com");
}

/**
 * Parses a Brave Search result page.
 *
 * @example
 * ```ts
 * import { parseBraveHtml } from "./brave_html_parse.ts";
 * const page = parseBraveHtml(`<div class="snippet" data-type="web"><a href="https://deno.com/">
 *   <div class="title">Deno</div></a><div class="generic-snippet"><div class="content">A runtime</div></div></div>`);
 * console.assert(page.kind === "results" && page.hits[0].title === "Deno");
 * ```
 */
export function parseBraveHtml(html: string): EnginePage {
  const doc = parseDocument(html);
  const hits: SearchHit[] = [];
  const items = [...doc.querySelectorAll("div[data-type]")]
    .filter((div) => div.getAttribute("data-type") === "web");
  for (const item of items) {
    const found = titleLink(item);
    const url = webUrl(found?.link.getAttribute("href"));
    if (!found || !url || isBraveOwn(url)) continue;
    const { published, text } = leadingDate(snippetOf(item));
    const hit = engineHit("brave_html", textOf(found.title), url, text, published);
    if (hit) hits.push(hit);
  }
  return pageVerdict(doc, hits, items.length > 0 || hasSearchField(doc, "q"));
}
