/**
 * The SQLite cache: JSON values in namespaces (`search`, `pages`, `crawl`),
 * each with its own freshness, under one size cap with least-recently-used
 * eviction. Expiry is applied when reading and swept occasionally on write.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { transaction } from "./sqlite.ts";
import {
  type Cache,
  CACHE_NAMESPACES,
  type CacheClearResult,
  type CacheGetOptions,
  type CacheNamespace,
  type CacheStats,
  checkNamespace,
} from "./types.ts";

export type { Cache, CacheClearResult, CacheGetOptions, CacheNamespace, CacheStats };

const log = getGleanerLogger("store", "cache");

/** Namespace freshness (seconds) used when none is given: the `store.*_ttl_s` defaults. */
export const DEFAULT_CACHE_TTLS: Readonly<Record<CacheNamespace, number>> = {
  search: 3_600,
  pages: 86_400,
  crawl: 21_600,
};

/** Reads closer than this to the previous access do not rewrite `last_access` (ms). */
const TOUCH_GRANULARITY_MS = 1_000;

/** Options of {@link SqliteCache}. */
export interface SqliteCacheOptions {
  /** Freshness per namespace (seconds); `0` disables caching for that namespace. */
  ttls?: Partial<Record<CacheNamespace, number>>;
  /** Size cap (bytes of JSON value + key); default 200 MB (`store.cache_max_bytes`). */
  maxBytes?: number;
  /** When over the cap, evict down to this share of it (default 0.9) so eviction runs rarely. */
  lowWaterRatio?: number;
  /** How often a write also sweeps expired entries (ms); default 60 s. */
  sweepIntervalMs?: number;
  /** Clock (ms since epoch); injectable for tests. */
  now?: () => number;
}

/**
 * {@link Cache} on the store's SQLite file. Several processes may share the
 * file: sizes are kept by triggers inside SQLite, so the total stays exact.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./sqlite.ts";
 * import { SqliteCache } from "./cache.ts";
 * const db = openDatabase(":memory:");
 * const cache = new SqliteCache(db, { ttls: { search: 60 } });
 * await cache.set("search", "deno sqlite", { hits: 3 });
 * const hit = await cache.get<{ hits: number }>("search", "deno sqlite");
 * console.assert(hit?.hits === 3);
 * console.assert(await cache.get("search", "deno sqlite", { maxAgeS: 0 }) === undefined);
 * db.close();
 * ```
 */
export class SqliteCache implements Cache {
  readonly #db: DatabaseSync;
  readonly #ttlMs: Record<CacheNamespace, number>;
  readonly #maxBytes: number;
  readonly #lowWater: number;
  readonly #sweepEvery: number;
  readonly #now: () => number;
  #lastSweep = Number.NEGATIVE_INFINITY;
  readonly #select: StatementSync;
  readonly #touch: StatementSync;
  readonly #upsert: StatementSync;
  readonly #deleteOne: StatementSync;
  readonly #deleteNs: StatementSync;
  readonly #deleteExpired: StatementSync;
  readonly #total: StatementSync;
  readonly #evict: StatementSync;
  readonly #counts: StatementSync;

  /** Wraps an open, migrated database (see `openDatabase`). */
  constructor(db: DatabaseSync, options: SqliteCacheOptions = {}) {
    this.#db = db;
    const ttls = { ...DEFAULT_CACHE_TTLS, ...options.ttls };
    this.#ttlMs = {
      search: seconds(ttls.search, "store.search_ttl_s") * 1000,
      pages: seconds(ttls.pages, "store.page_ttl_s") * 1000,
      crawl: seconds(ttls.crawl, "store.crawl_ttl_s") * 1000,
    };
    this.#maxBytes = options.maxBytes ?? 200_000_000;
    if (!(this.#maxBytes > 0)) {
      throw new GleanerError("invalid_arguments", "store.cache_max_bytes must be positive", {
        details: { field: "store.cache_max_bytes" },
      });
    }
    const ratio = options.lowWaterRatio ?? 0.9;
    this.#lowWater = Math.floor(this.#maxBytes * Math.min(1, Math.max(0, ratio)));
    this.#sweepEvery = options.sweepIntervalMs ?? 60_000;
    this.#now = options.now ?? Date.now;

    this.#select = db.prepare(
      "SELECT value, created_at, last_access FROM cache_entries WHERE ns = ? AND key = ?",
    );
    this.#touch = db.prepare(
      "UPDATE cache_entries SET last_access = ? WHERE ns = ? AND key = ?",
    );
    this.#upsert = db.prepare(
      `INSERT INTO cache_entries (ns, key, value, bytes, created_at, last_access)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, bytes = excluded.bytes,
         created_at = excluded.created_at, last_access = excluded.last_access`,
    );
    this.#deleteOne = db.prepare("DELETE FROM cache_entries WHERE ns = ? AND key = ?");
    this.#deleteNs = db.prepare("DELETE FROM cache_entries WHERE ns = ?");
    this.#deleteExpired = db.prepare("DELETE FROM cache_entries WHERE ns = ? AND created_at <= ?");
    this.#total = db.prepare("SELECT bytes FROM cache_totals WHERE id = 1");
    // Least recently used first; evicts the shortest prefix whose bytes cover the excess.
    this.#evict = db.prepare(
      `DELETE FROM cache_entries WHERE (ns, key) IN (
         SELECT ns, key FROM (
           SELECT ns, key, bytes, SUM(bytes) OVER (
             ORDER BY last_access, created_at, ns, key ROWS UNBOUNDED PRECEDING) AS cum
           FROM cache_entries WHERE NOT (ns = ? AND key = ?)
         ) WHERE cum - bytes < ?
       )`,
    );
    this.#counts = db.prepare("SELECT ns, COUNT(*) AS n FROM cache_entries GROUP BY ns");
  }

  /** {@inheritDoc Cache.get} */
  get<T = unknown>(
    ns: CacheNamespace,
    key: string,
    options: CacheGetOptions = {},
  ): Promise<T | undefined> {
    return Promise.try(() => this.#get<T>(ns, key, options));
  }

  #get<T>(ns: CacheNamespace, key: string, options: CacheGetOptions): T | undefined {
    checkNamespace(ns);
    const maxAgeMs = options.maxAgeS === undefined
      ? undefined
      : seconds(options.maxAgeS, "maxAgeS") * 1000;
    const row = this.#select.get(ns, key) as
      | { value: string; created_at: number; last_access: number }
      | undefined;
    if (!row) return undefined;
    const now = this.#now();
    const age = now - Number(row.created_at);
    if (age >= this.#ttlMs[ns]) {
      this.#deleteOne.run(ns, key);
      return undefined;
    }
    if (maxAgeMs !== undefined && age >= maxAgeMs) return undefined;
    let value: T;
    try {
      value = JSON.parse(row.value) as T;
    } catch {
      this.#deleteOne.run(ns, key);
      return undefined;
    }
    // Recency to the second is enough for LRU and spares a write on hot keys.
    if (now - Number(row.last_access) >= TOUCH_GRANULARITY_MS) this.#touch.run(now, ns, key);
    return value;
  }

  /** {@inheritDoc Cache.set} */
  set(ns: CacheNamespace, key: string, value: unknown): Promise<void> {
    return Promise.try(() => this.#set(ns, key, value));
  }

  #set(ns: CacheNamespace, key: string, value: unknown): void {
    checkNamespace(ns);
    const json = JSON.stringify(value);
    if (json === undefined) {
      throw new GleanerError("invalid_arguments", `cache value for ${ns} is not JSON`, {
        details: { field: "value" },
      });
    }
    if (this.#ttlMs[ns] === 0) return;
    const bytes = utf8Length(json) + utf8Length(key);
    const now = this.#now();
    if (bytes > this.#lowWater) {
      // Larger than the cache may hold: keep nothing stale under this key either.
      this.#deleteOne.run(ns, key);
      log.debug("cache value for {ns} not stored: {bytes} bytes over the cap", { ns, bytes });
      return;
    }
    const evicted = transaction(this.#db, () => {
      this.#upsert.run(ns, key, json, bytes, now, now);
      const total = Number((this.#total.get() as { bytes: number }).bytes);
      if (total <= this.#maxBytes) return 0;
      return Number(this.#evict.run(ns, key, total - this.#lowWater).changes);
    });
    if (evicted > 0) log.debug("cache evicted {n} entries (LRU)", { n: evicted });
    if (now - this.#lastSweep >= this.#sweepEvery) this.#sweepNow(now);
    return;
  }

  /** {@inheritDoc Cache.delete} */
  delete(ns: CacheNamespace, key: string): Promise<boolean> {
    return Promise.try(() => Number(this.#deleteOne.run(checkNamespace(ns), key).changes) > 0);
  }

  /** {@inheritDoc Cache.clear} */
  clear(ns: CacheNamespace | "all"): Promise<CacheClearResult> {
    return Promise.try(() => this.#clear(ns));
  }

  #clear(ns: CacheNamespace | "all"): CacheClearResult {
    const targets = ns === "all" ? CACHE_NAMESPACES : [checkNamespace(ns)];
    const by_namespace: Record<CacheNamespace, number> = { search: 0, pages: 0, crawl: 0 };
    transaction(this.#db, () => {
      for (const n of targets) by_namespace[n] = Number(this.#deleteNs.run(n).changes);
    });
    const removed = by_namespace.search + by_namespace.pages + by_namespace.crawl;
    return { removed, by_namespace };
  }

  /** {@inheritDoc Cache.sweep} */
  sweep(): Promise<number> {
    return Promise.try(() => this.#sweepNow(this.#now()));
  }

  /** {@inheritDoc Cache.stats} */
  stats(): Promise<CacheStats> {
    return Promise.try(() => this.#stats());
  }

  #stats(): CacheStats {
    const entries: Record<CacheNamespace, number> = { search: 0, pages: 0, crawl: 0 };
    for (const row of this.#counts.all() as { ns: string; n: number }[]) {
      if ((CACHE_NAMESPACES as readonly string[]).includes(row.ns)) {
        entries[row.ns as CacheNamespace] = Number(row.n);
      }
    }
    const bytes = Number((this.#total.get() as { bytes: number }).bytes);
    return { entries, bytes, max_bytes: this.#maxBytes };
  }

  #sweepNow(now: number): number {
    this.#lastSweep = now;
    let removed = 0;
    transaction(this.#db, () => {
      for (const ns of CACHE_NAMESPACES) {
        removed += Number(this.#deleteExpired.run(ns, now - this.#ttlMs[ns]).changes);
      }
    });
    if (removed > 0) log.debug("cache swept {n} expired entries", { n: removed });
    return removed;
  }
}

function seconds(value: number, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new GleanerError("invalid_arguments", `${field} must be a number of seconds >= 0`, {
      details: { field },
    });
  }
  return value;
}

/** UTF-8 byte length of a string without encoding it. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
