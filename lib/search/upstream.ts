/**
 * Shared plumbing of search backends: calling an upstream through the guarded
 * fetcher and turning whatever went wrong into a {@link SearchFailure}.
 *
 * @module
 */
import type { FetchedResponse, Fetcher, FetchOptions } from "../net/types.ts";
import { safeEndpoint } from "../config/redact.ts";
import { providerFailure } from "./providers/classify.ts";
import { SearchFailure } from "./types.ts";

export { safeEndpoint };

/**
 * Converts anything a backend call threw into a {@link SearchFailure}, with
 * the one classification every search backend and provider shares
 * (`classifyFailure` in `providers/classify.ts`): timeouts are `timeout`,
 * network errors `provider_unavailable`, an endpoint the network policy
 * refuses `blocked_url` (a configuration problem), a 429 `rate_limited`.
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
  return providerFailure(backend, endpoint, { error }, setting);
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
