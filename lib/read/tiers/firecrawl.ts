/**
 * The Firecrawl reading tier (when `read.firecrawl_url` is set): the page is
 * read by Firecrawl's `POST /v1/scrape` and its Markdown used as it comes,
 * ahead of the built-in tiers. Absent from the cascade otherwise.
 *
 * What is sent (Firecrawl API v1, `ScrapeOptions`):
 * `{ url, formats: ["markdown", "links"], onlyMainContent: true, timeout }`
 * with `Authorization: Bearer <read.firecrawl_api_key>` when a key is set.
 * `timeout` is `read.service_timeout_ms` less a margin, so Firecrawl gives up
 * (HTTP 408, code `SCRAPE_TIMEOUT`) before our own deadline does.
 *
 * What is read of the answer (`ScrapeResponse`): `success`, and of `data`
 * (`Document`): `markdown`, `links` (absolute URLs), and of `data.metadata`:
 * `title`, `language`, `publishedTime`, `url` (where it ended, after
 * redirects), `sourceURL` (the URL asked), `statusCode` (the page's own HTTP
 * status: a 404 page is `not_found`, not content), `contentType`. Error
 * bodies are `{ success: false, error, code? }` and only their status is used
 * (see `../service.ts`: 401 bad key, 402 out of credit, 429 rate limited, 408
 * scrape timeout, 500 scrape failed, 400 refused request).
 *
 * Sources:
 * - https://docs.firecrawl.dev/v1/api-reference/endpoint/scrape
 * - https://github.com/mendableai/firecrawl/blob/main/apps/api/v1-openapi.json (`/scrape`,
 *   `ScrapeOptions`, `ScrapeResponse`; 402, 429, 500 `{ error }`)
 * - https://github.com/mendableai/firecrawl/blob/main/apps/api/src/controllers/v1/scrape.ts
 *   (408 for `SCRAPE_TIMEOUT`, 500 otherwise, `{ success: false, code, error }`)
 * - https://github.com/mendableai/firecrawl/blob/main/apps/api/src/controllers/v1/types.ts
 *   (`Document`, `metadata.url`, `metadata.statusCode`)
 * - https://github.com/mendableai/firecrawl/blob/main/apps/api/src/routes/shared.ts (402
 *   "Insufficient credits …") and `src/controllers/auth.ts` (401 "Unauthorized", 429)
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";
import type { RobotsChecker } from "../../net/robots.ts";
import { isRecord } from "../../net/json_call.ts";
import { markdownPage, stripMarkdownLinks } from "./markdown_source.ts";
import {
  assertFinalAllowed,
  boundedMarkdown,
  createServiceClient,
  endpoint,
  SERVICE_TIMEOUT_MARGIN_MS,
  serviceCanHandle,
  type ServiceClient,
  type ServiceSpec,
  serviceTarget,
} from "../service.ts";
import { assertPageStatus } from "../status.ts";
import type { Page, PageLink, Tier } from "../types.ts";
import { defineTier, type TierContext, type TierSlice } from "./define.ts";

/** The settings a service's page is cut to: its size limit and link count, and the network policy. */
export type ServicePageSettings = TierSlice<"max_html_chars" | "max_links">;

/** The settings the Firecrawl tier reads. */
type FirecrawlSettings = TierSlice<
  "firecrawl_url" | "firecrawl_api_key" | "service_timeout_ms" | "max_html_chars" | "max_links"
>;

/** The Firecrawl service, as messages and settings name it. */
const FIRECRAWL: ServiceSpec = {
  name: "firecrawl",
  title: "Firecrawl",
  urlSetting: "read.firecrawl_url",
  keySetting: "read.firecrawl_api_key",
};

/** A Firecrawl `Document`, as far as Gleaner reads it. */
export interface FirecrawlDocument {
  /** The page as Markdown. */
  markdown?: unknown;
  /** Absolute URLs found on the page (`formats: ["links"]`). */
  links?: unknown;
  /** Page metadata. */
  metadata?: {
    title?: unknown;
    language?: unknown;
    publishedTime?: unknown;
    url?: unknown;
    sourceURL?: unknown;
    statusCode?: unknown;
    contentType?: unknown;
    error?: unknown;
  };
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  // Some pages repeat a meta tag: Firecrawl then gives an array.
  if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  return undefined;
}

/**
 * Turns one Firecrawl `Document` into a {@link Page} (tier `firecrawl`): the
 * page's own status decides first (`metadata.statusCode`), the Markdown is cut
 * at `read.max_html_chars` (the page is then `truncated`), link targets and
 * images are taken out of it into `links` (then Firecrawl's `links`), at most
 * `read.max_links`. Throws `unsupported_content` when there is no Markdown.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { pageFromFirecrawlDocument } from "./firecrawl.ts";
 * const page = pageFromFirecrawlDocument({
 *   markdown: "# Tides\n\nSee [the moon](https://example.com/moon).",
 *   metadata: { title: "Tides", statusCode: 200, sourceURL: "https://example.com/tides" },
 * }, "https://example.com/tides", parseConfig({}));
 * console.assert(page.markdown === "# Tides\n\nSee the moon." && page.links[0].url === "https://example.com/moon");
 * ```
 */
export function pageFromFirecrawlDocument(
  doc: FirecrawlDocument,
  requestedUrl: string,
  config: ServicePageSettings,
): Page {
  const meta = isRecord(doc.metadata) ? doc.metadata : {};
  const finalUrl = text(meta.url) ?? text(meta.sourceURL) ?? requestedUrl;
  assertFinalAllowed(FIRECRAWL, finalUrl, config.network);
  const status = typeof meta.statusCode === "number" ? meta.statusCode : undefined;
  if (status !== undefined) assertPageStatus(status, finalUrl);
  const raw = typeof doc.markdown === "string" ? doc.markdown : "";
  if (raw.trim() === "") {
    throw new GleanerError(
      "unsupported_content",
      `Firecrawl returned no Markdown for ${finalUrl}`,
      {
        details: { service: "firecrawl" },
      },
    );
  }
  const { text: bounded, cut } = boundedMarkdown(raw, config.read.max_html_chars);
  const base = URL.canParse(finalUrl) ? finalUrl : requestedUrl;
  const stripped = stripMarkdownLinks(bounded, base);
  const links = mergeLinks(stripped.links, doc.links, config.read.max_links);
  const title = text(meta.title)?.trim() || firstHeading(stripped.markdown) || finalUrl;
  const lang = text(meta.language);
  const published = text(meta.publishedTime);
  const contentType = text(meta.contentType)?.split(";")[0].trim().toLowerCase();
  return markdownPage({
    url: requestedUrl,
    finalUrl,
    title,
    markdown: stripped.markdown,
    links,
    tier: "firecrawl",
    mediaType: contentType || "text/html",
    ...(lang ? { lang } : {}),
    ...(published ? { published } : {}),
    ...(cut ? { truncated: true } : {}),
  });
}

/** Links from the Markdown (with their text) first, then the service's list, once each. */
export function mergeLinks(
  fromMarkdown: readonly PageLink[],
  extra: unknown,
  max: number,
): PageLink[] {
  const out: PageLink[] = [];
  const seen = new Set<string>();
  const add = (url: string, linkText: string) => {
    if (out.length >= max) return;
    const hash = url.indexOf("#");
    const bare = hash === -1 ? url : url.slice(0, hash);
    if (!/^https?:\/\//i.test(bare) || seen.has(bare)) return;
    seen.add(bare);
    out.push({ url: bare, text: linkText });
  };
  for (const link of fromMarkdown) add(link.url, link.text);
  if (Array.isArray(extra)) {
    for (const item of extra.slice(0, max * 2)) {
      if (typeof item === "string") add(item, "");
      else if (isRecord(item) && typeof item.href === "string") {
        add(item.href, typeof item.text === "string" ? item.text.trim() : "");
      }
    }
  }
  return out;
}

function firstHeading(markdown: string): string | undefined {
  const match = markdown.match(/^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/m);
  return match?.[1];
}

/** A reading tier backed by a service, with the client it calls through. */
export interface ServiceTier extends Tier {
  /** The client (its breaker is shared by every read of this tier). */
  readonly client: ServiceClient;
}

/** One client (and so one breaker) per configuration: per Gleaner, not per process. */
const clients = new WeakMap<object, ServiceClient>();

/**
 * The Firecrawl client of a configuration: the reading tier and the crawl
 * jobs (`crawl.engine: "firecrawl"`) share it, so an outage seen by one is
 * skipped by the other and counted once.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { firecrawlClient } from "./firecrawl.ts";
 * const config = parseConfig({});
 * console.assert(firecrawlClient(config) === firecrawlClient(config));
 * ```
 */
export function firecrawlClient(config: object): ServiceClient {
  let client = clients.get(config);
  if (!client) clients.set(config, client = createServiceClient(FIRECRAWL));
  return client;
}

/**
 * Creates the Firecrawl tier. It obeys robots.txt like the HTTP tier (when
 * `network.respect_robots`), screens the URL before sending it, leaves reads
 * that name CSS selectors to the browser, and passes (`undefined`) when `read.firecrawl_url` is not set.
 *
 * @example
 * ```ts ignore
 * import { createFirecrawlTier } from "./firecrawl.ts";
 * const tier = createFirecrawlTier({ robots: fetcher.robots });
 * const page = await tier.read(new URL("https://example.com/"), { url: "https://example.com/" }, context);
 * console.log(page?.tier); // "firecrawl"
 * ```
 */
export function createFirecrawlTier(
  deps: {
    robots?: RobotsChecker;
    /** The client to call through (default: a new one); see {@link firecrawlClient}. */
    client?: ServiceClient;
  } = {},
): ServiceTier {
  const client = deps.client ?? createServiceClient(FIRECRAWL);
  const tier = defineTier({
    name: "firecrawl",
    // Spends the operator's Firecrawl quota on public pages: nothing private comes back.
    scope: "shared",
    settings: {
      read: [
        "firecrawl_url",
        "firecrawl_api_key",
        "service_timeout_ms",
        "max_html_chars",
        "max_links",
      ],
    },
    // A read that names selectors is the browser's: the service tiers let it through.
    canHandle: serviceCanHandle,
    async read(url, request, context: TierContext<FirecrawlSettings>) {
      const config = context.config;
      const base = config.read.firecrawl_url;
      if (!base) return undefined;
      const target = await serviceTarget(url, request, config, deps.robots);
      const timeoutMs = config.read.service_timeout_ms;
      const { value } = await client.call(context, {
        url: endpoint(base, "/v1/scrape"),
        method: "POST",
        json: {
          url: target,
          formats: ["markdown", "links"],
          onlyMainContent: true,
          timeout: Math.max(1_000, timeoutMs - SERVICE_TIMEOUT_MARGIN_MS),
        },
        token: config.read.firecrawl_api_key,
        signal: request.signal,
        timeoutMs,
        maxBytes: config.network.max_bytes,
      });
      if (!isRecord(value) || value.success !== true || !isRecord(value.data)) {
        throw new GleanerError(
          "provider_unavailable",
          `Firecrawl answered without a page for ${target} (success: ${
            isRecord(value) ? String(value.success) : "?"
          })`,
          { details: { service: "firecrawl" } },
        );
      }
      return pageFromFirecrawlDocument(value.data as FirecrawlDocument, request.url, config);
    },
  });
  return Object.assign(tier, { client });
}
