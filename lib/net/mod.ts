/**
 * The guarded network layer: SSRF-safe fetching with pinned DNS, redirects
 * checked hop by hop, time and size limits, decompression, content sniffing
 * and charset decoding, robots.txt, and per-host concurrency.
 *
 * @example
 * ```ts ignore
 * import { createFetcher } from "./mod.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const fetcher = createFetcher(parseConfig({}).network);
 * const page = await fetcher.fetch("https://example.com/", { robots: true });
 * console.log(page.status, page.mediaType, page.text().slice(0, 80));
 * ```
 *
 * @module
 */
export type { FetchedResponse, Fetcher, FetchOptions } from "./types.ts";
export {
  type AddressPolicy,
  assertAddressesAllowed,
  assertResolvedPublic,
  assertUrlAllowed,
  isPublicAddress,
  parseHostLiteral,
} from "./address.ts";
export {
  type CheckedLookup,
  createCheckedLookup,
  createFetcher,
  type FetcherOptions,
  type GuardedFetcher,
  type GuardedResponse,
  type ResolvedAddress,
  type Resolver,
} from "./fetch.ts";
export {
  canonicalCharset,
  decodeText,
  detectCharset,
  isTextualMediaType,
  sniffMediaType,
} from "./content.ts";
export {
  createRobotsChecker,
  ROBOTS_FAILURE_TTL_MS,
  ROBOTS_MAX_BYTES,
  ROBOTS_TOKEN,
  ROBOTS_TTL_MS,
  type RobotsChecker,
  type RobotsCheckerOptions,
} from "./robots.ts";
export { createHostLimiter, type HostLimiter } from "./host_limiter.ts";
