/**
 * One function decides what a provider failure means, and so whether the
 * router may try the next provider: {@link classifyFailure}.
 *
 * | what happened | class |
 * | --- | --- |
 * | HTTP 402, 432, 433, or an "insufficient credits/balance/quota" body | `insufficient_balance` |
 * | HTTP 429 (`Retry-After` kept) | `rate_limited` |
 * | HTTP 408, 5xx, timeout, transport error, unreadable 2xx body | `provider_unavailable` |
 * | HTTP 400, 422 | `invalid_arguments` |
 * | HTTP 401, 403 | `unauthorized` |
 * | anything else (404, 409, …) | `unclassified` |
 *
 * Upstream bodies are read only to look for the credit phrases; they are never
 * returned or logged.
 *
 * @module
 */
import { type ErrorCode, GleanerError } from "../../errors.ts";
import { type FailureOutcome, SearchFailure } from "../types.ts";
import { safeEndpoint, unresolvedHost } from "../upstream.ts";

/** What a failure means for routing. */
export type FailureClass =
  | "insufficient_balance"
  | "rate_limited"
  | "provider_unavailable"
  | "invalid_arguments"
  | "unauthorized"
  | "unclassified";

/** What {@link classifyFailure} looks at. */
export interface FailureEvidence {
  /** HTTP status, when a response arrived. */
  status?: number;
  /** Response body, when one arrived (only searched for credit phrases). */
  body?: string;
  /** Response headers (for `Retry-After`). */
  headers?: Headers;
  /** What was thrown instead of a response (timeout, refused connection, …). */
  error?: unknown;
  /** True when a 2xx body could not be parsed. */
  unreadable?: boolean;
}

/** The verdict of {@link classifyFailure}. */
export interface Classification {
  /** The class. */
  kind: FailureClass;
  /** Seconds to wait before asking again (from `Retry-After`), when given. */
  retry_after_s?: number;
}

/** Phrases providers use in bodies when an account has run out of credit. */
const BALANCE_PHRASES =
  /insufficient[ _-]?(credit|balance|fund|quota)|out of credits?|no (remaining )?credits|credits? (exhausted|depleted)|credit limit|usage limit exceeded|exceeded your (current )?(quota|plan)|payment required|quota[ _-]?exceeded/i;

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

/**
 * Classifies one provider failure (see the module table).
 *
 * @example
 * ```ts
 * import { classifyFailure } from "./classify.ts";
 * console.assert(classifyFailure({ status: 402 }).kind === "insufficient_balance");
 * console.assert(classifyFailure({ status: 403, body: '{"error":"Insufficient credits"}' }).kind === "insufficient_balance");
 * console.assert(classifyFailure({ status: 503 }).kind === "provider_unavailable");
 * console.assert(classifyFailure({ status: 422 }).kind === "invalid_arguments");
 * ```
 */
export function classifyFailure(evidence: FailureEvidence): Classification {
  const { status } = evidence;
  if (status === undefined) {
    return {
      kind: evidence.error !== undefined || evidence.unreadable
        ? "provider_unavailable"
        : "unclassified",
    };
  }
  if (status >= 200 && status < 300) {
    return { kind: evidence.unreadable ? "provider_unavailable" : "unclassified" };
  }
  if (status === 402 || status === 432 || status === 433) return { kind: "insufficient_balance" };
  if (status >= 400 && evidence.body && BALANCE_PHRASES.test(evidence.body.slice(0, 4000))) {
    return { kind: "insufficient_balance" };
  }
  if (status === 429) {
    const retry = parseRetryAfter(evidence.headers?.get("retry-after"));
    return retry === undefined
      ? { kind: "rate_limited" }
      : { kind: "rate_limited", retry_after_s: retry };
  }
  if (status === 408 || status >= 500) return { kind: "provider_unavailable" };
  if (status === 400 || status === 422) return { kind: "invalid_arguments" };
  if (status === 401 || status === 403) return { kind: "unauthorized" };
  return { kind: "unclassified" };
}

/** The error code each class is reported under. */
export const CLASS_CODES: Readonly<Record<FailureClass, ErrorCode>> = {
  insufficient_balance: "insufficient_balance",
  rate_limited: "rate_limited",
  provider_unavailable: "provider_unavailable",
  invalid_arguments: "invalid_arguments",
  unauthorized: "unauthorized",
  unclassified: "internal",
};

/** The attempt outcome each class is recorded under. */
const CLASS_OUTCOMES: Readonly<Record<FailureClass, FailureOutcome>> = {
  insufficient_balance: "unavailable",
  rate_limited: "rate_limited",
  provider_unavailable: "unavailable",
  invalid_arguments: "invalid",
  unauthorized: "invalid",
  unclassified: "invalid",
};

/** Codes after which the router tries the next provider. */
export const FALLBACK_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "insufficient_balance",
  "rate_limited",
  "provider_unavailable",
  "timeout",
  "unauthorized",
  "blocked_url",
  "not_found",
]);

/** What a failure class says in a message. */
const CLASS_WORDS: Readonly<Record<FailureClass, string>> = {
  insufficient_balance: "out of credit",
  rate_limited: "rate limited",
  provider_unavailable: "unavailable",
  invalid_arguments: "refused the request as invalid",
  unauthorized: "refused the credentials",
  unclassified: "failed",
};

/**
 * The {@link SearchFailure} for a classified failure: the message names the
 * provider, the endpoint (origin and path only) and the status, never the body
 * or a credential.
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
  endpoint: string | URL,
  evidence: FailureEvidence,
): SearchFailure {
  const verdict = classifyFailure(evidence);
  const where = safeEndpoint(endpoint);
  const timedOut = evidence.error instanceof GleanerError
    ? evidence.error.code === "timeout"
    : evidence.error instanceof DOMException && evidence.error.name === "TimeoutError";
  const unresolved = unresolvedHost(evidence.error, `search.providers.${provider}.base_url`);
  const what = evidence.status !== undefined
    ? evidence.unreadable ? "answered in an unreadable format" : `answered HTTP ${evidence.status}`
    : timedOut
    ? "timed out"
    : unresolved
    ? `could not be reached: ${unresolved}`
    : "could not be reached";
  return new SearchFailure(
    CLASS_OUTCOMES[verdict.kind],
    `${provider}: ${where} ${what} (${CLASS_WORDS[verdict.kind]})`,
    {
      backend: provider,
      code: CLASS_CODES[verdict.kind],
      cause: evidence.error,
      details: {
        provider,
        ...(evidence.status !== undefined ? { status: evidence.status } : {}),
        ...(verdict.retry_after_s !== undefined ? { retry_after_s: verdict.retry_after_s } : {}),
      },
    },
  );
}
