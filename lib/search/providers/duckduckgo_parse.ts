/**
 * Parsers of DuckDuckGo's HTML and lite result pages. Loaded with the first
 * answer (the HTML parser is large), so a server that never searches
 * DuckDuckGo never loads it.
 *
 * @module
 */
import { parseHTML } from "linkedom";
import { DUCKDUCKGO, type DuckDuckGoPage, unwrapDuckDuckGoUrl } from "./duckduckgo_page.ts";
import type { SearchHit } from "../types.ts";
import { cleanText, toIsoDate } from "../upstream.ts";

/** The few DOM members the parsers use (Deno's default lib has no DOM types). */
interface El {
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El>;
  getAttribute(name: string): string | null;
  closest(selector: string): El | null;
  readonly classList: { contains(token: string): boolean };
  readonly nextElementSibling: El | null;
  readonly textContent: string | null;
}

/** A parsed document. */
interface Doc extends El {
  readonly body: El | null;
  readonly documentElement: El | null;
}

function parseDocument(html: string): Doc {
  return (parseHTML(html) as unknown as { document: Doc }).document;
}

/** True when the document is DuckDuckGo's bot challenge ("anomaly") page. */
function isChallenge(document: Doc, hasResults: boolean): boolean {
  if (
    document.querySelector("#challenge-form, [class*='anomaly-modal'], form[action*='anomaly']")
  ) {
    return true;
  }
  if (hasResults) return false;
  const text = cleanText(document.body?.textContent ?? document.documentElement?.textContent);
  return /bots use duckduckgo too/i.test(text);
}

/** True when the document has DuckDuckGo's search form (a real result page). */
function hasSearchForm(document: Doc): boolean {
  return document.querySelector("form input[name='q']") !== null;
}

/**
 * Parses a DuckDuckGo HTML result page (`div.result` blocks, `a.result__a`
 * titles, `.result__snippet`), dropping ads.
 *
 * @example
 * ```ts
 * import { parseDuckDuckGoHtml } from "./duckduckgo_parse.ts";
 * const page = parseDuckDuckGoHtml(`<form><input name="q"></form><div class="result">
 *   <a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdeno.com%2F">Deno</a>
 *   <a class="result__snippet">A runtime</a></div>`);
 * console.assert(page.kind === "results" && page.hits[0].url === "https://deno.com/");
 * ```
 */
export function parseDuckDuckGoHtml(html: string): DuckDuckGoPage {
  const document = parseDocument(html);
  const hits: SearchHit[] = [];
  let blocks = 0;
  let ads = 0;
  for (const block of document.querySelectorAll("div.result")) {
    blocks++;
    if (block.classList.contains("result--ad")) {
      ads++;
      continue;
    }
    const link = block.querySelector("a.result__a");
    if (!link) continue;
    const url = unwrapDuckDuckGoUrl(link.getAttribute("href"));
    if (!url) continue;
    const title = cleanText(link.textContent);
    const snippet = cleanText(block.querySelector(".result__snippet")?.textContent);
    const published = htmlPublished(block);
    hits.push(toHit(title, url, snippet, published));
  }
  if (isChallenge(document, hits.length > 0)) return { kind: "blocked" };
  if (hits.length > 0) return { kind: "results", hits };
  if (document.querySelector(".no-results, .result--no-result")) return { kind: "empty" };
  if (blocks > 0 && blocks === ads) return { kind: "empty" };
  return blocks === 0 && hasSearchForm(document) && document.querySelector("#links, .serp__results")
    ? { kind: "empty" }
    : { kind: "unrecognised" };
}

function htmlPublished(block: El): string | undefined {
  const stamp = block.querySelector(".result__timestamp");
  if (stamp) return toIsoDate(cleanText(stamp.textContent));
  for (const span of block.querySelectorAll(".result__extras__url span")) {
    const text = cleanText(span.textContent);
    if (/^\d{4}-\d{2}-\d{2}/.test(text)) return toIsoDate(text);
  }
  return undefined;
}

/**
 * Parses a DuckDuckGo lite result page: a table whose rows hold
 * `a.result-link` and, below it, `td.result-snippet`. Sponsored rows are
 * dropped.
 *
 * @example
 * ```ts
 * import { parseDuckDuckGoLite } from "./duckduckgo_parse.ts";
 * const page = parseDuckDuckGoLite(`<table><tr><td><a class="result-link"
 *   href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdeno.com%2F">Deno</a></td></tr>
 *   <tr><td class="result-snippet">A runtime</td></tr></table>`);
 * console.assert(page.kind === "results" && page.hits[0].snippet === "A runtime");
 * ```
 */
export function parseDuckDuckGoLite(html: string): DuckDuckGoPage {
  const document = parseDocument(html);
  const hits: SearchHit[] = [];
  for (const link of document.querySelectorAll("a.result-link")) {
    const row = link.closest("tr");
    if (row?.classList.contains("result-sponsored")) continue;
    const url = unwrapDuckDuckGoUrl(link.getAttribute("href"));
    if (!url) continue;
    let snippet = "";
    let published: string | undefined;
    for (let next = row?.nextElementSibling; next; next = next.nextElementSibling) {
      if (next.querySelector("a.result-link")) break;
      const cell = next.querySelector("td.result-snippet");
      if (cell && !snippet) snippet = cleanText(cell.textContent);
      const stamp = next.querySelector(".timestamp");
      if (stamp && !published) published = toIsoDate(cleanText(stamp.textContent));
    }
    const title = cleanText(link.textContent);
    hits.push(toHit(title, url, snippet, published));
  }
  if (isChallenge(document, hits.length > 0)) return { kind: "blocked" };
  if (hits.length > 0) return { kind: "results", hits };
  return hasSearchForm(document) ? { kind: "empty" } : { kind: "unrecognised" };
}

/** One DuckDuckGo result as a {@link SearchHit}. */
function toHit(
  title: string,
  url: string,
  snippet: string,
  published: string | undefined,
): SearchHit {
  return {
    title: title || url,
    url,
    snippet,
    ...(published ? { published } : {}),
    source: DUCKDUCKGO,
  };
}
