/**
 * The Kiwix tier (on when `read.kiwix_url` and `read.kiwix_books` are set):
 * Wikipedia, Stack Overflow and ArchWiki pages are read from the operator's
 * own `kiwix-serve` (ZIM files: offline copies of those sites) before the
 * live site is asked.
 *
 * A page URL maps to an article path in the site's book:
 * `<lang>.wikipedia.org/wiki/<Title>` and `wiki.archlinux.org/title/<Title>`
 * to `<Title>`, `stackoverflow.com/questions/<id>[/<slug>]` to
 * `questions/<id>[/<slug>]`. The article is fetched from kiwix-serve's raw
 * endpoint, `GET <kiwix_url>/raw/<book>/content/<path>`: the entry as stored,
 * without the viewer's toolbar, and `404` when the book has no such entry
 * (documented at https://kiwix-tools.readthedocs.io/en/latest/kiwix-serve.html,
 * "HTTP API", `/raw`). A `404` lets the next tier read the live page; any
 * other failure is reported like a failed tier and the cascade goes on.
 *
 * The page keeps the live URL as its `finalUrl` (links in the ZIM are
 * relative, so they resolve to the live site, and evidence cites it) and
 * reports tier `kiwix`. Only the configured kiwix-serve origin is exempted
 * from the private-address guard, and only for this tier's requests; robots.txt
 * is not asked (the operator's own server).
 *
 * @module
 */
import { safeEndpoint } from "../../config/redact.ts";
import type { Fetcher } from "../../net/types.ts";
import { pageFromResponse } from "./http.ts";
import { assertPageStatus } from "../status.ts";
import type { ReadSection } from "../../config/sections.ts";
import type { Page, Tier } from "../types.ts";
import { defineTier } from "./define.ts";

/** What the Kiwix tier is built from: where kiwix-serve is, and which book holds which site. */
export interface KiwixSettings {
  /** `read.kiwix_url` and `read.kiwix_books`. */
  readonly read: Pick<ReadSection, "kiwix_url" | "kiwix_books">;
}

/** Where a page lives in a Kiwix book. */
export interface KiwixArticle {
  /** The site (the key of `read.kiwix_books`). */
  site: string;
  /** The entry's path inside the book, percent-encoded per segment. */
  path: string;
}

const STACK_OVERFLOW = /^\/questions\/(\d+)(?:\/([^/]+))?\/?$/;

/** One path segment decoded (when it decodes) and encoded again, so every spelling matches. */
function segment(raw: string): string {
  let text = raw;
  try {
    text = decodeURIComponent(raw);
  } catch {
    // malformed escapes: used as written
  }
  return encodeURIComponent(text);
}

/**
 * The article a page URL maps to, or `undefined` when the URL is not an
 * article of a site Kiwix serves (other paths, a query such as `?oldid=`).
 *
 * @example
 * ```ts
 * import { kiwixArticle } from "./kiwix.ts";
 * console.assert(kiwixArticle(new URL("https://en.wikipedia.org/wiki/Tide"))?.path === "Tide");
 * console.assert(kiwixArticle(new URL("https://wiki.archlinux.org/title/Pacman"))?.site === "wiki.archlinux.org");
 * console.assert(
 *   kiwixArticle(new URL("https://stackoverflow.com/questions/11227809/why-sorted"))?.path ===
 *     "questions/11227809/why-sorted",
 * );
 * console.assert(kiwixArticle(new URL("https://en.wikipedia.org/w/index.php?title=Tide")) === undefined);
 * ```
 *
 * @internal exported for tests only
 */
export function kiwixArticle(url: URL): KiwixArticle | undefined {
  if (url.search !== "") return undefined;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const path = url.pathname;
  if (host.endsWith(".wikipedia.org") && path.startsWith("/wiki/") && path.length > 6) {
    const title = path.slice(6);
    if (title.includes("/") && /^(Special|File|Talk):/i.test(title)) return undefined;
    return { site: host.replace(/^www\./, ""), path: title.split("/").map(segment).join("/") };
  }
  if (host === "wiki.archlinux.org" && path.startsWith("/title/") && path.length > 7) {
    return { site: host, path: path.slice(7).split("/").map(segment).join("/") };
  }
  if (host === "stackoverflow.com" || host === "www.stackoverflow.com") {
    const m = STACK_OVERFLOW.exec(path);
    if (!m) return undefined;
    return {
      site: "stackoverflow.com",
      path: `questions/${m[1]}${m[2] ? `/${segment(m[2])}` : ""}`,
    };
  }
  return undefined;
}

/**
 * Creates the Kiwix tier, or `undefined` when `read.kiwix_url` or
 * `read.kiwix_books` is not set (the cascade then has no such tier).
 *
 * @example
 * ```ts ignore
 * import { createKiwixTier } from "./kiwix.ts";
 * const tier = createKiwixTier(parseConfig({
 *   read: { kiwix_url: "http://127.0.0.1:8080", kiwix_books: { "en.wikipedia.org": "wikipedia_en_all_maxi_2024-01" } },
 * }));
 * ```
 */
export function createKiwixTier(
  config: KiwixSettings,
  deps: { fetcher?: Fetcher } = {},
): Tier | undefined {
  const base = config.read.kiwix_url;
  const books = config.read.kiwix_books;
  if (!base || Object.keys(books).length === 0) return undefined;
  const root = new URL(base);
  const prefix = root.pathname.replace(/\/+$/, "");
  const fetcher = deps.fetcher;
  const bookOf = (url: URL) => {
    const article = kiwixArticle(url);
    const book = article ? books[article.site] : undefined;
    return article && book ? { article, book } : undefined;
  };
  return defineTier({
    name: "kiwix",
    // The operator's offline copies of public sites: the same pages for everyone.
    scope: "shared",
    settings: { read: ["max_html_chars", "max_links"] },
    // A read that asks for the browser wants the live page as it renders.
    canHandle: (url, request) =>
      request.render !== "always" && request.waitForSelector === undefined &&
      bookOf(url) !== undefined,
    async read(url, request, context): Promise<Page | undefined> {
      const found = bookOf(url);
      if (!found) return undefined;
      const target = new URL(
        `${prefix}/raw/${encodeURIComponent(found.book)}/content/${found.article.path}`,
        root,
      );
      // The reader's own fetcher (its CA files, proxy and per-host limit); only the configured
      // kiwix-serve origin may be private, for these requests only.
      const response = await (fetcher ?? context.fetcher).fetch(target, {
        signal: request.signal,
        robots: false,
        privateOrigin: root.origin,
      });
      // Not in the book: the live site may still have it.
      if (response.status === 404) return undefined;
      assertPageStatus(response.status, safeEndpoint(target));
      // Read as if fetched from the live URL: relative links in the ZIM resolve to the site.
      const page = await pageFromResponse({ ...response, url: url.href }, request.url, {
        extract: context.extract,
        extractBody: context.extractBody,
        config: context.config,
        signal: request.signal,
        targetSelector: request.targetSelector,
      });
      const { thin: _thin, ...rest } = page;
      return { ...rest, tier: "kiwix" };
    },
  });
}
