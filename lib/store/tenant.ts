/**
 * Tenants of the web-side store in hosted mode: each verified user reads and
 * writes the cache (`search`, `pages`, `crawl`) and the domain memory under
 * a tenant of their own, so nothing one user reads changes or reveals what
 * another gets. A tenant is an opaque tag (an HMAC of the user id, never the
 * id itself); clearing and sizing the whole cache stay with the operator.
 *
 * @module
 */
import { createHmac } from "node:crypto";
import { GleanerError } from "../errors.ts";
import type {
  Cache,
  CacheClearResult,
  CacheGetOptions,
  CacheNamespace,
  CacheStats,
  DomainStats,
} from "./types.ts";

/** A tenant tag: 1-64 characters of `a-z 0-9 _ -`. */
const TENANT = /^[a-z0-9_-]{1,64}$/;

/**
 * Checks a tenant tag (1-64 characters of `a-z 0-9 _ -`), so that it can sit
 * in a key or a Valkey match pattern as it is.
 *
 * @example
 * ```ts
 * import { checkTenant } from "./tenant.ts";
 * console.assert(checkTenant("3f2a9c") === "3f2a9c");
 * ```
 */
export function checkTenant(tenant: string): string {
  if (typeof tenant !== "string" || !TENANT.test(tenant)) {
    throw new GleanerError("invalid_arguments", "tenant must be 1-64 characters of a-z 0-9 _ -", {
      details: { field: "tenant" },
    });
  }
  return tenant;
}

/**
 * The web-side tenant of a verified user: hex HMAC-SHA256 of the user id
 * under the hosted HMAC secret (with its own label, so it differs from the
 * name of the user's memory file), 32 characters.
 *
 * @example
 * ```ts
 * import { webTenant } from "./tenant.ts";
 * const secret = "k".repeat(32);
 * console.assert(webTenant(secret, "alice") !== webTenant(secret, "bob"));
 * console.assert(webTenant(secret, "alice").length === 32);
 * ```
 */
export function webTenant(secret: string, user: string): string {
  return createHmac("sha256", secret).update(`gleaner-web\u0000${user}`, "utf8").digest("hex")
    .slice(0, 32);
}

/**
 * The web-side tenant of the operator in hosted mode (a request with the
 * admin key): an HMAC under the hosted HMAC secret with a label of its own,
 * so no user id maps to it. What the operator reads with the operator's own
 * tiers (browsing history, the GitHub token) is cached there, never in the
 * cache of the user whose request carried the key.
 *
 * @example
 * ```ts
 * import { operatorWebTenant, webTenant } from "./tenant.ts";
 * const secret = "k".repeat(32);
 * console.assert(operatorWebTenant(secret) !== webTenant(secret, "operator"));
 * console.assert(operatorWebTenant(secret).length === 32);
 * ```
 */
export function operatorWebTenant(secret: string): string {
  return createHmac("sha256", secret).update("gleaner-web-operator", "utf8").digest("hex")
    .slice(0, 32);
}

/** One tenant's part of the store. */
export interface TenantStore {
  /** The tenant's cache: its own keys only; `clear` and `stats` are the operator's. */
  readonly cache: Cache;
  /** The tenant's domain memory: its own origins only. */
  readonly domains: DomainStats;
}

function operatorOnly(what: string): GleanerError {
  return new GleanerError(
    "unauthorized",
    `${what} covers every user's cache: in hosted mode only the operator may do it`,
  );
}

/**
 * A view of `cache` holding `tenant`'s entries only: every key is prefixed
 * with the tenant, so another tenant's entry is never found. Works over any
 * backend; the operator's `clear` on the whole cache removes tenants'
 * entries too. `clear` and `stats` on the view answer `unauthorized` (they
 * would act on, or reveal, every tenant's entries).
 *
 * @example
 * ```ts
 * import { openStore } from "./mod.ts";
 * import { tenantCache } from "./tenant.ts";
 * const store = openStore({ path: ":memory:" });
 * const a = tenantCache(store.cache, "a");
 * await a.set("pages", "k", 1);
 * console.assert(await tenantCache(store.cache, "b").get("pages", "k") === undefined);
 * console.assert(await a.get("pages", "k") === 1);
 * await store.close();
 * ```
 */
export function tenantCache(cache: Cache, tenant: string): Cache {
  const prefix = `tenant:${checkTenant(tenant)}:`;
  return {
    get<T = unknown>(ns: CacheNamespace, key: string, options?: CacheGetOptions) {
      return cache.get<T>(ns, prefix + key, options);
    },
    set: (ns, key, value) => cache.set(ns, prefix + key, value),
    delete: (ns, key) => cache.delete(ns, prefix + key),
    clear: (): Promise<CacheClearResult> => Promise.reject(operatorOnly("clearing the cache")),
    sweep: () => cache.sweep(),
    stats: (): Promise<CacheStats> => Promise.reject(operatorOnly("the cache's size")),
  };
}
