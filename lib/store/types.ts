/**
 * The contracts every store backend implements (SQLite by default, Valkey
 * when `store.cache_url` is set), and the small helpers they share.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";

/** The cache's namespaces. */
export const CACHE_NAMESPACES = ["search", "pages", "crawl"] as const;

/** A cache namespace: `search` answers, read `pages`, `crawl` manifests. */
export type CacheNamespace = typeof CACHE_NAMESPACES[number];

/** Options of {@link Cache.get}. */
export interface CacheGetOptions {
  /**
   * Oldest acceptable entry (seconds) for this read, instead of the namespace
   * TTL. `0` refuses every cached entry. Entries older than the namespace TTL
   * are swept away, so a larger value cannot resurrect them.
   */
  maxAgeS?: number;
}

/** What {@link Cache.clear} removed. */
export interface CacheClearResult {
  /** Entries removed in all. */
  removed: number;
  /** Entries removed per namespace. */
  by_namespace: Record<CacheNamespace, number>;
}

/** Size figures of a cache. */
export interface CacheStats {
  /** Entries per namespace. */
  entries: Record<CacheNamespace, number>;
  /** Bytes held (JSON value + key), as counted for the size cap; `null` if unknown. */
  bytes: number | null;
  /** Size cap in bytes; `null` when the backend's own memory policy applies. */
  max_bytes: number | null;
}

/**
 * A JSON cache split in namespaces with per-namespace freshness. Implemented
 * by {@link import("./cache.ts").SqliteCache} and
 * {@link import("./valkey.ts").ValkeyCache}.
 *
 * @example
 * ```ts
 * import type { Cache } from "@gleaner/gleaner";
 * async function cachedAnswer(cache: Cache, query: string): Promise<unknown> {
 *   return await cache.get("search", query) ?? "miss";
 * }
 * ```
 */
export interface Cache {
  /** The cached value, or `undefined` when absent or too old. Refreshes its LRU position. */
  get<T = unknown>(
    ns: CacheNamespace,
    key: string,
    options?: CacheGetOptions,
  ): Promise<T | undefined>;
  /** Stores a JSON-serialisable value (replacing any previous one). */
  set(ns: CacheNamespace, key: string, value: unknown): Promise<void>;
  /** Removes one entry; true when it existed. */
  delete(ns: CacheNamespace, key: string): Promise<boolean>;
  /** Removes every entry of a namespace, or of all of them. */
  clear(ns: CacheNamespace | "all"): Promise<CacheClearResult>;
  /** Removes expired entries now; returns how many. */
  sweep(): Promise<number>;
  /** Entry counts and bytes. */
  stats(): Promise<CacheStats>;
}

/** The state of a domain's robots.txt, as last seen. */
export type RobotsState = "missing" | "allow_all" | "partial" | "disallow_all" | "error";

/** Every {@link RobotsState}. */
export const ROBOTS_STATES: readonly RobotsState[] = [
  "missing",
  "allow_all",
  "partial",
  "disallow_all",
  "error",
];

/** Counts of one tier (or all tiers) over the rolling window. */
export interface TierCounts {
  /** Attempts in the window. */
  attempts: number;
  /** Successful attempts. */
  successes: number;
  /** Failed attempts. */
  failures: number;
  /** successes / attempts, `null` with no attempts. */
  success_rate: number | null;
}

/** Everything known about one domain. */
export interface DomainRecord extends TierCounts {
  /** The normalised domain (lower case, no trailing dot). */
  domain: string;
  /** Length of the rolling window (days). */
  window_days: number;
  /** Counts per tier over the window. */
  tiers: Record<string, TierCounts>;
  /** Latest failure, if any was recorded (kept beyond the window). */
  last_failure?: { tier: string; reason: string; at: string };
  /** Latest robots.txt state, if known. */
  robots?: { state: RobotsState; checked_at: string };
  /** Whether `/llms.txt` exists, if checked. */
  llms_txt?: { exists: boolean; checked_at: string };
}

/** One line of {@link DomainStats.summary}. */
export interface DomainSummary extends TierCounts {
  /** The domain. */
  domain: string;
}

/**
 * Per-domain memory of what worked: attempts, successes and failures per tier
 * over a rolling 30-day window (per-day buckets summed at read time), the last
 * failure, robots.txt state and llms.txt presence. Counters are atomic
 * increments, so concurrent processes never lose counts.
 *
 * @example
 * ```ts
 * import type { DomainStats } from "@gleaner/gleaner";
 * async function readWithMemory(stats: DomainStats, domain: string): Promise<boolean> {
 *   if (await stats.shouldSkip(domain, "http")) return false;
 *   await stats.record(domain, "http", true);
 *   return true;
 * }
 * ```
 */
export interface DomainStats {
  /** Counts one attempt of `tier` on `domain`; a failure may carry a short reason (e.g. an error code). */
  record(domain: string, tier: string, ok: boolean, reason?: string): Promise<void>;
  /** Everything known about a domain, or `undefined` when nothing is. */
  get(domain: string): Promise<DomainRecord | undefined>;
  /** Domains with the most attempts in the window, most first. */
  summary(options?: { limit?: number }): Promise<DomainSummary[]>;
  /** True when `tier` succeeded under 30% of at least 10 attempts on `domain` in the window. */
  shouldSkip(domain: string, tier: string): Promise<boolean>;
  /** Remembers the robots.txt state of a domain. */
  setRobots(domain: string, state: RobotsState): Promise<void>;
  /** Remembers whether `/llms.txt` exists on a domain. */
  setLlmsTxt(domain: string, exists: boolean): Promise<void>;
}

/** Length of the rolling window of domain stats (days, today included). */
export const DOMAIN_WINDOW_DAYS = 30;
/** Attempts needed before {@link DomainStats.shouldSkip} may say yes. */
export const SKIP_MIN_ATTEMPTS = 10;
/** Success rate under which a tier is skipped. */
export const SKIP_MAX_SUCCESS_RATE = 0.3;

const DAY_MS = 86_400_000;

/** The UTC day number (days since 1970-01-01) of a time in ms. */
export function dayNumber(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** Lower-cases a domain and drops a trailing dot; throws on an empty or malformed one. */
export function normalizeDomain(domain: string): string {
  const d = String(domain ?? "").trim().toLowerCase().replace(/\.$/, "");
  if (!d || d.length > 253 || /[\s/]/.test(d)) {
    throw new GleanerError("invalid_arguments", `domain "${d.slice(0, 80)}" is not a host name`, {
      details: { field: "domain" },
    });
  }
  return d;
}

/** Checks a tier name: 1-32 characters of `a-z 0-9 _ -`. */
export function checkTier(tier: string): string {
  if (typeof tier !== "string" || !/^[a-z0-9_-]{1,32}$/.test(tier)) {
    throw new GleanerError("invalid_arguments", `tier "${String(tier).slice(0, 40)}" is invalid`, {
      details: { field: "tier" },
    });
  }
  return tier;
}

/** Checks a cache namespace. */
export function checkNamespace(ns: string): CacheNamespace {
  if (!(CACHE_NAMESPACES as readonly string[]).includes(ns)) {
    throw new GleanerError("invalid_arguments", `cache namespace "${ns}" is unknown`, {
      details: { field: "ns" },
    });
  }
  return ns as CacheNamespace;
}

/** Builds a {@link TierCounts} from raw counts. */
export function tierCounts(attempts: number, successes: number, failures: number): TierCounts {
  return {
    attempts,
    successes,
    failures,
    success_rate: attempts > 0 ? successes / attempts : null,
  };
}

/** The skip rule shared by every backend. */
export function skipVerdict(counts: { attempts: number; successes: number }): boolean {
  return counts.attempts >= SKIP_MIN_ATTEMPTS &&
    counts.successes / counts.attempts < SKIP_MAX_SUCCESS_RATE;
}

/** Trims a failure reason to a short single line (it must never carry secrets or bodies). */
export function shortReason(reason: string | undefined): string {
  return (reason ?? "unknown").replace(/\s+/g, " ").trim().slice(0, 200) || "unknown";
}

/** Namespace TTLs (seconds) from the store settings. */
export function namespaceTtls(
  config: { search_ttl_s: number; page_ttl_s: number; crawl_ttl_s: number },
): Record<CacheNamespace, number> {
  return { search: config.search_ttl_s, pages: config.page_ttl_s, crawl: config.crawl_ttl_s };
}

/** Checks a robots.txt state. */
export function checkRobots(state: string): RobotsState {
  if (!(ROBOTS_STATES as readonly string[]).includes(state)) {
    throw new GleanerError("invalid_arguments", `robots state "${state}" is unknown`, {
      details: { field: "state" },
    });
  }
  return state as RobotsState;
}

/** Checks a summary limit (1-1000, default 20). */
export function checkLimit(limit: number | undefined): number {
  const n = limit ?? 20;
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    throw new GleanerError("invalid_arguments", "limit must be an integer from 1 to 1000", {
      details: { field: "limit" },
    });
  }
  return n;
}
