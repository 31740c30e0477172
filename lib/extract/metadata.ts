/**
 * Page metadata: title cascade, language, byline, dates, canonical URL and the
 * JSON-LD Article family.
 *
 * @module
 */
import { resolveUrl, textOf } from "./dom.ts";

/** What JSON-LD says about an article (schema.org Article family). */
export interface JsonLdArticle {
  /** `headline` (or `name`). */
  headline?: string;
  /** `articleBody`, the plain text of the article when the page gives it. */
  articleBody?: string;
  /** `datePublished`. */
  datePublished?: string;
  /** `author` names joined with ", ". */
  author?: string;
  /** `publisher.name`. */
  publisher?: string;
  /** `description`. */
  description?: string;
}

/** What a page's head carried, as domain memory samples it (see `lib/store/capabilities.ts`). */
export interface PageSignals {
  /** A JSON-LD node of the Article family. */
  json_ld_article: boolean;
  /** An `og:title`. */
  og_title: boolean;
  /** A title (`og:title`, `twitter:title`, `<title>`) or a description in the head. */
  head_metadata: boolean;
}

/** Metadata read from a page's head and JSON-LD. */
export interface PageMetadata {
  /** What the head carried. */
  signals: PageSignals;
  /** Title after the cascade og:title → twitter:title → <title> → first <h1> → URL. */
  title: string;
  /** `<html lang>` (or `og:locale`/`content-language`). */
  lang?: string;
  /** Author(s). */
  byline?: string;
  /** Publication date as written by the page (ISO 8601 in most cases). */
  published?: string;
  /** Description. */
  excerpt?: string;
  /** Site name. */
  siteName?: string;
  /** Absolute canonical URL. */
  canonical?: string;
  /** JSON-LD Article data, when present. */
  jsonLd?: JsonLdArticle;
}

const ARTICLE_TYPES = new Set([
  "article",
  "newsarticle",
  "blogposting",
  "techarticle",
  "scholarlyarticle",
  "report",
  "reportagenewsarticle",
  "analysisnewsarticle",
  "opinionnewsarticle",
  "reviewnewsarticle",
  "backgroundnewsarticle",
  "socialmediaposting",
  "liveblogposting",
  "medicalscholarlyarticle",
  "webpage",
  "qapage",
  "howto",
  "recipe",
]);

type MetaMap = Map<string, string>;

/** Every `<meta>` key (property, name, itemprop, http-equiv; lower-cased) → first non-empty content. */
function metaMap(doc: Document): MetaMap {
  const map: MetaMap = new Map();
  for (const el of doc.getElementsByTagName("meta")) {
    const content = el.getAttribute("content")?.replace(/\s+/g, " ").trim();
    if (!content) continue;
    for (const attr of ["property", "name", "itemprop", "http-equiv"]) {
      const keys = el.getAttribute(attr)?.toLowerCase().trim();
      if (!keys) continue;
      // `property` may hold several space-separated names.
      for (const key of keys.split(/\s+/)) if (!map.has(key)) map.set(key, content);
    }
  }
  return map;
}

function pick(map: MetaMap, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = map.get(key);
    if (value) return value;
  }
  return undefined;
}

function names(value: unknown): string | undefined {
  if (!value) return undefined;
  if (typeof value === "string") return value.trim() || undefined;
  if (Array.isArray(value)) {
    const list = value.map(names).filter((v): v is string => !!v);
    return list.length ? [...new Set(list)].join(", ") : undefined;
  }
  if (typeof value === "object") return names((value as Record<string, unknown>).name);
  return undefined;
}

function notUrl(value: string | undefined): string | undefined {
  return value && !/^https?:\/\//.test(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

function isArticle(node: Record<string, unknown>): boolean {
  const type = node["@type"];
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => typeof t === "string" && ARTICLE_TYPES.has(t.toLowerCase()));
}

function findArticle(value: unknown, depth = 0): Record<string, unknown> | undefined {
  if (!value || typeof value !== "object" || depth > 4) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findArticle(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  const node = value as Record<string, unknown>;
  if (isArticle(node)) return node;
  return findArticle(node["@graph"], depth + 1) ?? findArticle(node.mainEntity, depth + 1);
}

/**
 * Reads the first JSON-LD node of the Article family in the document.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { readJsonLd } from "./metadata.ts";
 * const doc = parseDocument(
 *   '<html><head><script type="application/ld+json">{"@type":"NewsArticle","headline":"H"}</script></head><body></body></html>',
 * );
 * console.assert(readJsonLd(doc)?.headline === "H");
 * ```
 *
 * @internal exported for tests only
 */
export function readJsonLd(doc: Document): JsonLdArticle | undefined {
  for (const script of doc.getElementsByTagName("script")) {
    if (!/application\/ld\+json/i.test(script.getAttribute("type") ?? "")) continue;
    let data: unknown;
    try {
      data = JSON.parse((script.textContent ?? "").replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, ""));
    } catch {
      continue;
    }
    const node = findArticle(data);
    if (!node) continue;
    return {
      headline: str(node.headline) ?? str(node.name),
      articleBody: str(node.articleBody),
      datePublished: str(node.datePublished),
      author: names(node.author),
      publisher: names(node.publisher),
      description: str(node.description),
    };
  }
  return undefined;
}

const SEPARATOR = /\s+[|\-–—·•»:]{1,2}\s+/;

/**
 * Removes a site suffix (" | Site", " - Site") or prefix ("Site | ") from a
 * `<title>`, keeping the title itself. With `guess` false only the known
 * `siteName` is removed.
 *
 * @example
 * ```ts
 * import { cleanTitle } from "./metadata.ts";
 * console.assert(cleanTitle("How tides work | Ocean News") === "How tides work");
 * ```
 */
export function cleanTitle(raw: string, siteName?: string, guess = true): string {
  const title = raw.replace(/\s+/g, " ").trim();
  const parts = title.split(SEPARATOR);
  if (parts.length < 2) return title;
  const site = siteName?.toLowerCase();
  if (site) {
    if (parts.at(-1)!.toLowerCase() === site) {
      return title.slice(0, title.lastIndexOf(parts.at(-1)!)).replace(/[\s|\-–—·•»:]+$/, "");
    }
    if (parts[0].toLowerCase() === site) {
      return title.slice(parts[0].length).replace(/^[\s|\-–—·•»:]+/, "");
    }
  }
  if (!guess) return title;
  // Drop the last segment when it looks like a site name and what is left like a title.
  const match = title.match(/^(.*\S)\s+[|\-–—·•»:]{1,2}\s+(.+?)$/);
  const headWords = match?.[1].split(" ").length ?? 0;
  const tailWords = match?.[2].split(" ").length ?? 99;
  if (match && tailWords <= 5 && tailWords <= Math.max(2, headWords)) {
    return match[1];
  }
  return title;
}

/**
 * Reads the metadata of a parsed page. Call it before a main-content
 * extractor mutates the document.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { readMetadata } from "./metadata.ts";
 * const doc = parseDocument('<html lang="en"><head><title>Tides - Ocean</title></head><body></body></html>');
 * const m = readMetadata(doc, "https://example.com/tides");
 * console.assert(m.title === "Tides" && m.lang === "en");
 * ```
 */
export function readMetadata(doc: Document, url: string): PageMetadata {
  const jsonLd = readJsonLd(doc);
  const metas = metaMap(doc);
  const meta = (...keys: string[]) => pick(metas, ...keys);
  const siteName = meta("og:site_name", "application-name") ?? jsonLd?.publisher;
  const titleEl = doc.getElementsByTagName("title")[0];
  const h1 = doc.getElementsByTagName("h1")[0];
  const social = meta("og:title") ?? meta("twitter:title");
  const title = (social && siteName ? cleanTitle(social, siteName, false) : social) ??
    (textOf(titleEl) ? cleanTitle(textOf(titleEl), siteName) : undefined) ??
    (textOf(h1) || undefined) ?? url;
  const canonicalHref = doc.querySelector('link[rel="canonical"]')?.getAttribute("href") ??
    meta("og:url");
  const canonical = canonicalHref ? resolveUrl(canonicalHref, url) : undefined;
  const lang = doc.documentElement?.getAttribute("lang")?.trim() ||
    meta("content-language", "og:locale")?.replace("_", "-");
  return {
    title,
    lang: lang || undefined,
    byline: jsonLd?.author ??
      notUrl(meta("author", "article:author", "dc.creator", "parsely-author")),
    published: meta("article:published_time", "datepublished", "parsely-pub-date", "date") ??
      jsonLd?.datePublished,
    excerpt: meta("og:description", "description", "twitter:description") ??
      jsonLd?.description,
    siteName,
    canonical: canonical && /^https?:/.test(canonical) ? canonical : undefined,
    jsonLd,
    signals: {
      json_ld_article: jsonLd !== undefined,
      og_title: meta("og:title") !== undefined,
      head_metadata: social !== undefined || textOf(titleEl) !== "" ||
        meta("description", "og:description", "twitter:description") !== undefined,
    },
  };
}
