/**
 * Shared plumbing of search backends: calling an upstream through the guarded
 * fetcher and turning whatever went wrong into a {@link SearchFailure}.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import type { FetchedResponse, Fetcher, FetchOptions } from "../net/types.ts";
import { SearchFailure } from "./types.ts";

/**
 * An endpoint as it may appear in messages: origin and path only, so
 * credentials or query strings in a configured URL are never shown.
 *
 * @example
 * ```ts
 * import { safeEndpoint } from "./upstream.ts";
 * console.assert(safeEndpoint("https://u:p@searx.example/search?x=1") === "https://searx.example/search");
 * ```
 */
export function safeEndpoint(url: string | URL): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

/**
 * Converts anything a backend call threw into a {@link SearchFailure}:
 * timeouts and network errors are `unavailable`, an address the network
 * policy refuses is `invalid` (a configuration problem), upstream 429s stay
 * `rate_limited`.
 *
 * @example
 * ```ts
 * import { GleanerError } from "@gleaner/gleaner";
 * import { toSearchFailure } from "./upstream.ts";
 * const failure = toSearchFailure(new GleanerError("timeout", "x timed out"), "duckduckgo", "https://html.duckduckgo.com/html/");
 * console.assert(failure.outcome === "unavailable" && failure.code === "timeout");
 * ```
 */
export function toSearchFailure(
  error: unknown,
  backend: string,
  endpoint?: string,
  setting?: string,
): SearchFailure {
  if (error instanceof SearchFailure) return error;
  const where = endpoint ? safeEndpoint(endpoint) : "the upstream";
  if (error instanceof GleanerError) {
    const unresolved = unresolvedHost(error, setting);
    if (unresolved) {
      return new SearchFailure("unavailable", `${backend}: ${unresolved}`, {
        backend,
        cause: error,
        ...(setting ? { details: { field: setting } } : {}),
      });
    }
    switch (error.code) {
      case "timeout":
        return new SearchFailure("unavailable", `${backend}: ${where} timed out`, {
          backend,
          code: "timeout",
          cause: error,
        });
      case "rate_limited":
        return new SearchFailure("rate_limited", `${backend}: ${where} is rate limiting`, {
          backend,
          cause: error,
        });
      case "blocked_url":
      case "invalid_arguments":
        return new SearchFailure(
          "invalid",
          `${backend}: ${where} may not be reached under the network policy (${error.message})`,
          { backend, code: error.code, cause: error },
        );
      default:
        return new SearchFailure("unavailable", `${backend}: ${where} failed (${error.code})`, {
          backend,
          cause: error,
        });
    }
  }
  if (
    error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")
  ) {
    return new SearchFailure("unavailable", `${backend}: ${where} timed out`, {
      backend,
      code: "timeout",
      cause: error,
    });
  }
  return new SearchFailure("unavailable", `${backend}: ${where} could not be reached`, {
    backend,
    cause: error,
  });
}

/**
 * When `error` is a host name that could not be resolved (see `networkError`),
 * its message (`could not resolve <host>: …`), ending with the setting to
 * check when one is given; otherwise `undefined`.
 *
 * @example
 * ```ts
 * import { GleanerError } from "@gleaner/gleaner";
 * import { unresolvedHost } from "./upstream.ts";
 * const error = new GleanerError("not_found", "could not resolve searx.lan: no such host name", {
 *   details: { host: "searx.lan" },
 * });
 * console.assert(unresolvedHost(error, "search.searxng_url")!.endsWith("; check search.searxng_url"));
 * ```
 */
export function unresolvedHost(error: unknown, setting?: string): string | undefined {
  if (!(error instanceof GleanerError) || typeof error.details?.host !== "string") return undefined;
  if (!error.message.startsWith("could not resolve ")) return undefined;
  return setting && !error.message.includes(setting)
    ? `${error.message}; check ${setting}`
    : error.message;
}

/**
 * Fetches an upstream search endpoint (robots.txt not consulted: it is an API
 * call), converting thrown errors with {@link toSearchFailure}. Non-2xx
 * statuses are returned for the backend to interpret. `setting` names where
 * the endpoint is configured (`search.searxng_url`), for messages.
 */
export async function fetchUpstream(
  fetcher: Fetcher,
  backend: string,
  url: string | URL,
  options: FetchOptions,
  setting?: string,
): Promise<FetchedResponse> {
  try {
    return await fetcher.fetch(url, { robots: false, ...options });
  } catch (error) {
    throw toSearchFailure(error, backend, String(url), setting);
  }
}

/** Collapses runs of whitespace (including NBSP) and trims. */
export function cleanText(text: string | null | undefined): string {
  return (text ?? "").replace(/[\s\u00a0]+/g, " ").trim();
}

/**
 * Normalises an engine-given date to ISO 8601; `undefined` when unparseable.
 *
 * @example
 * ```ts
 * import { toIsoDate } from "./upstream.ts";
 * console.assert(toIsoDate("2023-04-18T00:00:00.0000000") === "2023-04-18T00:00:00.000Z");
 * ```
 */
export function toIsoDate(value: unknown): string | undefined {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const match =
    /(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/
      .exec(value);
  if (match) {
    const time = match[2] ? (match[2].length === 5 ? `${match[2]}:00` : match[2]) : "00:00:00";
    const zone = match[3] ?? "Z";
    const date = new Date(`${match[1]}T${time}${zone}`);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
  }
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed.toISOString();
}
