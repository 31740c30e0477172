/**
 * Links worth following: absolute http(s) URLs with their anchor text, main
 * content first, then the rest of the page.
 *
 * @module
 */
import { resolveUrl, textOf } from "./dom.ts";

/** A link found on a page. */
export interface PageLink {
  /** Absolute http(s) URL without its fragment. */
  url: string;
  /** Anchor text (or its title / image alt when the anchor has no text). */
  text: string;
}

function withoutFragment(url: string): string {
  const hash = url.indexOf("#");
  return hash === -1 ? url : url.slice(0, hash);
}

/**
 * Collects the links under `root` (an element or a document), resolved
 * against `base`, skipping non-http(s) schemes, fragment-only links and links
 * back to `pageUrl`. Fragments are dropped; each URL appears once; at most
 * `limit` links are collected.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { collectLinks } from "./links.ts";
 * const doc = parseDocument('<a href="/a#x">A</a><a href="#top">Top</a><a href="mailto:x@y">M</a>');
 * const links = collectLinks(doc.body, "https://example.com/p", "https://example.com/p");
 * console.assert(links.length === 1 && links[0].url === "https://example.com/a");
 * ```
 */
export function collectLinks(
  root: ParentNode,
  base: string,
  pageUrl: string,
  limit = Infinity,
): PageLink[] {
  const self = withoutFragment(pageUrl);
  const baseSelf = withoutFragment(base);
  const out: PageLink[] = [];
  const index = new Map<string, number>();
  for (const a of root.querySelectorAll("a[href]")) {
    if (out.length >= limit) break;
    const href = a.getAttribute("href") ?? "";
    if (!href.trim() || href.trim().startsWith("#")) continue;
    const resolved = resolveUrl(href, base);
    if (!resolved || !/^https?:\/\//i.test(resolved)) continue;
    const url = withoutFragment(resolved);
    // Fragment links (some extractors absolutize "#top" against the base).
    if (url === self || (url !== resolved && url === baseSelf)) continue;
    const text = textOf(a) || a.getAttribute("title")?.trim() ||
      a.getAttribute("aria-label")?.trim() ||
      a.querySelector("img[alt]")?.getAttribute("alt")?.trim() || "";
    const seen = index.get(url);
    if (seen !== undefined) {
      if (!out[seen].text && text) out[seen].text = text;
      continue;
    }
    index.set(url, out.length);
    out.push({ url, text });
  }
  return out;
}

/**
 * Concatenates link lists, keeping the first occurrence of each URL.
 *
 * @example
 * ```ts
 * import { mergeLinks } from "./links.ts";
 * const merged = mergeLinks([{ url: "https://a/", text: "A" }], [{ url: "https://a/", text: "" }]);
 * console.assert(merged.length === 1);
 * ```
 */
export function mergeLinks(...lists: PageLink[][]): PageLink[] {
  const seen = new Set<string>();
  const out: PageLink[] = [];
  for (const list of lists) {
    for (const link of list) {
      if (seen.has(link.url)) continue;
      seen.add(link.url);
      out.push(link);
    }
  }
  return out;
}
