/**
 * Errors a user of Gleaner can meet, each with a stable machine-readable code.
 *
 * @module
 */

/** Every stable error code Gleaner reports. */
export const ERROR_CODES = [
  "invalid_arguments",
  "blocked_url",
  "robots_disallowed",
  "rate_limited",
  "insufficient_balance",
  "provider_unavailable",
  "timeout",
  "too_large",
  "unsupported_content",
  "not_found",
  "unauthorized",
  "internal",
] as const;

/** A stable error code. */
export type ErrorCode = typeof ERROR_CODES[number];

/** HTTP status that best describes each code, used by the HTTP surface. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_arguments: 400,
  blocked_url: 403,
  robots_disallowed: 403,
  rate_limited: 429,
  insufficient_balance: 402,
  provider_unavailable: 502,
  timeout: 504,
  too_large: 413,
  unsupported_content: 415,
  not_found: 404,
  unauthorized: 401,
  internal: 500,
};

/**
 * The one error type Gleaner throws. Messages name the offending field or URL
 * and never echo secrets or upstream error bodies.
 *
 * @example
 * ```ts
 * import { GleanerError } from "@gleaner/gleaner";
 * const err = new GleanerError("blocked_url", "http://127.0.0.1/ resolves to a private address");
 * console.assert(err.code === "blocked_url");
 * ```
 */
export class GleanerError extends Error {
  /** The stable code. */
  readonly code: ErrorCode;
  /** Extra structured details safe to show (no secrets). */
  readonly details?: Record<string, unknown>;

  /** Creates an error with a stable code and a message for humans. */
  constructor(
    code: ErrorCode,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, { cause: options?.cause });
    this.name = "GleanerError";
    this.code = code;
    this.details = options?.details;
  }

  /** The JSON form used by every surface: `{ code, message }`. */
  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

/**
 * Turns anything thrown into a {@link GleanerError}; unknown failures become
 * `internal` (or `timeout` for aborts) without leaking their message.
 *
 * @example
 * ```ts
 * import { toGleanerError } from "./errors.ts";
 * const err = toGleanerError(new DOMException("x", "TimeoutError"));
 * console.assert(err.code === "timeout");
 * ```
 */
export function toGleanerError(error: unknown, context = "operation"): GleanerError {
  if (error instanceof GleanerError) return error;
  if (
    error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")
  ) {
    return new GleanerError("timeout", `${context} timed out`, { cause: error });
  }
  return new GleanerError("internal", `${context} failed unexpectedly`, { cause: error });
}

/** True when the value is a {@link GleanerError} with the given code. */
export function isErrorCode(error: unknown, code: ErrorCode): boolean {
  return error instanceof GleanerError && error.code === code;
}
