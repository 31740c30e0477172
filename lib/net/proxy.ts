/**
 * The outbound HTTP proxy (`network.proxy_url`, or `HTTPS_PROXY` /
 * `HTTP_PROXY`), used by the guarded fetcher and by the browser tier's
 * egress proxy.
 *
 * Through a proxy, `http:` URLs are sent in absolute form (RFC 9112 §3.2.2)
 * and `https:` URLs through a `CONNECT host:port` tunnel (RFC 9110 §9.3.6),
 * with TLS to the origin inside it (certificate checked for the URL's host
 * as usual). `Proxy-Authorization: Basic` (RFC 7617) is sent when the proxy
 * URL has credentials.
 *
 * The address policy is applied before anything is sent, exactly as without
 * a proxy: `assertUrlAllowed` refuses private IP literals (every spelling)
 * and local names (`localhost`, `*.local`, `*.internal`, …) for every hop.
 * What it cannot do through a proxy is check the addresses a public-looking
 * name resolves to: the proxy resolves it, so pinning the connection to a
 * checked address is then the proxy's job (configure it to refuse private
 * destinations). Hosts listed in `network.no_proxy` go direct, through the
 * checked lookup, so a bypass never opens an address the policy refuses.
 *
 * The proxy itself is trusted configuration: its own address is not checked
 * (a corporate proxy often has a private one).
 *
 * @module
 */
import net from "node:net";
import ipaddr from "ipaddr.js";
import type { NetworkSection } from "../config/sections.ts";
import { GleanerError, networkError } from "../errors.ts";
import { parseHostLiteral } from "./address.ts";

/** The network settings that choose a proxy. */
export type ProxySettings = Partial<Pick<NetworkSection, "proxy_url" | "no_proxy">>;

/** A configured upstream proxy, parsed once. */
export interface UpstreamProxy {
  /** Host name or address of the proxy (IPv6 without brackets). */
  readonly host: string;
  /** Its port (default 80, as for any `http:` URL). */
  readonly port: number;
  /** `Basic …` from the URL's credentials, if any (a secret: never log it). */
  readonly authorization?: string;
  /** The proxy's origin without credentials, for messages and logs. */
  readonly label: string;
}

/**
 * Parses `network.proxy_url`; `undefined` when no proxy is configured.
 *
 * @throws {GleanerError} `invalid_arguments` when the value is not an
 * `http://` proxy URL (the message never repeats the value: it may hold a
 * password).
 *
 * @example
 * ```ts
 * import { parseProxy } from "./proxy.ts";
 * const proxy = parseProxy({ proxy_url: "http://me:s3cret@proxy.corp:3128" })!;
 * console.assert(proxy.label === "http://proxy.corp:3128" && proxy.port === 3128);
 * console.assert(proxy.authorization === `Basic ${btoa("me:s3cret")}`);
 * ```
 *
 * @internal exported for tests only
 */
export function parseProxy(settings: ProxySettings): UpstreamProxy | undefined {
  const raw = settings.proxy_url;
  if (raw === undefined || raw === "") return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL("invalid:");
  }
  if (url.protocol !== "http:" || url.hostname === "") {
    throw new GleanerError(
      "invalid_arguments",
      "network.proxy_url: must be an http:// proxy URL (http://[user:password@]host[:port])",
      { details: { field: "network.proxy_url" } },
    );
  }
  const credentials = url.username !== "" || url.password !== "";
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 80),
    authorization: credentials
      ? `Basic ${base64(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`)}`
      : undefined,
    label: url.origin,
  };
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * True when `url` must bypass the proxy by `no_proxy`. Entries: `*` (every
 * host), a name (`example.com` matches it and its subdomains; a leading `.`
 * or `*.` matches only subdomains), an IP address or CIDR range (`10.0.0.0/8`,
 * matched against IP-literal hosts only), each optionally followed by
 * `:port` (then only that port matches). Case-insensitive; a trailing dot is
 * ignored.
 *
 * @example
 * ```ts
 * import { bypassesProxy } from "./proxy.ts";
 * const list = ["intranet.corp", ".lan", "10.0.0.0/8", "api.example:8443"];
 * console.assert(bypassesProxy(new URL("https://wiki.intranet.corp/"), list));
 * console.assert(!bypassesProxy(new URL("https://lan/"), list));
 * console.assert(bypassesProxy(new URL("http://10.1.2.3/"), list));
 * console.assert(!bypassesProxy(new URL("https://api.example/"), list));
 * ```
 *
 * @internal exported for tests only
 */
export function bypassesProxy(url: URL, noProxy: readonly string[]): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  let literal: string | null = null;
  try {
    literal = parseHostLiteral(host);
  } catch {
    literal = null;
  }
  for (const raw of noProxy) {
    let entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    let entryPort: number | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1];
      entryPort = bracketed[2] === undefined ? undefined : Number(bracketed[2]);
    } else if (/^[^:]+:\d+$/.test(entry)) {
      const colon = entry.lastIndexOf(":");
      entryPort = Number(entry.slice(colon + 1));
      entry = entry.slice(0, colon);
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    if (literal !== null) {
      if (matchesAddress(literal, entry)) return true;
      continue;
    }
    entry = entry.replace(/\.$/, "");
    if (entry.startsWith("*.")) entry = entry.slice(1);
    if (entry.startsWith(".")) {
      if (host.endsWith(entry)) return true;
    } else if (host === entry || host.endsWith(`.${entry}`)) {
      return true;
    }
  }
  return false;
}

/** True when the IP address `literal` is `entry` (an address) or inside it (a CIDR range). */
function matchesAddress(literal: string, entry: string): boolean {
  try {
    const address = ipaddr.parse(literal);
    if (entry.includes("/")) {
      const [range, bits] = ipaddr.parseCIDR(entry);
      return address.kind() === range.kind() && address.match([range, bits]);
    }
    const other = ipaddr.parse(entry);
    return address.kind() === other.kind() && address.toString() === other.toString();
  } catch {
    return false;
  }
}

/**
 * The proxy route of a network configuration: a function giving the proxy a
 * request to `url` goes through, or `undefined` (no proxy configured, or
 * `url` bypasses it by `no_proxy`). `proxy_url` is parsed once, here, not
 * per request.
 *
 * @example
 * ```ts
 * import { proxyRoute } from "./proxy.ts";
 * const proxyFor = proxyRoute({ proxy_url: "http://proxy.corp:3128", no_proxy: ["intranet.corp"] });
 * console.assert(proxyFor(new URL("https://example.com/"))?.port === 3128);
 * console.assert(proxyFor(new URL("https://intranet.corp/")) === undefined);
 * ```
 */
export function proxyRoute(settings: ProxySettings): (url: URL) => UpstreamProxy | undefined {
  const proxy = parseProxy(settings);
  const noProxy = settings.no_proxy ?? [];
  return (url) => proxy && !bypassesProxy(url, noProxy) ? proxy : undefined;
}

/**
 * The error for a proxy that answered `status` instead of serving the
 * request for `origin`: `unauthorized` for 407 (the proxy wants other
 * credentials; RFC 9110 §15.5.8) and for 401 to a `CONNECT` (tinyproxy up to
 * 1.11 answers wrong credentials so: https://github.com/tinyproxy/tinyproxy/issues/532),
 * `provider_unavailable` otherwise. Names the proxy without
 * its credentials, and the status.
 *
 * @example
 * ```ts
 * import { parseProxy, proxyRefusal } from "./proxy.ts";
 * const proxy = parseProxy({ proxy_url: "http://u:p@proxy.corp:3128" })!;
 * const error = proxyRefusal(proxy, 407, "https://example.com");
 * console.assert(error.code === "unauthorized" && !error.message.includes("u:p"));
 * ```
 */
export function proxyRefusal(proxy: UpstreamProxy, status: number, origin: string): GleanerError {
  const auth = status === 407 || status === 401;
  const hint = auth
    ? proxy.authorization
      ? ": the credentials in network.proxy_url were refused"
      : ": it needs credentials (http://user:password@host:port in network.proxy_url)"
    : "";
  return new GleanerError(
    auth ? "unauthorized" : "provider_unavailable",
    `proxy ${proxy.label} refused the request to ${origin} with status ${status}${hint}`,
    { details: { proxy: proxy.label, status } },
  );
}

/** Options of {@link openTunnel}. */
export interface TunnelOptions {
  /** Ends the attempt (the socket is destroyed, the promise rejects with the reason). */
  signal?: AbortSignal;
  /** Time for the TCP connect to the proxy and its answer to `CONNECT` (ms). */
  timeoutMs: number;
  /** The origin the tunnel serves, named in errors (default `host:port`). */
  origin?: string;
  /** Called with the socket to the proxy as soon as it exists (to track or close it). */
  onSocket?: (socket: net.Socket) => void;
}

/** Largest `CONNECT` response head read from a proxy. */
const MAX_HEAD_BYTES = 16 * 1024;

/**
 * Opens a `CONNECT host:port` tunnel through `proxy` and resolves with the
 * socket once the proxy answered 2xx: from then on, its bytes are the
 * origin's. A refusal (any other status) rejects with {@link proxyRefusal};
 * an unreachable proxy with `provider_unavailable` naming the proxy; the
 * timeout with `timeout`.
 *
 * @example
 * ```ts ignore
 * import tls from "node:tls";
 * import { openTunnel, parseProxy } from "./proxy.ts";
 * const proxy = parseProxy({ proxy_url: "http://proxy.corp:3128" })!;
 * const socket = await openTunnel(proxy, "example.com", 443, { timeoutMs: 10_000 });
 * const secure = tls.connect({ socket, servername: "example.com" });
 * ```
 */
export function openTunnel(
  proxy: UpstreamProxy,
  host: string,
  port: number,
  options: TunnelOptions,
): Promise<net.Socket> {
  const authority = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const origin = options.origin ?? authority;
  return new Promise((resolve, reject) => {
    const signal = options.signal;
    if (signal?.aborted) return reject(signal.reason);
    const socket = net.connect({ host: proxy.host, port: proxy.port });
    options.onSocket?.(socket);
    let head = new Uint8Array(0);
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      socket.off("data", onData);
      socket.off("error", onError);
      socket.off("close", onClose);
      if (error !== undefined) {
        socket.destroy();
        reject(error);
      } else {
        resolve(socket);
      }
    };
    const onAbort = () => finish(signal!.reason);
    const onError = (error: unknown) => finish(proxyUnreachable(proxy, error, origin));
    const onClose = () =>
      finish(
        new GleanerError(
          "provider_unavailable",
          `proxy ${proxy.label} closed the connection before answering CONNECT for ${origin}`,
          { details: { proxy: proxy.label } },
        ),
      );
    const onData = (chunk: Uint8Array) => {
      const joined = new Uint8Array(head.length + chunk.length);
      joined.set(head);
      joined.set(chunk, head.length);
      head = joined;
      const end = indexOfHeadEnd(head);
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES) {
          finish(
            new GleanerError(
              "provider_unavailable",
              `proxy ${proxy.label} sent an oversized answer to CONNECT for ${origin}`,
              { details: { proxy: proxy.label } },
            ),
          );
        }
        return;
      }
      const statusLine = new TextDecoder().decode(head.subarray(0, head.indexOf(13)));
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
      const status = match ? Number(match[1]) : 0;
      if (status < 200 || status > 299) {
        finish(
          status === 0
            ? new GleanerError(
              "provider_unavailable",
              `proxy ${proxy.label} sent an invalid answer to CONNECT for ${origin}`,
              { details: { proxy: proxy.label } },
            )
            : proxyRefusal(proxy, status, origin),
        );
        return;
      }
      const rest = head.subarray(end);
      // Nothing may flow before the caller listens (TLS or a pipe resumes the socket).
      socket.pause();
      finish();
      // Bytes after the proxy's head already belong to the tunnel.
      if (rest.length > 0) socket.unshift(rest);
    };
    const timer = setTimeout(
      () =>
        finish(
          new GleanerError(
            "timeout",
            `proxy ${proxy.label} did not open a tunnel to ${origin} within ${options.timeoutMs} ms`,
            { details: { proxy: proxy.label } },
          ),
        ),
      options.timeoutMs,
    );
    signal?.addEventListener("abort", onAbort, { once: true });
    socket.on("error", onError);
    socket.on("close", onClose);
    socket.on("data", onData);
    socket.once("connect", () => {
      const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
      if (proxy.authorization) lines.push(`Proxy-Authorization: ${proxy.authorization}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
  });
}

/** Index just past the blank line that ends an HTTP head, or -1. */
function indexOfHeadEnd(bytes: Uint8Array): number {
  for (let i = 3; i < bytes.length; i++) {
    if (bytes[i] === 10 && bytes[i - 1] === 13 && bytes[i - 2] === 10 && bytes[i - 3] === 13) {
      return i + 1;
    }
  }
  return -1;
}

/**
 * A failure to reach the proxy itself, as a `provider_unavailable` (or
 * `not_found` for a proxy name that does not exist) naming the proxy.
 *
 * @example
 * ```ts
 * import { parseProxy, proxyUnreachable } from "./proxy.ts";
 * const proxy = parseProxy({ proxy_url: "http://proxy.corp:3128" })!;
 * const error = proxyUnreachable(proxy, Object.assign(new Error("x"), { code: "ECONNREFUSED" }));
 * console.assert(error.message.includes("proxy http://proxy.corp:3128"));
 * ```
 */
export function proxyUnreachable(
  proxy: UpstreamProxy,
  error: unknown,
  origin?: string,
): GleanerError {
  if (error instanceof GleanerError) return error;
  const code = String((error as { code?: unknown })?.code ?? "");
  const named = networkError(error, proxy.label);
  // A missing --allow-net permission names the flag as it does for any host.
  if (named && named.code !== "not_found" && named.code !== "provider_unavailable") return named;
  const forWhat = origin ? ` (for ${origin})` : "";
  return new GleanerError(
    named?.code === "not_found" ? "not_found" : "provider_unavailable",
    `proxy ${proxy.label} is unreachable${code ? ` (${code})` : ""}${forWhat}`,
    { cause: error, details: { proxy: proxy.label } },
  );
}
