/**
 * The `store` section: the embedded store and caches.
 *
 * @module
 */
import { z } from "zod";
import { operatorOnly, shared } from "../setting.ts";
import { secret } from "./secret.ts";

/** Settings of the embedded store and caches. */
export const StoreSchema: z.ZodObject<{
  path: z.ZodOptional<z.ZodString>;
  cache_url: z.ZodOptional<z.ZodString>;
  search_ttl_s: z.ZodDefault<z.ZodNumber>;
  page_ttl_s: z.ZodDefault<z.ZodNumber>;
  crawl_ttl_s: z.ZodDefault<z.ZodNumber>;
  cache_max_bytes: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /** SQLite file; default `$XDG_DATA_HOME/gleaner/gleaner.db`. `:memory:` keeps nothing. */
  path: operatorOnly(z.string().optional(), { env: ["GLEANER_DB"] }),
  /** Shared cache (`redis://…`) for several processes. */
  cache_url: secret(),
  /** Freshness of cached search answers (seconds). */
  search_ttl_s: shared(z.number().int().min(0).default(3_600)),
  /** Freshness of cached pages (seconds). */
  page_ttl_s: shared(z.number().int().min(0).default(86_400)),
  /** Freshness of cached crawl manifests (seconds). */
  crawl_ttl_s: shared(z.number().int().min(0).default(21_600)),
  /** Size cap of the cache (bytes). */
  cache_max_bytes: shared(z.number().int().positive().default(200_000_000), {
    writable: false,
  }),
});
