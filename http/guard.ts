/**
 * Request guards of the HTTP server: `Host`/`Origin` validation against DNS
 * rebinding, and an optional bearer token.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { ServerSection } from "../lib/config/sections.ts";
import { tokenMatches } from "../lib/manage/token.ts";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]", "::1"];

/** The host names the server answers to: loopback names, the bind address, configured names. */
export function servedHostNames(server: ServerSection): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  if (server.host && server.host !== "0.0.0.0" && server.host !== "::") {
    names.add(server.host.toLowerCase());
    if (server.host.includes(":") && !server.host.startsWith("[")) {
      names.add(`[${server.host.toLowerCase()}]`);
    }
  }
  for (const name of server.allowed_hosts) {
    if (!name.includes("://")) names.add(name.toLowerCase());
  }
  return names;
}

/**
 * Host name of a `Host` header value (`name:port`, `[v6]:port`).
 *
 * @internal exported for tests only
 */
export function hostHeaderName(value: string): string | undefined {
  try {
    return new URL(`http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** True when `value` (an `Origin`) is the origin of `host` (a `Host` header value), http or https. */
function sameOrigin(origin: URL, host: string): boolean {
  for (const scheme of ["http:", "https:"]) {
    try {
      if (new URL(`${scheme}//${host}`).origin === origin.origin) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Refuses (403) any request whose `Host` names a host the server does not
 * serve, or whose `Origin` is not the server's own (scheme, host and port of
 * the `Host` it was reached on) nor an origin listed in `allowedOrigins`, so a
 * web page (even one on another port of localhost) cannot drive a local
 * Gleaner through DNS rebinding or a cross-site request.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { hostGuard } from "@gleaner/gleaner/http";
 * const app = new Hono().use(hostGuard(new Set(["localhost", "127.0.0.1"])));
 * const res = await app.request("http://evil.example/health");
 * console.assert(res.status === 403);
 * const other = await app.request("http://localhost:8787/health", {
 *   headers: { origin: "http://localhost:3000" },
 * });
 * console.assert(other.status === 403);
 * ```
 */
export function hostGuard(
  allowed: Set<string>,
  allowedOrigins: ReadonlySet<string> = new Set(),
): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    const hostName = hostHeaderName(host);
    if (!hostName || !allowed.has(hostName)) {
      return c.json({ error: { code: "unauthorized", message: "Host header not allowed" } }, 403);
    }
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(origin);
      } catch {
        parsed = undefined;
      }
      if (!parsed || (!sameOrigin(parsed, host) && !allowedOrigins.has(parsed.origin))) {
        return c.json({ error: { code: "unauthorized", message: "Origin not allowed" } }, 403);
      }
    }
    await next();
  };
}

/**
 * The origins (besides the server's own) allowed in `Origin`: the entries of
 * `server.allowed_hosts` written as origins (`https://app.example:8443`).
 */
export function allowedOrigins(server: ServerSection): Set<string> {
  const origins = new Set<string>();
  for (const entry of server.allowed_hosts) {
    if (!entry.includes("://")) continue;
    try {
      origins.add(new URL(entry).origin);
    } catch {
      // not an origin: a plain host name, handled by servedHostNames
    }
  }
  return origins;
}

/** True for the MCP endpoints (`/mcp`, `/mcp/deep-research`), whose clients read JSON-RPC. */
export function isMcpPath(path: string): boolean {
  return path === "/mcp" || path.startsWith("/mcp/");
}

/**
 * The body of a 401: on an MCP endpoint a JSON-RPC error (code `-32001`, no id, the Gleaner
 * code in `data`), which MCP clients parse; elsewhere the REST error shape.
 *
 * @example
 * ```ts
 * import { unauthorizedBody } from "./guard.ts";
 * const body = unauthorizedBody("/mcp", "missing or wrong bearer token") as {
 *   jsonrpc: string;
 *   error: { code: number };
 * };
 * console.assert(body.jsonrpc === "2.0" && body.error.code === -32001);
 * ```
 */
export function unauthorizedBody(path: string, message: string): Record<string, unknown> {
  if (isMcpPath(path)) {
    return {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32001, message: `Unauthorized: ${message}`, data: { code: "unauthorized" } },
    };
  }
  return { error: { code: "unauthorized", message } };
}

/**
 * Requires `Authorization: Bearer <key>` when a key is configured (`/health`
 * stays open). The scheme is case-insensitive; a refusal is 401 with
 * `WWW-Authenticate: Bearer`, and on `/mcp` its body is a JSON-RPC error
 * ({@link unauthorizedBody}).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { bearerGuard } from "@gleaner/gleaner/http";
 * const app = new Hono().use(bearerGuard("k")).get("/x", (c) => c.text("ok"));
 * const res = await app.request("/x");
 * console.assert(res.status === 401 && res.headers.get("www-authenticate")?.startsWith("Bearer"));
 * console.assert((await app.request("/x", { headers: { authorization: "bearer k" } })).status === 200);
 * ```
 */
export function bearerGuard(key: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (key && c.req.path !== "/health") {
      const given = c.req.header("authorization") ?? "";
      if (!bearerMatches(given, key)) {
        c.header(
          "WWW-Authenticate",
          given ? 'Bearer realm="gleaner", error="invalid_token"' : 'Bearer realm="gleaner"',
        );
        return c.json(unauthorizedBody(c.req.path, "missing or wrong bearer token"), 401);
      }
    }
    await next();
  };
}

/**
 * True when an `Authorization` header value is `Bearer <key>` (scheme
 * case-insensitive, key compared in constant time).
 *
 * @example
 * ```ts
 * import { bearerMatches } from "./guard.ts";
 * console.assert(bearerMatches("bearer k", "k") && !bearerMatches("Bearer x", "k"));
 * ```
 */
export function bearerMatches(header: string, key: string): boolean {
  const match = /^(\S+)\s+(\S+)\s*$/.exec(header);
  return match !== null && match[1].toLowerCase() === "bearer" && tokenMatches(match[2], key);
}

/** True for names and addresses that only reach this machine. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "");
  return name === "localhost" || name.endsWith(".localhost") || name === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}
