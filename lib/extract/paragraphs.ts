/**
 * A second opinion on where a page's article is: the deepest element that
 * holds most of the page's prose paragraphs. Used when the main extractor
 * returns much less text than that element holds (it picked one of several
 * sibling sections).
 *
 * @module
 */

/** Paragraph text in the whole page and in the element found by {@link paragraphContainer}. */
export interface ParagraphContainer {
  /** The deepest element holding at least `share` of the page's paragraph text. */
  element: Element;
  /** Characters of paragraph text under `element`. */
  chars: number;
  /** Characters of paragraph text in the whole page. */
  total: number;
}

const SKIP = new Set(["NAV", "ASIDE", "FOOTER", "HEADER", "FORM", "TEMPLATE", "NOSCRIPT"]);

function prose(p: Element): number {
  const text = (p.textContent ?? "").replace(/\s+/g, " ").trim();
  if (text.length < 60) return 0;
  let links = 0;
  for (const a of p.querySelectorAll("a")) links += (a.textContent ?? "").length;
  return links > text.length * 0.4 ? 0 : text.length;
}

/**
 * Finds the deepest element holding at least `share` of the page's prose
 * (`<p>` of 60+ characters, mostly not link text, outside nav/aside/footer/
 * header/form); `null` when the page has little prose.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { paragraphContainer } from "./paragraphs.ts";
 * const p = "<p>" + "Tides rise and fall twice a day. ".repeat(10) + "</p>";
 * const doc = parseDocument(`<div id="a"><section>${p}</section><section>${p}</section></div><p>x</p>`);
 * console.assert(paragraphContainer(doc)?.element.id === "a");
 * ```
 */
export function paragraphContainer(doc: Document, share = 0.7): ParagraphContainer | null {
  const body = doc.body;
  if (!body) return null;
  const sums = new Map<Element, number>();
  let total = 0;
  outer: for (const p of body.querySelectorAll("p")) {
    const n = prose(p);
    if (n === 0) continue;
    for (let a = p.parentElement; a && a !== body; a = a.parentElement) {
      if (SKIP.has(a.tagName)) continue outer;
    }
    total += n;
    for (let a = p.parentElement; a && a !== body; a = a.parentElement) {
      sums.set(a, (sums.get(a) ?? 0) + n);
    }
  }
  if (total < 500) return null;
  let element: Element = body;
  let chars = total;
  for (;;) {
    let next: Element | null = null;
    for (const child of element.children) {
      const s = sums.get(child) ?? 0;
      if (s >= total * share) {
        next = child;
        chars = s;
        break;
      }
    }
    if (!next) break;
    element = next;
  }
  return { element, chars, total };
}

/**
 * Characters of prose paragraphs under `root` (same test as {@link paragraphContainer}).
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { proseChars } from "./paragraphs.ts";
 * const doc = parseDocument("<p>" + "a".repeat(80) + "</p><p>short</p>");
 * console.assert(proseChars(doc.body) === 80);
 * ```
 */
export function proseChars(root: Element): number {
  let n = 0;
  for (const p of root.querySelectorAll("p")) n += prose(p);
  return n;
}

const CHROME = "script, style, noscript, template, nav, aside, footer, header, form, button, " +
  "iframe, select, input, textarea, [hidden], [aria-hidden='true']";

/**
 * Strips page chrome from a detached copy of a paragraph container before it
 * stands in for the extractor's output: scripts, navigation, asides, forms,
 * hidden elements. Mutates `root`.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { stripChrome } from "./paragraphs.ts";
 * const body = parseDocument("<nav>Menu</nav><p>Text</p>").body;
 * stripChrome(body);
 * console.assert(body.textContent === "Text");
 * ```
 */
export function stripChrome(root: Element): void {
  for (const el of root.querySelectorAll(CHROME)) el.remove();
  for (const el of root.querySelectorAll("[style]")) {
    if (HIDDEN_STYLE.test(el.getAttribute("style") ?? "") && root.contains(el)) el.remove();
  }
  for (const el of root.querySelectorAll("[class], [id]")) {
    const hint = `${el.getAttribute("id") ?? ""} ${el.getAttribute("class") ?? ""}`;
    if (UNLIKELY.test(hint) && root.contains(el)) el.remove();
  }
}

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/**
 * Share (0..1) of the prose paragraphs of `picked` whose words also occur in
 * `copy`; 1 when `picked` has no prose paragraph.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { sharedProse } from "./paragraphs.ts";
 * const p = "<p>" + "Tides rise and fall twice a day. ".repeat(3) + "</p>";
 * const a = parseDocument(p).body;
 * console.assert(sharedProse(a, parseDocument(p + p).body) === 1);
 * ```
 */
export function sharedProse(picked: Element, copy: Element): number {
  const words = (text: string) => (text.match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
  const haystack = words(copy.textContent ?? "");
  let all = 0;
  let found = 0;
  for (const p of picked.querySelectorAll("p")) {
    const n = prose(p);
    if (n === 0) continue;
    all += n;
    if (haystack.includes(words(p.textContent ?? ""))) found += n;
  }
  return all === 0 ? 1 : found / all;
}

/** Class/id words of blocks that sit beside an article rather than in it. */
const UNLIKELY =
  /(?:^|[\s_-])(?:comments?|commentlist|sidebar|widgets?|related|share|sharing|social|menu|nav|navigation|footer|header|masthead|popup|modal|promo|sponsored|newsletter|subscribe|author|bio|meta|breadcrumbs?|tags|pagination|pager|respond|disqus)(?:$|[\s_-])/i;
