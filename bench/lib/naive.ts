/**
 * The naive baseline: what a plain search-then-fetch tool hands the model —
 * the whole page converted to Markdown (links and images inline), no
 * main-content extraction, no selection.
 *
 * @module
 */
import TurndownService from "turndown";
import { parseHTML } from "linkedom";
import { countTokens } from "../../lib/text/tokens.ts";

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });

/**
 * Whole-page Markdown of an HTML document (scripts, styles and templates dropped).
 *
 * @example
 * ```ts
 * import { naivePageMarkdown } from "./naive.ts";
 * const md = naivePageMarkdown('<nav><a href="/">Home</a></nav><p>Hi</p><script>x()</script>');
 * console.assert(md.includes("[Home](/)") && !md.includes("x()"));
 * ```
 */
export function naivePageMarkdown(html: string): string {
  const { document } = parseHTML(
    html.includes("<html") ? html : `<html><body>${html}</body></html>`,
  );
  for (const node of [...document.querySelectorAll("script, style, noscript, template, svg")]) {
    node.remove();
  }
  const body = document.body ?? document.documentElement;
  return turndown.turndown(body?.innerHTML ?? "").trim();
}

/** Tokens of {@link naivePageMarkdown}. */
export function naivePageTokens(html: string): number {
  return countTokens(naivePageMarkdown(html));
}
