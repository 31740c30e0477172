/**
 * Gleaner's main-content extractor: Readability between a page pre-clean and
 * an output prune (see `boilerplate.ts`). Measured against plain Readability
 * on the extraction-dev corpus by `bench/extraction.ts`.
 *
 * @module
 */
import { precleanDocument, pruneContent } from "./boilerplate.ts";
import { type MainContent, type MainContentExtractor, readabilityExtractor } from "./main_content.ts";

/**
 * Readability with boilerplate removal before and after: the default extractor.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { gleanerExtractor } from "./gleaner_extractor.ts";
 * const text = "Tides rise and fall twice a day because of the Moon. ".repeat(20);
 * const doc = parseDocument(
 *   `<html><body><article><p>${text}</p><p>Sign up for our newsletter</p></article></body></html>`,
 * );
 * const main = gleanerExtractor.extract(doc, "https://example.com/");
 * console.assert(main !== null && !main.root.textContent!.includes("newsletter"));
 * ```
 */
export const gleanerExtractor: MainContentExtractor = {
  name: "gleaner",
  extract(doc: Document, url: string): MainContent | null {
    precleanDocument(doc);
    const main = readabilityExtractor.extract(doc, url);
    if (!main) return null;
    pruneContent(main.root);
    return { ...main, method: "gleaner" };
  },
};
