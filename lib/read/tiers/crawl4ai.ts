/**
 * The Crawl4AI reading tier (when `read.crawl4ai_url` is set): the page is
 * read by a Crawl4AI server's `POST /crawl` and its `fit_markdown` (the page
 * after Crawl4AI's pruning content filter) used, ahead of the built-in tiers
 * (after Firecrawl when both are set). Absent from the cascade otherwise.
 *
 * What is sent (`CrawlRequest`): `{ urls: [url], crawler_config }`, where
 * `crawler_config` is a serialized `CrawlerRunConfig`
 * (`{ type: "CrawlerRunConfig", params: { … } }`) with `cache_mode: "bypass"`,
 * `page_timeout` (ms, from `read.service_timeout_ms`) and a
 * `DefaultMarkdownGenerator` whose `content_filter` is a
 * `PruningContentFilter` (both on the server's list of types an untrusted
 * request may build), so that `fit_markdown` is produced. With
 * `read.crawl4ai_token`, `Authorization: Bearer <token>` is sent (the
 * server's `CRAWL4AI_API_TOKEN`, or a JWT it issued at `/token`).
 *
 * What is read of the answer: `success`, `results[0]` and of it `success`,
 * `url` (the final URL after redirects), `redirected_url`, `status_code`,
 * `markdown.fit_markdown` (else `markdown.raw_markdown`; older servers send
 * `markdown` as a string), `metadata.title`, `metadata.language`,
 * `links.internal[]`/`links.external[]` (`href`, `text`). Errors are
 * FastAPI's `{ detail }` (401 "Authentication required", 400 "Rejected
 * request"/blocked URL, 500 "Crawl request failed: …" when the only URL
 * failed, 504 "Crawl exceeded the time limit") or SlowAPI's 429; only the
 * status is used (see `../service.ts`).
 *
 * Sources:
 * - https://docs.crawl4ai.com/core/self-hosting/ (`POST /crawl`, `{ type, params }` configs,
 *   Bearer token)
 * - https://docs.crawl4ai.com/api/crawl-result/ (`CrawlResult`: `url`, `success`,
 *   `status_code`, `markdown.raw_markdown`/`fit_markdown`, `links`, `metadata`, `error_message`)
 * - https://docs.crawl4ai.com/core/fit-markdown/ (`PruningContentFilter` → `fit_markdown`)
 * - https://github.com/unclecode/crawl4ai/blob/main/deploy/docker/server.py (`/crawl`: 400,
 *   403, 500 when every result failed) and `deploy/docker/api.py` (`handle_crawl_request`:
 *   `{ success, results, server_processing_time_s }`, 504 on the wall-clock limit)
 * - https://github.com/unclecode/crawl4ai/blob/main/deploy/docker/auth_gate.py (401
 *   `{"detail":"Authentication required"}`), `deploy/docker/MIGRATION.md` (Bearer token),
 *   `crawl4ai/async_configs.py` (`UNTRUSTED_ALLOWED_TYPES`, `page_timeout` at most 60 s)
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";
import type { RobotsChecker } from "../../net/robots.ts";
import { isRecord } from "../../net/json_call.ts";
import { mergeLinks, type ServiceTier } from "./firecrawl.ts";
import { markdownPage, stripMarkdownLinks } from "./markdown_source.ts";
import {
  assertFinalAllowed,
  boundedMarkdown,
  createServiceClient,
  endpoint,
  SERVICE_TIMEOUT_MARGIN_MS,
  serviceCanHandle,
  type ServiceSpec,
  serviceTarget,
} from "../service.ts";
import { assertPageStatus } from "../status.ts";
import type { Page } from "../types.ts";
import { defineTier, type TierContext, type TierSlice } from "./define.ts";

/** The settings the Crawl4AI tier reads. */
type Crawl4aiSettings = TierSlice<
  "crawl4ai_url" | "crawl4ai_token" | "service_timeout_ms" | "max_html_chars" | "max_links"
>;

/** The Crawl4AI service, as messages and settings name it. */
const CRAWL4AI: ServiceSpec = {
  name: "crawl4ai",
  title: "Crawl4AI",
  urlSetting: "read.crawl4ai_url",
  keySetting: "read.crawl4ai_token",
};

/** The largest `page_timeout` the server accepts from a request (ms). */
const MAX_PAGE_TIMEOUT_MS = 60_000;

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * The `crawler_config` sent with every read: no server-side cache, the page
 * deadline, and the pruning filter that yields `fit_markdown`.
 *
 * @example
 * ```ts
 * import { crawl4aiRunConfig } from "./crawl4ai.ts";
 * const config = crawl4aiRunConfig(45_000);
 * console.assert(config.type === "CrawlerRunConfig" && config.params.page_timeout === 42_000);
 * ```
 *
 * @internal exported for tests only
 */
export function crawl4aiRunConfig(timeoutMs: number): {
  type: "CrawlerRunConfig";
  params: Record<string, unknown>;
} {
  return {
    type: "CrawlerRunConfig",
    params: {
      cache_mode: "bypass",
      page_timeout: Math.min(
        MAX_PAGE_TIMEOUT_MS,
        Math.max(1_000, timeoutMs - SERVICE_TIMEOUT_MARGIN_MS),
      ),
      markdown_generator: {
        type: "DefaultMarkdownGenerator",
        params: { content_filter: { type: "PruningContentFilter", params: {} } },
      },
    },
  };
}

/** `fit_markdown` when there is some, else the raw Markdown. */
function markdownOf(result: Record<string, unknown>): string {
  const md = result.markdown;
  if (typeof md === "string") return md;
  if (!isRecord(md)) return "";
  const fit = str(md.fit_markdown);
  if (fit && fit.trim() !== "") return fit;
  return str(md.raw_markdown) ?? "";
}

/** Links of a `CrawlResult` (`links.internal` then `links.external`). */
function linksOf(result: Record<string, unknown>): unknown[] {
  const links = result.links;
  if (!isRecord(links)) return [];
  const internal = Array.isArray(links.internal) ? links.internal : [];
  const external = Array.isArray(links.external) ? links.external : [];
  return [...internal, ...external];
}

/**
 * The {@link Page} of a Crawl4AI `/crawl` answer: its first result, the URL it
 * ended on screened again, the page's own status, the Markdown cut at
 * `read.max_html_chars` with its links taken out (then the result's links).
 *
 * @throws {GleanerError} `provider_unavailable` without a result, `unsupported_content` without Markdown.
 */
function pageFromCrawl4aiAnswer(
  value: unknown,
  target: string,
  requestedUrl: string,
  config: Crawl4aiSettings,
): Page {
  const results = isRecord(value) && Array.isArray(value.results) ? value.results : [];
  const result = results.find(isRecord);
  if (!isRecord(value) || value.success === false || !result) {
    throw new GleanerError(
      "provider_unavailable",
      `Crawl4AI answered without a result for ${target}`,
      {
        details: { service: "crawl4ai" },
      },
    );
  }
  const finalUrl = str(result.redirected_url) ?? str(result.url) ?? target;
  assertFinalAllowed(CRAWL4AI, finalUrl, config.network);
  const status = typeof result.redirected_status_code === "number"
    ? result.redirected_status_code
    : typeof result.status_code === "number"
    ? result.status_code
    : undefined;
  if (status !== undefined && !(status >= 300 && status < 400)) {
    assertPageStatus(status, finalUrl);
  }
  if (result.success === false) {
    throw new GleanerError("provider_unavailable", `Crawl4AI could not read ${finalUrl}`, {
      details: { service: "crawl4ai" },
    });
  }
  const raw = markdownOf(result);
  if (raw.trim() === "") {
    throw new GleanerError(
      "unsupported_content",
      `Crawl4AI returned no Markdown for ${finalUrl}`,
      {
        details: { service: "crawl4ai" },
      },
    );
  }
  const { text, cut } = boundedMarkdown(raw, config.read.max_html_chars);
  const stripped = stripMarkdownLinks(text, URL.canParse(finalUrl) ? finalUrl : target);
  const meta = isRecord(result.metadata) ? result.metadata : {};
  const title = str(meta.title)?.trim() ||
    stripped.markdown.match(/^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/m)?.[1] || finalUrl;
  const lang = str(meta.language);
  return markdownPage({
    url: requestedUrl,
    finalUrl,
    title,
    markdown: stripped.markdown,
    links: mergeLinks(stripped.links, linksOf(result), config.read.max_links),
    tier: "crawl4ai",
    mediaType: "text/html",
    ...(lang ? { lang } : {}),
    ...(cut ? { truncated: true } : {}),
  });
}

/**
 * Creates the Crawl4AI tier. It obeys robots.txt like the HTTP tier (when
 * `network.respect_robots`), screens the URL before sending it, leaves reads
 * that name CSS selectors to the browser, and passes (`undefined`) when `read.crawl4ai_url` is not set.
 *
 * @example
 * ```ts ignore
 * import { createCrawl4aiTier } from "./crawl4ai.ts";
 * const tier = createCrawl4aiTier({ robots: fetcher.robots });
 * const page = await tier.read(new URL("https://example.com/"), { url: "https://example.com/" }, context);
 * console.log(page?.tier); // "crawl4ai"
 * ```
 */
export function createCrawl4aiTier(deps: { robots?: RobotsChecker } = {}): ServiceTier {
  const client = createServiceClient(CRAWL4AI);
  const tier = defineTier({
    name: "crawl4ai",
    // Spends the operator's Crawl4AI on public pages: nothing private comes back.
    scope: "shared",
    settings: {
      read: [
        "crawl4ai_url",
        "crawl4ai_token",
        "service_timeout_ms",
        "max_html_chars",
        "max_links",
      ],
    },
    // A read that names selectors is the browser's: the service tiers let it through.
    canHandle: serviceCanHandle,
    async read(url, request, context: TierContext<Crawl4aiSettings>) {
      const config = context.config;
      const base = config.read.crawl4ai_url;
      if (!base) return undefined;
      const target = await serviceTarget(url, request, config, deps.robots);
      const timeoutMs = config.read.service_timeout_ms;
      const { value } = await client.call(context, {
        url: endpoint(base, "/crawl"),
        method: "POST",
        json: { urls: [target], crawler_config: crawl4aiRunConfig(timeoutMs) },
        token: config.read.crawl4ai_token,
        signal: request.signal,
        timeoutMs,
        maxBytes: config.network.max_bytes,
      });
      return pageFromCrawl4aiAnswer(value, target, request.url, config);
    },
  });
  return Object.assign(tier, { client });
}
