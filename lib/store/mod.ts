/**
 * Gleaner's store: one SQLite file (cache, domain stats, embeddings) and,
 * when `store.cache_url` is set, Valkey/Redis for the cache and domain stats
 * so several processes share them.
 *
 * @example
 * ```ts
 * import { openStore } from "./mod.ts";
 * const store = openStore({ path: ":memory:" });
 * await store.cache.set("search", "q", ["a"]);
 * await store.domains.record("https://example.com", "http", true);
 * console.assert(store.backend === "sqlite");
 * await store.close();
 * ```
 *
 * Permissions: those of `sqlite.ts` for the store file (default: the data dir); with
 * `store.cache_url`, those of `valkey_client.ts` and net access to the server.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { StoreSection } from "../config/sections.ts";
import { StoreSchema } from "../config/schema/store.ts";
import type { Env } from "../config/env.ts";
import { GleanerError } from "../errors.ts";
import type { EmbeddingCache } from "../embed/types.ts";
import { SqliteCache } from "./cache.ts";
import { SqliteDomainStats } from "./domain_stats.ts";
import { SqliteEmbeddingCache } from "./embeddings.ts";
import { defaultDatabasePath, MEMORY_PATH, openDatabase } from "./sqlite.ts";
import { type Cache, type DomainStats, namespaceTtls } from "./types.ts";
import { closeValkeyClient, createValkeyClient } from "./valkey_client.ts";
import { ValkeyCache } from "./valkey_cache.ts";
import { ValkeyDomainStats } from "./valkey_domain_stats.ts";
import { tenantCache, type TenantStore } from "./tenant.ts";

export * from "./types.ts";
export type { EmbeddingCache };
export { DEFAULT_CACHE_TTLS, SqliteCache, type SqliteCacheOptions, utf8Length } from "./cache.ts";
export { SqliteDomainStats, type SqliteDomainStatsOptions } from "./domain_stats.ts";
export {
  blobToVector,
  SqliteEmbeddingCache,
  type SqliteEmbeddingCacheOptions,
  vectorToBlob,
} from "./embeddings.ts";
export { type Migration, MIGRATIONS } from "./migrations.ts";
export { checkTenant, tenantCache, type TenantStore, webTenant } from "./tenant.ts";
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  defaultDatabasePath,
  MEMORY_PATH,
  migrate,
  type MigrationResult,
  openDatabase,
  type OpenDatabaseOptions,
  transaction,
  userVersion,
} from "./sqlite.ts";
export { DEFAULT_KEY_PREFIX, loadValkeyDriver } from "./valkey_client.ts";
export { type ValkeyCacheOptions } from "./valkey_cache.ts";
export {
  DAY_KEY_TTL_S,
  INFO_KEY_TTL_S,
  type ValkeyDomainStatsOptions,
} from "./valkey_domain_stats.ts";

/** The `store` section of the configuration. */
export type StoreSettings = StoreSection;

/** Everything persistent Gleaner uses, opened together. */
export interface Store {
  /** The SQLite connection (for modules that add their own tables through migrations). */
  readonly db: DatabaseSync;
  /** Absolute path of the SQLite file, or `:memory:`. */
  readonly path: string;
  /** Which backend holds `cache` and `domains`. */
  readonly backend: "sqlite" | "valkey";
  /** JSON cache (`search`, `pages`, `crawl`). */
  readonly cache: Cache;
  /** Per-domain memory of what worked. */
  readonly domains: DomainStats;
  /** Embedding vectors by model and text hash (always SQLite). */
  readonly embeddings: EmbeddingCache;
  /**
   * One tenant's cache and domain memory on the same backend (hosted mode:
   * one tenant per user, see `tenant.ts`). Tenants never see each other's
   * entries or origins; clearing this store's `cache` and `domains` clears
   * every tenant's too.
   */
  forTenant(tenant: string): TenantStore;
  /**
   * Resolves once every backend answers (SQLite: at once; Valkey: a `PING`),
   * else rejects with `provider_unavailable`. Optional: commands wait anyway.
   */
  ready(): Promise<void>;
  /** Closes the Valkey connection (if any) and the database. Safe to call twice. */
  close(): Promise<void>;
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * The entry point's environment snapshot (`readHostEnv()` in
   * `lib/config/env.ts`): `XDG_DATA_HOME`/`HOME` give the default path and
   * expand `~/`. Default: none (then `store.path` must be set and absolute
   * or relative to the working directory).
   */
  env?: Env;
  /** Clock (ms since epoch) for cache and domain stats; injectable for tests. */
  now?: () => number;
  /** Valkey key prefix (default `gleaner:`). */
  keyPrefix?: string;
}

/**
 * Opens the store described by the `store` settings: the SQLite file at
 * `store.path` (default `$XDG_DATA_HOME/gleaner/gleaner.db`), and Valkey for
 * the cache and domain stats when `store.cache_url` is set. Synchronous: the
 * Valkey client connects in the background (see {@link Store.ready}).
 *
 * @example
 * ```ts
 * import { openStore } from "./mod.ts";
 * const store = openStore({ path: ":memory:", search_ttl_s: 60 });
 * await store.ready();
 * console.assert(await store.cache.get("search", "nothing yet") === undefined);
 * await store.close();
 * ```
 */
export function openStore(
  config: Partial<StoreSettings> = {},
  options: OpenStoreOptions = {},
): Store {
  const parsed = StoreSchema.safeParse(config);
  if (!parsed.success) {
    const field = `store.${parsed.error.issues[0].path.join(".")}`;
    throw new GleanerError("invalid_arguments", `config: ${field}: invalid`, {
      details: { field },
    });
  }
  const settings = parsed.data;
  const path = settings.path === MEMORY_PATH
    ? MEMORY_PATH
    : absolute(settings.path ?? defaultDatabasePath(options.env ?? {}), options.env);
  const db = openDatabase(path, { home: options.env?.HOME });
  const now = options.now;
  const ttls = namespaceTtls(settings);
  const embeddings = new SqliteEmbeddingCache(db, { now });
  let closed = false;

  if (settings.cache_url) {
    let client: ReturnType<typeof createValkeyClient>;
    try {
      client = createValkeyClient(settings.cache_url);
    } catch (error) {
      db.close();
      throw error;
    }
    const prefix = options.keyPrefix;
    const cache = new ValkeyCache(client, { ttls, prefix, now });
    return {
      db,
      path,
      backend: "valkey",
      cache,
      domains: new ValkeyDomainStats(client, { prefix, now }),
      embeddings,
      forTenant(tenant) {
        return {
          cache: tenantCache(cache, tenant),
          domains: new ValkeyDomainStats(client, { prefix, now, tenant }),
        };
      },
      async ready() {
        try {
          await client.ping();
        } catch (cause) {
          throw new GleanerError(
            "provider_unavailable",
            "store.cache_url: cache server unreachable",
            { cause, details: { field: "store.cache_url" } },
          );
        }
      },
      async close() {
        if (closed) return;
        closed = true;
        try {
          await closeValkeyClient(client);
        } finally {
          db.close();
        }
      },
    };
  }
  const cache = new SqliteCache(db, { ttls, maxBytes: settings.cache_max_bytes, now });
  return {
    db,
    path,
    backend: "sqlite",
    cache,
    domains: new SqliteDomainStats(db, { now }),
    embeddings,
    forTenant(tenant) {
      return {
        cache: tenantCache(cache, tenant),
        domains: new SqliteDomainStats(db, { now, tenant }),
      };
    },
    ready: () => Promise.resolve(),
    close() {
      if (!closed) {
        closed = true;
        db.close();
      }
      return Promise.resolve();
    },
  };
}

function absolute(path: string, env: Env | undefined): string {
  if (path.startsWith("/")) return path;
  if (path.startsWith("~/")) {
    const home = env?.HOME;
    if (home) return `${home}${path.slice(1)}`;
  }
  return `${Deno.cwd()}/${path}`;
}
