/**
 * Parsing HTML into a DOM with linkedom, and small DOM helpers shared by the
 * extraction modules.
 *
 * @module
 */
import { parseHTML } from "linkedom";

const HAS_HTML_TAG = /<html[\s>]/i;
const OPENING = /<(script|style|svg)\b|<!--/gi;
const CLOSING = { script: /<\/script/gi, style: /<\/style/gi, svg: /<\/svg/gi };
const JSON_LD = /type\s*=\s*["']?application\/ld\+json/i;

/**
 * Drops `<script>` (except JSON-LD), `<style>`, `<svg>` elements and comments
 * before parsing: nothing downstream reads them, and they are often most of a
 * page's bytes. One pass, linear in the length: an element or comment left
 * open runs to the end of the page, as it does in a browser.
 *
 * @example
 * ```ts
 * import { stripScripts } from "./dom.ts";
 * console.assert(stripScripts("<p>a</p><script>x()</script>") === "<p>a</p>");
 * console.assert(stripScripts("<p>a</p><script>x()") === "<p>a</p>");
 * ```
 */
export function stripScripts(html: string): string {
  const parts: string[] = [];
  let copied = 0;
  OPENING.lastIndex = 0;
  for (let m = OPENING.exec(html); m; m = OPENING.exec(html)) {
    const start = m.index;
    let end: number;
    let keep = false;
    if (m[0] === "<!--") {
      const close = html.indexOf("-->", start + 4);
      end = close === -1 ? html.length : close + 3;
    } else {
      const tag = m[1].toLowerCase();
      const openEnd = html.indexOf(">", start);
      if (openEnd === -1) {
        end = html.length;
      } else {
        keep = tag === "script" && JSON_LD.test(html.slice(start, openEnd));
        const closing = CLOSING[tag as keyof typeof CLOSING];
        closing.lastIndex = openEnd;
        const close = closing.exec(html)?.index ?? -1;
        const closeEnd = close === -1 ? -1 : html.indexOf(">", close);
        end = closeEnd === -1 ? html.length : closeEnd + 1;
      }
    }
    if (!keep) {
      parts.push(html.slice(copied, start));
      copied = end;
    }
    OPENING.lastIndex = end;
    if (end >= html.length) break;
  }
  if (copied === 0) return html;
  parts.push(html.slice(copied));
  return parts.join("");
}

/**
 * Parses an HTML string (a whole page or a fragment) into a linkedom
 * `Document` whose `body` always exists.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * const doc = parseDocument("<p>Hello</p>");
 * console.assert(doc.body.textContent === "Hello");
 * ```
 */
export function parseDocument(html: string): Document {
  const source = HAS_HTML_TAG.test(html)
    ? html
    : `<!DOCTYPE html><html><head></head><body>${html}</body></html>`;
  const { document } = parseHTML(source);
  if (!document.body) {
    const body = document.createElement("body");
    document.documentElement?.appendChild(body);
  }
  return document as unknown as Document;
}

/**
 * Calls `visit` on each element under `root` in document order, as
 * `querySelectorAll("*")` would find them (a `<template>` is visited, what is
 * inside it is not), in one walk without the selector matching that
 * `querySelectorAll` does on every element.
 *
 * @example
 * ```ts
 * import { forEachElement, parseDocument } from "./dom.ts";
 * const names: string[] = [];
 * forEachElement(parseDocument("<p>a</p><template><b>b</b></template>").body, (el) => names.push(el.tagName));
 * console.assert(names.join() === "P,TEMPLATE");
 * ```
 */
export function forEachElement(root: Document | Element, visit: (el: Element) => void): void {
  const doc = root.nodeType === 9 ? root as Document : root.ownerDocument!;
  const walker = doc.createTreeWalker(root, 1 /* NodeFilter.SHOW_ELEMENT */);
  let template: Element | null = null;
  for (let el = walker.nextNode() as Element | null; el; el = walker.nextNode() as Element | null) {
    if (template) {
      if (template.contains(el)) continue;
      template = null;
    }
    visit(el);
    if (el.tagName === "TEMPLATE") template = el;
  }
}

/**
 * Text of a node with runs of whitespace collapsed and ends trimmed.
 *
 * @example
 * ```ts
 * import { parseDocument, textOf } from "./dom.ts";
 * console.assert(textOf(parseDocument("<p> a \n b </p>").body) === "a b");
 * ```
 */
export function textOf(node: Node | null | undefined): string {
  return (node?.textContent ?? "").replace(/\s+/g, " ").trim();
}

/**
 * Resolves `href` against `base`; `undefined` when it is not a valid URL.
 *
 * @example
 * ```ts
 * import { resolveUrl } from "./dom.ts";
 * console.assert(resolveUrl("/a", "https://example.com/b/c") === "https://example.com/a");
 * ```
 */
export function resolveUrl(href: string, base: string): string | undefined {
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return undefined;
  }
}

/**
 * The base URL links of the document resolve against: `<base href>` resolved
 * against the page URL, else the page URL.
 *
 * @example
 * ```ts
 * import { baseUrlOf, parseDocument } from "./dom.ts";
 * const doc = parseDocument('<html><head><base href="/x/"></head><body></body></html>');
 * console.assert(baseUrlOf(doc, "https://example.com/a") === "https://example.com/x/");
 * ```
 */
export function baseUrlOf(doc: Document, url: string): string {
  // A tag lookup walks the tree once; querySelector would also test a compiled selector on each element.
  // getElementsByTagName also finds elements inside <template>, which are not part of the page.
  let href: string | null = null;
  for (const base of doc.getElementsByTagName("base")) {
    href = base.getAttribute("href");
    if (href !== null && !base.closest("template")) break;
    href = null;
  }
  return (href && resolveUrl(href, url)) || url;
}
