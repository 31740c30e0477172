/**
 * The contract of page reading: a request, the page it yields, and the tiers
 * of the cascade that produce it.
 *
 * @module
 */
import type { DomainStats } from "../store/types.ts";
import type { ErrorCode } from "../errors.ts";
import type { NetworkSection, ReadSection } from "../config/sections.ts";
import type { Fetcher } from "../net/types.ts";
import type { BodyExtractor, HtmlExtractor } from "../extract/pool.ts";
import type { TenancyScope } from "../config/tenancy.ts";
import type { ReadCall } from "./call.ts";

/** Names of the reading tiers, in cascade order. */
export const TIER_NAMES = [
  "cache",
  "firecrawl",
  "crawl4ai",
  "kiwix",
  "github",
  "youtube",
  "reddit",
  "hister",
  "llms_txt",
  "structured",
  "pdf",
  "http",
  "browser",
  "wayback",
] as const;

/** A reading tier's name. */
export type TierName = typeof TIER_NAMES[number];

export type { PageLink } from "../extract/links.ts";
import type { PageLink } from "../extract/links.ts";
import type { PageSignals } from "../extract/metadata.ts";

/** What one read asks for. */
export interface ReadRequest {
  /** The URL to read. */
  url: string;
  /** Browser use: never, when the HTTP result is thin, or always. */
  render?: "never" | "auto" | "always";
  /**
   * CSS selector the browser waits for (at most `read.browser_timeout_ms`): the read
   * goes to the browser (`render: "never"` refuses it); `selector_not_found` when it
   * never shows.
   */
  waitForSelector?: string;
  /**
   * CSS selector whose first element alone is read, in every HTML tier;
   * `selector_not_found` when the page has none.
   */
  targetSelector?: string;
  /** Accept a cached page no older than this (seconds). */
  maxAgeS?: number;
  /** Bypass the cache. */
  noCache?: boolean;
  /** Cancels the read. */
  signal?: AbortSignal;
  /**
   * The call this read is one of: the reads of one call take one turn in the browser's page
   * pool and share one deadline for their browser work (`call.ts`). Default: the read alone.
   */
  call?: ReadCall;
}

/** A page as Gleaner read it: clean Markdown plus metadata. */
export interface Page {
  /** The URL that was asked for. */
  url: string;
  /** The URL the content came from, after redirects (or the canonical one). */
  finalUrl: string;
  /** Best title. */
  title: string;
  /** Main content as Markdown, without link targets or images. */
  markdown: string;
  /** Links worth following, main content first. */
  links: PageLink[];
  /** Which tier produced it. */
  tier: TierName;
  /** Media type of the source. */
  mediaType: string;
  /** Language, when known. */
  lang?: string;
  /** Publication date, when known. */
  published?: string;
  /** Author, when known. */
  byline?: string;
  /** Canonical URL, when declared. */
  canonical?: string;
  /** Snapshot time, when read from an archive. */
  archivedAt?: string;
  /** The URL an archived snapshot captured (set with `archivedAt`; `finalUrl` is the snapshot). */
  originalUrl?: string;
  /** When it was read (ISO). */
  fetchedAt: string;
  /** True when the HTTP result looks like it needs JavaScript (the browser may do better). */
  thin?: boolean;
  /** True when the body or its HTML was cut at a size limit: only the start was read. */
  truncated?: boolean;
  /** o200k tokens of `markdown`, when counted while reading (off the main thread). */
  markdownTokens?: number;
  /** What the HTML page's head carried (HTML pages only), sampled by domain memory. */
  signals?: PageSignals;
}

/**
 * The settings a reader and its tiers read: the `read` and `network` sections,
 * handed down by the composition root (a tier never sees the whole configuration).
 */
export interface ReadConfig {
  /** The reading cascade's and the tiers' own settings. */
  read: ReadSection;
  /** The guarded network layer's settings (the SSRF policy, limits, robots). */
  network: NetworkSection;
}

/** What tiers share. */
export interface ReadContext {
  /** The reading settings. */
  config: ReadConfig;
  /** The guarded fetcher. */
  fetcher: Fetcher;
  /** Extracts HTML off the main thread under a deadline; without it, extraction runs inline. */
  extract?: HtmlExtractor;
  /** Decodes and extracts fetched HTML bodies off the main thread (the HTTP tier prefers it). */
  extractBody?: BodyExtractor;
  /** The reader's per-origin memory, where a tier notes what it learnt of an origin. */
  domains?: DomainStats;
}

/** One way of reading a URL. */
export interface Tier {
  /** The tier's name. */
  readonly name: TierName;
  /**
   * Who the tier belongs to when several users share one server (hosted mode):
   * `operator` for a tier that reads the operator's private data or spends the
   * operator's private credential (the Hister history, GitHub with
   * `read.github_token`), which a tenant's reader leaves out unless the
   * operator maps it to that user; `shared` for a tier that reads the public
   * web the same for everyone (a keyed service spends the operator's quota but
   * reveals nothing private); `tenant` for one whose results are kept per tenant.
   */
  readonly scope: TenancyScope;
  /** Whether this tier applies to the URL and request. */
  canHandle(url: URL, request: ReadRequest): boolean;
  /**
   * True for a tier that renders pages (runs their scripts). It runs only when rendering
   * is wanted: under `render: "always"`, or under `auto` once a tier with {@link renderAfter}
   * came back thin, failed with one of those codes, or was put off by domain memory; never
   * under `render: "never"`. Absent: the tier runs whenever it applies.
   */
  readonly renders?: boolean;
  /**
   * Failure codes of this tier that a rendering tier may get past: after one of them, rendering
   * is wanted (in `auto` mode). A tier that declares them also hands a thin page to the
   * rendering tiers (the thin page stays the answer when they do no better) and calls them in
   * when domain memory puts it off.
   */
  readonly renderAfter?: ReadonlySet<ErrorCode>;
  /**
   * Failure codes this tier may stand in for. A tier that declares them is left out of the
   * cascade order and tried only when no tier produced a page (thin or not) and the most
   * specific failure met has one of these codes.
   */
  readonly fallbackFor?: ReadonlySet<ErrorCode>;
  /**
   * True for a tier that reads a copy kept elsewhere (an archive, the user's history): when no
   * tier produced a page, its failure explains less than those of the tiers that asked the
   * origin itself.
   */
  readonly readsCopy?: boolean;
  /** Reads the page, or returns `undefined` to let the next tier try. Throws `GleanerError` on failure. */
  read(url: URL, request: ReadRequest, context: ReadContext): Promise<Page | undefined>;
}
