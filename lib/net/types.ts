/**
 * The contract of the guarded network layer: every byte Gleaner fetches
 * goes through a {@link Fetcher}.
 *
 * @module
 */

/** Options of one guarded request. */
export interface FetchOptions {
  /** HTTP method; GET by default. */
  method?: "GET" | "POST" | "HEAD" | "DELETE";
  /** Extra request headers (User-Agent is set by the fetcher). */
  headers?: HeadersInit;
  /** Request body (form bodies as `URLSearchParams`). */
  body?: string | URLSearchParams;
  /** Cancels the request. */
  signal?: AbortSignal;
  /** Overrides the configured body limit (bytes). */
  maxBytes?: number;
  /** Overrides the configured total timeout (ms). */
  timeoutMs?: number;
  /** Check robots.txt before fetching (page reads do; API calls do not). */
  robots?: boolean;
  /**
   * An origin the operator configured for this call's service (kiwix-serve at
   * `read.kiwix_url`) that may be private or on any port for this request, as if listed
   * in `network.allow_private`. Every other origin, redirects included, gets the usual policy.
   */
  privateOrigin?: string;
}

/** A fully read response. Non-2xx statuses are returned, not thrown. */
export interface FetchedResponse {
  /** The final URL after redirects. */
  url: string;
  /** HTTP status of the final response. */
  status: number;
  /** Response headers of the final response. */
  headers: Headers;
  /** The (decompressed) body bytes, cut at the size limit. */
  body: Uint8Array;
  /** Lower-case media type without parameters, sniffed when the header is missing or generic. */
  mediaType: string;
  /** The charset used by {@link FetchedResponse.text}. */
  charset: string;
  /** Every URL visited before the final one. */
  redirects: string[];
  /** The body decoded with the detected charset. */
  text(): string;
}

/** Fetches URLs under Gleaner's network policy (SSRF guard, limits, robots). */
export interface Fetcher {
  /** Fetches one URL; throws `GleanerError` (`blocked_url`, `robots_disallowed`, `timeout`, `too_large`, …). */
  fetch(url: string | URL, options?: FetchOptions): Promise<FetchedResponse>;
  /**
   * True when `url` points into the operator's private network (see
   * `isPrivateTarget` in `address.ts`), names resolved with the resolver this
   * fetcher connects with. A fetcher without it leaves every host name unknown:
   * callers treat it as private.
   */
  privateTarget?(url: URL): Promise<boolean>;
}
