/**
 * Request guards of the HTTP server: `Host`/`Origin` validation against DNS
 * rebinding, and an optional bearer token.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { Config } from "../lib/config.ts";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]", "::1"];

/** The host names the server answers to: loopback names, the bind address, configured names. */
export function servedHostNames(server: Config["server"]): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  if (server.host && server.host !== "0.0.0.0" && server.host !== "::") {
    names.add(server.host.toLowerCase());
    if (server.host.includes(":") && !server.host.startsWith("[")) {
      names.add(`[${server.host.toLowerCase()}]`);
    }
  }
  for (const name of server.allowed_hosts) names.add(name.toLowerCase());
  return names;
}

/** Host name of a `Host` header value (`name:port`, `[v6]:port`). */
export function hostHeaderName(value: string): string | undefined {
  try {
    return new URL(`http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Refuses (403) any request whose `Host` or `Origin` names a host the server
 * does not serve, so a web page cannot drive a local Gleaner through DNS rebinding.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { hostGuard } from "@gleaner/gleaner/http";
 * const app = new Hono().use(hostGuard(new Set(["localhost", "127.0.0.1"])));
 * const res = await app.request("http://evil.example/health");
 * console.assert(res.status === 403);
 * ```
 */
export function hostGuard(allowed: Set<string>): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    const hostName = hostHeaderName(host);
    if (!hostName || !allowed.has(hostName)) {
      return c.json({ error: { code: "unauthorized", message: "Host header not allowed" } }, 403);
    }
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      let originName: string | undefined;
      try {
        originName = new URL(origin).hostname.toLowerCase();
      } catch {
        originName = undefined;
      }
      if (!originName || !allowed.has(originName)) {
        return c.json({ error: { code: "unauthorized", message: "Origin not allowed" } }, 403);
      }
    }
    await next();
  };
}

/**
 * Requires `Authorization: Bearer <key>` when a key is configured (`/health` stays open).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { bearerGuard } from "@gleaner/gleaner/http";
 * const app = new Hono().use(bearerGuard("k")).get("/x", (c) => c.text("ok"));
 * console.assert((await app.request("/x")).status === 401);
 * ```
 */
export function bearerGuard(key: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (key && c.req.path !== "/health") {
      const given = c.req.header("authorization") ?? "";
      if (!timingSafeEqual(given, `Bearer ${key}`)) {
        return c.json(
          { error: { code: "unauthorized", message: "missing or wrong bearer token" } },
          401,
        );
      }
    }
    await next();
  };
}

function timingSafeEqual(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let diff = left.length ^ right.length;
  for (let i = 0; i < right.length; i++) diff |= (left[i] ?? 0) ^ right[i];
  return diff === 0;
}
