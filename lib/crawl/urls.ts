/**
 * Which URLs a crawl may visit: same site, page-like, matching the caller's
 * include/exclude patterns.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { compileLinearGlob, compileLinearRegex, PatternError } from "./linear_match.ts";

/** Extensions of files that are not pages (images, media, archives, fonts, assets, office files, feeds). */
export const NON_PAGE_EXTENSIONS: ReadonlySet<string> = new Set([
  "png",
  "jpg",
  "jpeg",
  "gif",
  "webp",
  "svg",
  "ico",
  "bmp",
  "tif",
  "tiff",
  "avif",
  "heic",
  "mp3",
  "mp4",
  "m4a",
  "m4v",
  "wav",
  "ogg",
  "oga",
  "webm",
  "mov",
  "avi",
  "mkv",
  "flac",
  "zip",
  "gz",
  "tgz",
  "bz2",
  "xz",
  "7z",
  "rar",
  "tar",
  "zst",
  "dmg",
  "exe",
  "msi",
  "deb",
  "rpm",
  "apk",
  "iso",
  "bin",
  "jar",
  "whl",
  "woff",
  "woff2",
  "ttf",
  "otf",
  "eot",
  "css",
  "js",
  "mjs",
  "map",
  "wasm",
  "json",
  "xml",
  "rss",
  "atom",
  "ics",
  "csv",
  "xls",
  "xlsx",
  "doc",
  "docx",
  "ppt",
  "pptx",
  "odt",
  "ods",
  "odp",
  "epub",
]);

function siteHost(url: URL): string {
  return url.host.toLowerCase().replace(/^www\./, "");
}

/**
 * True when both URLs are on the same site: the same host and port, a
 * leading `www.` ignored (http and https both count).
 *
 * @example
 * ```ts
 * import { sameSite } from "./urls.ts";
 * console.assert(sameSite(new URL("https://www.example.com/a"), new URL("http://example.com/")));
 * console.assert(!sameSite(new URL("https://docs.example.com/"), new URL("https://example.com/")));
 * ```
 */
export function sameSite(a: URL, b: URL): boolean {
  return (a.protocol === "http:" || a.protocol === "https:") && siteHost(a) === siteHost(b);
}

/**
 * True when the URL's path names a page (no known non-page extension; PDFs count as pages).
 *
 * @example
 * ```ts
 * import { looksLikePage } from "./urls.ts";
 * console.assert(looksLikePage(new URL("https://example.com/docs/intro")));
 * console.assert(!looksLikePage(new URL("https://example.com/logo.PNG")));
 * ```
 */
export function looksLikePage(url: URL): boolean {
  const name = url.pathname.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return true;
  return !NON_PAGE_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/** A compiled include/exclude pattern. */
export type PathPattern = (pathAndQuery: string) => boolean;

/**
 * Compiles a path pattern. Regular expressions are written `re:<regex>` or
 * start with `^`, and are searched in the path plus query. Anything else is
 * a glob matched against the whole path: `*` any characters but `/`, `**`
 * anything, `?` one character; a glob ending in `/` matches everything below
 * that folder, and a glob not starting with `/` or `**` matches at any depth
 * (`*.html` matches `/a/b.html`).
 *
 * Both run in time linear in the path (see `linear_match.ts`): regular
 * expressions are limited to a subset without backreferences or
 * lookarounds, and patterns to 200 characters. Throws `invalid_arguments`
 * naming `field` and the pattern for anything else.
 *
 * @example
 * ```ts
 * import { compilePathPattern } from "./urls.ts";
 * console.assert(compilePathPattern("/blog/*")("/blog/post-1"));
 * console.assert(!compilePathPattern("/blog/*")("/blog/2024/post"));
 * console.assert(compilePathPattern("/blog/")("/blog/2024/post"));
 * console.assert(compilePathPattern("^/v\\d+/")("/v2/api"));
 * ```
 */
export function compilePathPattern(pattern: string, field = "pattern"): PathPattern {
  const text = pattern.trim();
  if (!text) {
    throw new GleanerError("invalid_arguments", `${field}: empty pattern`, { details: { field } });
  }
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
  try {
    if (text.startsWith("re:") || text.startsWith("^")) {
      return compileLinearRegex(text.startsWith("re:") ? text.slice(3) : text);
    }
    const glob = text.startsWith("/") || text.startsWith("**") ? text : `**/${text}`;
    // A pattern ending in "/" covers everything below it.
    const match = compileLinearGlob(glob.endsWith("/") ? `${glob}**` : glob);
    return (path) => {
      const query = path.indexOf("?");
      return match(query === -1 ? path : path.slice(0, query));
    };
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    throw new GleanerError(
      "invalid_arguments",
      `${field}: pattern ${shown} refused: ${error.message}`,
      { details: { field } },
    );
  }
}

/** Include/exclude filter over URL paths. */
export interface PathFilter {
  /** True when the URL passes both lists. */
  (url: URL): boolean;
}

/**
 * Builds the filter of a crawl: a URL passes when it matches at least one
 * `include` pattern (if any are given) and no `exclude` pattern.
 *
 * @example
 * ```ts
 * import { createPathFilter } from "./urls.ts";
 * const pass = createPathFilter(["/docs/"], ["**\/draft-*"]);
 * console.assert(pass(new URL("https://example.com/docs/a")));
 * console.assert(!pass(new URL("https://example.com/docs/draft-b")));
 * console.assert(!pass(new URL("https://example.com/blog/")));
 * ```
 */
export function createPathFilter(include: string[] = [], exclude: string[] = []): PathFilter {
  const inc = include.map((p, i) => compilePathPattern(p, `include[${i}]`));
  const exc = exclude.map((p, i) => compilePathPattern(p, `exclude[${i}]`));
  return (url) => {
    const path = `${url.pathname}${url.search}`;
    if (inc.length && !inc.some((match) => match(path))) return false;
    return !exc.some((match) => match(path));
  };
}
