/**
 * The Hister tier (browsing history, opt-in with `read.hister_url`): a page
 * the user has visited is read from their Hister index instead of the web.
 *
 * Hister (https://hister.org, https://github.com/asciimoo/hister) indexes the
 * pages its browser extension sees. Its API answers `GET /api/document?url=<url>`
 * ("Retrieve a stored document by its URL", `server/api.go`) with the stored
 * document as JSON (`url`, `domain`, `html`, `title`, `text`, `added` in Unix
 * seconds, `language`, …; `server/indexer/types/document.go`), or 404
 * `document not found`. With `app.access_token` set, requests must carry it
 * as `X-Access-Token` or `Authorization: Bearer` (https://hister.org/docs/configuration,
 * "Access Token"); this tier sends `read.hister_token` as a Bearer token and
 * never logs it. Hister drops `utm_*` parameters and the fragment before
 * storing a URL, so the lookup does too.
 *
 * The stored HTML is extracted like any page (the plain text when Hister keeps
 * no HTML); the page reports tier `hister`, `finalUrl` the page's own URL and,
 * as a copy taken earlier, `archivedAt` (when Hister stored it) with
 * `originalUrl`, so evidence from it is headed as a snapshot. A page not in
 * the history passes to the next tier. Failures of the Hister server itself
 * (refused token, outage, a document too large) name `read.hister_url` or
 * `read.hister_token`, so domain memory does not count them against the
 * page's origin, and the cascade goes on to the live page. Requests go to the
 * configured server only (robots.txt is not consulted: it is the user's own
 * service); the page's URL still has to pass the network policy first.
 *
 * The history is the operator's own (scope `operator`): in hosted mode a
 * tenant's reader has no Hister tier, so no tenant's URL reaches the Hister
 * server, unless the operator lists the user in `read.hister_users`.
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";
import { getGleanerLogger } from "../../log.ts";
import type { FetchedResponse } from "../../net/types.ts";
import { safeEndpoint } from "../../config/redact.ts";
import { isRecord, str } from "../../net/json_call.ts";
import { pageFromHtml } from "./http.ts";
import { markdownPage } from "./markdown_source.ts";
import type { Page, ReadRequest, Tier } from "../types.ts";
import { defineTier, type TierContext, type TierSlice } from "./define.ts";

/** The settings this tier reads. */
type HisterSettings = TierSlice<"hister_url" | "hister_token" | "max_html_chars" | "max_links">;

const log = getGleanerLogger("read", "hister");

/** A document as Hister's `/api/document` returns it (the fields read here). */
interface HisterDocument {
  url?: unknown;
  title?: unknown;
  html?: unknown;
  text?: unknown;
  added?: unknown;
  language?: unknown;
}

/**
 * The URL as Hister stores it: no fragment, no `utm`/`utm_*` parameters.
 *
 * @example
 * ```ts
 * import { histerKey } from "./hister.ts";
 * console.assert(histerKey(new URL("https://example.com/a?utm_source=x&id=2#top")) === "https://example.com/a?id=2");
 * ```
 *
 * @internal exported for tests only
 */
export function histerKey(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = "";
  const tracked = [...copy.searchParams.keys()].filter((k) => k === "utm" || k.startsWith("utm_"));
  if (tracked.length > 0) {
    for (const key of tracked) copy.searchParams.delete(key);
  }
  return copy.href;
}

function setupError(
  code: "unauthorized" | "provider_unavailable" | "too_large",
  message: string,
  field: "read.hister_url" | "read.hister_token",
  cause?: unknown,
): GleanerError {
  return new GleanerError(code, message, { details: { field }, ...(cause ? { cause } : {}) });
}

async function lookup(
  url: URL,
  request: ReadRequest,
  context: TierContext<HisterSettings>,
): Promise<HisterDocument | undefined> {
  const settings = context.config.read;
  const base = settings.hister_url!.replace(/\/+$/, "");
  const endpoint = `${base}/api/document?url=${encodeURIComponent(histerKey(url))}`;
  const server = safeEndpoint(base);
  const headers: Record<string, string> = { accept: "application/json" };
  if (settings.hister_token) headers.authorization = `Bearer ${settings.hister_token}`;
  let response: FetchedResponse;
  try {
    response = await context.fetcher.fetch(endpoint, {
      signal: request.signal,
      robots: false,
      headers,
    });
  } catch (error) {
    if (request.signal?.aborted) throw error;
    const failure = error instanceof GleanerError ? error : undefined;
    if (failure?.code === "blocked_url") {
      throw setupError(
        "provider_unavailable",
        `Hister at ${server} is refused by the network policy: list its origin in network.allow_private`,
        "read.hister_url",
        error,
      );
    }
    // Hister's own failure is not the page's: the live page may still be read.
    throw setupError(
      failure?.code === "too_large" ? "too_large" : "provider_unavailable",
      failure?.code === "too_large"
        ? `the Hister copy of ${safeEndpoint(url)} is larger than network.max_bytes`
        : `Hister at ${server} could not be reached (${failure?.code ?? "error"})`,
      "read.hister_url",
      error,
    );
  }
  if (response.status === 404) return undefined;
  if (response.status === 401 || response.status === 403) {
    throw setupError(
      "unauthorized",
      `Hister at ${server} refused the request (${response.status}): check read.hister_token`,
      "read.hister_token",
    );
  }
  if (response.status < 200 || response.status >= 300) {
    throw setupError(
      "provider_unavailable",
      `Hister at ${server} answered ${response.status}`,
      "read.hister_url",
    );
  }
  try {
    const data = JSON.parse(response.text());
    return isRecord(data) ? data as HisterDocument : undefined;
  } catch {
    throw setupError(
      "provider_unavailable",
      `Hister at ${server} answered invalid JSON`,
      "read.hister_url",
    );
  }
}

async function readFromHistory(
  url: URL,
  request: ReadRequest,
  context: TierContext<HisterSettings>,
): Promise<Page | undefined> {
  let doc: HisterDocument | undefined;
  try {
    doc = await lookup(url, request, context);
  } catch (error) {
    // `too_large` would end the cascade: a copy too large to read is simply not used.
    if (error instanceof GleanerError && error.code === "too_large") {
      log.info("{message}; reading the live page", { message: error.message });
      return undefined;
    }
    throw error;
  }
  if (!doc) return undefined;
  const html = str(doc.html);
  const text = str(doc.text).trim();
  if (!html.trim() && !text) return undefined;
  const pageUrl = URL.canParse(str(doc.url)) ? str(doc.url) : url.href;
  const added = typeof doc.added === "number" && doc.added > 0
    ? new Date(doc.added * 1000).toISOString()
    : undefined;
  const title = str(doc.title).trim();
  const lang = str(doc.language).trim();
  const page = html.trim()
    ? await pageFromHtml(html, request.url, pageUrl, "hister", {
      extract: context.extract,
      config: context.config,
      signal: request.signal,
    })
    : markdownPage({
      url: request.url,
      finalUrl: pageUrl,
      title: title || pageUrl,
      markdown: text,
      tier: "hister",
      mediaType: "text/plain",
    });
  return {
    ...page,
    tier: "hister",
    finalUrl: pageUrl,
    title: page.title || title || pageUrl,
    ...(page.lang || !lang ? {} : { lang }),
    ...(added ? { archivedAt: added, originalUrl: pageUrl } : {}),
  };
}

/**
 * The Hister tier; the default cascade includes it only when `read.hister_url` is set.
 *
 * @example
 * ```ts ignore
 * import { createReader } from "../cascade.ts";
 * import { histerTier } from "./hister.ts";
 * import { httpTier } from "./http.ts";
 * const reader = createReader({ config, fetcher, tiers: [histerTier, httpTier] });
 * const page = await reader.read({ url: "https://example.com/visited-yesterday" });
 * console.log(page.tier, page.archivedAt); // "hister" and when Hister stored it
 * ```
 */
export const histerTier: Tier = defineTier({
  settings: { read: ["hister_url", "hister_token", "max_html_chars", "max_links"] },
  name: "hister",
  // The operator's own browsing history: never a tenant's unless the operator maps it
  // (`read.hister_users`).
  scope: "operator",
  readsCopy: true,
  canHandle: (url, request) =>
    request.render !== "always" && (url.protocol === "https:" || url.protocol === "http:"),
  async read(
    url: URL,
    request: ReadRequest,
    context: TierContext<HisterSettings>,
  ): Promise<Page | undefined> {
    if (!context.config.read.hister_url) return undefined;
    return await readFromHistory(url, request, context);
  },
});
