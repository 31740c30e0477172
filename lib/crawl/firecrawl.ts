/**
 * `crawl_site` through a Firecrawl crawl job (`crawl.engine: "firecrawl"`,
 * with `read.firecrawl_url`): Firecrawl crawls the site, Gleaner polls the
 * job and maps the pages it returns into the crawl manifest.
 *
 * 1. The start URL passes the network policy before it is sent (as in the
 *    reading tiers), then `POST /v1/crawl` starts the job with
 *    `{ url, limit: max_pages, maxDiscoveryDepth: max_depth, scrapeOptions:
 *    { formats: ["markdown", "links"], onlyMainContent: true } }`; the answer
 *    is `{ success, id, url }`.
 * 2. `GET /v1/crawl/{id}` is asked every `crawl.poll_interval_ms`: it answers
 *    `{ status: "scraping" | "completed" | "failed" | "cancelled", total,
 *    completed, data: Document[], next }`; `next` (the next slice of results,
 *    given while the job runs or when the data is over 10 MB) is followed, so
 *    each page is downloaded once. Only its `skip`/`limit` are kept: the
 *    request goes to the configured endpoint, never to another origin.
 * 3. When the job is done (completed and no `next`), the manifest is
 *    returned. When `crawl.max_wait_ms` passes first, or the job fails or is
 *    cancelled, or `crawl.max_bytes` of results have been read, the pages done
 *    by then are returned with `partial: true`, and a job still running is
 *    cancelled (`DELETE /v1/crawl/{id}`) so it spends no more credit.
 *
 * Each document becomes a page like the `firecrawl` reading tier's (the same
 * status, size and policy checks), is stored in the page cache (so a
 * following `scrape_urls` of it costs no fetch) and listed with its title and
 * snippet. Pages off the site, refused by the network policy, or outside the
 * caller's `include`/`exclude` patterns are left out; pages whose own status
 * failed are listed in `failed`. Depth is 0 for the start URL and 1 for the
 * rest (Firecrawl does not report link depth). At most `max_pages` pages.
 *
 * Sources:
 * - https://docs.firecrawl.dev/v1/api-reference/endpoint/crawl-post
 * - https://docs.firecrawl.dev/v1/api-reference/endpoint/crawl-get
 * - https://docs.firecrawl.dev/v1/api-reference/endpoint/crawl-delete
 * - https://github.com/mendableai/firecrawl/blob/main/apps/api/v1-openapi.json (`/crawl`,
 *   `CrawlResponse`, `CrawlStatusResponseObj`: `status`, `total`, `completed`, `next`, `data`)
 * - https://github.com/mendableai/firecrawl/blob/main/apps/api/src/controllers/v1/crawl-status.ts
 *   (`next` = `…/v1/crawl/{id}?skip=N` while results remain; 10 MiB per answer; 404 "Job not
 *   found")
 *
 * @module
 */
import { delay } from "../async/delay.ts";
import { type ErrorCode, GleanerError, toGleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { parsePageUrl } from "../read/cascade.ts";
import {
  firecrawlClient,
  type FirecrawlDocument,
  pageFromFirecrawlDocument,
} from "../read/tiers/firecrawl.ts";
import { createPageCache } from "../read/page_cache.ts";
import { endpoint, screenTarget } from "../read/service.ts";
import { safeEndpoint } from "../config/redact.ts";
import { isRecord } from "../net/json_call.ts";
import {
  type CrawlDeps,
  type CrawledPage,
  type CrawlEngine,
  type CrawlFailure,
  type CrawlInput,
  type CrawlPlan,
  type CrawlResult,
  snippetOf,
} from "./crawl.ts";
import { createPathFilter, sameSite } from "./urls.ts";

const log = getGleanerLogger("crawl", "firecrawl");

/** Largest answer of one status call (Firecrawl cuts its answers at 10 MiB, plus one page). */
const MAX_STATUS_BYTES = 12 * 1024 * 1024;
/** Failures listed at most. */
const MAX_FAILURES = 100;
/** Largest number of status calls of one crawl (a hostile `next` chain ends here). */
const MAX_STATUS_CALLS = 2_000;

/**
 * The status URL to ask next: the job's status endpoint at the configured
 * base, with only the `skip` and `limit` of Firecrawl's `next` (digits) kept.
 * A `next` that is not about this job is ignored (`undefined`).
 *
 * @example
 * ```ts
 * import { nextStatusUrl } from "./firecrawl.ts";
 * const next = nextStatusUrl("http://127.0.0.1:3002", "abc", "https://elsewhere.example/v1/crawl/abc?skip=10&x=1");
 * console.assert(next === "http://127.0.0.1:3002/v1/crawl/abc?skip=10");
 * console.assert(nextStatusUrl("http://127.0.0.1:3002", "abc", "https://x.example/v1/crawl/other?skip=1") === undefined);
 * ```
 */
export function nextStatusUrl(base: string, id: string, next: unknown): string | undefined {
  if (typeof next !== "string" || next.length > 2_000) return undefined;
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    return undefined;
  }
  if (!url.pathname.replace(/\/+$/, "").endsWith(`/crawl/${id}`)) return undefined;
  const params = new URLSearchParams();
  for (const key of ["skip", "limit"]) {
    const value = url.searchParams.get(key);
    if (value !== null && /^\d{1,9}$/.test(value)) params.set(key, value);
  }
  const query = params.toString();
  return `${endpoint(base, `/v1/crawl/${id}`)}${query ? `?${query}` : ""}`;
}

/**
 * Crawls a site through a Firecrawl crawl job (see the module): the
 * {@link CrawlEngine} `crawlSite` runs when `crawl.engine` is `firecrawl`
 * (it validates the input and caches complete manifests).
 *
 * @example
 * ```ts ignore
 * import { crawlWithFirecrawl } from "./firecrawl.ts";
 * import { crawlSite } from "./crawl.ts";
 * const manifest = await crawlSite({ config, fetcher, reader, engine: firecrawlEngine }, { url: "https://docs.example.com/" });
 * console.log(manifest.partial, manifest.pages.length);
 * ```
 */
export async function crawlWithFirecrawl(
  deps: CrawlDeps,
  input: CrawlInput,
  plan: CrawlPlan,
): Promise<CrawlResult> {
  const config = deps.config;
  const base = config.read.firecrawl_url;
  if (!base) {
    throw new GleanerError(
      "invalid_arguments",
      'crawl.engine "firecrawl" needs read.firecrawl_url',
      { details: { field: "read.firecrawl_url" } },
    );
  }
  const { signal } = input;
  // The reading tier's client: one breaker for Firecrawl, whoever saw the outage.
  const client = firecrawlClient(config);
  const context = { fetcher: deps.fetcher };
  const token = config.read.firecrawl_api_key;
  const timeoutMs = config.read.service_timeout_ms;
  const target = screenTarget(plan.start, config.network);
  const passes = createPathFilter(plan.include, plan.exclude);
  const pageCache = createPageCache(deps.cache, config);
  const render = config.read.render;

  const cancelled = () => {
    if (signal?.aborted) {
      throw toGleanerError(signal.reason, `crawling ${safeEndpoint(plan.start)}`);
    }
  };

  const started = await client.call(context, {
    url: endpoint(base, "/v1/crawl"),
    method: "POST",
    json: {
      url: target,
      // Depth 0 is the start page alone (Firecrawl counts sitemap pages as depth 0 too).
      limit: plan.maxDepth === 0 ? 1 : plan.maxPages,
      maxDiscoveryDepth: plan.maxDepth,
      scrapeOptions: { formats: ["markdown", "links"], onlyMainContent: true },
    },
    token,
    signal,
    timeoutMs,
    maxBytes: 1_000_000,
  });
  const id = isRecord(started.value) ? started.value.id : undefined;
  if (
    !isRecord(started.value) || started.value.success !== true || typeof id !== "string" ||
    !/^[A-Za-z0-9_-]{1,128}$/.test(id)
  ) {
    throw new GleanerError(
      "provider_unavailable",
      `Firecrawl did not start a crawl job for ${safeEndpoint(plan.start)}`,
      { details: { service: "firecrawl" } },
    );
  }
  log.debug("Firecrawl crawl job {id} started for {url}", { id, url: safeEndpoint(plan.start) });

  const deadline = Date.now() + config.crawl.max_wait_ms;
  const pages: CrawledPage[] = [];
  const failed: CrawlFailure[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  let partial = false;
  let jobEnded = false;
  let cursor = endpoint(base, `/v1/crawl/${id}`);
  let calls = 0;

  const fail = (url: string, code: ErrorCode, message: string) => {
    if (failed.length < MAX_FAILURES) failed.push({ url, code, message });
  };

  const take = async (doc: unknown) => {
    if (!isRecord(doc) || pages.length >= plan.maxPages) return;
    const meta = isRecord(doc.metadata) ? doc.metadata : {};
    const raw = typeof meta.sourceURL === "string"
      ? meta.sourceURL
      : typeof meta.url === "string"
      ? meta.url
      : undefined;
    if (!raw) return;
    let url: URL;
    try {
      url = parsePageUrl(raw);
    } catch {
      return;
    }
    if (seen.has(url.href)) return;
    seen.add(url.href);
    const isStart = url.href === plan.start.href;
    if (!isStart && (!sameSite(url, plan.start) || !passes(url))) return;
    try {
      const page = pageFromFirecrawlDocument(doc as FirecrawlDocument, url.href, config);
      pages.push({
        url: url.href,
        title: page.title,
        snippet: snippetOf(page.markdown, page.title),
        depth: isStart ? 0 : 1,
      });
      await pageCache.set({ url: url.href, render }, page);
    } catch (error) {
      const failure = toGleanerError(error, `reading ${url.href}`);
      fail(url.href, failure.code, failure.message);
    }
  };

  try {
    while (true) {
      cancelled();
      if (++calls > MAX_STATUS_CALLS) {
        partial = true;
        break;
      }
      const remaining = config.crawl.max_bytes - bytes;
      if (remaining <= 0) {
        partial = true;
        break;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        partial = true;
        break;
      }
      let answer;
      try {
        answer = await client.call(context, {
          url: cursor,
          method: "GET",
          token,
          signal,
          timeoutMs: Math.min(timeoutMs, Math.max(1_000, left)),
          maxBytes: Math.min(MAX_STATUS_BYTES, remaining),
        });
      } catch (error) {
        cancelled();
        const failure = toGleanerError(error);
        // Over the byte budget, or out of time: what is done is the answer.
        if (failure.details?.reason === "too_large" && remaining < MAX_STATUS_BYTES) {
          partial = true;
          break;
        }
        if (failure.code === "timeout" && Date.now() >= deadline) {
          partial = true;
          break;
        }
        if (pages.length > 0) {
          log.warn("Firecrawl crawl job {id}: status failed, returning what is done: {error}", {
            id,
            error: failure.message,
          });
          partial = true;
          break;
        }
        throw failure;
      }
      bytes += answer.bytes;
      const value = answer.value;
      if (!isRecord(value)) throw unreadable(id);
      const status = typeof value.status === "string" ? value.status : "";
      if (Array.isArray(value.data)) {
        for (const doc of value.data) await take(doc);
      }
      input.progress?.({
        progress: pages.length,
        total: typeof value.total === "number" ? Math.min(value.total, plan.maxPages) : undefined,
        message: `Firecrawl ${status || "?"}: ${pages.length} pages`,
      });
      if (status === "completed" || status === "failed" || status === "cancelled") {
        jobEnded = true;
      }
      // Enough pages: the manifest is complete whatever the job still does.
      if (pages.length >= plan.maxPages) break;
      const next = nextStatusUrl(base, id, value.next);
      // A failed or cancelled job keeps the pages it did: they are collected, and flagged partial.
      if (status === "failed" || status === "cancelled") partial = true;
      if (jobEnded) {
        if (!next || next === cursor) break;
        cursor = next;
        continue;
      }
      if (next) cursor = next;
      await delay(
        Math.min(config.crawl.poll_interval_ms, Math.max(0, deadline - Date.now())),
        signal,
      );
    }
  } finally {
    if (!jobEnded) {
      // The job may still be running: stop it so it spends no more credit.
      await client.call(context, {
        url: endpoint(base, `/v1/crawl/${id}`),
        method: "DELETE",
        token,
        timeoutMs: Math.min(timeoutMs, 10_000),
        maxBytes: 100_000,
      }).catch((error) =>
        log.debug("Firecrawl crawl job {id} not cancelled: {error}", { id, error })
      );
    }
  }
  log.debug("Firecrawl crawl of {origin}: {pages} pages, {failed} failed{partial}", {
    origin: plan.start.origin,
    pages: pages.length,
    failed: failed.length,
    partial: partial ? " (partial)" : "",
  });
  return {
    pages,
    failed,
    from_sitemap: false,
    ...(partial ? { partial: true } : {}),
  };
}

/**
 * The Firecrawl crawl engine, for `crawlSite`'s `engine` (see {@link crawlWithFirecrawl}).
 *
 * @example
 * ```ts ignore
 * import { crawlSite } from "./crawl.ts";
 * import { firecrawlEngine } from "./firecrawl.ts";
 * const manifest = await crawlSite({ config, fetcher, reader, engine: firecrawlEngine }, { url: "https://docs.example.com/" });
 * ```
 */
export const firecrawlEngine: CrawlEngine = { name: "firecrawl", crawl: crawlWithFirecrawl };

function unreadable(id: string): GleanerError {
  return new GleanerError(
    "provider_unavailable",
    `Firecrawl answered the status of crawl job ${id} in an unreadable format`,
    { details: { service: "firecrawl" } },
  );
}
