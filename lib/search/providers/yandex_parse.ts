/**
 * The parser of the result page of Yandex's site search, after the `ddgs`
 * library's Yandex engine (`ddgs/engines/yandex.py` at
 * a97a4fcbad658fe488bcd84d42fb32a7ba54b45a): results are the `li`s whose
 * class holds `serp-item`; the title is the `h3` text and the link the `a`
 * inside it; the snippet is the first `div` whose class holds `text`
 * (`b-serp-item__text`).
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
 * Parses a Yandex site-search result page.
 *
 * @example
 * ```ts
 * import { parseYandex } from "./yandex_parse.ts";
 * const page = parseYandex(`<ol><li class="b-serp-item serp-item"><h3><a href="https://deno.com/">Deno</a></h3>
 *   <div class="b-serp-item__text">A runtime</div></li></ol>`);
 * console.assert(page.kind === "results" && page.hits[0].snippet === "A runtime");
 * ```
 */
export function parseYandex(html: string): EnginePage {
  const doc = parseDocument(html);
  const hits: SearchHit[] = [];
  const items = withClass(doc, "li", "serp-item");
  for (const item of items) {
    const heading = item.querySelector("h3");
    const hit = engineHit(
      "yandex",
      textOf(heading),
      webUrl(heading?.querySelector("a")?.getAttribute("href")),
      textOf(withClass(item, "div", "text")[0]),
    );
    if (hit) hits.push(hit);
  }
  return pageVerdict(doc, hits, items.length > 0 || hasSearchField(doc, "text"));
}
