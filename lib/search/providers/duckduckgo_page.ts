/**
 * What DuckDuckGo's pages are made of, shared by the backend
 * (`duckduckgo_call.ts`, light, loaded at start) and the parser
 * (`duckduckgo_parse.ts`, loaded with the first answer): the backend's name,
 * the kinds of page, and the unwrapping of result links.
 *
 * @module
 */
import type { SearchHit } from "../types.ts";

/** The backend name DuckDuckGo reports under. */
export const DUCKDUCKGO = "duckduckgo";

/** What a DuckDuckGo page turned out to be. */
export type DuckDuckGoPage =
  | { kind: "results"; hits: SearchHit[] }
  | { kind: "empty" }
  | { kind: "blocked" }
  | { kind: "unrecognised" };

/**
 * The target of a DuckDuckGo result link: `//duckduckgo.com/l/?uddg=<target>`
 * is unwrapped; ad links (`duckduckgo.com/y.js`, also when wrapped) and
 * anything not http(s) give `undefined`.
 *
 * @example
 * ```ts
 * import { unwrapDuckDuckGoUrl } from "./duckduckgo_page.ts";
 * const href = "//duckduckgo.com/l/?uddg=https%3A%2F%2Fdeno.com%2F&rut=abc";
 * console.assert(unwrapDuckDuckGoUrl(href) === "https://deno.com/");
 * console.assert(unwrapDuckDuckGoUrl("https://duckduckgo.com/y.js?ad_provider=x") === undefined);
 * ```
 */
export function unwrapDuckDuckGoUrl(href: string | null | undefined): string | undefined {
  if (!href) return undefined;
  let url: URL;
  try {
    url = new URL(href.trim(), "https://duckduckgo.com/");
  } catch {
    return undefined;
  }
  for (let depth = 0; depth < 3 && isDuckDuckGoHost(url.hostname); depth++) {
    if (url.pathname === "/y.js") return undefined;
    if (url.pathname !== "/l/" && url.pathname !== "/l") break;
    const target = url.searchParams.get("uddg");
    if (!target) return undefined;
    try {
      url = new URL(target);
    } catch {
      return undefined;
    }
  }
  if (isDuckDuckGoHost(url.hostname) && url.pathname === "/y.js") return undefined;
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
}

function isDuckDuckGoHost(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === "duckduckgo.com" || lower.endsWith(".duckduckgo.com");
}
