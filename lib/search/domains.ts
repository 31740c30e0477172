/**
 * Domain restriction and URL identity for search results: which hosts a
 * `domains` list admits, the `site:` hint sent to engines, and the key used
 * to drop duplicate results.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * Normalises one entry of a `domains` list: lower case, no scheme, path,
 * port, trailing dot or leading `www.`. Throws `invalid_arguments` naming the
 * field when the entry is not a host name.
 *
 * @example
 * ```ts
 * import { normalizeDomain } from "./domains.ts";
 * console.assert(normalizeDomain("https://WWW.Example.com/docs") === "example.com");
 * ```
 */
export function normalizeDomain(entry: string, field = "domains"): string {
  let text = entry.trim().toLowerCase();
  if (text.includes("://")) {
    try {
      text = new URL(text).hostname;
    } catch {
      throw new GleanerError("invalid_arguments", `${field}: "${entry}" is not a domain`, {
        details: { field },
      });
    }
  }
  text = text.replace(/[/?#].*$/, "").replace(/:\d+$/, "").replace(/\.$/, "");
  text = stripWww(text);
  const labels = text.split(".");
  if (text.length === 0 || text.length > 253 || !labels.every((label) => LABEL.test(label))) {
    throw new GleanerError("invalid_arguments", `${field}: "${entry}" is not a domain`, {
      details: { field },
    });
  }
  return text;
}

function stripWww(host: string): string {
  return host.startsWith("www.") ? host.slice(4) : host;
}

/**
 * True when the URL's host is one of the (normalised) domains or a subdomain
 * of one; `www.` and case are ignored. Non-http(s) URLs never match.
 *
 * @example
 * ```ts
 * import { urlInDomains } from "./domains.ts";
 * console.assert(urlInDomains("https://docs.Deno.com/x", ["deno.com"]));
 * console.assert(!urlInDomains("https://notdeno.com/", ["deno.com"]));
 * ```
 */
export function urlInDomains(url: string, domains: readonly string[]): boolean {
  let host: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
    host = stripWww(parsed.hostname.toLowerCase().replace(/\.$/, ""));
  } catch {
    return false;
  }
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/**
 * The `site:` operator hinting engines at the domains: `site:a` for one,
 * `(site:a OR site:b)` for several, `""` for none.
 *
 * @example
 * ```ts
 * import { siteHint } from "./domains.ts";
 * console.assert(siteHint(["a.org", "b.org"]) === "(site:a.org OR site:b.org)");
 * ```
 */
export function siteHint(domains: readonly string[]): string {
  if (domains.length === 0) return "";
  if (domains.length === 1) return `site:${domains[0]}`;
  return `(${domains.map((domain) => `site:${domain}`).join(" OR ")})`;
}

/**
 * The identity of a result URL for de-duplication: fragment dropped, trailing
 * slash of the path dropped, host lower-cased (default ports dropped by URL).
 * Returns `undefined` for anything that is not an http(s) URL.
 *
 * @example
 * ```ts
 * import { resultKey } from "./domains.ts";
 * console.assert(resultKey("https://A.com/x/#top") === resultKey("https://a.com/x"));
 * ```
 */
export function resultKey(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
    parsed.hash = "";
    if (parsed.pathname.length > 1 && parsed.pathname.endsWith("/")) {
      parsed.pathname = parsed.pathname.replace(/\/+$/, "") || "/";
    }
    const text = parsed.href;
    return parsed.pathname === "/" && !parsed.search ? text.replace(/\/$/, "") : text;
  } catch {
    return undefined;
  }
}
