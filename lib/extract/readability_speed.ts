/**
 * Cheaper Readability on linkedom, same result. Readability 0.6.0 (pinned in
 * deno.json) does things that cost much on linkedom and little in a browser:
 *
 * - it finds elements by tag with `querySelectorAll("p,div")`, which makes
 *   linkedom compile a CSS selector on every call (thousands per page): here
 *   one walk of the subtree's elements in document order, as
 *   `querySelectorAll` returns them;
 * - it builds the string `"Grabbed: " + article.innerHTML` for a debug log
 *   that is off (a serialisation of the article): here the article's
 *   `innerHTML` reads as `""` for that moment;
 * - it reads `node.style` of every element to find hidden ones, which makes
 *   linkedom build a style declaration: here only where a `style` attribute
 *   exists (without it the style is empty);
 * - it reads the text of every element to test it as a byline: here only
 *   when the cheap conditions of that test hold.
 *
 * (Readability also serialises the whole body before scoring, to restore it
 * for a retry; a clone instead measured slower, so that stays.)
 *
 * Each hook is installed on one instance only, and only when the method it
 * wraps exists (another Readability version runs unchanged).
 *
 * @module
 */
import { forEachElement } from "./dom.ts";

/** The members of a Readability instance the hooks replace (private in Readability 0.6.0). */
interface ReadabilityInternals {
  _grabArticle?: (page?: Element | null) => Element | null;
  _postProcessContent?: (content: Element) => void;
  _getAllNodesWithTag?: (node: ParentNode, tagNames: string[]) => ArrayLike<Element>;
  _isProbablyVisible?: (node: Element) => boolean;
  _isValidByline?: (node: Element, matchString: string) => boolean;
  REGEXPS?: { byline?: RegExp };
}

/** Elements under `node` whose tag is in `tags`, in document order, as `querySelectorAll` finds them. */
function elementsByTag(node: ParentNode, tags: Set<string>): Element[] {
  const out: Element[] = [];
  forEachElement(node as Document | Element, (el) => {
    if (tags.has(el.localName.toLowerCase())) out.push(el);
  });
  return out;
}

/**
 * Installs the hooks on one Readability instance before its `parse()`;
 * returns a function that removes what they left on the document (call it
 * after `parse()`, also when it throws).
 *
 * @example
 * ```ts
 * import { Readability } from "@mozilla/readability";
 * import { parseDocument } from "./dom.ts";
 * import { speedUpReadability } from "./readability_speed.ts";
 * const text = "Tides rise and fall twice a day because of the Moon. ".repeat(20);
 * const doc = parseDocument(`<html><body><article><p>${text}</p></article></body></html>`);
 * const reader = new Readability(doc);
 * const restore = speedUpReadability(reader);
 * const article = reader.parse();
 * restore();
 * console.assert(article?.textContent?.includes("Tides"));
 * ```
 */
export function speedUpReadability(reader: object): () => void {
  const r = reader as ReadabilityInternals;
  let restore = () => {};
  const grab = r._grabArticle;
  const post = r._postProcessContent;
  if (typeof grab === "function" && typeof post === "function") {
    let grabbed: Element | null = null;
    r._grabArticle = function (this: ReadabilityInternals, page) {
      grabbed = grab.call(this, page);
      if (grabbed) {
        Object.defineProperty(grabbed, "innerHTML", {
          configurable: true,
          get: () => "",
        });
      }
      return grabbed;
    };
    const unblank = () => {
      if (grabbed) delete (grabbed as { innerHTML?: string }).innerHTML;
      grabbed = null;
    };
    r._postProcessContent = function (this: ReadabilityInternals, content) {
      unblank();
      return post.call(this, content);
    };
    restore = unblank;
  }
  if (typeof r._getAllNodesWithTag === "function") {
    r._getAllNodesWithTag = (node, tagNames) =>
      elementsByTag(node, new Set(tagNames.map((t) => t.toLowerCase())));
  }
  const visible = r._isProbablyVisible;
  if (typeof visible === "function") {
    // Reading `style` makes linkedom build a CSSStyleDeclaration; without the attribute it is empty.
    r._isProbablyVisible = function (this: ReadabilityInternals, node) {
      if (node.hasAttribute("style")) return visible.call(this, node);
      return !node.hasAttribute("hidden") &&
        (!node.hasAttribute("aria-hidden") || node.getAttribute("aria-hidden") != "true" ||
          !!node.className?.includes?.("fallback-image"));
    };
  }
  const byline = r.REGEXPS?.byline;
  if (typeof r._isValidByline === "function" && byline instanceof RegExp && !byline.global) {
    // The same test, with the subtree's text read only when the cheap conditions hold.
    r._isValidByline = (node, matchString) => {
      const itemprop = node.getAttribute("itemprop");
      if (
        !(node.getAttribute("rel") === "author" || (itemprop && itemprop.includes("author")) ||
          byline.test(matchString))
      ) return false;
      const length = (node.textContent ?? "").trim().length;
      return length > 0 && length < 100;
    };
  }
  return restore;
}
