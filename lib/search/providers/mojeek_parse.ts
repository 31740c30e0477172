/**
 * The parser of Mojeek's result page, after the `ddgs` library's Mojeek
 * engine (`ddgs/engines/mojeek.py` at a97a4fcbad658fe488bcd84d42fb32a7ba54b45a):
 * results are the `li` children of a `ul` whose class holds `results`
 * (`results-standard`); each has its link in `h2 > a`, its title in the `h2`,
 * its snippet in `p.s`. Mojeek links straight to the page (no redirect).
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
 * Parses a Mojeek result page.
 *
 * @example
 * ```ts
 * import { parseMojeek } from "./mojeek_parse.ts";
 * const page = parseMojeek(`<ul class="results-standard"><li><h2><a href="https://deno.com/">Deno</a></h2>
 *   <p class="s">A runtime</p></li></ul>`);
 * console.assert(page.kind === "results" && page.hits[0].snippet === "A runtime");
 * ```
 */
export function parseMojeek(html: string): EnginePage {
  const doc = parseDocument(html);
  const lists = withClass(doc, "ul", "results");
  const hits: SearchHit[] = [];
  for (const list of lists) {
    for (const item of Array.from(list.children)) {
      if (item.tagName !== "LI") continue;
      const link = item.querySelector("h2 > a");
      const snippet = [...item.querySelectorAll("p")].find((p) => p.getAttribute("class") === "s");
      const hit = engineHit(
        "mojeek",
        textOf(item.querySelector("h2")),
        webUrl(link?.getAttribute("href")),
        textOf(snippet),
      );
      if (hit) hits.push(hit);
    }
  }
  return pageVerdict(doc, hits, lists.length > 0 || hasSearchField(doc, "q"));
}
