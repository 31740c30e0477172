/**
 * The contracts every store backend implements (SQLite by default, Valkey
 * when `store.cache_url` is set), and the small helpers they share.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import type { CapabilityFacts, CapabilityFields, DomainCapabilities } from "./capabilities.ts";

export type { CapabilityFacts, CapabilityFields, DomainCapabilities };

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
 * {@link import("./valkey_cache.ts").ValkeyCache}.
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

import { ROBOTS_STATES, type RobotsState } from "../net/robots_state.ts";

export { ROBOTS_STATES, type RobotsState };

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

/** What is known about one tier on one origin: counts, and whether it is skipped now. */
export interface TierState extends TierCounts {
  /** Failures since the last success (capped escalation, see {@link probationMs}). */
  consecutive_failures: number;
  /**
   * While the tier is on probation: when it will be tried again (ISO). The
   * cascade skips it until then, unless every other tier is skipped or failed.
   */
  skipped_until?: string;
  /**
   * True when the tier succeeded on fewer than {@link LOW_SUCCESS_RATE} of at least
   * {@link LOW_SUCCESS_MIN_ATTEMPTS} attempts in the window: the cascade puts it off beside
   * probation (tried only when no other tier gives a page).
   */
  low_success_rate?: boolean;
}

/** Everything known about one origin (`scheme://host[:port]`). */
export interface DomainRecord extends TierCounts {
  /** The origin, as `URL.origin` spells it (default ports omitted). */
  origin: string;
  /** Its host name (lower case). */
  host: string;
  /** Length of the rolling window (days). */
  window_days: number;
  /** Counts and probation per tier. */
  tiers: Record<string, TierState>;
  /** Latest failure that counted, if any (kept beyond the window). */
  last_failure?: { tier: string; reason: string; at: string };
  /** Latest robots.txt state, if known. */
  robots?: { state: RobotsState; checked_at: string };
  /** Whether `/llms.txt` exists, if checked. */
  llms_txt?: { exists: boolean; checked_at: string };
  /** How often the origin came up in search results, and when last (kept beyond the window). */
  seen_in_search?: { count: number; last_at: string };
  /** What reads have shown the origin can do (see `capabilities.ts`). */
  capabilities?: DomainCapabilities;
}

/** One line of {@link DomainStats.summary}. */
export interface DomainSummary extends TierCounts {
  /** The origin. */
  origin: string;
}

/**
 * Per-origin memory of what worked, keyed by origin (`scheme://host:port`,
 * so one port's trouble never affects another): attempts, successes and
 * failures per tier over a rolling 30-day window (for display), and a short
 * probation per tier that the cascade reads as a hint.
 *
 * Probation: after {@link SKIP_AFTER_FAILURES} consecutive failures of a
 * tier, it is skipped until `retry_at` = last failure + {@link probationMs}
 * (5 min, 15 min, 1 h, then 6 h at most). The first attempt after that is a
 * probe: a success resets the tier, a failure starts the next, longer
 * probation. Failures arriving while the tier is already on probation (reads
 * that were in flight) are counted but do not lengthen it, so a burst during
 * a short outage costs one short probation. Only outcomes that say something
 * about the tier on that origin should be recorded (the cascade decides).
 * Counters are atomic, so concurrent processes never lose counts.
 *
 * Policy: a verdict is only as good as the settings it was reached under
 * (user agent, timeouts, Chromium…). Callers pass a fingerprint of those
 * settings as {@link VerdictScope.policy}; a probation reached under another
 * policy is neither applied nor shown, and the next outcome under the new
 * policy starts the tier's run afresh. Without a policy every verdict
 * applies.
 *
 * @example
 * ```ts
 * import type { DomainStats } from "@gleaner/gleaner";
 * async function readWithMemory(stats: DomainStats, origin: string): Promise<boolean> {
 *   if (await stats.shouldSkip(origin, "http")) return false;
 *   await stats.record(origin, "http", true);
 *   return true;
 * }
 * ```
 */
export interface DomainStats {
  /** Counts one attempt of `tier` on `origin`; a failure may carry a short reason (e.g. an error code). */
  record(
    origin: string,
    tier: string,
    ok: boolean,
    reason?: string,
    scope?: VerdictScope,
  ): Promise<void>;
  /** Everything known about an origin, or `undefined` when nothing is. */
  get(origin: string, scope?: VerdictScope): Promise<DomainRecord | undefined>;
  /** Every origin known on a host name (any scheme and port), busiest first. */
  forHost(host: string, scope?: VerdictScope): Promise<DomainRecord[]>;
  /** Origins with the most attempts in the window, most first. */
  summary(options?: { limit?: number }): Promise<DomainSummary[]>;
  /** The tiers of `origin` on probation now, each with the time it will be retried (ms since epoch). */
  skipped(origin: string, scope?: VerdictScope): Promise<Map<string, number>>;
  /** True when `tier` is on probation on `origin` now. */
  shouldSkip(origin: string, tier: string, scope?: VerdictScope): Promise<boolean>;
  /** Remembers the robots.txt state of an origin. */
  setRobots(origin: string, state: RobotsState): Promise<void>;
  /** Remembers whether `/llms.txt` exists on an origin. */
  setLlmsTxt(origin: string, exists: boolean): Promise<void>;
  /**
   * Counts one search that had results on each of `origins` (each counted once per call).
   * Called without waiting on every search: it never slows one down.
   */
  noteSeenInSearch(origins: readonly string[]): Promise<void>;
  /**
   * Records what one read learnt about an origin's capabilities (see `capabilities.ts`):
   * a page sample (counted for the first `CAPABILITY_SAMPLE_PAGES` pages only), whether the
   * cheap fetch gave metadata, the size of `/llms-full.txt`, the tier that produced the page.
   */
  noteCapabilities(origin: string, facts: CapabilityFacts): Promise<void>;
  /** Forgets everything (counts, probation, robots, llms.txt); returns how many origins were known. */
  clear(): Promise<number>;
  /** Every origin this view holds, as snapshot entries (see `domain_snapshot.ts`), by origin. */
  snapshot(): Promise<DomainSnapshotEntry[]>;
  /**
   * Writes one snapshot entry (validated first; a bad one throws
   * `invalid_arguments` naming the field): its day counters and probations
   * replace the stored ones for the same day/tier, its info fields replace
   * the stored ones.
   */
  restore(entry: unknown): Promise<DomainSnapshotEntry>;
}

/** One origin of a domain-memory snapshot (see `domain_snapshot.ts`). */
export interface DomainSnapshotEntry {
  /** The origin (`https://example.com`). */
  origin: string;
  /** Counters per UTC day (days since 1970-01-01) and tier. */
  days: { day: number; tier: string; attempts: number; successes: number; failures: number }[];
  /** The probation of each tier. */
  probation: {
    tier: string;
    consecutive_failures: number;
    retry_at: number | null;
    policy: string | null;
  }[];
  /** The last failure. */
  last_failure?: { tier: string; reason: string; at: number };
  /** The robots.txt state. */
  robots?: { state: RobotsState; checked_at: number };
  /** Whether llms.txt exists. */
  llms_txt?: { exists: boolean; checked_at: number };
  /** How often the origin came up in search results, and when last. */
  seen_in_search?: { count: number; last_at: number };
  /** The stored capability fields (see `capabilities.ts`). */
  capabilities?: CapabilityFields;
}

/** Which verdicts apply: see "Policy" in {@link DomainStats}. */
export interface VerdictScope {
  /** Fingerprint of the settings verdicts are reached under (1-64 characters). */
  policy?: string;
}

/** Length of the rolling window of domain stats (days, today included). */
export const DOMAIN_WINDOW_DAYS = 30;
/** Consecutive failures of a tier on an origin before it is skipped. */
export const SKIP_AFTER_FAILURES = 3;
/** Probation lengths (ms) after 3, 4, 5, and 6 or more consecutive failures. */
export const PROBATION_STEPS_MS: readonly number[] = [
  5 * 60_000,
  15 * 60_000,
  60 * 60_000,
  6 * 60 * 60_000,
];

/**
 * How long a tier is skipped after `consecutiveFailures` failures in a row
 * (0 = not skipped): 5 min at the 3rd, 15 min, 1 h, then 6 h at most.
 *
 * @example
 * ```ts
 * import { probationMs } from "./types.ts";
 * console.assert(probationMs(2) === 0 && probationMs(3) === 300_000);
 * console.assert(probationMs(40) === 6 * 3_600_000);
 * ```
 *
 * @internal exported for its documentation example (a doc test)
 */
export function probationMs(consecutiveFailures: number): number {
  if (consecutiveFailures < SKIP_AFTER_FAILURES) return 0;
  const step = Math.min(consecutiveFailures - SKIP_AFTER_FAILURES, PROBATION_STEPS_MS.length - 1);
  return PROBATION_STEPS_MS[step];
}

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

/**
 * Normalises an origin (`https://Example.com:443/` → `https://example.com`);
 * throws `invalid_arguments` unless it is an http(s) origin.
 *
 * @example
 * ```ts
 * import { normalizeOrigin } from "./types.ts";
 * console.assert(normalizeOrigin("HTTPS://Example.com:443/") === "https://example.com");
 * console.assert(normalizeOrigin("http://127.0.0.1:8080") === "http://127.0.0.1:8080");
 * ```
 */
export function normalizeOrigin(origin: string): string {
  let url: URL | undefined;
  try {
    url = new URL(String(origin ?? "").trim());
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) {
    throw new GleanerError(
      "invalid_arguments",
      `origin "${String(origin).slice(0, 80)}" is not an http(s) origin`,
      { details: { field: "origin" } },
    );
  }
  return url.origin;
}

/**
 * A host name as origins spell it: lower case, no trailing dot, IPv6 in
 * brackets (`::1` → `[::1]`); throws `invalid_arguments` on a malformed one.
 *
 * @example
 * ```ts
 * import { normalizeHost } from "./types.ts";
 * console.assert(normalizeHost("Example.COM.") === "example.com");
 * console.assert(normalizeHost("::1") === "[::1]");
 * ```
 */
export function normalizeHost(host: string): string {
  const h = normalizeDomain(host);
  return h.includes(":") && !h.startsWith("[") ? `[${h}]` : h;
}

/** The host name of a normalised origin (lower case, IPv6 in brackets). */
export function originHost(origin: string): string {
  return new URL(origin).hostname;
}

/** The probation fields of one tier on one origin. */
export interface Probation {
  /** Failures since the last success. */
  consecutive_failures: number;
  /** When the tier may be tried again (ms since epoch), `null` when not on probation. */
  retry_at: number | null;
  /** The policy the run was recorded under, `null` when none was given. */
  policy: string | null;
}

/** True when a probation recorded under `stored` applies to a caller with `scope`. */
export function sameScope(stored: string | null | undefined, scope?: VerdictScope): boolean {
  return scope?.policy === undefined || (stored ?? null) === scope.policy;
}

/** Checks a policy fingerprint (1-64 characters without spaces). */
export function checkScope(scope?: VerdictScope): VerdictScope | undefined {
  if (scope?.policy !== undefined && !/^\S{1,64}$/.test(scope.policy)) {
    throw new GleanerError("invalid_arguments", "policy must be 1-64 characters without spaces", {
      details: { field: "policy" },
    });
  }
  return scope;
}

/**
 * The probation rule shared by every backend: a run recorded under another
 * policy starts afresh; a success clears it; a failure while on probation
 * changes nothing (it was in flight); any other failure adds one and, from
 * the {@link SKIP_AFTER_FAILURES}th, sets `retry_at`.
 *
 * @example
 * ```ts
 * import { nextProbation, type Probation } from "./types.ts";
 * let p: Probation = { consecutive_failures: 0, retry_at: null, policy: null };
 * for (let i = 0; i < 3; i++) p = nextProbation(p, false, 1000);
 * console.assert(p.retry_at === 1000 + 300_000);
 * console.assert(nextProbation(p, true, 2000).retry_at === null);
 * console.assert(nextProbation(p, false, 2000, { policy: "new" }).consecutive_failures === 1);
 * ```
 */
export function nextProbation(
  previous: Probation | undefined,
  ok: boolean,
  now: number,
  scope?: VerdictScope,
): Probation {
  const policy = scope?.policy ?? previous?.policy ?? null;
  const fresh: Probation = { consecutive_failures: 0, retry_at: null, policy };
  if (ok) return fresh;
  const prev = previous && sameScope(previous.policy, scope) ? previous : fresh;
  if (prev.retry_at !== null && prev.retry_at > now) return { ...prev, policy };
  const consecutive = prev.consecutive_failures + 1;
  const wait = probationMs(consecutive);
  return { consecutive_failures: consecutive, retry_at: wait > 0 ? now + wait : null, policy };
}

/** Below this success rate (over the window) a tier is put off on an origin; see {@link TierState}. */
const LOW_SUCCESS_RATE = 0.3;

/** Attempts in the window before {@link LOW_SUCCESS_RATE} is judged. */
const LOW_SUCCESS_MIN_ATTEMPTS = 10;

/**
 * True when counts show a tier that rarely works on an origin: fewer than
 * {@link LOW_SUCCESS_RATE} successes over at least {@link LOW_SUCCESS_MIN_ATTEMPTS} attempts.
 *
 * @example
 * ```ts
 * import { lowSuccessRate, tierCounts } from "./types.ts";
 * console.assert(lowSuccessRate(tierCounts(10, 2, 8)));
 * console.assert(!lowSuccessRate(tierCounts(10, 3, 7)));
 * console.assert(!lowSuccessRate(tierCounts(9, 0, 9)));
 * ```
 *
 * @internal exported for its documentation example (a doc test)
 */
export function lowSuccessRate(counts: TierCounts): boolean {
  return counts.attempts >= LOW_SUCCESS_MIN_ATTEMPTS &&
    counts.successes / counts.attempts < LOW_SUCCESS_RATE;
}

/** A tier's {@link TierState} from its counts and probation (shown only when it applies to `scope`). */
export function tierState(
  counts: TierCounts,
  probation: Probation | undefined,
  now: number,
  scope?: VerdictScope,
): TierState {
  const applies = probation !== undefined && sameScope(probation.policy, scope);
  const state: TierState = {
    ...counts,
    consecutive_failures: applies ? probation.consecutive_failures : 0,
  };
  const retryAt = applies ? probation.retry_at : null;
  if (retryAt !== null && retryAt > now) state.skipped_until = new Date(retryAt).toISOString();
  if (lowSuccessRate(counts)) state.low_success_rate = true;
  return state;
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
