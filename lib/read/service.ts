/**
 * What the reading tiers backed by an outside scraping service (Firecrawl,
 * Crawl4AI) share: the target URL passes Gleaner's network policy before it
 * is sent, one JSON call to the operator's endpoint through the guarded
 * fetcher, and one mapping of what went wrong to the codes the cascade acts on.
 *
 * The service's endpoint is an operator setting reached like SearXNG's: through
 * the guarded fetch, so a private or loopback instance must be listed in
 * `network.allow_private`. The page URL is screened with `screenUrl` (the
 * function contents providers use) before any byte is sent, and the URL the
 * service reports it ended on is screened again (a redirect into a private
 * address is refused, as the HTTP tier would refuse it).
 *
 * How failures are reported (the cascade falls through on each, the message
 * names the service and why; `details.field` names the setting to check when
 * the failure is about the service or our setup, so domain memory does not
 * count it against the page's origin, see `outcomes.ts`):
 *
 * | what happened | code | about |
 * | --- | --- | --- |
 * | 401, 403 | `unauthorized` | the key (`details.field` = the key setting) |
 * | 402 | `insufficient_balance` | the account (key setting) |
 * | 429 | `rate_limited` (`Retry-After` kept) | the service (URL setting) |
 * | 404, 405, a refused connection, an unknown host, the endpoint refused by the network policy, an unreadable 2xx body | `provider_unavailable` | the service (URL setting) |
 * | an answer over the byte limit | `provider_unavailable` (`details.reason` `too_large`) | the service (URL setting) |
 * | 408, 504, our own deadline (`read.service_timeout_ms`) | `timeout` | the page (counted) |
 * | other 5xx | `provider_unavailable` | the page (counted: the service could not read it) |
 * | 400, 422 | `unsupported_content` | the request (the service refused this URL) |
 *
 * Failures about the service itself also open a circuit breaker per service
 * (three in a row, or at once for 401/402/403 and a 429; one minute, or the
 * `Retry-After`), so a service that is down or out of credit is left alone
 * for a while: the tier then fails at once with the same reason.
 *
 * @module
 */
import { createCircuitBreaker } from "../async/breaker.ts";
import type { NetworkSection } from "../config/sections.ts";
import { type ErrorCode, GleanerError } from "../errors.ts";
import type { FetchedResponse } from "../net/types.ts";
import { safeEndpoint } from "../config/redact.ts";
import { parseRetryAfter } from "../net/classify.ts";
import { screenUrl } from "../net/screen.ts";
import type { RobotsChecker } from "../net/robots.ts";
import type { ReadConfig, ReadContext, ReadRequest } from "./types.ts";

/**
 * What a service is asked to finish within: Gleaner's own deadline for the
 * call minus this margin (ms), so the service's answer arrives before it.
 */
export const SERVICE_TIMEOUT_MARGIN_MS = 3_000;

/** Failures in a row after which a service is left alone. */
const SERVICE_BREAKER_FAILURES = 3;
/** How long a service is left alone (ms), unless it said how long (`Retry-After`). */
const SERVICE_BREAKER_COOLDOWN_MS = 60_000;

/** Which service, and where it is configured (for messages). */
export interface ServiceSpec {
  /** Tier name and breaker key (`firecrawl`, `crawl4ai`). */
  name: string;
  /** Display name. */
  title: string;
  /** The setting that holds the base URL. */
  urlSetting: string;
  /** The setting that holds the credential. */
  keySetting: string;
}

/** One JSON call to a service. */
export interface ServiceCall {
  /** Full URL of the endpoint. */
  url: string;
  /** Method. */
  method: "GET" | "POST" | "DELETE";
  /** JSON body (POST). */
  json?: unknown;
  /** Bearer credential, when configured. */
  token?: string;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Deadline (ms). */
  timeoutMs: number;
  /** Largest answer accepted (bytes). */
  maxBytes: number;
}

/** Calls to one service: JSON in and out, every failure mapped (see the module table). */
export interface ServiceClient {
  /** The service. */
  readonly spec: ServiceSpec;
  /** Sends one call; returns the parsed 2xx JSON body and its size in bytes. */
  call(context: Pick<ReadContext, "fetcher">, call: ServiceCall): Promise<ServiceAnswer>;
}

/** A parsed answer. */
export interface ServiceAnswer {
  /** The JSON body. */
  value: unknown;
  /** Its size on the wire (bytes). */
  bytes: number;
}

/**
 * Screens the page URL with the network policy in force (`screenUrl`: the
 * function contents providers use) before it is sent to a service.
 *
 * @throws {GleanerError} `blocked_url` when the policy refuses it.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { screenTarget } from "./service.ts";
 * const policy = parseConfig({}).network;
 * console.assert(screenTarget(new URL("https://example.com/a#b"), policy) === "https://example.com/a");
 * try { screenTarget(new URL("http://10.0.0.1/"), policy); } catch (e) {
 *   console.assert((e as { code: string }).code === "blocked_url");
 * }
 * ```
 */
export function screenTarget(url: URL, policy: NetworkSection): string {
  try {
    return screenUrl(url.href, policy);
  } catch (error) {
    if (error instanceof GleanerError && error.code === "blocked_url") throw error;
    throw new GleanerError("blocked_url", `${safeEndpoint(url)} may not be sent to a service`, {
      cause: error,
    });
  }
}

/**
 * Whether a reading service takes a read: web URLs only, and never a read
 * that names CSS selectors (those belong to the built-in tiers, which keep
 * or wait for the element).
 *
 * @example
 * ```ts
 * import { serviceCanHandle } from "./service.ts";
 * console.assert(serviceCanHandle(new URL("https://example.com/"), { url: "https://example.com/" }));
 * console.assert(!serviceCanHandle(new URL("ftp://example.com/"), { url: "ftp://example.com/" }));
 * ```
 */
export function serviceCanHandle(url: URL, request: ReadRequest): boolean {
  return (url.protocol === "http:" || url.protocol === "https:") && !request.targetSelector &&
    !request.waitForSelector;
}

/**
 * The page URL a service may be sent: {@link screenTarget} with the network
 * policy, then robots.txt when the policy respects it.
 *
 * @throws {GleanerError} `blocked_url` or `robots_disallowed`.
 */
export async function serviceTarget(
  url: URL,
  request: ReadRequest,
  config: Pick<ReadConfig, "network">,
  robots?: RobotsChecker,
): Promise<string> {
  const target = screenTarget(url, config.network);
  if (config.network.respect_robots) await robots?.assertAllowed(target, request.signal);
  return target;
}

/**
 * Checks the URL a service says it ended on (after its own redirects) with
 * the network policy: content from a private address is never returned.
 *
 * @throws {GleanerError} `blocked_url` naming the service.
 */
export function assertFinalAllowed(
  spec: ServiceSpec,
  finalUrl: string,
  policy: NetworkSection,
): void {
  let url: URL;
  try {
    url = new URL(finalUrl);
  } catch {
    return;
  }
  try {
    screenUrl(url.href, policy);
  } catch (error) {
    throw new GleanerError(
      "blocked_url",
      `${spec.title} ended on ${safeEndpoint(url)}, which the network policy refuses`,
      { cause: error },
    );
  }
}

/**
 * Creates the client of one service, with its own circuit breaker.
 *
 * @example
 * ```ts ignore
 * import { createServiceClient } from "./service.ts";
 * const client = createServiceClient({ name: "firecrawl", title: "Firecrawl", urlSetting: "read.firecrawl_url", keySetting: "read.firecrawl_api_key" });
 * const { value } = await client.call(context, { url: "https://api.firecrawl.dev/v1/scrape", method: "POST", json: { url }, timeoutMs: 45_000, maxBytes: 5_000_000 });
 * ```
 */
export function createServiceClient(
  spec: ServiceSpec,
  options: { now?: () => number } = {},
): ServiceClient {
  const breaker = createCircuitBreaker<ErrorCode>({
    failures: SERVICE_BREAKER_FAILURES,
    cooldownMs: SERVICE_BREAKER_COOLDOWN_MS,
    now: options.now,
  });

  const fail = (
    code: ErrorCode,
    what: string,
    field: string | undefined,
    extra: Record<string, unknown> = {},
    cause?: unknown,
  ) =>
    new GleanerError(code, `${spec.title}: ${what}`, {
      cause,
      details: { service: spec.name, ...extra, ...(field ? { field } : {}) },
    });

  /** A failure about the service itself: counted by the breaker. */
  const serviceFailure = (error: GleanerError, openForMs?: number): GleanerError => {
    breaker.failure(spec.name, error.code, openForMs);
    return error;
  };

  return {
    spec,
    async call(context, call) {
      const where = safeEndpoint(call.url);
      if (breaker.isOpen(spec.name)) {
        const last = breaker.status().find((s) => s.key === spec.name)?.lastReason ??
          "provider_unavailable";
        const setting = last === "unauthorized" || last === "insufficient_balance"
          ? spec.keySetting
          : spec.urlSetting;
        throw fail(
          last,
          `left alone for a while after failing (${last}); check ${setting}`,
          setting,
        );
      }
      let res: FetchedResponse;
      try {
        res = await context.fetcher.fetch(call.url, {
          method: call.method,
          headers: {
            Accept: "application/json",
            ...(call.json !== undefined ? { "Content-Type": "application/json" } : {}),
            ...(call.token ? { Authorization: `Bearer ${call.token}` } : {}),
          },
          body: call.json !== undefined ? JSON.stringify(call.json) : undefined,
          signal: call.signal,
          timeoutMs: call.timeoutMs,
          maxBytes: call.maxBytes,
          robots: false,
        });
      } catch (error) {
        const code = error instanceof GleanerError ? error.code : "provider_unavailable";
        if (call.signal?.aborted || code === "timeout") {
          // A caller's abort is the caller's; our deadline says the page took too long.
          throw fail("timeout", `${where} did not answer in time`, undefined, {}, error);
        }
        if (code === "too_large") {
          throw fail(
            "provider_unavailable",
            `${where} answered more than ${call.maxBytes} bytes`,
            spec.urlSetting,
            { reason: "too_large" },
            error,
          );
        }
        const why = code === "blocked_url" || code === "invalid_arguments"
          ? `may not be reached (${
            error instanceof Error ? error.message : "refused"
          }); a private or loopback instance must be listed in network.allow_private`
          : `could not be reached (${code})`;
        throw serviceFailure(
          fail("provider_unavailable", `${where} ${why}`, spec.urlSetting, {}, error),
        );
      }
      const status = res.status;
      if (status < 200 || status > 299) throw statusFailure(status, res.headers);
      breaker.success(spec.name);
      let value: unknown;
      try {
        value = JSON.parse(res.text());
      } catch (error) {
        throw serviceFailure(
          fail(
            "provider_unavailable",
            `${where} answered ${status} in an unreadable format`,
            spec.urlSetting,
            {
              status,
            },
            error,
          ),
        );
      }
      return { value, bytes: res.body.byteLength };

      function statusFailure(status: number, headers: Headers): GleanerError {
        const answered = `${where} answered HTTP ${status}`;
        if (status === 401 || status === 403) {
          return serviceFailure(
            fail("unauthorized", `${answered} (credentials refused)`, spec.keySetting, { status }),
            SERVICE_BREAKER_COOLDOWN_MS,
          );
        }
        if (status === 402) {
          return serviceFailure(
            fail("insufficient_balance", `${answered} (out of credit)`, spec.keySetting, {
              status,
            }),
            SERVICE_BREAKER_COOLDOWN_MS,
          );
        }
        if (status === 429) {
          const retry = parseRetryAfter(headers.get("retry-after"));
          return serviceFailure(
            fail("rate_limited", `${answered} (rate limited)`, spec.urlSetting, {
              status,
              ...(retry !== undefined ? { retry_after_s: retry } : {}),
            }),
            retry !== undefined ? Math.min(retry * 1000, 3_600_000) : SERVICE_BREAKER_COOLDOWN_MS,
          );
        }
        if (status === 408 || status === 504) {
          return fail("timeout", `${answered} (the page took too long)`, undefined, { status });
        }
        if (status >= 500) {
          return fail("provider_unavailable", `${answered} (could not read the page)`, undefined, {
            status,
          });
        }
        if (status === 400 || status === 422) {
          return fail(
            "unsupported_content",
            `${answered} (the service refused this URL)`,
            undefined,
            {
              status,
            },
          );
        }
        return serviceFailure(
          fail("provider_unavailable", `${answered}; check ${spec.urlSetting}`, spec.urlSetting, {
            status,
          }),
        );
      }
    },
  };
}

/** Joins a base URL setting and an endpoint path (`/v1/scrape`). */
export function endpoint(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}

/** Cuts Markdown to `max` characters at a line end when it can; says whether it cut. */
export function boundedMarkdown(markdown: string, max: number): { text: string; cut: boolean } {
  if (markdown.length <= max) return { text: markdown, cut: false };
  const head = markdown.slice(0, max);
  const line = head.lastIndexOf("\n");
  return { text: line > max * 0.8 ? head.slice(0, line) : head, cut: true };
}
