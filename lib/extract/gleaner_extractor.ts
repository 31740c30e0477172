/**
 * Gleaner's main-content extractor: Readability between a page pre-clean and
 * an output prune (see `boilerplate.ts`), with a second opinion when
 * Readability's pick holds much less prose than the page's main paragraph
 * container (see `paragraphs.ts`). Measured against plain Readability on the
 * extraction-dev corpus by `bench/extraction.ts`.
 *
 * @module
 */
import { precleanDocument, pruneContent } from "./boilerplate.ts";
import {
  type MainContent,
  type MainContentExtractor,
  readabilityExtractor,
} from "./main_content.ts";
import { paragraphContainer, proseChars, sharedProse, stripChrome } from "./paragraphs.ts";

/** Readability's pick is "thin" below this share of the paragraph container's prose. */
const THIN_SHARE = 0.5;
/** Below this share the pick is so small that the copy need not contain it. */
const TINY_SHARE = 0.2;

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
    const container = paragraphContainer(doc);
    const copy = container && container.element !== doc.body
      ? container.element.cloneNode(true) as Element
      : null;
    const main = readabilityExtractor.extract(doc, url);
    if (main) pruneContent(main.root);
    const picked = main ? proseChars(main.root) : 0;
    if (copy && container && picked < container.chars * THIN_SHARE) {
      stripChrome(copy);
      pruneContent(copy);
      // A copy that drops most of a substantial pick is another part of the page, not a superset.
      const superset = !main || picked < container.chars * TINY_SHARE ||
        sharedProse(main.root, copy) >= 0.5;
      if (proseChars(copy) > picked && superset) {
        return { ...main, root: copy, method: "gleaner" };
      }
    }
    return main ? { ...main, method: "gleaner" } : null;
  },
};
