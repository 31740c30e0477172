/**
 * The browser tier's egress proxy: the only way out for a Chromium that
 * Gleaner launches.
 *
 * Chromium is started with `--proxy-server` pointing here (loopback, an
 * ephemeral port) and with its own name resolution switched off, so every
 * connection a page, a worker, a preconnect or a WebSocket opens arrives here
 * as a host name and a port. For each one the proxy applies the guarded
 * fetch's rules, at connect time:
 *
 * 1. `assertUrlAllowed` (scheme, port, IP literals, local names), for the
 *    origin the connection serves;
 * 2. the name is resolved once, inside the socket's `lookup`
 *    (`createCheckedLookup` from `lib/net/fetch.ts`): every address must be
 *    public unless `network.allow_private` allows that origin, and the socket
 *    connects only to the checked addresses. A name that answered a public
 *    address to an earlier check and a private one now (DNS rebinding) is
 *    refused here, because this is the resolution that is used.
 *
 * Plain `http:` requests arrive in absolute form and are forwarded (one
 * upstream connection per request, hop-by-hop headers dropped). `CONNECT`
 * (https, and WebSockets, which Chromium tunnels) opens a byte tunnel to the
 * checked address; TLS is not intercepted. A `CONNECT` is judged as the
 * connection to `host:port` it is: it passes when either `https://host:port`
 * or `http://host:port` passes the policy (port 443 always does, like an
 * https URL). Refusals answer `403` (and are remembered for a while, so the
 * tier can tell a refused navigation from a network failure); network
 * failures answer `502`.
 *
 * With an upstream proxy (`network.proxy_url`, or `HTTPS_PROXY`/`HTTP_PROXY`),
 * the checks above that need no DNS still run first (scheme, port, IP
 * literals, local names, `approvedOnly`); then the connection goes through
 * the upstream proxy instead of straight out: a `CONNECT host:port` tunnel
 * for tunnels, the absolute-form request for plain `http:`. The upstream
 * proxy resolves the name, so pinning the resolved address is then its job.
 * Hosts in `network.no_proxy` go direct with every check. An upstream
 * proxy's refusal of a tunnel answers `502`; its answer to a plain request
 * is passed on as it is.
 *
 * With `approvedOnly` (the tier's setting) the proxy also refuses, before any
 * DNS, every `host:port` that no intercepted page request was allowed to
 * reach recently ({@link EgressProxy.approve}): Chromium's own background
 * traffic (update checks, connectivity probes, sign-in), and connections
 * request interception does not see (workers' WebSockets, preconnects to
 * hosts never requested) get nowhere, and the tier's request filter holds
 * at the proxy too.
 *
 * @module
 */
import { LruCache } from "../../cache/lru_cache.ts";
import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import type { NetworkSection } from "../../config/sections.ts";
import { privateAllowed } from "../../config/schema/network.ts";
import { GleanerError, networkError } from "../../errors.ts";
import { getGleanerLogger } from "../../log.ts";
import { assertUrlAllowed } from "../../net/address.ts";
import { createCheckedLookup, type Resolver } from "../../net/fetch.ts";
import { openTunnel, proxyRoute } from "../../net/proxy.ts";

/** The network settings the proxy applies (`proxy_url`/`no_proxy`: the upstream proxy, if any). */
export type EgressPolicy =
  & Pick<NetworkSection, "allow_private" | "allowed_ports" | "connect_timeout_ms">
  & Partial<Pick<NetworkSection, "proxy_url" | "no_proxy">>;

/** Options of {@link startEgressProxy}. */
export interface EgressProxyOptions {
  /**
   * Name resolution used inside each connection's `lookup` (default: the
   * system resolver). Its answers are checked like any other; tests use it to
   * simulate DNS answers (rebinding) without a DNS server.
   */
  resolver?: Resolver;
  /** Refuse every `host:port` not passed to {@link EgressProxy.approve} recently (default false). */
  approvedOnly?: boolean;
}

/** Counters of an {@link EgressProxy}. */
export interface EgressProxyStats {
  /** Plain-HTTP requests forwarded (or refused). */
  requests: number;
  /** `CONNECT` tunnels asked for. */
  tunnels: number;
  /** Requests and tunnels refused by the address policy. */
  refused: number;
  /** Client connections open now. */
  open: number;
}

/** A running egress proxy; see {@link startEgressProxy}. */
export interface EgressProxy {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** `http://127.0.0.1:<port>`, for `--proxy-server`. */
  readonly url: string;
  /**
   * True when a response came from this proxy refusing the request (the
   * `403` carries a header whose value is a secret of this proxy instance,
   * so an upstream server cannot forge it).
   */
  isRefusal(headers: Record<string, string>): boolean;
  /**
   * Lets connections to `hostname:port` through for `ttlMs` (only matters
   * with `approvedOnly`). The tier calls it for each request interception
   * allowed, just before letting the request go.
   */
  approve(hostname: string, port: number, ttlMs: number): void;
  /** The last refusal (kept for a minute) of a connection to `host:port`, if any. */
  refusalFor(hostname: string, port: number): GleanerError | undefined;
  /** Current counters. */
  stats(): EgressProxyStats;
  /** Stops listening and closes every connection (client and upstream). */
  close(): Promise<void>;
}

/**
 * Response header marking a refusal by the proxy.
 *
 * @internal exported for tests only
 */
export const REFUSAL_HEADER = "x-gleaner-egress-refused";

/** Headers that describe one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

const REFUSALS_KEPT = 256;
const APPROVALS_KEPT = 4096;
const REFUSAL_TTL_MS = 60_000;
/** Upstream sockets idle this long are closed (Chromium has its own, shorter, timeouts). */
const IDLE_MS = 120_000;

const log = getGleanerLogger("read", "browser", "proxy");

/**
 * Starts the egress proxy on 127.0.0.1 (ephemeral port).
 *
 * @example
 * ```ts ignore
 * import { startEgressProxy } from "./proxy.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const proxy = await startEgressProxy(parseConfig({}).network);
 * console.log(`--proxy-server=${proxy.url}`);
 * await proxy.close();
 * ```
 */
export async function startEgressProxy(
  policy: EgressPolicy,
  options: EgressProxyOptions = {},
): Promise<EgressProxy> {
  const resolver = options.resolver;
  const proxyFor = proxyRoute(policy);
  const token = crypto.randomUUID();
  const sockets = new Set<Duplex>();
  const refusals = new LruCache<string, { error: GleanerError; at: number }>(REFUSALS_KEPT);
  const counters = { requests: 0, tunnels: 0, refused: 0 };
  const approvals = new LruCache<string, number>(APPROVALS_KEPT);

  /** A `blocked_url` error when `approvedOnly` is on and nothing approved this target. */
  const unapproved = (url: URL, port: number): GleanerError | undefined => {
    if (!options.approvedOnly) return undefined;
    const key = authority(url.hostname, port);
    const until = approvals.get(key);
    if (until !== undefined && until >= Date.now()) return undefined;
    if (until !== undefined) approvals.delete(key);
    return new GleanerError(
      "blocked_url",
      `${url.origin} is blocked: no page request to it was allowed`,
      { details: { reason: "not requested by a page" } },
    );
  };

  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };

  const refuse = (hostname: string, port: number, error: GleanerError) => {
    counters.refused++;
    const key = authority(hostname, port);
    refusals.set(key, { error, at: Date.now() });
    log.debug("refused {target}: {reason}", { target: key, reason: error.message });
  };

  /**
   * Opens a checked connection to `url`'s host and port; throws `blocked_url` before any socket
   * when refused. Through the upstream proxy (unless `no_proxy` lists the host) the connection
   * is a `CONNECT` tunnel, opened after the static checks the caller ran.
   */
  const connectChecked = async (url: URL, port: number): Promise<net.Socket> => {
    const upstream = proxyFor(url);
    if (!upstream) return await connectDirect(url, port);
    const socket = await openTunnel(upstream, url.hostname.replace(/^\[|\]$/g, ""), port, {
      timeoutMs: policy.connect_timeout_ms,
      origin: url.origin,
      onSocket: track,
    });
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    return socket;
  };

  /** A direct connection whose name is resolved and checked inside the socket's lookup. */
  const connectDirect = (url: URL, port: number): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      const mayBePrivate = privateAllowed(policy, url.origin);
      const socket = net.connect({
        host: url.hostname.replace(/^\[|\]$/g, ""),
        port,
        lookup: createCheckedLookup(url.origin, mayBePrivate, resolver),
      } as net.NetConnectOpts);
      track(socket);
      const timer = setTimeout(() => {
        socket.destroy(
          new GleanerError(
            "timeout",
            `connecting to ${url.origin} took over ${policy.connect_timeout_ms} ms`,
          ),
        );
      }, policy.connect_timeout_ms);
      const onError = (error: unknown) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      socket.once("error", onError);
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.off("error", onError);
        socket.setTimeout(IDLE_MS, () => socket.destroy());
        resolve(socket);
      });
    });

  /** A plain-HTTP request in absolute form. */
  const forward = (req: http.IncomingMessage, res: http.ServerResponse) => {
    counters.requests++;
    let url: URL;
    try {
      url = new URL(req.url ?? "");
      if (url.protocol !== "http:") throw new Error("not http");
    } catch {
      res.writeHead(400, { connection: "close" }).end();
      return;
    }
    const port = Number(url.port || 80);
    try {
      const refusal = unapproved(url, port);
      if (refusal) throw refusal;
      assertUrlAllowed(url, policy);
    } catch (error) {
      const refusal = asGleaner(error, url);
      refuse(url.hostname, port, refusal);
      return refused(res, refusal);
    }
    const headers: [string, string][] = [];
    const named = connectionTokens(req.headers.connection);
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i].toLowerCase();
      if (HOP_BY_HOP.has(name) || named.has(name) || name === "host") continue;
      headers.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
    }
    headers.push(["Host", url.host], ["Connection", "close"]);
    const upstream = proxyFor(url);
    if (upstream?.authorization) headers.push(["Proxy-Authorization", upstream.authorization]);
    // As in the guarded fetch: the name is resolved and checked inside the socket's lookup,
    // and the socket connects to the checked addresses only; through the upstream proxy, the
    // request goes to it in absolute form after the static checks above.
    const outgoing = http.request({
      method: req.method,
      headers: headers.flat(),
      setHost: false,
      agent: false,
      ...(upstream
        ? {
          host: upstream.host,
          port: upstream.port,
          path: `${url.origin}${url.pathname}${url.search}`,
        }
        : {
          host: url.hostname.replace(/^\[|\]$/g, ""),
          port,
          path: `${url.pathname}${url.search}`,
          lookup: createCheckedLookup(url.origin, privateAllowed(policy, url.origin), resolver),
        }),
    } as http.RequestOptions);
    let connectTimer: ReturnType<typeof setTimeout> | undefined;
    const clearConnect = () => {
      if (connectTimer !== undefined) clearTimeout(connectTimer);
      connectTimer = undefined;
    };
    outgoing.on("socket", (socket) => {
      track(socket);
      socket.setTimeout(IDLE_MS, () => socket.destroy());
      if (!socket.connecting) return;
      connectTimer = setTimeout(() => {
        outgoing.destroy(
          new GleanerError(
            "timeout",
            `connecting to ${url.origin} took over ${policy.connect_timeout_ms} ms`,
          ),
        );
      }, policy.connect_timeout_ms);
      socket.once("connect", clearConnect);
    });
    res.once("close", () => {
      clearConnect();
      outgoing.destroy();
    });
    outgoing.once("error", (error) => {
      clearConnect();
      const failure = asGleaner(error, url);
      if (failure.code === "blocked_url" && !res.headersSent) {
        refuse(url.hostname, port, failure);
        return refused(res, failure);
      }
      log.debug("{origin} unreachable: {reason}", { origin: url.origin, reason: failure.message });
      if (!res.headersSent) res.writeHead(502, { connection: "close" }).end();
      else res.destroy();
    });
    outgoing.once("response", (incoming) => {
      clearConnect();
      const named = connectionTokens(incoming.headers.connection);
      const out: string[] = [];
      for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
        const name = incoming.rawHeaders[i].toLowerCase();
        if (HOP_BY_HOP.has(name) || named.has(name) || name === REFUSAL_HEADER) continue;
        out.push(incoming.rawHeaders[i], incoming.rawHeaders[i + 1]);
      }
      res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, out);
      incoming.pipe(res);
      incoming.once("error", () => res.destroy());
    });
    req.pipe(outgoing);
  };

  /** A `CONNECT host:port` tunnel. */
  const tunnel = async (req: http.IncomingMessage, client: Duplex, head: Uint8Array) => {
    counters.tunnels++;
    track(client);
    client.on("error", () => {});
    const target = req.url ?? "";
    let https: URL;
    let plain: URL;
    try {
      if (!/^(\[[0-9a-fA-F:.]+\]|[^\s/?#@\[\]:]+):\d{1,5}$/.test(target)) throw new Error("form");
      https = new URL(`https://${target}`);
      plain = new URL(`http://${target}`);
    } catch {
      client.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      return;
    }
    const port = Number(target.slice(target.lastIndexOf(":") + 1));
    let chosen: URL | undefined;
    let refusal = unapproved(https, port);
    if (refusal) {
      refuse(https.hostname, port, refusal);
      client.end(refusalHead(refusal, token));
      return;
    }
    for (const candidate of [https, plain]) {
      try {
        assertUrlAllowed(candidate, policy);
        chosen = candidate;
        break;
      } catch (error) {
        refusal ??= asGleaner(error, candidate);
      }
    }
    if (!chosen) {
      refuse(https.hostname, port, refusal!);
      client.end(refusalHead(refusal!, token));
      return;
    }
    let upstream: net.Socket;
    try {
      upstream = await connectChecked(chosen, port);
    } catch (error) {
      const failure = asGleaner(error, chosen);
      if (failure.code === "blocked_url") {
        refuse(https.hostname, port, failure);
        client.end(refusalHead(failure, token));
      } else {
        log.debug("tunnel to {target} failed: {reason}", { target, reason: failure.message });
        client.end("HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n");
      }
      return;
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  };

  const refused = (res: http.ServerResponse, error: GleanerError) => {
    const body = `${error.message}\n`;
    res.writeHead(403, {
      "content-type": "text/plain; charset=utf-8",
      "content-length": String(new TextEncoder().encode(body).length),
      "cache-control": "no-store",
      [REFUSAL_HEADER]: token,
    }).end(body);
  };

  const server = http.createServer((req, res) => {
    try {
      forward(req, res);
    } catch (error) {
      log.warning("proxy request failed: {error}", { error: String(error) });
      if (!res.headersSent) res.writeHead(502, { connection: "close" }).end();
      else res.destroy();
    }
  });
  server.on("connection", track);
  server.on("connect", (req, client, head) => {
    tunnel(req, client, head).catch(() => client.destroy());
  });
  // Chromium tunnels WebSockets with CONNECT; an Upgrade sent to the proxy is not served.
  server.on("upgrade", (_req, client) => client.destroy());
  server.on("clientError", (_error, client) => client.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  log.debug("egress proxy listening on 127.0.0.1:{port}", { port });

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    isRefusal: (headers) => headers[REFUSAL_HEADER] === token,
    approve(hostname, targetPort, ttlMs) {
      const key = authority(hostname, targetPort);
      approvals.set(key, Date.now() + ttlMs);
    },
    refusalFor(hostname, targetPort) {
      const key = authority(hostname, targetPort);
      const found = refusals.get(key);
      if (!found) return undefined;
      if (Date.now() - found.at > REFUSAL_TTL_MS) {
        refusals.delete(key);
        return undefined;
      }
      return found.error;
    },
    stats: () => ({ ...counters, open: sockets.size }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      }),
  };
}

/** `host:port` in the form both the proxy and the tier use as a key. */
function authority(hostname: string, port: number): string {
  return `${hostname.toLowerCase().replace(/^\[|\]$/g, "")}:${port}`;
}

function connectionTokens(value: string | string[] | undefined): Set<string> {
  const joined = Array.isArray(value) ? value.join(",") : value ?? "";
  return new Set(joined.split(",").map((t) => t.trim().toLowerCase()).filter((t) => t !== ""));
}

function refusalHead(error: GleanerError, token: string): string {
  const body = `${error.message}\n`;
  return `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${new TextEncoder().encode(body).length}\r\n${REFUSAL_HEADER}: ${token}\r\n` +
    `Connection: close\r\n\r\n${body}`;
}

function asGleaner(error: unknown, url: URL): GleanerError {
  if (error instanceof GleanerError) return error;
  const named = networkError(error, url.origin);
  if (named) return named;
  const code = String((error as { code?: unknown })?.code ?? "");
  return new GleanerError(
    "provider_unavailable",
    `${url.origin} is unreachable${code ? ` (${code})` : ""}`,
    { cause: error },
  );
}
