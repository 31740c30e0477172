/**
 * Per-domain memory on SQLite: per-day buckets of attempts, successes and
 * failures per tier (summed over the last 30 days when read), the last
 * failure, robots.txt state and llms.txt presence. Every counter update is a
 * single `INSERT … ON CONFLICT DO UPDATE SET n = n + 1`, so concurrent
 * processes sharing the file never lose counts.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { transaction } from "./sqlite.ts";
import {
  checkLimit,
  checkRobots,
  checkTier,
  dayNumber,
  DOMAIN_WINDOW_DAYS,
  type DomainRecord,
  type DomainStats,
  type DomainSummary,
  normalizeDomain,
  type RobotsState,
  shortReason,
  skipVerdict,
  type TierCounts,
  tierCounts,
} from "./types.ts";

export type { DomainRecord, DomainStats, DomainSummary, RobotsState, TierCounts };

/** Options of {@link SqliteDomainStats}. */
export interface SqliteDomainStatsOptions {
  /** Clock (ms since epoch); injectable for tests. */
  now?: () => number;
  /** How often a write also deletes buckets older than the window (ms); default 1 h. */
  pruneIntervalMs?: number;
}

interface InfoRow {
  last_failure_reason: string | null;
  last_failure_tier: string | null;
  last_failure_at: number | null;
  robots_state: string | null;
  robots_checked_at: number | null;
  llms_txt: number | null;
  llms_checked_at: number | null;
}

/**
 * {@link DomainStats} on the store's SQLite file.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./sqlite.ts";
 * import { SqliteDomainStats } from "./domain_stats.ts";
 * const db = openDatabase(":memory:");
 * const stats = new SqliteDomainStats(db);
 * await stats.record("example.com", "http", false, "timeout");
 * await stats.record("example.com", "browser", true);
 * const rec = await stats.get("example.com");
 * console.assert(rec?.attempts === 2 && rec.tiers.http.failures === 1);
 * console.assert(rec?.last_failure?.reason === "timeout");
 * db.close();
 * ```
 */
export class SqliteDomainStats implements DomainStats {
  readonly #db: DatabaseSync;
  readonly #now: () => number;
  readonly #pruneEvery: number;
  #lastPrune = Number.NEGATIVE_INFINITY;
  readonly #bump: StatementSync;
  readonly #failure: StatementSync;
  readonly #robots: StatementSync;
  readonly #llms: StatementSync;
  readonly #tiers: StatementSync;
  readonly #info: StatementSync;
  readonly #top: StatementSync;
  readonly #tier: StatementSync;
  readonly #prune: StatementSync;

  /** Wraps an open, migrated database (see `openDatabase`). */
  constructor(db: DatabaseSync, options: SqliteDomainStatsOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#pruneEvery = options.pruneIntervalMs ?? 3_600_000;
    this.#bump = db.prepare(
      `INSERT INTO domain_daily (domain, tier, day, attempts, successes, failures)
       VALUES (?, ?, ?, 1, ?, ?)
       ON CONFLICT (domain, tier, day) DO UPDATE SET attempts = attempts + 1,
         successes = successes + excluded.successes, failures = failures + excluded.failures`,
    );
    this.#failure = db.prepare(
      `INSERT INTO domain_info (domain, last_failure_reason, last_failure_tier, last_failure_at)
       VALUES (?, ?, ?, ?)
       ON CONFLICT (domain) DO UPDATE SET last_failure_reason = excluded.last_failure_reason,
         last_failure_tier = excluded.last_failure_tier, last_failure_at = excluded.last_failure_at
       WHERE coalesce(last_failure_at, 0) <= excluded.last_failure_at`,
    );
    this.#robots = db.prepare(
      `INSERT INTO domain_info (domain, robots_state, robots_checked_at) VALUES (?, ?, ?)
       ON CONFLICT (domain) DO UPDATE SET robots_state = excluded.robots_state,
         robots_checked_at = excluded.robots_checked_at`,
    );
    this.#llms = db.prepare(
      `INSERT INTO domain_info (domain, llms_txt, llms_checked_at) VALUES (?, ?, ?)
       ON CONFLICT (domain) DO UPDATE SET llms_txt = excluded.llms_txt,
         llms_checked_at = excluded.llms_checked_at`,
    );
    this.#tiers = db.prepare(
      `SELECT tier, SUM(attempts) AS a, SUM(successes) AS s, SUM(failures) AS f
       FROM domain_daily WHERE domain = ? AND day > ? GROUP BY tier ORDER BY tier`,
    );
    this.#info = db.prepare("SELECT * FROM domain_info WHERE domain = ?");
    this.#top = db.prepare(
      `SELECT domain, SUM(attempts) AS a, SUM(successes) AS s, SUM(failures) AS f
       FROM domain_daily WHERE day > ? GROUP BY domain ORDER BY a DESC, domain LIMIT ?`,
    );
    this.#tier = db.prepare(
      `SELECT coalesce(SUM(attempts), 0) AS a, coalesce(SUM(successes), 0) AS s
       FROM domain_daily WHERE domain = ? AND tier = ? AND day > ?`,
    );
    this.#prune = db.prepare("DELETE FROM domain_daily WHERE day <= ?");
  }

  /** {@inheritDoc DomainStats.record} */
  record(domain: string, tier: string, ok: boolean, reason?: string): Promise<void> {
    return Promise.try(() => {
      const d = normalizeDomain(domain);
      checkTier(tier);
      const now = this.#now();
      const day = dayNumber(now);
      if (ok) {
        this.#bump.run(d, tier, day, 1, 0);
      } else {
        transaction(this.#db, () => {
          this.#bump.run(d, tier, day, 0, 1);
          this.#failure.run(d, shortReason(reason), tier, now);
        });
      }
      if (now - this.#lastPrune >= this.#pruneEvery) {
        this.#lastPrune = now;
        this.#prune.run(this.#oldestExcludedDay(now));
      }
    });
  }

  /** {@inheritDoc DomainStats.get} */
  get(domain: string): Promise<DomainRecord | undefined> {
    return Promise.try(() => {
      const d = normalizeDomain(domain);
      const now = this.#now();
      const rows = this.#tiers.all(d, this.#oldestExcludedDay(now)) as {
        tier: string;
        a: number;
        s: number;
        f: number;
      }[];
      const info = this.#info.get(d) as InfoRow | undefined;
      if (rows.length === 0 && !info) return undefined;
      const tiers: Record<string, TierCounts> = {};
      let a = 0, s = 0, f = 0;
      for (const row of rows) {
        tiers[row.tier] = tierCounts(Number(row.a), Number(row.s), Number(row.f));
        a += Number(row.a);
        s += Number(row.s);
        f += Number(row.f);
      }
      const record: DomainRecord = {
        domain: d,
        window_days: DOMAIN_WINDOW_DAYS,
        ...tierCounts(a, s, f),
        tiers,
      };
      if (info?.last_failure_at != null) {
        record.last_failure = {
          tier: info.last_failure_tier ?? "unknown",
          reason: info.last_failure_reason ?? "unknown",
          at: new Date(Number(info.last_failure_at)).toISOString(),
        };
      }
      if (info?.robots_state != null && info.robots_checked_at != null) {
        record.robots = {
          state: info.robots_state as RobotsState,
          checked_at: new Date(Number(info.robots_checked_at)).toISOString(),
        };
      }
      if (info?.llms_txt != null && info.llms_checked_at != null) {
        record.llms_txt = {
          exists: Number(info.llms_txt) === 1,
          checked_at: new Date(Number(info.llms_checked_at)).toISOString(),
        };
      }
      return record;
    });
  }

  /** {@inheritDoc DomainStats.summary} */
  summary(options: { limit?: number } = {}): Promise<DomainSummary[]> {
    return Promise.try(() => {
      const limit = checkLimit(options.limit);
      const rows = this.#top.all(this.#oldestExcludedDay(this.#now()), limit) as {
        domain: string;
        a: number;
        s: number;
        f: number;
      }[];
      return rows.map((r) => ({
        domain: r.domain,
        ...tierCounts(Number(r.a), Number(r.s), Number(r.f)),
      }));
    });
  }

  /** {@inheritDoc DomainStats.shouldSkip} */
  shouldSkip(domain: string, tier: string): Promise<boolean> {
    return Promise.try(() => {
      const row = this.#tier.get(
        normalizeDomain(domain),
        checkTier(tier),
        this.#oldestExcludedDay(this.#now()),
      ) as { a: number; s: number };
      return skipVerdict({ attempts: Number(row.a), successes: Number(row.s) });
    });
  }

  /** {@inheritDoc DomainStats.setRobots} */
  setRobots(domain: string, state: RobotsState): Promise<void> {
    return Promise.try(() => {
      this.#robots.run(normalizeDomain(domain), checkRobots(state), this.#now());
    });
  }

  /** {@inheritDoc DomainStats.setLlmsTxt} */
  setLlmsTxt(domain: string, exists: boolean): Promise<void> {
    return Promise.try(() => {
      this.#llms.run(normalizeDomain(domain), exists ? 1 : 0, this.#now());
    });
  }

  /** The newest day no longer inside the window (buckets must be newer). */
  #oldestExcludedDay(now: number): number {
    return dayNumber(now) - DOMAIN_WINDOW_DAYS;
  }
}
