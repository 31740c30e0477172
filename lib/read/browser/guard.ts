/**
 * The address policy applied to every request a browser page makes.
 *
 * Each request Chromium is about to send (the document, its redirects,
 * frames, scripts, XHR/fetch, workers' requests) is paused by request
 * interception and checked here with the same rules as the guarded fetch:
 * {@link assertUrlAllowed} (scheme, port, IP literals, localhost names) and
 * {@link assertResolvedPublic} (every address the host name resolves to).
 *
 * **Residual DNS-rebinding window.** Chromium resolves the host name again
 * itself when it connects, so a hostile DNS server answering a public address
 * to our check and a private one to Chromium a moment later can still steer
 * one request to a private address. Pinning Chromium's resolver
 * (`--host-resolver-rules`) is not practical: the rules are fixed at launch
 * for the whole browser, while pages reach arbitrary hosts. The window is
 * narrowed by checking every request (not only the navigation) and by
 * keeping QUIC and DNS prefetching off; closing it fully would need routing
 * Chromium through a local proxy that connects only to the checked addresses.
 * WebSocket handshakes are not seen by request interception; the tier removes
 * `WebSocket`, `WebTransport` and `RTCPeerConnection` from page scripts
 * before they run (scripts in workers keep them).
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";
import { type AddressPolicy, assertResolvedPublic, assertUrlAllowed } from "../../net/address.ts";

/** Schemes that never touch the network and are always let through. */
const LOCAL_SCHEMES = new Set(["data:", "blob:", "about:"]);

/** Narrows (never widens) what a page may request: return false to block. */
export type RequestFilter = (url: URL, resourceType: string) => boolean;

/** Checks request URLs for one page read; see {@link createRequestGuard}. */
export interface RequestGuard {
  /** Resolves to `undefined` when the request may go, else to the `GleanerError` that blocks it. */
  check(url: string, resourceType: string): Promise<GleanerError | undefined>;
}

/**
 * Creates a guard for one page read. Host checks are remembered for the
 * read's lifetime, so a page with fifty requests to one CDN resolves it once.
 *
 * @example
 * ```ts
 * import { createRequestGuard } from "./guard.ts";
 * import { parseConfig } from "../../config.ts";
 * const guard = createRequestGuard(parseConfig({}).network);
 * const blocked = await guard.check("http://169.254.169.254/latest/meta-data/", "fetch");
 * console.assert(blocked?.code === "blocked_url");
 * ```
 */
export function createRequestGuard(
  policy: AddressPolicy,
  filter?: RequestFilter,
): RequestGuard {
  const resolved = new Map<string, Promise<GleanerError | undefined>>();
  return {
    async check(raw, resourceType) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return new GleanerError("blocked_url", "the page requested an invalid URL");
      }
      if (LOCAL_SCHEMES.has(url.protocol)) return undefined;
      if (filter && !filter(url, resourceType)) {
        return new GleanerError(
          "blocked_url",
          `${url.origin} is not allowed by the request filter`,
        );
      }
      try {
        assertUrlAllowed(url, policy);
      } catch (error) {
        return asBlocked(error, url);
      }
      const key = `${url.origin}`;
      let pending = resolved.get(key);
      if (!pending) {
        pending = assertResolvedPublic(url.hostname, policy, url.origin).then(
          () => undefined,
          (error) => asBlocked(error, url),
        );
        resolved.set(key, pending);
      }
      return await pending;
    },
  };
}

function asBlocked(error: unknown, url: URL): GleanerError {
  if (error instanceof GleanerError) return error;
  return new GleanerError("blocked_url", `${url.origin} could not be checked`, { cause: error });
}
