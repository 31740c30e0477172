/**
 * Picking the pages worth reading from search results: distinct canonical
 * URLs, at most a few per domain unless the search was restricted.
 *
 * @module
 */

/** The key two URLs share when they are the same page. */
export function canonicalKey(url: string): string {
  try {
    const u = new URL(url);
    u.hash = "";
    for (const param of [...u.searchParams.keys()]) {
      if (/^(utm_|fbclid$|gclid$|ref$|mc_)/i.test(param)) u.searchParams.delete(param);
    }
    const host = u.hostname.replace(/^www\./, "").toLowerCase();
    const path = u.pathname.replace(/\/+$/, "") || "/";
    return `${host}${path}${u.search}`;
  } catch {
    return url;
  }
}

/**
 * Orders candidate URLs for reading: duplicates dropped, at most `perDomain`
 * per domain (when `perDomain` is finite), original order otherwise kept.
 *
 * @example
 * ```ts
 * import { pickPages } from "./pick.ts";
 * const picked = pickPages([
 *   "https://a.example/1", "https://a.example/1#x", "https://a.example/2", "https://a.example/3", "https://b.example/",
 * ], 2);
 * console.assert(picked.join() === "https://a.example/1,https://a.example/2,https://b.example/");
 * ```
 */
export function pickPages(urls: readonly string[], perDomain: number): string[] {
  const seen = new Set<string>();
  const perHost = new Map<string, number>();
  const picked: string[] = [];
  for (const url of urls) {
    const key = canonicalKey(url);
    if (seen.has(key)) continue;
    const host = key.split("/")[0];
    const count = perHost.get(host) ?? 0;
    if (count >= perDomain) continue;
    seen.add(key);
    perHost.set(host, count + 1);
    picked.push(url);
  }
  return picked;
}
