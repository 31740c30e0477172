/**
 * Hosted mode: several users share one server behind a trusted reverse
 * proxy. The proxy authenticates users and forwards a verified user id
 * header plus a shared proxy token (≥ 32 bytes, compared in constant time),
 * from configured source addresses. A request without that identity is
 * refused; the request then runs with that user's view: their own memory
 * store and their own tenant of the web-side cache and domain memory. A user
 * id is never taken from a tool argument. A request that also carries the
 * operator's admin key ({@link ADMIN_KEY_HEADER}, `memory.hosted_admin_key`,
 * compared in constant time) runs as the operator, who alone may clear the
 * cache (every user's).
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import ipaddr from "ipaddr.js";
import type { MemorySection } from "../lib/config/sections.ts";
import { GleanerError, HTTP_STATUS } from "../lib/errors.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { getGleanerLogger } from "../lib/log.ts";
import { checkUserId } from "../lib/memory/stores.ts";
import { isMcpPath, unauthorizedBody } from "./guard.ts";

const log = getGleanerLogger("http");

const scoped = new WeakMap<Request, Gleaner>();
const owners = new WeakMap<Request, string>();

/**
 * Header carrying the operator's admin key in hosted mode.
 *
 * @internal exported for tests only
 */
export const ADMIN_KEY_HEADER = "x-gleaner-admin-key";

/**
 * Whether a request carries the operator's admin key: `false` without the
 * header, `true` when it matches `memory.hosted_admin_key` (constant time),
 * else a `GleanerError("unauthorized")` (also when no admin key is set).
 *
 * @internal exported for tests only
 */
export function verifyAdminKey(settings: MemorySection, request: Request): boolean {
  const given = request.headers.get(ADMIN_KEY_HEADER);
  if (given === null) return false;
  if (!settings.hosted_admin_key || !sameSecret(given, settings.hosted_admin_key)) {
    throw new GleanerError("unauthorized", "wrong operator admin key");
  }
  return true;
}

/**
 * Hono middleware for a route that is the operator's alone in hosted mode
 * (`GET /config`, `PUT /config`): a request without the operator's admin key
 * ({@link ADMIN_KEY_HEADER}) is refused with 403 `unauthorized`, whoever the
 * verified user is; {@link hostedIdentity} has already refused a wrong key
 * (401). Outside hosted mode it lets every request through (the bearer guard
 * decides).
 *
 * @example
 * ```ts ignore
 * import { operatorRoute } from "./hosted.ts";
 * app.get("/config", operatorRoute(gleaner, "GET /config"), (c) => c.json({}));
 * ```
 */
export function operatorRoute(gleaner: Gleaner, route: string): MiddlewareHandler {
  const settings = gleaner.config.memory;
  return async (c, next) => {
    if (settings.hosted && !verifyAdminKeySafely(settings, c.req.raw)) {
      const failure = new GleanerError(
        "unauthorized",
        `${route}: in hosted mode only the operator may read or change the configuration; ` +
          `the request must carry the operator's admin key (memory.hosted_admin_key) in the ` +
          `${ADMIN_KEY_HEADER} header`,
        { details: { reason: "operator_only" } },
      );
      return Response.json({ error: failure.toJSON() }, { status: 403 });
    }
    await next();
  };
}

/** {@link verifyAdminKey}, with a wrong key (already refused by {@link hostedIdentity}) as `false`. */
function verifyAdminKeySafely(settings: MemorySection, request: Request): boolean {
  try {
    return verifyAdminKey(settings, request);
  } catch {
    return false;
  }
}

/**
 * The Gleaner a request runs with: the verified user's view in hosted mode
 * (set by {@link hostedIdentity}), else `gleaner` itself.
 */
export function requestGleaner(c: Context, gleaner: Gleaner): Gleaner {
  return scoped.get(c.req.raw) ?? gleaner;
}

/**
 * Who a request runs as, for binding an MCP session to its creator: the verified user id in
 * hosted mode (with `#operator` when it carries the admin key), else `""` (one caller).
 */
export function requestOwner(c: Context): string {
  return owners.get(c.req.raw) ?? "";
}

/**
 * True when `address` is one of `trusted` (IPs or CIDR ranges; IPv4-mapped IPv6 matches IPv4).
 *
 * @internal exported for tests only
 */
export function isTrustedAddress(address: string, trusted: readonly string[]): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address.replace(/^\[|\]$/g, ""));
  } catch {
    return false;
  }
  for (const entry of trusted) {
    try {
      if (entry.includes("/")) {
        const [range, bits] = ipaddr.parseCIDR(entry);
        if (range.kind() === ip.kind() && ip.match([range, bits])) return true;
      } else {
        const other = ipaddr.process(entry);
        if (other.kind() === ip.kind() && other.toNormalizedString() === ip.toNormalizedString()) {
          return true;
        }
      }
    } catch {
      log.warn("memory.hosted_trusted_proxies: {entry} is not an address or range", { entry });
    }
  }
  return false;
}

/**
 * Constant-time comparison of two secrets (different lengths compare unequal, also in constant time).
 *
 * @internal exported for tests only
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  const len = Math.max(a.length, b.length, 1);
  const pa = new Uint8Array(len);
  const pb = new Uint8Array(len);
  pa.set(a);
  pb.set(b);
  return timingSafeEqual(pa, pb) && a.length === b.length;
}

/**
 * The identity a request carries, checked against the hosted settings:
 * the verified user id, or a `GleanerError("unauthorized")`.
 *
 * @internal exported for tests only
 */
export function verifyProxyIdentity(
  settings: MemorySection,
  request: Request,
  remoteAddress: string | undefined,
): string {
  if (!remoteAddress || !isTrustedAddress(remoteAddress, settings.hosted_trusted_proxies)) {
    throw new GleanerError("unauthorized", "request did not come from a trusted proxy");
  }
  const token = request.headers.get(settings.hosted_token_header);
  if (!token || !settings.hosted_proxy_token || !sameSecret(token, settings.hosted_proxy_token)) {
    throw new GleanerError("unauthorized", "missing or wrong proxy token");
  }
  const user = request.headers.get(settings.hosted_user_header);
  if (user === null) throw new GleanerError("unauthorized", "missing verified user id");
  checkUserId(user);
  return user;
}

/**
 * Hono middleware of hosted mode (a no-op when `memory.hosted` is off):
 * every route but `/health` needs a valid proxy identity (else 401), and the
 * request then runs with that user's view of the Gleaner ({@link requestGleaner}),
 * as the operator when it also carries the right admin key (a wrong one is 401).
 *
 * @example
 * ```ts ignore
 * import { Hono } from "hono";
 * import { hostedIdentity, requestGleaner } from "./hosted.ts";
 * const app = new Hono();
 * app.use(hostedIdentity(gleaner));
 * app.post("/v1/x", (c) => c.json(requestGleaner(c, gleaner).config.memory.hosted));
 * ```
 */
export function hostedIdentity(gleaner: Gleaner): MiddlewareHandler {
  const settings = gleaner.config.memory;
  return async (c, next) => {
    if (!settings.hosted || c.req.path === "/health") return await next();
    const env = c.env as { remoteAddr?: { hostname?: string } } | undefined;
    try {
      const user = verifyProxyIdentity(settings, c.req.raw, env?.remoteAddr?.hostname);
      const view = gleaner.forUser(user);
      const operator = verifyAdminKey(settings, c.req.raw);
      scoped.set(c.req.raw, operator ? view.asOperator() : view);
      owners.set(c.req.raw, operator ? `${user}#operator` : user);
    } catch (error) {
      const failure = error instanceof GleanerError
        ? error
        : new GleanerError("unauthorized", "proxy identity could not be checked");
      const status = HTTP_STATUS[failure.code];
      if (status === 401 && isMcpPath(c.req.path)) {
        return Response.json(unauthorizedBody(c.req.path, failure.message), { status });
      }
      return Response.json({ error: failure.toJSON() }, { status });
    }
    await next();
  };
}
