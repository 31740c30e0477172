/**
 * Sitemaps (sitemaps.org): `Sitemap:` lines of robots.txt, else
 * `/sitemap.xml`; sitemap indexes followed; gzip-compressed files read.
 * Parsed with `fast-xml-parser`.
 *
 * @module
 */
import { gunzipSync } from "node:zlib";
import { XMLParser } from "fast-xml-parser";
import { getGleanerLogger } from "../log.ts";
import type { Fetcher } from "../net/types.ts";
import { sameSite } from "./urls.ts";

const log = getGleanerLogger("crawl", "sitemap");

/** Sitemap files read at most for one crawl, by default. */
export const MAX_SITEMAP_FILES = 10;

/** Page URLs collected from sitemaps at most, by default. */
export const MAX_SITEMAP_URLS = 5000;

/** Largest decompressed sitemap (bytes); the protocol's own cap is 50 MB. */
const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

/** What one sitemap file holds. */
export interface ParsedSitemap {
  /** `urlset` (pages), `sitemapindex` (more sitemaps), or `unknown` (not a sitemap). */
  kind: "urlset" | "sitemapindex" | "unknown";
  /** The `<loc>` values, in document order. */
  urls: string[];
}

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  ignoreDeclaration: true,
  isArray: (name: string) => name === "url" || name === "sitemap",
});

function locOf(entry: unknown): string | undefined {
  if (!entry || typeof entry !== "object") return undefined;
  const loc = (entry as { loc?: unknown }).loc;
  if (typeof loc === "string") return loc.trim() || undefined;
  if (loc && typeof loc === "object" && "#text" in loc) {
    const text = (loc as { "#text": unknown })["#text"];
    return typeof text === "string" ? text.trim() || undefined : undefined;
  }
  return undefined;
}

/**
 * Parses one sitemap or sitemap index.
 *
 * @example
 * ```ts
 * import { parseSitemap } from "./sitemap.ts";
 * const parsed = parseSitemap(
 *   '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
 *     "<url><loc>https://example.com/a?x=1&amp;y=2</loc></url></urlset>",
 * );
 * console.assert(parsed.kind === "urlset" && parsed.urls[0] === "https://example.com/a?x=1&y=2");
 * ```
 */
export function parseSitemap(xml: string): ParsedSitemap {
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch {
    return { kind: "unknown", urls: [] };
  }
  const entries = (node: unknown, name: string): string[] => {
    const list = node && typeof node === "object"
      ? (node as Record<string, unknown>)[name]
      : undefined;
    return Array.isArray(list) ? list.map(locOf).filter((u): u is string => !!u) : [];
  };
  if (doc && typeof doc === "object" && "urlset" in doc) {
    return { kind: "urlset", urls: entries(doc.urlset, "url") };
  }
  if (doc && typeof doc === "object" && "sitemapindex" in doc) {
    return { kind: "sitemapindex", urls: entries(doc.sitemapindex, "sitemap") };
  }
  return { kind: "unknown", urls: [] };
}

/**
 * The `Sitemap:` URLs a robots.txt names.
 *
 * @example
 * ```ts
 * import { sitemapsFromRobots } from "./sitemap.ts";
 * const found = sitemapsFromRobots("User-agent: *\nSitemap: https://example.com/s.xml\n", "https://example.com/robots.txt");
 * console.assert(found[0] === "https://example.com/s.xml");
 * ```
 */
export function sitemapsFromRobots(text: string, robotsUrl: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = line.match(/^\s*sitemap\s*:\s*(\S+)/i);
    if (!m) continue;
    try {
      out.push(new URL(m[1], robotsUrl).href);
    } catch {
      // Not a URL: ignored.
    }
  }
  return out;
}

function bodyText(bytes: Uint8Array, text: () => string): string {
  if (bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    return new TextDecoder().decode(gunzipSync(bytes, { maxOutputLength: MAX_SITEMAP_BYTES }));
  }
  return text();
}

/** Options of {@link discoverSitemapUrls}. */
export interface DiscoverOptions {
  /** Check robots.txt before fetching each sitemap. */
  robots: boolean;
  /** Cancels discovery. */
  signal?: AbortSignal;
  /** Sitemap files read at most; default {@link MAX_SITEMAP_FILES}. */
  maxFiles?: number;
  /** Page URLs collected at most; default {@link MAX_SITEMAP_URLS}. */
  maxUrls?: number;
}

/** What sitemap discovery found. */
export interface SitemapDiscovery {
  /** Same-site page URLs, in sitemap order, without duplicates. */
  urls: string[];
  /** The sitemap files read. */
  sitemaps: string[];
}

/**
 * Finds the page URLs a site lists in its sitemaps: the `Sitemap:` lines of
 * its robots.txt, else `<origin>/sitemap.xml`, following sitemap indexes
 * breadth-first. Only same-site sitemaps and pages are kept; failures end in
 * an empty list, never an error.
 *
 * @example
 * ```ts ignore
 * import { discoverSitemapUrls } from "./sitemap.ts";
 * const { urls } = await discoverSitemapUrls(fetcher, new URL("https://example.com/"), { robots: true });
 * ```
 */
export async function discoverSitemapUrls(
  fetcher: Fetcher,
  site: URL,
  options: DiscoverOptions,
): Promise<SitemapDiscovery> {
  const maxFiles = options.maxFiles ?? MAX_SITEMAP_FILES;
  const maxUrls = options.maxUrls ?? MAX_SITEMAP_URLS;
  const robotsUrl = `${site.origin}/robots.txt`;
  let queue: string[] = [];
  try {
    const res = await fetcher.fetch(robotsUrl, {
      robots: false,
      signal: options.signal,
      headers: { accept: "text/plain,*/*;q=0.5" },
    });
    if (res.status >= 200 && res.status < 300) {
      queue = sitemapsFromRobots(res.text(), res.url).filter((u) => sameSite(new URL(u), site));
    }
  } catch (error) {
    options.signal?.throwIfAborted();
    log.debug("robots.txt of {origin} not read: {error}", { origin: site.origin, error });
  }
  if (queue.length === 0) queue = [`${site.origin}/sitemap.xml`];

  const seenFiles = new Set<string>();
  const seenUrls = new Set<string>();
  const urls: string[] = [];
  const read: string[] = [];
  while (queue.length && read.length < maxFiles && urls.length < maxUrls) {
    const file = queue.shift()!;
    if (seenFiles.has(file)) continue;
    seenFiles.add(file);
    options.signal?.throwIfAborted();
    let parsed: ParsedSitemap;
    try {
      const res = await fetcher.fetch(file, {
        robots: options.robots,
        signal: options.signal,
        headers: { accept: "application/xml,text/xml;q=0.9,*/*;q=0.5" },
      });
      if (res.status < 200 || res.status >= 300) continue;
      read.push(file);
      parsed = parseSitemap(bodyText(res.body, () => res.text()));
    } catch (error) {
      options.signal?.throwIfAborted();
      log.debug("sitemap {url} not read: {error}", { url: file, error });
      continue;
    }
    for (const loc of parsed.urls) {
      let url: URL;
      try {
        url = new URL(loc, file);
      } catch {
        continue;
      }
      if (!sameSite(url, site)) continue;
      url.hash = "";
      if (parsed.kind === "sitemapindex") {
        queue.push(url.href);
      } else if (!seenUrls.has(url.href) && urls.length < maxUrls) {
        seenUrls.add(url.href);
        urls.push(url.href);
      }
    }
  }
  return { urls, sitemaps: read };
}
