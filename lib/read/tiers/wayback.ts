/**
 * The Wayback Machine tier (opt-in with `read.wayback`): when a page is gone
 * or its server fails, the latest snapshot is read instead.
 *
 * `<read.wayback_url>/wayback/available?url=…` names the closest snapshot;
 * it is fetched in raw mode (`id_` after the timestamp: the page as archived,
 * without the archive's toolbar or rewritten links) and extracted like any
 * HTML page. The page reports tier `wayback`, `finalUrl` = the snapshot as
 * people view it, `archivedAt` = the snapshot time (ISO) and `originalUrl`
 * = the URL it captured; evidence from it is headed
 * `[Archived snapshot – <time> – <original URL>]`. Archive
 * requests skip robots.txt (the operator opted in; the cascade never reaches
 * this tier after a `robots_disallowed`). The cascade calls it only after
 * `not_found`, `provider_unavailable`, `timeout` or `unauthorized`.
 *
 * The archive is a third party: a URL into the operator's private network is
 * never sent to it (it passes instead). That is a URL whose origin is listed
 * in `network.allow_private`, whose host is a loopback, private or link-local
 * address literal or a local name, or a name that resolves to such an
 * address (the guarded fetcher's `privateTarget`, the policy of
 * `lib/net/address.ts` and the resolver the fetcher connects with).
 *
 * @module
 */
import { type ErrorCode, GleanerError } from "../../errors.ts";
import { getGleanerLogger } from "../../log.ts";
import { pageFromHtml, pageFromResponse } from "./http.ts";
import { assertPageStatus } from "../status.ts";
import type { Page, ReadRequest, Tier } from "../types.ts";
import { defineTier, type TierContext, type TierSlice } from "./define.ts";
import { safeEndpoint } from "../../config/redact.ts";
import { isPrivateTarget } from "../../net/address.ts";

const log = getGleanerLogger("read", "wayback");

/** Hosts of the archive itself (never looked up in the archive). */
const ARCHIVE_HOSTS = new Set(["web.archive.org", "archive.org", "www.archive.org"]);

const SNAPSHOT_PATH = /^\/web\/(\d{4,14})(?:[a-z]{2}_)?\/(.+)$/;

/** A snapshot the availability API named. */
export interface WaybackSnapshot {
  /** The snapshot URL as people view it. */
  url: string;
  /** Its raw (`id_`) form. */
  rawUrl: string;
  /** The archived page's own URL. */
  originalUrl: string;
  /** `YYYYMMDDhhmmss`. */
  timestamp: string;
}

/**
 * Converts a Wayback timestamp (`YYYYMMDDhhmmss`, possibly shortened) to ISO 8601.
 *
 * @example
 * ```ts
 * import { waybackTimeToIso } from "./wayback.ts";
 * console.assert(waybackTimeToIso("20240102030405") === "2024-01-02T03:04:05Z");
 * ```
 *
 * @internal exported for tests only
 */
export function waybackTimeToIso(timestamp: string): string | undefined {
  const m = timestamp.match(/^(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?$/);
  if (!m) return undefined;
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00"] = m;
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}Z`;
  return Number.isNaN(Date.parse(iso)) ? undefined : iso;
}

/**
 * Reads a snapshot URL (`…/web/<timestamp>/<original>`) into its parts and its raw form.
 *
 * @example
 * ```ts
 * import { parseSnapshotUrl } from "./wayback.ts";
 * const s = parseSnapshotUrl("http://web.archive.org/web/20240102030405/https://example.com/a");
 * console.assert(s?.rawUrl === "https://web.archive.org/web/20240102030405id_/https://example.com/a");
 * ```
 *
 * @internal exported for tests only
 */
export function parseSnapshotUrl(raw: string): WaybackSnapshot | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  // The public archive answers with http:// snapshot URLs; it serves them over https.
  if (url.hostname === "web.archive.org") url.protocol = "https:";
  const m = url.pathname.match(SNAPSHOT_PATH);
  if (!m) return undefined;
  const [, timestamp, rest] = m;
  const original = `${rest}${url.search}`;
  const viewUrl = `${url.origin}/web/${timestamp}/${original}`;
  return {
    url: viewUrl,
    rawUrl: `${url.origin}/web/${timestamp}id_/${original}`,
    originalUrl: original,
    timestamp,
  };
}

interface Availability {
  archived_snapshots?: {
    closest?: { available?: boolean; url?: string; timestamp?: string; status?: string };
  };
}

/** The settings the Wayback tier reads. */
type WaybackSettings = TierSlice<"wayback" | "wayback_url" | "max_html_chars" | "max_links">;

/** Asks the availability API for the latest snapshot of `url`. */
async function latestSnapshot(
  url: URL,
  request: ReadRequest,
  context: TierContext<WaybackSettings>,
): Promise<WaybackSnapshot | undefined> {
  const base = context.config.read.wayback_url.replace(/\/+$/, "");
  const api = `${base}/wayback/available?url=${encodeURIComponent(url.href)}`;
  const response = await context.fetcher.fetch(api, {
    signal: request.signal,
    robots: false,
    headers: { accept: "application/json" },
  });
  if (response.status < 200 || response.status >= 300) {
    throw new GleanerError(
      response.status === 429 ? "rate_limited" : "provider_unavailable",
      `Wayback availability API answered ${response.status} for ${safeEndpoint(url)}`,
    );
  }
  let data: Availability;
  try {
    data = JSON.parse(response.text()) as Availability;
  } catch {
    throw new GleanerError(
      "provider_unavailable",
      "Wayback availability API answered invalid JSON",
    );
  }
  const closest = data.archived_snapshots?.closest;
  if (!closest?.url || closest.available === false) return undefined;
  if (closest.status && !/^2\d\d$/.test(closest.status)) return undefined;
  const snapshot = parseSnapshotUrl(closest.url);
  if (!snapshot) {
    log.debug("unusable snapshot URL for {url}", { url: safeEndpoint(url) });
    return undefined;
  }
  if (closest.timestamp && /^\d{4,14}$/.test(closest.timestamp)) {
    snapshot.timestamp = closest.timestamp;
  }
  return snapshot;
}

/** Failures an archived copy may stand in for. */
const FALLBACK_FOR: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "not_found",
  "provider_unavailable",
  "timeout",
  "unauthorized",
]);

/**
 * The Wayback tier: a fallback, tried only when every other tier failed with
 * one of the failures an archived copy may stand in for. Passes (`undefined`) when `read.wayback` is off,
 * the URL points into the operator's private network, or the archive has no snapshot.
 *
 * @example
 * ```ts ignore
 * import { createReader } from "../cascade.ts";
 * import { httpTier } from "./http.ts";
 * import { waybackTier } from "./wayback.ts";
 * const reader = createReader({ config, fetcher, tiers: [httpTier, waybackTier] });
 * const page = await reader.read({ url: "https://example.com/gone" });
 * console.log(page.tier, page.archivedAt); // "wayback" "2024-01-02T03:04:05Z"
 * ```
 */
export const waybackTier: Tier = defineTier({
  name: "wayback",
  scope: "shared",
  settings: { read: ["wayback", "wayback_url", "max_html_chars", "max_links"] },
  fallbackFor: FALLBACK_FOR,
  readsCopy: true,
  canHandle: (url) =>
    (url.protocol === "https:" || url.protocol === "http:") &&
    !ARCHIVE_HOSTS.has(url.hostname.toLowerCase()),
  async read(url, request, context: TierContext<WaybackSettings>): Promise<Page | undefined> {
    if (!context.config.read.wayback) return undefined;
    // Never tell the public archive about a URL of the operator's private network.
    const isPrivate = context.fetcher.privateTarget
      ? await context.fetcher.privateTarget(url)
      : await isPrivateTarget(url, context.config.network);
    if (isPrivate) {
      log.debug("not asking the archive about a private origin");
      return undefined;
    }
    const snapshot = await latestSnapshot(url, request, context);
    if (!snapshot) return undefined;
    const response = await context.fetcher.fetch(snapshot.rawUrl, {
      signal: request.signal,
      robots: false,
    });
    assertPageStatus(response.status, snapshot.url);
    const archivedAt = waybackTimeToIso(snapshot.timestamp);
    const isHtml = response.mediaType === "text/html" ||
      response.mediaType === "application/xhtml+xml";
    const htmlOptions = {
      extract: context.extract,
      config: context.config,
      signal: request.signal,
    };
    // Raw snapshots keep the original links: resolve them against the original URL.
    const base = URL.canParse(snapshot.originalUrl) ? snapshot.originalUrl : url.href;
    const page = isHtml
      ? await pageFromHtml(response.text(), request.url, base, "wayback", htmlOptions)
      : await pageFromResponse(response, request.url, htmlOptions);
    return {
      ...page,
      tier: "wayback",
      finalUrl: snapshot.url,
      archivedAt,
      originalUrl: snapshot.originalUrl,
    };
  },
});
