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
  "selector_not_found",
  "unauthorized",
  "search_disabled",
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
  selector_not_found: 404,
  unauthorized: 401,
  search_disabled: 403,
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

const PERMISSION_FLAGS: Record<string, string> = {
  net: "--allow-net",
  read: "--allow-read",
  write: "--allow-write",
  env: "--allow-env",
  ffi: "--allow-ffi",
  run: "--allow-run",
  sys: "--allow-sys",
  import: "--allow-import",
};

/**
 * When `error` is a missing Deno permission, an `internal` {@link GleanerError}
 * whose message names the flag to add (`--allow-net`, `--allow-read`, …) and,
 * when Deno named what was refused, the value to add to a scoped grant
 * (`--allow-read=/srv/gleaner`, `--allow-env=GLEANER_DB`); `details` carry
 * `permission`, `flag` and `value`. Recognises `Deno.errors.NotCapable` (and
 * `PermissionDenied` raised by a permission check) and the `EPERM` that
 * `node:dns` reports for a lookup without `--allow-net`.
 *
 * @example
 * ```ts
 * import { permissionError } from "./errors.ts";
 * const denied = new Deno.errors.NotCapable(
 *   'Requires net access to "example.com:443", run again with the --allow-net flag',
 * );
 * console.assert(permissionError(denied, "scrape_urls")?.message.includes("--allow-net"));
 * const read = new Deno.errors.NotCapable(
 *   'Requires read access to "/srv/gleaner/gleaner.db", run again with the --allow-read flag',
 * );
 * console.assert(
 *   permissionError(read, "store")?.message.includes("--allow-read=/srv/gleaner/gleaner.db"),
 * );
 * console.assert(permissionError(new Error("boom")) === undefined);
 * ```
 */
export function permissionError(error: unknown, context = "operation"): GleanerError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = String((error as { code?: unknown }).code ?? "");
  const syscall = String((error as { syscall?: unknown }).syscall ?? "");
  let kind: string | undefined;
  let value: string | undefined;
  const match = /Requires (\w+) access(?: to "([^"]*)"| to ([^,]+))?/.exec(error.message);
  if (error instanceof Deno.errors.NotCapable || match) {
    kind = match?.[1] ?? /--allow-(\w+)/.exec(error.message)?.[1];
    value = match?.[2] ?? match?.[3]?.trim();
  } else if (code === "EPERM" && syscall === "getaddrinfo") {
    kind = "net";
  }
  if (!kind) return undefined;
  const flag = PERMISSION_FLAGS[kind] ?? `--allow-${kind}`;
  const what = value !== undefined ? ` to "${value}"` : "";
  // A value with a comma cannot be written in a flag's list (Deno splits it there), and
  // `--allow-sys=ca` is not accepted (node:https's trust store needs the whole --allow-sys).
  const scoped = value !== undefined && value !== "" && !value.includes(",") &&
      !(kind === "sys" && value === "ca")
    ? `; run with ${flag}, or add it to a scoped grant: ${flag}=${value}`
    : `; run with ${flag}`;
  return new GleanerError(
    "internal",
    `${context}: Deno permission missing (${kind} access${what})${scoped}`,
    { cause: error, details: { permission: kind, flag, ...(value ? { value } : {}) } },
  );
}

const NO_SUCH_NAME = new Set(["ENOTFOUND", "EAI_NONAME", "EAI_NODATA"]);
const NO_RESOLVER = new Set(["EAI_AGAIN", "EAI_FAIL"]);
const NO_NETWORK = new Set(["ENETUNREACH", "ENETDOWN"]);

/**
 * Maps a name-resolution or connection failure to what it means for `origin`:
 * a name that does not exist is `not_found`, a resolver or network that cannot
 * be reached (`EAI_AGAIN`, `ENETUNREACH`, …) is `provider_unavailable`; both
 * name the host (`could not resolve <host>`) and, when the address came from a
 * setting, that setting (`setting`: `search.searxng_url`, …). A missing
 * `--allow-net` names the flag. `undefined` for anything else.
 *
 * @example
 * ```ts
 * import { networkError } from "./errors.ts";
 * const offline = Object.assign(new Error("getaddrinfo EAI_AGAIN"), { code: "EAI_AGAIN" });
 * console.assert(networkError(offline, "https://example.com")?.code === "provider_unavailable");
 * const missing = Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
 * const named = networkError(missing, "https://searx.lan", "search.searxng_url")!;
 * console.assert(named.code === "not_found");
 * console.assert(named.message === "could not resolve searx.lan: no such host name (ENOTFOUND); check search.searxng_url");
 * ```
 */
export function networkError(
  error: unknown,
  origin: string,
  setting?: string,
): GleanerError | undefined {
  if (error instanceof GleanerError) return error;
  const permission = permissionError(error, origin);
  if (permission) return permission;
  const code = String((error as { code?: unknown })?.code ?? "");
  const hint = setting ? `; check ${setting}` : "";
  const details = (host: string) => ({ cause: code, host, ...(setting ? { setting } : {}) });
  if (NO_SUCH_NAME.has(code)) {
    const host = hostOf(error, origin);
    return new GleanerError(
      "not_found",
      `could not resolve ${host}: no such host name (${code})${hint}`,
      { cause: error, details: details(host) },
    );
  }
  if (NO_RESOLVER.has(code)) {
    const host = hostOf(error, origin);
    return new GleanerError(
      "provider_unavailable",
      `could not resolve ${host}: the network or DNS server is unreachable (${code})${hint}`,
      { cause: error, details: details(host) },
    );
  }
  if (NO_NETWORK.has(code)) {
    return new GleanerError(
      "provider_unavailable",
      `cannot reach ${origin}: the network is unreachable (${code})${hint}`,
      { cause: error, details: { cause: code, ...(setting ? { setting } : {}) } },
    );
  }
  return undefined;
}

/** The host name a failed lookup was for: the error's own, else the origin's. */
function hostOf(error: unknown, origin: string): string {
  const named = (error as { hostname?: unknown })?.hostname;
  if (typeof named === "string" && named !== "") return named;
  try {
    return new URL(origin).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return origin;
  }
}

/**
 * Turns anything thrown into a {@link GleanerError}; unknown failures become
 * `internal` (or `timeout` for aborts) without leaking their message; a
 * missing Deno permission names the flag to add ({@link permissionError}).
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
  const permission = permissionError(error, context);
  if (permission) return permission;
  return new GleanerError("internal", `${context} failed unexpectedly`, { cause: error });
}

/** True when the value is a {@link GleanerError} with the given code. */
export function isErrorCode(error: unknown, code: ErrorCode): boolean {
  return error instanceof GleanerError && error.code === code;
}
