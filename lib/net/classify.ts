/**
 * One function decides what an upstream failure means, and so whether the
 * router may try the next provider: {@link classifyFailure}. Every provider
 * (keyed, and the keyless DuckDuckGo and SearXNG), the role router, and the
 * JSON endpoints Gleaner calls (the reranker, the language model in
 * `../json_endpoint.ts`) share it through {@link providerFailure} and
 * {@link responseFailure}.
 *
 * The provider's own documented error code in the body decides first, then
 * the status:
 *
 * | what happened | class | falls back |
 * | --- | --- | --- |
 * | a documented code for a bad, expired or blocked key (Brave `SUBSCRIPTION_TOKEN_INVALID`, Google `API_KEY_INVALID`, Exa and TinyFish `INVALID_API_KEY`, TinyFish `MISSING_API_KEY`, Jina `AuthenticationFailedError`, …) | `unauthorized` | yes |
 * | a documented code for spent credit or quota (Brave `QUOTA_LIMITED`, Exa `NO_MORE_CREDITS`, Jina `InsufficientBalanceError`, Google `BILLING_DISABLED`) | `insufficient_balance` | yes |
 * | a documented rate-limit code (Brave `RATE_LIMITED`, Google `RESOURCE_EXHAUSTED`, Jina `RateLimitTriggeredError`) | `rate_limited` | yes |
 * | HTTP 402, 432, 433 (Tavily's plan and pay-as-you-go limits) | `insufficient_balance` | yes |
 * | an error status in the body of a 2xx answer (Querit's `error_code`: 401, 429, 503, …) | as that status would be (codes and phrases of the body still decide first) | as that status |
 * | an error code in the body of a 2xx answer that is no HTTP error status | `unclassified` (`internal`) | no |
 * | HTTP 429 (`Retry-After`, else Google's `RetryInfo.retryDelay`, kept) | `rate_limited` | yes |
 * | HTTP 408, 5xx, transport error, unreadable 2xx body | `provider_unavailable` | yes |
 * | timeout | `timeout` | yes |
 * | HTTP 404, 410 (page not indexed, model retired, endpoint moved) | `not_found` | yes |
 * | HTTP 451, or a documented code for a page or domain the provider will not read (Jina `SecurityCompromiseError`, `HarmfulContentError`, …) | `refused` (`provider_unavailable`, outcome `blocked`) | yes, that page only; the provider stays healthy |
 * | HTTP 400 whose body says the query is over the provider's documented length (Tavily: "Query is too long. Max query length is 400 characters.") | `over_limit` (`too_large`) | yes; the provider stays healthy |
 * | the endpoint refused by Gleaner's network policy | `blocked` (`blocked_url`) | yes |
 * | HTTP 401, 403 | `unauthorized` | yes |
 * | HTTP 400, 422 without a code above (the request itself; the parameter the provider names, Brave's `meta.errors[].loc`, Google's `fieldViolations[].field` or FastAPI's `detail[].loc`, is kept in `details.field`) | `invalid_arguments` | no |
 * | anything else (409, …) | `unclassified` (`internal`) | no |
 *
 * Without a documented code, a body that says the account is out of credit
 * ("insufficient credits", "payment required", …) is `insufficient_balance`.
 * A `refused` or `over_limit` failure speaks of the request or the page, not
 * of the provider: its {@link SearchFailure} carries `details.refusal: true`,
 * and the role router does not count it against the provider's health.
 * Upstream bodies are read only for these codes and phrases; they are never
 * returned or logged. The documented code (from the table above only) is
 * kept in `details.upstream_code`.
 *
 * Sources of the codes:
 * - Brave: https://api-dashboard.search.brave.com/api-reference/web/search/get (422/429 `ErrorResponse`)
 * - Google: https://ai.google.dev/gemini-api/docs/troubleshooting,
 *   https://cloud.google.com/apis/design/errors and
 *   https://github.com/googleapis/googleapis/blob/master/google/api/error_reason.proto
 * - Exa: https://exa.ai/docs/admin/error-codes
 * - Tavily: https://docs.tavily.com/documentation/api-reference/endpoint/search (432, 433)
 * - Jina: https://github.com/jina-ai/reader (civkit `ApplicationError` names; the 451 family
 *   `HarmfulContentError` 45101, `SecurityCompromiseError` 45102 — anonymous access to a domain
 *   blocked after abuse —, `USGovernmentConcernError`, `ChineseGovernmentConcernError`,
 *   `EUGovernmentConcernError` in `src/services/errors.ts`)
 * - Tavily's query limit: https://docs.tavily.com/documentation/best-practices/best-practices-search
 *   ("Keep your query under 400 characters", with the 400 body
 *   `{"detail":{"error":"Query is too long. Max query length is 400 characters."}}`)
 * - Querit: https://www.querit.ai/en/docs/reference/post; `error_code` 200 on success, else the
 *   HTTP status it stands for, also inside an HTTP 200 answer
 *   (https://github.com/querit-ai/querit-plugins/blob/main/zapier-querit/test/web-search.test.js,
 *   Querit's own client tests: `{"error_code":"429","error_msg":"Search quota exceeded."}` on HTTP 200)
 * - TinyFish: https://docs.tinyfish.ai/error-codes (`error.code`; `INVALID_INPUT`
 *   names the field in `error.details[].path`)
 *
 * @module
 */
import { type ErrorCode, GleanerError } from "../errors.ts";
import type { FetchedResponse } from "./types.ts";
import { type FailureOutcome, SearchFailure } from "./upstream_failure.ts";
import { safeEndpoint } from "../config/redact.ts";

/** What a failure means for routing. */
export type FailureClass =
  | "insufficient_balance"
  | "rate_limited"
  | "provider_unavailable"
  | "timeout"
  | "not_found"
  | "refused"
  | "over_limit"
  | "blocked"
  | "invalid_arguments"
  | "unauthorized"
  | "unclassified";

/** What {@link classifyFailure} looks at. */
export interface FailureEvidence {
  /** HTTP status, when a response arrived. */
  status?: number;
  /** Response body, when one arrived (only searched for documented codes and credit phrases). */
  body?: string;
  /** Response headers (for `Retry-After`). */
  headers?: Headers;
  /** What was thrown instead of a response (timeout, refused connection, …). */
  error?: unknown;
  /** True when a 2xx body could not be parsed. */
  unreadable?: boolean;
  /**
   * The error status a provider reported in the body of a 2xx answer
   * (Querit's `error_code` other than 200): the answer is classified as if it
   * had carried this status. `NaN` (or anything outside 400-599) for a code
   * that is no HTTP status.
   */
  bodyStatus?: number;
}

/** The verdict of {@link classifyFailure}. */
export interface Classification {
  /** The class. */
  kind: FailureClass;
  /** Seconds to wait before asking again (from `Retry-After`), when given. */
  retry_after_s?: number;
  /** The provider's documented error code that decided, when one did. */
  upstream_code?: string;
  /**
   * The request parameter the provider named as invalid (Brave's
   * `meta.errors[].loc`, Google's `BadRequest.fieldViolations[].field`), when
   * it named one.
   */
  field?: string;
}

/**
 * Documented error codes and what they mean. Keys are the exact strings the
 * services send (Brave `error.code`, Google `error.status` and
 * `error.details[].reason`, Exa `tag`, Jina `name`).
 */
const UPSTREAM_CODES: Readonly<Record<string, FailureClass>> = {
  // Brave Search API (ErrorResponse.error.code).
  SUBSCRIPTION_TOKEN_INVALID: "unauthorized",
  SUBSCRIPTION_NOT_FOUND: "unauthorized",
  RATE_LIMITED: "rate_limited",
  QUOTA_LIMITED: "insufficient_balance",
  // Google APIs (google.rpc.Status.status and google.rpc.ErrorInfo.reason).
  API_KEY_INVALID: "unauthorized",
  API_KEY_SERVICE_BLOCKED: "unauthorized",
  API_KEY_HTTP_REFERRER_BLOCKED: "unauthorized",
  API_KEY_IP_ADDRESS_BLOCKED: "unauthorized",
  SERVICE_DISABLED: "unauthorized",
  CONSUMER_INVALID: "unauthorized",
  PERMISSION_DENIED: "unauthorized",
  UNAUTHENTICATED: "unauthorized",
  BILLING_DISABLED: "insufficient_balance",
  RESOURCE_EXHAUSTED: "rate_limited",
  RATE_LIMIT_EXCEEDED: "rate_limited",
  FAILED_PRECONDITION: "provider_unavailable",
  NOT_FOUND: "not_found",
  // Exa (tag).
  INVALID_API_KEY: "unauthorized",
  ACCESS_DENIED: "unauthorized",
  FEATURE_DISABLED: "unauthorized",
  NO_MORE_CREDITS: "insufficient_balance",
  API_KEY_BUDGET_EXCEEDED: "insufficient_balance",
  // TinyFish (error.code; INVALID_API_KEY as Exa's).
  MISSING_API_KEY: "unauthorized",
  // Jina (name).
  AuthenticationRequiredError: "unauthorized",
  AuthenticationFailedError: "unauthorized",
  InsufficientBalanceError: "insufficient_balance",
  RateLimitTriggeredError: "rate_limited",
  // Jina's 451 family (a page or domain the reader will not read).
  HarmfulContentError: "refused",
  SecurityCompromiseError: "refused",
  USGovernmentConcernError: "refused",
  ChineseGovernmentConcernError: "refused",
  EUGovernmentConcernError: "refused",
};

/** Phrases providers use in bodies when an account has run out of credit. */
const BALANCE_PHRASES =
  /insufficient[ _-]?(credit|balance|fund|quota)|out of credits?|no (remaining )?credits|credits? (exhausted|depleted)|credit limit|usage limit exceeded|exceeded your (current )?plan|payment required|quota[ _-]?exceeded/i;

/**
 * Phrases of a 400 that says the query is over the provider's documented
 * length (Tavily's `detail.error`), not that the request is malformed.
 */
const OVER_LIMIT_PHRASES = /query is too long|max(imum)? query length/i;

/** Largest body searched for codes (error bodies are small; anything larger is not one). */
const BODY_SCAN_CHARS = 65_536;

/**
 * Parses a `Retry-After` value (seconds or an HTTP date) into seconds.
 *
 * @example
 * ```ts
 * import { parseRetryAfter } from "./classify.ts";
 * console.assert(parseRetryAfter("7") === 7);
 * console.assert(parseRetryAfter(null) === undefined);
 * ```
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the documented fields of an error body say. */
interface BodySignals {
  /** Candidate codes, most specific first. */
  codes: string[];
  /** Seconds from Google's `RetryInfo.retryDelay`. */
  retryDelayS?: number;
  /** Brave `VALIDATION` about the `x-subscription-token` header: a missing or malformed key. */
  tokenHeader: boolean;
  /** The first request parameter named as invalid. */
  field?: string;
}

/** A parameter name as it may be shown (never free text from the body). */
function fieldName(value: unknown): string | undefined {
  return typeof value === "string" && /^[A-Za-z_][A-Za-z0-9_.\-[\]]{0,59}$/.test(value)
    ? value
    : undefined;
}

/** A FastAPI `loc` as a parameter path (`["body", "inputs", 0, "processor"]` → `inputs[0].processor`). */
function locPath(loc: unknown[]): string | undefined {
  const parts = ["body", "query", "header", "path"].includes(String(loc[0])) ? loc.slice(1) : loc;
  let path = "";
  for (const part of parts) {
    if (typeof part === "number" && Number.isInteger(part)) path += `[${part}]`;
    else if (typeof part === "string") path += path ? `.${part}` : part;
    else return undefined;
  }
  return path || undefined;
}

/** Reads the documented error fields of a JSON body (nothing else). */
function bodySignals(body: string | undefined): BodySignals {
  const out: BodySignals = { codes: [], tokenHeader: false };
  if (!body || body.length > BODY_SCAN_CHARS) return out;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return out;
  }
  if (!isObject(value)) return out;
  const push = (code: unknown) => {
    if (typeof code === "string" && code.length <= 64) out.codes.push(code);
  };
  const error = value.error;
  if (isObject(error)) {
    if (Array.isArray(error.details)) {
      for (const detail of error.details) {
        if (!isObject(detail)) continue;
        push(detail.reason);
        // TinyFish INVALID_INPUT: zod issues, each naming the field in `path`.
        if (Array.isArray(detail.path) && detail.path.length > 0) {
          out.field ??= fieldName(detail.path.map(String).join("."));
        }
        if (Array.isArray(detail.fieldViolations)) {
          const first = detail.fieldViolations.find(isObject);
          out.field ??= fieldName(first?.field);
        }
        if (typeof detail.retryDelay === "string") {
          const match = /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay.trim());
          if (match) out.retryDelayS = Math.ceil(Number(match[1]));
        }
      }
    }
    push(error.code);
    push(error.status);
    const meta = isObject(error.meta) ? error.meta : {};
    if (error.code === "VALIDATION" && Array.isArray(meta.errors)) {
      out.tokenHeader = meta.errors.some((e) =>
        isObject(e) && Array.isArray(e.loc) &&
        e.loc.some((part) => String(part).toLowerCase() === "x-subscription-token")
      );
      const first = meta.errors.find((e) => isObject(e) && Array.isArray(e.loc));
      if (isObject(first) && Array.isArray(first.loc)) out.field ??= fieldName(first.loc.at(-1));
    }
  }
  if (Array.isArray(value.errors)) {
    for (const e of value.errors) if (isObject(e)) push(e.code);
  }
  push(value.tag);
  push(value.name);
  // FastAPI's `HTTPValidationError` (Parallel's Task Group and FindAll endpoints,
  // https://docs.parallel.ai/api-reference/tasks/add-runs-to-task-group): `detail[].loc`.
  if (Array.isArray(value.detail)) {
    const first = value.detail.find((d) => isObject(d) && Array.isArray(d.loc));
    if (isObject(first) && Array.isArray(first.loc)) out.field ??= fieldName(locPath(first.loc));
  }
  return out;
}

/** True for a 2xx status. */
function isSuccess(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

/** True for a timeout, however it was thrown. */
function isTimeout(error: unknown): boolean {
  if (error instanceof GleanerError) return error.code === "timeout";
  return error instanceof DOMException &&
    (error.name === "TimeoutError" || error.name === "AbortError");
}

/**
 * Classifies one upstream failure (see the module table).
 *
 * @example
 * ```ts
 * import { classifyFailure } from "./classify.ts";
 * console.assert(classifyFailure({ status: 402 }).kind === "insufficient_balance");
 * const brave = '{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","status":422}}';
 * console.assert(classifyFailure({ status: 422, body: brave }).kind === "unauthorized");
 * console.assert(classifyFailure({ status: 503 }).kind === "provider_unavailable");
 * console.assert(classifyFailure({ status: 422 }).kind === "invalid_arguments");
 * // Querit reports errors inside an HTTP 200 answer.
 * console.assert(classifyFailure({ status: 200, bodyStatus: 401 }).kind === "unauthorized");
 * ```
 */
export function classifyFailure(evidence: FailureEvidence): Classification {
  const { bodyStatus } = evidence;
  const inBody = bodyStatus !== undefined && isSuccess(evidence.status);
  if (inBody && !(Number.isInteger(bodyStatus) && bodyStatus >= 400 && bodyStatus <= 599)) {
    return { kind: "unclassified" };
  }
  const status = inBody ? bodyStatus : evidence.status;
  if (status === undefined) {
    const error = evidence.error;
    if (error === undefined && !evidence.unreadable) return { kind: "unclassified" };
    if (isTimeout(error)) return { kind: "timeout" };
    if (error instanceof GleanerError) {
      if (error.code === "rate_limited") return { kind: "rate_limited" };
      // The fetcher refused the configured endpoint (network policy): a configuration problem.
      if (error.code === "blocked_url" || error.code === "invalid_arguments") {
        return { kind: "blocked" };
      }
    }
    return { kind: "provider_unavailable" };
  }
  if (status >= 200 && status < 300) {
    return { kind: evidence.unreadable ? "provider_unavailable" : "unclassified" };
  }
  const signals = bodySignals(evidence.body);
  const retry = () => parseRetryAfter(evidence.headers?.get("retry-after")) ?? signals.retryDelayS;
  const withRetry = (c: Classification): Classification => {
    if (c.kind !== "rate_limited") return c;
    const s = retry();
    return s === undefined ? c : { ...c, retry_after_s: s };
  };
  if (status >= 400) {
    for (const code of signals.codes) {
      const kind = Object.hasOwn(UPSTREAM_CODES, code) ? UPSTREAM_CODES[code] : undefined;
      if (kind) return withRetry({ kind, upstream_code: code });
    }
    if (signals.tokenHeader) return { kind: "unauthorized", upstream_code: "VALIDATION" };
  }
  if (status === 402 || status === 432 || status === 433) return { kind: "insufficient_balance" };
  if (status >= 400 && evidence.body && BALANCE_PHRASES.test(evidence.body.slice(0, 4000))) {
    return { kind: "insufficient_balance" };
  }
  if (status === 429) return withRetry({ kind: "rate_limited" });
  if (status === 408 || status >= 500) return { kind: "provider_unavailable" };
  if (status === 404 || status === 410) return { kind: "not_found" };
  if (status === 451) return { kind: "refused" };
  if (status === 400 && evidence.body && OVER_LIMIT_PHRASES.test(evidence.body.slice(0, 4000))) {
    return { kind: "over_limit", field: "query" };
  }
  if (status === 400 || status === 422) {
    return signals.field
      ? { kind: "invalid_arguments", field: signals.field }
      : { kind: "invalid_arguments" };
  }
  if (status === 401 || status === 403) return { kind: "unauthorized" };
  return { kind: "unclassified" };
}

/** The error code each class is reported under. */
const CLASS_CODES: Readonly<Record<FailureClass, ErrorCode>> = {
  insufficient_balance: "insufficient_balance",
  rate_limited: "rate_limited",
  provider_unavailable: "provider_unavailable",
  timeout: "timeout",
  not_found: "not_found",
  refused: "provider_unavailable",
  over_limit: "too_large",
  blocked: "blocked_url",
  invalid_arguments: "invalid_arguments",
  unauthorized: "unauthorized",
  unclassified: "internal",
};

/** The attempt outcome each class is recorded under. */
const CLASS_OUTCOMES: Readonly<Record<FailureClass, FailureOutcome>> = {
  insufficient_balance: "unavailable",
  rate_limited: "rate_limited",
  provider_unavailable: "unavailable",
  timeout: "unavailable",
  not_found: "unavailable",
  refused: "blocked",
  over_limit: "invalid",
  blocked: "invalid",
  invalid_arguments: "invalid",
  unauthorized: "invalid",
  unclassified: "invalid",
};

/**
 * Codes after which the router tries the next provider: every failure that
 * comes from the provider's state (key, credit, plan, limits, outage, a page
 * or model it does not have, an endpoint the network policy refuses) or from
 * a documented limit of that provider alone (`too_large`: a query over its
 * length, which another provider may take). A request the provider calls
 * invalid, and an unclassified failure, stop.
 */
export const FALLBACK_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "insufficient_balance",
  "rate_limited",
  "provider_unavailable",
  "timeout",
  "unauthorized",
  "blocked_url",
  "not_found",
  "too_large",
]);

/** What a failure class says in a message. */
const CLASS_WORDS: Readonly<Record<FailureClass, string>> = {
  insufficient_balance: "out of credit",
  rate_limited: "rate limited",
  provider_unavailable: "unavailable",
  timeout: "timed out",
  not_found: "does not have it",
  refused: "refuses to read this page or domain",
  over_limit: "refused the request as over its documented limit",
  blocked: "refused by the network policy",
  invalid_arguments: "refused the request as invalid",
  unauthorized: "refused the credentials",
  unclassified: "failed",
};

/**
 * When `error` is a host name that could not be resolved (see `networkError`),
 * its message (`could not resolve <host>: …`), ending with the setting to
 * check when one is given; otherwise `undefined`.
 *
 * @example
 * ```ts
 * import { GleanerError } from "@gleaner/gleaner";
 * import { unresolvedHost } from "./classify.ts";
 * const error = new GleanerError("not_found", "could not resolve searx.lan: no such host name", {
 *   details: { host: "searx.lan" },
 * });
 * console.assert(unresolvedHost(error, "search.searxng_url")!.endsWith("; check search.searxng_url"));
 * ```
 *
 * @internal exported for tests only
 */
export function unresolvedHost(error: unknown, setting?: string): string | undefined {
  if (!(error instanceof GleanerError) || typeof error.details?.host !== "string") return undefined;
  if (!error.message.startsWith("could not resolve ")) return undefined;
  return setting && !error.message.includes(setting)
    ? `${error.message}; check ${setting}`
    : error.message;
}

/**
 * The {@link SearchFailure} for a classified failure: the message names the
 * provider, the endpoint (origin and path only), the status and the
 * documented code, never the body or a credential. `setting` is where the
 * endpoint is configured (named when its host does not resolve); `check`
 * names the setting to check for some classes (`unauthorized`: the key).
 *
 * @example
 * ```ts
 * import { providerFailure } from "./classify.ts";
 * const failure = providerFailure("exa", "https://api.exa.ai/search?k=1", { status: 429, headers: new Headers({ "retry-after": "3" }) });
 * console.assert(failure.code === "rate_limited" && failure.details?.retry_after_s === 3);
 * console.assert(!failure.message.includes("k=1"));
 * ```
 */
export function providerFailure(
  provider: string,
  endpoint: string | URL | undefined,
  evidence: FailureEvidence,
  setting = `search.providers.${provider}.base_url`,
  check: Partial<Record<FailureClass, string>> = {},
): SearchFailure {
  const verdict = classifyFailure(evidence);
  const checkSetting = Object.hasOwn(check, verdict.kind) ? check[verdict.kind] : undefined;
  const hint = checkSetting ? `; check ${checkSetting}` : "";
  const where = endpoint ? safeEndpoint(endpoint) : "the upstream";
  const unresolved = unresolvedHost(evidence.error, setting);
  const inBody = evidence.bodyStatus !== undefined && isSuccess(evidence.status);
  const what = evidence.status !== undefined
    ? evidence.unreadable
      ? "answered in an unreadable format"
      : inBody
      ? `answered HTTP ${evidence.status} with error code ${
        Number.isFinite(evidence.bodyStatus) ? evidence.bodyStatus : "(not a status)"
      } in its body`
      : `answered HTTP ${evidence.status}`
    : verdict.kind === "timeout"
    ? "timed out"
    : verdict.kind === "blocked"
    ? "may not be reached"
    : verdict.kind === "rate_limited"
    ? "is rate limiting"
    : "could not be reached";
  const words = CLASS_WORDS[verdict.kind];
  const why = verdict.upstream_code
    ? `${words}: ${verdict.upstream_code}`
    : verdict.field
    ? `${words}: parameter ${verdict.field}`
    : words;
  const policy = verdict.kind === "blocked" && evidence.error instanceof GleanerError
    ? ` ${evidence.error.message}`
    : "";
  // The configured address is private: say which setting holds it and which one allows it.
  const privateEndpoint = verdict.kind === "blocked" && evidence.error instanceof GleanerError &&
    evidence.error.details?.setting === "network.allow_private";
  return new SearchFailure(
    CLASS_OUTCOMES[verdict.kind],
    // A name that did not resolve says so, and which setting holds it, on its own.
    unresolved
      ? `${provider}: ${unresolved}`
      : privateEndpoint
      ? `${provider}: the address in ${setting} is private:${policy}`
      : `${provider}: ${where} ${what} (${why})${hint}${policy}`,
    {
      backend: provider,
      code: CLASS_CODES[verdict.kind],
      cause: evidence.error,
      details: {
        provider,
        ...(evidence.status !== undefined ? { status: evidence.status } : {}),
        ...(inBody && Number.isFinite(evidence.bodyStatus)
          ? { body_status: evidence.bodyStatus }
          : {}),
        ...(verdict.retry_after_s !== undefined ? { retry_after_s: verdict.retry_after_s } : {}),
        ...(verdict.upstream_code ? { upstream_code: verdict.upstream_code } : {}),
        ...(verdict.field
          ? { field: verdict.field }
          : unresolved || privateEndpoint
          ? { field: setting }
          : {}),
        ...(verdict.kind === "refused" || verdict.kind === "over_limit" ? { refusal: true } : {}),
      },
    },
  );
}

/**
 * The {@link providerFailure} for a non-2xx response: its status, headers and
 * body (read only for the documented codes) are the evidence.
 */
export function responseFailure(
  provider: string,
  endpoint: string | URL,
  res: FetchedResponse,
  setting?: string,
  check?: Partial<Record<FailureClass, string>>,
): SearchFailure {
  let body = "";
  try {
    body = res.text();
  } catch {
    // An undecodable body is no evidence.
  }
  return providerFailure(
    provider,
    endpoint,
    { status: res.status, headers: res.headers, body },
    setting,
    check,
  );
}
