/**
 * The address policy applied to every request a browser page makes.
 *
 * Each request Chromium is about to send (the document, its redirects,
 * frames, scripts, XHR/fetch, workers' requests) is paused by request
 * interception and checked here with the same rules as the guarded fetch:
 * {@link assertUrlAllowed} (scheme, port, IP literals, localhost names) and
 * {@link assertResolvedPublic} (every address the host name resolves to).
 *
 * This check alone would leave a DNS-rebinding window: its resolution is not
 * the one the connection uses. A Chromium that Gleaner launches therefore
 * reaches the network only through the tier's egress proxy (`proxy.ts`),
 * which resolves and checks each host again inside the connection's own
 * `lookup`, with Chromium's resolver switched off (`launch.ts`,
 * `egressArgs`). The proxy also sees what interception does not (workers'
 * WebSockets, preconnects, Chromium's own traffic) and lets through only the
 * targets this guard allowed. Interception stays as the first line: it gives
 * a blocked navigation its clear `blocked_url` error, applies the tier's
 * request filter and resource-type blocking, and is all there is for an
 * external browser (`read.browser_cdp_url`), where the window remains.
 * The tier also removes `WebSocket`, `WebTransport` and `RTCPeerConnection`
 * from page scripts before they run (scripts in workers keep them).
 *
 * @module
 */
import { privateAllowed } from "../../config/schema/network.ts";
import { GleanerError, networkError } from "../../errors.ts";
import {
  type AddressPolicy,
  assertAddressesAllowed,
  assertResolvedPublic,
  assertUrlAllowed,
  parseHostLiteral,
} from "../../net/address.ts";
import type { Resolver } from "../../net/fetch.ts";

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
 * import { parseConfig } from "@gleaner/gleaner";
 * const guard = createRequestGuard(parseConfig({}).network);
 * const blocked = await guard.check("http://169.254.169.254/latest/meta-data/", "fetch");
 * console.assert(blocked?.code === "blocked_url");
 * ```
 */
export function createRequestGuard(
  policy: AddressPolicy,
  filter?: RequestFilter,
  resolver?: Resolver,
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
        pending = assertHostAllowed(url.hostname, policy, url.origin, resolver).then(
          () => undefined,
          (error) => asBlocked(error, url),
        );
        resolved.set(key, pending);
      }
      return await pending;
    },
  };
}

/**
 * `assertResolvedPublic` with an optional resolver (tests simulate DNS with
 * it; default: the system resolver): throws `blocked_url` unless every
 * address of `hostname` is allowed for `origin`, `not_found` when it does
 * not resolve.
 *
 * @example
 * ```ts
 * import { assertHostAllowed } from "./guard.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const policy = parseConfig({}).network;
 * const dns = () => Promise.resolve([{ address: "10.0.0.7", family: 4 }]);
 * await assertHostAllowed("intranet.test", policy, "http://intranet.test", dns)
 *   .then(() => console.assert(false), (e) => console.assert(e.code === "blocked_url"));
 * ```
 */
export async function assertHostAllowed(
  hostname: string,
  policy: AddressPolicy,
  origin: string,
  resolver?: Resolver,
): Promise<void> {
  if (!resolver || parseHostLiteral(hostname) !== null) {
    await assertResolvedPublic(hostname, policy, origin);
    return;
  }
  let addresses: string[];
  try {
    addresses = (await resolver(hostname)).map((a) => a.address);
  } catch (error) {
    throw networkError(error, origin) ??
      new GleanerError("not_found", `could not resolve ${hostname}`, { cause: error });
  }
  assertAddressesAllowed(addresses, privateAllowed(policy, origin), origin);
}

function asBlocked(error: unknown, url: URL): GleanerError {
  if (error instanceof GleanerError) return error;
  return new GleanerError("blocked_url", `${url.origin} could not be checked`, { cause: error });
}
