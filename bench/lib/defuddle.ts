/**
 * defuddle as a main-content extractor, measured against Readability in
 * `bench/extraction.ts`. Kept out of the library: it lost on quality and speed,
 * and importing it costs every process ~60 ms at start-up.
 *
 * @module
 */
// Named in full here, not in deno.json's `imports`: only this benchmark uses it.
// deno-lint-ignore no-import-prefix
import { DefuddleClass } from "npm:defuddle@0.19.4/node";
import { parseDocument } from "../../lib/extract/dom.ts";
import type { MainContent, MainContentExtractor } from "../../lib/extract/mod.ts";

function clean(value: string | null | undefined): string | undefined {
  const v = value?.replace(/\s+/g, " ").trim();
  return v ? v : undefined;
}

/**
 * defuddle on linkedom (synchronous mode).
 *
 * @example
 * ```ts ignore
 * import { extractHtml } from "../../lib/extract/mod.ts";
 * import { defuddleExtractor } from "./defuddle.ts";
 * const page = extractHtml(html, "https://example.com/", { extractor: defuddleExtractor });
 * ```
 */
export const defuddleExtractor: MainContentExtractor = {
  name: "defuddle",
  extract(doc: Document, url: string): MainContent | null {
    const result = new DefuddleClass(doc, { url, useAsync: false, markdown: false }).parse();
    if (!result.content || !result.content.trim()) return null;
    const root = parseDocument(result.content).body;
    if (!(root.textContent ?? "").trim()) return null;
    return {
      root,
      method: "defuddle",
      title: clean(result.title),
      byline: clean(result.author),
      excerpt: clean(result.description),
      siteName: clean(result.site),
      published: clean(result.published),
      lang: clean(result.language),
    };
  },
};
