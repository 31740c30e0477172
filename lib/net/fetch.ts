/**
 * The guarded fetcher: every request Gleaner sends to the network goes
 * through {@link createFetcher}.
 *
 * ## What the SSRF guard guarantees
 *
 * Requests are sent with `node:http`/`node:https` (not `fetch`, which has no
 * DNS hook), with a custom `lookup`. For every connection, including each
 * redirect hop:
 *
 * 1. The URL passes the static checks of `assertUrlAllowed` (scheme
 *    http/https, no credentials, allowed port, IP-literal hosts public,
 *    `localhost`/`.local`/`.internal` names refused).
 * 2. The host name is resolved once, inside the socket's `lookup`; every
 *    address of the answer must be public (one private address refuses the
 *    whole name). The socket is handed only those checked addresses, so it
 *    connects to an address that was checked, by the same resolution
 *    (pinning: no second lookup, no DNS-rebinding window between check and
 *    connect). IP-literal hosts skip DNS and were checked in step 1.
 * 3. Private addresses are reachable only when `network.allow_private` is
 *    `true` or lists the request's exact origin (scheme, host, port); a
 *    redirect into another origin is judged for that origin.
 *
 * With an outbound proxy (`network.proxy_url`, or `HTTPS_PROXY`/`HTTP_PROXY`;
 * see `proxy.ts`), step 1 still runs for every hop before anything is sent,
 * so private IP literals and local names are refused as without a proxy; `http:`
 * URLs then go to the proxy in absolute form and `https:` URLs through a
 * `CONNECT` tunnel with TLS to the origin (certificate checked for the URL's
 * host). The proxy resolves the names, so step 2 (checking and pinning the
 * resolved addresses) becomes the proxy's job. Hosts in `network.no_proxy`
 * go direct, with steps 1–3. A proxy's 407 is `unauthorized`, any other
 * refusal of a tunnel `provider_unavailable`, both naming the proxy without
 * its credentials.
 *
 * Not covered: what a public server (or the proxy) does after it receives
 * the request.
 * The browser tier enforces the same policy separately: request
 * interception, and an egress proxy that connects with
 * {@link createCheckedLookup}.
 *
 * ## Other behaviour
 *
 * - Redirects are followed by hand, up to `max_redirects` (more →
 *   `provider_unavailable` "too many redirects"); 303, and 301/302 after a
 *   POST, continue as GET without a body; `Authorization`, `Cookie` and
 *   `Proxy-Authorization` are dropped when a redirect changes origin.
 * - One deadline (`timeoutMs`/`timeout_ms`) covers the robots check, every
 *   hop and the body; a connect timeout (`connect_timeout_ms`) covers each
 *   TCP connect. Both, and the caller's signal, end in `timeout`.
 * - Size limits: `maxBytes`/`max_bytes` on the wire, and after decompression
 *   `max(max_decompressed_bytes, maxBytes)` (gzip, deflate, br). A body over
 *   the limit is cut and returned (`truncated: true`) when it is text (HTML,
 *   XML, `text/*`); any other type (PDF, JSON, images, binary) throws
 *   `too_large`, as a partial file is useless.
 * - Network failures: connection refused/reset, unreachable host, TLS
 *   failure, temporary DNS failure → `provider_unavailable`; a name that does
 *   not exist → `not_found`; a corrupt compressed body → `unsupported_content`.
 * - Non-2xx responses are returned with their status, never thrown.
 * - The User-Agent is always `network.user_agent` (the honest default names
 *   Gleaner and its URL); callers cannot replace it.
 * - Concurrency per origin (scheme, host, port) is capped (`per_host_concurrency`),
 *   FIFO: two ports of one host are two servers.
 * - Logs name origin and path only, never query strings (they may hold keys).
 *
 * Permissions: net access (whole: the SSRF guard is the fence); the whole `--allow-sys` for HTTPS
 * (node:https asks for sys access to `"ca"`); read access to the extra CA files.
 *
 * @module
 */
import http from "node:http";
import https from "node:https";
import tls from "node:tls";
import net from "node:net";
import { lookup as dnsLookup } from "node:dns/promises";
import { pipeline, type Readable } from "node:stream";
import zlib from "node:zlib";
import type { Logger } from "@logtape/logtape";
import type { NetworkSection } from "../config/sections.ts";
import { privateAllowed } from "../config/schema/network.ts";
import { GleanerError, networkError } from "../errors.ts";
import { extraCaOption } from "./ca.ts";
import type { Env } from "../config/env.ts";
import { getGleanerLogger } from "../log.ts";
import { pace } from "../async/pace.ts";
import { assertAddressesAllowed, assertUrlAllowed, isPrivateTarget } from "./address.ts";
import { decodeText, detectCharset, isTextualMediaType, sniffMediaType } from "./content.ts";
import { BodyBuffer } from "./body_buffer.ts";
import { createHostLimiter, type HostLimiter } from "./host_limiter.ts";
import { createRobotsChecker, type RobotsChecker } from "./robots.ts";
import {
  openTunnel,
  proxyRefusal,
  proxyRoute,
  proxyUnreachable,
  type UpstreamProxy,
} from "./proxy.ts";
import type { FetchedResponse, Fetcher, FetchOptions } from "./types.ts";
import { safeEndpoint } from "../config/redact.ts";

/** One resolved address. */
export interface ResolvedAddress {
  /** The IP address. */
  address: string;
  /** 4 or 6. */
  family: number;
}

/** Resolves a host name to every address (default: `node:dns` `lookup`, `all: true`). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Options of {@link createFetcher}. */
export interface FetcherOptions {
  /** Logger; default `gleaner.net`. */
  logger?: Logger;
  /**
   * Name resolution used inside the socket's `lookup` (default: the system
   * resolver). Its answers are checked like any other; tests use it to
   * simulate DNS answers without a DNS server.
   */
  resolver?: Resolver;
  /**
   * Certificate authorities (PEM) trusted for `https:` origins instead of the
   * default roots, directly and through a proxy's tunnel (tests with their
   * own CA, a TLS-inspecting corporate proxy). Default: the runtime's roots.
   */
  ca?: string | string[];
  /**
   * The entry point's environment snapshot (`readHostEnv()` in
   * `lib/config/env.ts`): when `ca` is not given, its `NODE_EXTRA_CA_CERTS` and
   * `DENO_CERT` files extend the trust store (see `ca.ts`). Default: none.
   */
  env?: Env;
}

/** A {@link FetchedResponse} that also says whether the body was cut at the size limit. */
export interface GuardedResponse extends FetchedResponse {
  /** True when the body was longer than the limit and only its start was kept (text only). */
  truncated: boolean;
}

/** The fetcher {@link createFetcher} returns: a {@link Fetcher} plus its robots cache and limiter. */
export interface GuardedFetcher extends Fetcher {
  /** Fetches one URL under the network policy. */
  fetch(url: string | URL, options?: FetchOptions): Promise<GuardedResponse>;
  /** True when `url` points into the operator's private network, by this fetcher's resolver. */
  privateTarget(url: URL): Promise<boolean>;
  /** The robots.txt cache this fetcher consults when `options.robots` is true. */
  readonly robots: RobotsChecker;
  /** The per-origin concurrency limiter (keys are `URL.origin`). */
  readonly limiter: HostLimiter;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ORIGIN_BOUND_HEADERS = ["authorization", "cookie", "proxy-authorization"];
const DEFAULT_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** Marks an exceeded size limit inside the body stream. */
class LimitExceeded extends Error {}

const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family,
  }));

/** A `node:dns`-style `lookup` function, as `node:net` / `node:http` accept in their options. */
export type CheckedLookup = (
  hostname: string,
  options: { family?: number | string; all?: boolean },
  callback: (...args: unknown[]) => void,
) => void;

/**
 * The `lookup` the guarded fetcher gives its sockets, for other code that
 * opens connections (the browser tier's egress proxy): it resolves the name
 * once with `resolver`, throws `blocked_url` unless every address of the
 * answer is allowed for `origin` (see `assertAddressesAllowed`), and hands
 * the socket only those checked addresses, so the connection goes to an
 * address that was checked by the same resolution. IP-literal hosts never
 * reach a `lookup`: check them with `assertUrlAllowed` first.
 *
 * @param origin the origin the connection serves (named in errors).
 * @param mayBePrivate `privateAllowed(config, origin)`.
 * @param resolver name resolution (default: the system resolver).
 *
 * @example
 * ```ts ignore
 * import net from "node:net";
 * import { createCheckedLookup } from "./fetch.ts";
 * const lookup = createCheckedLookup("https://example.com", false);
 * const socket = net.connect({ host: "example.com", port: 443, lookup });
 * ```
 */
export function createCheckedLookup(
  origin: string,
  mayBePrivate: boolean,
  resolver: Resolver = systemResolver,
): CheckedLookup {
  return (hostname, opts, callback) => {
    resolver(hostname).then((answers) => {
      const family = opts.family === "IPv4" ? 4 : opts.family === "IPv6" ? 6 : opts.family;
      const usable = family === 4 || family === 6
        ? answers.filter((a) => a.family === family)
        : answers;
      // Every address of the answer is checked, not only the one used.
      assertAddressesAllowed(answers.map((a) => a.address), mayBePrivate, origin);
      if (usable.length === 0) {
        throw new GleanerError("not_found", `host of ${origin} has no usable address`);
      }
      if (opts.all) callback(null, usable);
      else callback(null, usable[0].address, usable[0].family);
    }).catch((error) => callback(error));
  };
}

/**
 * Creates the guarded fetcher for a network configuration.
 *
 * @example
 * ```ts ignore
 * import { createFetcher } from "./fetch.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const fetcher = createFetcher(parseConfig({}).network);
 * const res = await fetcher.fetch("https://example.com/", { robots: true });
 * console.log(res.status, res.mediaType, res.charset, res.text().length);
 * ```
 */
export function createFetcher(
  config: NetworkSection,
  options: FetcherOptions = {},
): GuardedFetcher {
  const logger = options.logger ?? getGleanerLogger("net");
  const resolver = options.resolver ?? systemResolver;
  const limiter = createHostLimiter(config.per_host_concurrency);
  const proxyFor = proxyRoute(config);
  // Read once here, not per request: it reads the environment (and the CA files when `DENO_CERT` is set).
  const ca = options.ca ?? extraCaOption(options.env ?? {});

  /**
   * TLS with `url`'s origin over a socket that already reaches it (a proxy's
   * tunnel): the certificate is checked for the URL's host as on a direct
   * connection.
   */
  const secureTunnel = (url: URL, socket: net.Socket, signal: AbortSignal) =>
    new Promise<tls.TLSSocket>((resolve, reject) => {
      const host = url.hostname.replace(/^\[|\]$/g, "");
      const secure = tls.connect({
        socket,
        host,
        // SNI carries names only (RFC 6066 §3).
        servername: net.isIP(host) === 0 ? host : undefined,
        ca,
        ALPNProtocols: ["http/1.1"],
      });
      const onAbort = () => secure.destroy(signal.reason);
      const done = () => {
        signal.removeEventListener("abort", onAbort);
        secure.off("error", onError);
      };
      const onError = (error: unknown) => {
        done();
        socket.destroy();
        reject(error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      secure.once("error", onError);
      secure.once("close", () => socket.destroy());
      secure.once("secureConnect", () => {
        done();
        resolve(secure);
      });
    });

  /**
   * One request/response exchange: directly, with a pinned, checked
   * connection, or through the configured proxy (absolute form for `http:`,
   * a `CONNECT` tunnel for `https:`) when `url` does not bypass it.
   */
  const requestOnce = async (
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
    signal: AbortSignal,
    policy: NetworkSection,
  ): Promise<http.IncomingMessage> => {
    const proxy = proxyFor(url);
    const hostname = url.hostname.replace(/^\[|\]$/g, "");
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    delete headers["proxy-authorization"];
    const target: http.RequestOptions = {
      protocol: url.protocol,
      hostname,
      port,
      path: `${url.pathname}${url.search}`,
      method,
      headers: { ...headers, host: url.host },
      ca: url.protocol === "https:" ? ca : undefined,
      agent: false,
      lookup: createCheckedLookup(url.origin, privateAllowed(policy, url.origin), resolver),
    } as http.RequestOptions;
    if (proxy && url.protocol === "https:") {
      if (signal.aborted) throw signal.reason;
      let tunnel: net.Socket;
      try {
        tunnel = await openTunnel(proxy, hostname, port, {
          signal,
          timeoutMs: config.connect_timeout_ms,
          origin: url.origin,
        });
      } catch (error) {
        throw signal.aborted ? signal.reason : error;
      }
      const secure = await secureTunnel(url, tunnel, signal);
      delete target.agent;
      delete target.lookup;
      target.createConnection = () => secure;
      return send(https, target, url, body, signal, proxy);
    }
    if (proxy) {
      // Absolute form (RFC 9112 §3.2.2): the proxy connects to the origin and resolves its name.
      return send(
        http,
        {
          protocol: "http:",
          hostname: proxy.host,
          port: proxy.port,
          path: `${url.origin}${url.pathname}${url.search}`,
          method,
          headers: {
            ...headers,
            host: url.host,
            ...(proxy.authorization ? { "proxy-authorization": proxy.authorization } : {}),
          },
          agent: false,
        },
        url,
        body,
        signal,
        proxy,
      );
    }
    return send(url.protocol === "https:" ? https : http, target, url, body, signal);
  };

  /** Sends one request with `options` and resolves with the response head. */
  const send = (
    transport: typeof http | typeof https,
    requestOptions: http.RequestOptions,
    url: URL,
    body: Uint8Array | undefined,
    signal: AbortSignal,
    proxy?: UpstreamProxy,
  ): Promise<http.IncomingMessage> => {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      let connectTimer: ReturnType<typeof setTimeout> | undefined;
      const clearConnect = () => {
        if (connectTimer !== undefined) clearTimeout(connectTimer);
        connectTimer = undefined;
      };
      const req = transport.request(requestOptions);
      const onAbort = () => req.destroy(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      const settle = () => {
        clearConnect();
        signal.removeEventListener("abort", onAbort);
      };
      req.on("socket", (socket) => {
        if (!socket.connecting) return;
        connectTimer = setTimeout(() => {
          req.destroy(
            new GleanerError(
              "timeout",
              `connecting to ${url.origin} took over ${config.connect_timeout_ms} ms`,
            ),
          );
        }, config.connect_timeout_ms);
        socket.once("connect", clearConnect);
      });
      req.on("error", (error) => {
        settle();
        // Through a proxy every socket error is one with the proxy.
        reject(
          proxy && !(error instanceof GleanerError) && !signal.aborted
            ? proxyUnreachable(proxy, error, url.origin)
            : error,
        );
      });
      req.on("response", (res) => {
        settle();
        if (proxy && res.statusCode === 407) {
          res.destroy();
          return reject(proxyRefusal(proxy, 407, url.origin));
        }
        resolve(res);
      });
      req.end(body);
    });
  };

  /** Reads (and decompresses) a body under the size limits. */
  const readBody = async (
    res: http.IncomingMessage,
    url: URL,
    wireLimit: number,
    signal: AbortSignal,
  ): Promise<{ body: Uint8Array; truncated: boolean; mediaType: string }> => {
    const contentType = res.headers["content-type"] ?? null;
    const encodings = String(res.headers["content-encoding"] ?? "")
      .split(",").map((e) => e.trim().toLowerCase())
      .filter((e) => e !== "" && e !== "identity").reverse();
    const decoders: zlib.Gunzip[] = [];
    for (const encoding of encodings) {
      if (encoding === "gzip" || encoding === "x-gzip") {
        decoders.push(zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
      } else if (encoding === "deflate") {
        decoders.push(zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
      } else if (encoding === "br") {
        decoders.push(zlib.createBrotliDecompress() as unknown as zlib.Gunzip);
      } else {
        // Unknown coding: keep the bytes as sent (they will sniff as binary).
        decoders.length = 0;
        break;
      }
    }
    const limit = decoders.length > 0
      ? Math.max(config.max_decompressed_bytes, wireLimit)
      : wireLimit;
    const declaredLength = Number(res.headers["content-length"] ?? NaN);
    const tooLarge = () =>
      new GleanerError("too_large", `body of ${safeEndpoint(url)} exceeds ${limit} bytes`, {
        details: { limit },
      });
    if (
      declaredLength > wireLimit &&
      !isTextualMediaType(sniffMediaType(contentType, new Uint8Array()))
    ) {
      res.destroy();
      throw tooLarge();
    }

    let source: Readable = res;
    if (decoders.length > 0) {
      let wire = 0;
      res.on("data", (chunk: Uint8Array) => {
        wire += chunk.length;
        if (wire > wireLimit) res.destroy(new LimitExceeded());
      });
      source = decoders[decoders.length - 1];
      pipeline([res, ...decoders], () => {});
    }
    const onAbort = () => {
      res.destroy(signal.reason);
      source.destroy(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    // Bodies are gathered without one large copy, and the loop is paced (`pace`): inflating
    // a 20 MB bomb in one go, or reading ten large bodies at once, kept a server from
    // answering for a large part of a second (the socket and the decompressor pause
    // meanwhile: back-pressure).
    const collected = new BodyBuffer(
      limit,
      decoders.length === 0 && declaredLength <= limit ? declaredLength : undefined,
    );
    let over = false;
    try {
      for await (const chunk of source as AsyncIterable<Uint8Array>) {
        if (!collected.push(chunk)) {
          over = true;
          break;
        }
        await pace();
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof LimitExceeded) over = true;
      else if (decoders.length > 0 && (error as { code?: string }).code?.startsWith("Z_")) {
        throw new GleanerError(
          "unsupported_content",
          `body of ${safeEndpoint(url)} is not valid ${encodings.join("/")} data`,
          { cause: error },
        );
      } else throw error;
    } finally {
      signal.removeEventListener("abort", onAbort);
      res.destroy();
      if (source !== res) source.destroy();
    }
    if (signal.aborted) throw signal.reason;
    const body = collected.bytes();
    const mediaType = sniffMediaType(contentType, body);
    if (over) {
      if (!isTextualMediaType(mediaType)) throw tooLarge();
      logger.info("body of {where} cut at {limit} bytes", { where: safeEndpoint(url), limit });
    }
    return { body, truncated: over, mediaType };
  };

  const toGleaner = (error: unknown, url: URL, signal: AbortSignal, caller?: AbortSignal) => {
    if (error instanceof GleanerError) return error;
    if (caller?.aborted) {
      return new GleanerError("timeout", `request to ${url.origin} was cancelled`, {
        cause: error,
      });
    }
    if (signal.aborted) {
      return new GleanerError("timeout", `request to ${url.origin} timed out`, { cause: error });
    }
    const named = networkError(error, url.origin);
    if (named) return named;
    const code = String((error as { code?: unknown })?.code ?? "");
    if (code === "ECONNREFUSED") {
      return new GleanerError("provider_unavailable", `${url.origin} refused the connection`, {
        cause: error,
      });
    }
    if (/CERT|TLS|SSL|SELF_SIGNED|VERIFY|ISSUER/i.test(code)) {
      const hint = /SELF_SIGNED|VERIFY|ISSUER/i.test(code)
        ? ": its certificate is not signed by a trusted CA (behind a corporate CA or TLS proxy, " +
          "set NODE_EXTRA_CA_CERTS or DENO_CERT to its PEM file)"
        : "";
      return new GleanerError(
        "provider_unavailable",
        `TLS with ${url.origin} failed (${code})${hint}`,
        { cause: error },
      );
    }
    if (code !== "") {
      return new GleanerError("provider_unavailable", `${url.origin} is unreachable (${code})`, {
        cause: error,
      });
    }
    return new GleanerError("provider_unavailable", `request to ${url.origin} failed`, {
      cause: error,
    });
  };

  const fetchOnce = async (
    start: URL,
    opts: FetchOptions,
    signal: AbortSignal,
  ): Promise<GuardedResponse> => {
    let url = start;
    let method: string = opts.method ?? "GET";
    const headers = new Headers(opts.headers);
    let body: Uint8Array | undefined;
    if (opts.body !== undefined) {
      if (opts.body instanceof URLSearchParams && !headers.has("content-type")) {
        headers.set("content-type", "application/x-www-form-urlencoded;charset=UTF-8");
      } else if (!headers.has("content-type")) {
        headers.set("content-type", "text/plain;charset=UTF-8");
      }
      body = new TextEncoder().encode(opts.body.toString());
    }
    if (!headers.has("accept")) headers.set("accept", DEFAULT_ACCEPT);
    if (!headers.has("accept-encoding")) headers.set("accept-encoding", "gzip, deflate, br");
    headers.set("user-agent", config.user_agent);
    headers.set("connection", "close");
    const wireLimit = opts.maxBytes ?? config.max_bytes;
    const visited: string[] = [];

    for (let hop = 0;; hop++) {
      const policy = url.origin === opts.privateOrigin
        ? withPrivateOrigin(config, url.origin)
        : config;
      assertUrlAllowed(url, policy);
      if (opts.robots && config.respect_robots) await robots.assertAllowed(url, signal);
      if (body !== undefined) headers.set("content-length", String(body.length));
      else headers.delete("content-length");
      const release = await limiter.acquire(url.origin, signal);
      try {
        const started = performance.now();
        const res = await requestOnce(
          url,
          method,
          Object.fromEntries(headers),
          body,
          signal,
          policy,
        );
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (REDIRECTS.has(status) && location) {
          res.destroy();
          if (hop >= config.max_redirects) {
            throw new GleanerError(
              "provider_unavailable",
              `${safeEndpoint(start)} redirected more than ${config.max_redirects} times`,
              { details: { redirects: visited.length + 1 } },
            );
          }
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new GleanerError(
              "provider_unavailable",
              `${safeEndpoint(url)} sent an invalid redirect`,
            );
          }
          logger.debug("redirect {status} {from} -> {to}", {
            status,
            from: safeEndpoint(url),
            to: safeEndpoint(next),
          });
          if (
            status === 303
              ? method !== "HEAD"
              : (status === 301 || status === 302) && method === "POST"
          ) {
            method = "GET";
            body = undefined;
            headers.delete("content-type");
          }
          if (next.origin !== url.origin) ORIGIN_BOUND_HEADERS.forEach((h) => headers.delete(h));
          visited.push(url.href);
          url = next;
          continue;
        }
        const read = await readBody(res, url, wireLimit, signal);
        const responseHeaders = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          try {
            responseHeaders.append(raw[i], raw[i + 1]);
          } catch {
            // a header value the Headers class refuses: dropped
          }
        }
        const charset = detectCharset(
          read.body,
          responseHeaders.get("content-type"),
          read.mediaType,
        );
        logger.debug("{method} {where} {status} {bytes} B {mediaType} in {ms} ms", {
          method,
          where: safeEndpoint(url),
          status,
          bytes: read.body.length,
          mediaType: read.mediaType,
          ms: Math.round(performance.now() - started),
        });
        let text: string | undefined;
        const finalBody = read.body;
        return {
          url: url.href,
          status,
          headers: responseHeaders,
          body: finalBody,
          mediaType: read.mediaType,
          charset,
          redirects: visited,
          truncated: read.truncated,
          text: () => (text ??= decodeText(finalBody, charset)),
        };
      } finally {
        release();
      }
    }
  };

  const guardedFetch = async (
    input: string | URL,
    opts: FetchOptions = {},
  ): Promise<GuardedResponse> => {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new GleanerError("invalid_arguments", "url: not a valid absolute URL", {
        details: { field: "url" },
      });
    }
    const timeoutMs = opts.timeoutMs ?? config.timeout_ms;
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError")),
      timeoutMs,
    );
    const signal = opts.signal ? AbortSignal.any([deadline.signal, opts.signal]) : deadline.signal;
    try {
      return await fetchOnce(url, opts, signal);
    } catch (error) {
      const mapped = toGleaner(error, url, signal, opts.signal);
      if (mapped.code === "timeout" && !opts.signal?.aborted && deadline.signal.aborted) {
        throw new GleanerError("timeout", `${safeEndpoint(url)} timed out after ${timeoutMs} ms`, {
          cause: error,
        });
      }
      throw mapped;
    } finally {
      clearTimeout(timer);
    }
  };

  const fetcher: GuardedFetcher = {
    fetch: guardedFetch,
    privateTarget: (url) =>
      isPrivateTarget(url, config, async (host) => (await resolver(host)).map((a) => a.address)),
    get robots() {
      return robots;
    },
    limiter,
  };
  const robots = createRobotsChecker(fetcher, { logger: logger.getChild("robots") });
  return fetcher;
}

/** `network` with `origin` listed in `allow_private` (unchanged when every origin is). */
function withPrivateOrigin(network: NetworkSection, origin: string): NetworkSection {
  const allow = network.allow_private;
  if (allow === true) return network;
  return { ...network, allow_private: [...(allow === false ? [] : allow), origin] };
}
