/**
 * The {@link Cache} contract over Valkey/Redis, so several Gleaner processes
 * share one cache.
 *
 * Cache entries carry a server-side expiry equal to their namespace TTL.
 * The size cap is left to the server (`maxmemory` with an `allkeys-lru`
 * policy): Valkey already tracks access recency for every key.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { DEFAULT_CACHE_TTLS } from "./cache.ts";
import {
  type Cache,
  CACHE_NAMESPACES,
  type CacheClearResult,
  type CacheGetOptions,
  type CacheNamespace,
  type CacheStats,
  checkNamespace,
} from "./types.ts";
import { call, DEFAULT_KEY_PREFIX, globEscape, type Redis } from "./valkey_client.ts";

/** Options of {@link ValkeyCache}. */
export interface ValkeyCacheOptions {
  /** Freshness per namespace (seconds); `0` disables caching for that namespace. */
  ttls?: Partial<Record<CacheNamespace, number>>;
  /** Key prefix (default `gleaner:`); lets several deployments share a server. */
  prefix?: string;
  /** Clock (ms since epoch); injectable for tests. */
  now?: () => number;
}

/**
 * {@link Cache} on Valkey. Values are stored as `<created ms>|<json>` under
 * `<prefix>c:<ns>:<key>` with a server-side expiry of the namespace TTL.
 *
 * @example
 * ```ts ignore
 * import { connectValkey } from "./valkey_client.ts";
 * import { ValkeyCache } from "./valkey_cache.ts";
 * const client = await connectValkey("redis://127.0.0.1:6379");
 * const cache = new ValkeyCache(client);
 * await cache.set("pages", "https://example.com/", { title: "Example" });
 * console.assert((await cache.get<{ title: string }>("pages", "https://example.com/"))?.title);
 * await client.quit();
 * ```
 */
export class ValkeyCache implements Cache {
  readonly #client: Redis;
  readonly #ttlMs: Record<CacheNamespace, number>;
  readonly #prefix: string;
  readonly #now: () => number;

  /** Uses a connected client (see {@link connectValkey}); does not own it. */
  constructor(client: Redis, options: ValkeyCacheOptions = {}) {
    this.#client = client;
    const ttls = { ...DEFAULT_CACHE_TTLS, ...options.ttls };
    this.#ttlMs = {
      search: Math.round(ttls.search * 1000),
      pages: Math.round(ttls.pages * 1000),
      crawl: Math.round(ttls.crawl * 1000),
    };
    this.#prefix = options.prefix ?? DEFAULT_KEY_PREFIX;
    this.#now = options.now ?? Date.now;
  }

  #key(ns: CacheNamespace, key: string): string {
    return `${this.#prefix}c:${checkNamespace(ns)}:${key}`;
  }

  /** {@inheritDoc Cache.get} */
  async get<T = unknown>(
    ns: CacheNamespace,
    key: string,
    options: CacheGetOptions = {},
  ): Promise<T | undefined> {
    const k = this.#key(ns, key);
    const maxAgeS = options.maxAgeS;
    if (maxAgeS !== undefined && !(Number.isFinite(maxAgeS) && maxAgeS >= 0)) {
      throw new GleanerError("invalid_arguments", "maxAgeS must be a number of seconds >= 0", {
        details: { field: "maxAgeS" },
      });
    }
    const raw = await call(this.#client.get(k));
    if (raw === null) return undefined;
    const bar = raw.indexOf("|");
    const created = Number(raw.slice(0, bar));
    if (bar < 0 || !Number.isFinite(created)) {
      await call(this.#client.del(k));
      return undefined;
    }
    const age = this.#now() - created;
    if (age >= this.#ttlMs[ns]) return undefined;
    if (maxAgeS !== undefined && age >= maxAgeS * 1000) return undefined;
    try {
      return JSON.parse(raw.slice(bar + 1)) as T;
    } catch {
      await call(this.#client.del(k));
      return undefined;
    }
  }

  /** {@inheritDoc Cache.set} */
  async set(ns: CacheNamespace, key: string, value: unknown): Promise<void> {
    const k = this.#key(ns, key);
    const json = JSON.stringify(value);
    if (json === undefined) {
      throw new GleanerError("invalid_arguments", `cache value for ${ns} is not JSON`, {
        details: { field: "value" },
      });
    }
    const ttl = this.#ttlMs[ns];
    if (ttl <= 0) return;
    await call(this.#client.set(k, `${this.#now()}|${json}`, "PX", ttl));
  }

  /** {@inheritDoc Cache.delete} */
  async delete(ns: CacheNamespace, key: string): Promise<boolean> {
    return (await call(this.#client.del(this.#key(ns, key)))) > 0;
  }

  /** {@inheritDoc Cache.clear} */
  async clear(ns: CacheNamespace | "all"): Promise<CacheClearResult> {
    const targets = ns === "all" ? CACHE_NAMESPACES : [checkNamespace(ns)];
    const by_namespace: Record<CacheNamespace, number> = { search: 0, pages: 0, crawl: 0 };
    for (const n of targets) {
      await this.#scan(n, async (keys) => {
        by_namespace[n] += await call(this.#client.del(...keys));
      });
    }
    const removed = by_namespace.search + by_namespace.pages + by_namespace.crawl;
    return { removed, by_namespace };
  }

  /** Expiry is done by the server; nothing to sweep. */
  sweep(): Promise<number> {
    return Promise.resolve(0);
  }

  /** {@inheritDoc Cache.stats} (bytes and cap are the server's business: `null`). */
  async stats(): Promise<CacheStats> {
    const entries: Record<CacheNamespace, number> = { search: 0, pages: 0, crawl: 0 };
    for (const n of CACHE_NAMESPACES) {
      await this.#scan(n, (keys) => {
        entries[n] += keys.length;
        return Promise.resolve();
      });
    }
    return { entries, bytes: null, max_bytes: null };
  }

  async #scan(ns: CacheNamespace, each: (keys: string[]) => Promise<void>): Promise<void> {
    const match = `${globEscape(this.#prefix)}c:${ns}:*`;
    let cursor = "0";
    do {
      const [next, keys] = await call(
        this.#client.scan(cursor, "MATCH", match, "COUNT", 500),
      );
      cursor = next;
      if (keys.length > 0) await each(keys);
    } while (cursor !== "0");
  }
}
