/**
 * The parser of Yahoo's result page, after the `ddgs` library's Yahoo engine
 * (`ddgs/engines/yahoo.py` at a97a4fcbad658fe488bcd84d42fb32a7ba54b45a):
 * results are the `div`s whose class holds `relsrch`; the title is the `h3`
 * text and the link the first `a` inside the `div` whose class holds `Title`
 * (`compTitle`); the snippet is the `div` whose class holds `Text`
 * (`compText`). Yahoo wraps links in its redirect
 * (`https://r.search.yahoo.com/…/RU=<target>/RK=…/RS=…`): the target is
 * unwrapped; ads (links to `https://www.bing.com/aclick?`) are dropped.
 *
 * @module
 */
import type { SearchHit } from "../types.ts";
import {
  engineHit,
  hasSearchField,
  pageVerdict,
  parseDocument,
  textOf,
  webUrl,
  withClass,
} from "./engine_dom.ts";
import type { EnginePage } from "./scraped.ts";

/**
 * The target of a Yahoo result link: the `/RU=` part of its redirect,
 * decoded; any other link as it is. `undefined` for an ad.
 *
 * @example
 * ```ts
 * import { unwrapYahooUrl } from "./yahoo_parse.ts";
 * const href = "https://r.search.yahoo.com/_ylt=A/RV=2/RE=1/RO=10/RU=https%3a%2f%2fdeno.com%2fx%3fa%3d1/RK=2/RS=z-";
 * console.assert(unwrapYahooUrl(href) === "https://deno.com/x?a=1");
 * console.assert(unwrapYahooUrl("https://www.bing.com/aclick?ld=e") === undefined);
 * ```
 *
 * @internal exported for tests only
 */
export function unwrapYahooUrl(href: string | null | undefined): string | undefined {
  if (!href) return undefined;
  const trimmed = href.trim();
  if (trimmed.startsWith("https://www.bing.com/aclick?")) return undefined;
  const at = trimmed.indexOf("/RU=");
  if (at < 0) return webUrl(trimmed);
  const target = trimmed.slice(at + 4).split("/RK=")[0].split("/RS=")[0];
  try {
    return webUrl(decodeURIComponent(target.replace(/\+/g, " ")));
  } catch {
    return undefined;
  }
}

/**
 * Parses a Yahoo result page.
 *
 * @example
 * ```ts
 * import { parseYahoo } from "./yahoo_parse.ts";
 * const page = parseYahoo(`<div class="dd algo algo-sr relsrch"><div class="compTitle">
 *   <a href="https://deno.com/"><h3 class="title">Deno</h3></a></div>
 *   <div class="compText"><p>A runtime</p></div></div>`);
 * console.assert(page.kind === "results" && page.hits[0].url === "https://deno.com/");
 * ```
 */
export function parseYahoo(html: string): EnginePage {
  const doc = parseDocument(html);
  const hits: SearchHit[] = [];
  const items = withClass(doc, "div", "relsrch");
  for (const item of items) {
    const heading = withClass(item, "div", "Title")[0];
    if (!heading) continue;
    const hit = engineHit(
      "yahoo",
      textOf(heading.querySelector("h3")),
      unwrapYahooUrl(heading.querySelector("a")?.getAttribute("href")),
      textOf(withClass(item, "div", "Text")[0]),
    );
    if (hit) hits.push(hit);
  }
  return pageVerdict(doc, hits, items.length > 0 || hasSearchField(doc, "p"));
}
