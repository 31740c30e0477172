/**
 * Shared plumbing of the keyless providers (DuckDuckGo, SearXNG): calling an
 * upstream through the guarded fetcher, whatever it threw classified by
 * `../net/classify.ts`; and the text and date normalizers every provider uses.
 *
 * @module
 */
import type { FetchedResponse, Fetcher, FetchOptions } from "../net/types.ts";
import { safeEndpoint } from "../config/redact.ts";
import { providerFailure } from "../net/classify.ts";

export { safeEndpoint };

/**
 * Fetches an upstream search endpoint (robots.txt not consulted: it is an API
 * call); a thrown error becomes the classified failure (`providerFailure`:
 * `timeout`, `provider_unavailable`, `blocked_url`, …). Non-2xx statuses are
 * returned for the provider to interpret. `setting` names where the endpoint
 * is configured (`search.searxng_url`), for messages.
 */
export async function fetchUpstream(
  fetcher: Fetcher,
  provider: string,
  url: string | URL,
  options: FetchOptions,
  setting?: string,
): Promise<FetchedResponse> {
  try {
    return await fetcher.fetch(url, { robots: false, ...options });
  } catch (error) {
    throw providerFailure(provider, url, { error }, setting);
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
