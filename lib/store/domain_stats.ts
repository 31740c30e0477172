/**
 * Per-origin memory on SQLite: per-day buckets of attempts, successes and
 * failures per tier (summed over the last 30 days when read), the probation
 * of each tier, the last failure, robots.txt state, llms.txt presence, how
 * often it was seen in search results and its capabilities (`capabilities.ts`).
 * Counter updates are single `INSERT … ON CONFLICT DO UPDATE SET n = n + 1`
 * statements and the probation step runs in one `BEGIN IMMEDIATE`
 * transaction, so concurrent processes sharing the file never lose updates.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { transaction } from "./sqlite.ts";
import { type DomainSnapshotEntry, parseSnapshotEntry } from "./domain_snapshot.ts";
import { checkTenant } from "./tenant.ts";
import {
  capabilitiesFromFields,
  CAPABILITY_SAMPLE_PAGES,
  type CapabilityFacts,
  type CapabilityFields,
  capabilitySetFields,
  pickCapabilityFields,
} from "./capabilities.ts";
import {
  checkLimit,
  checkRobots,
  checkScope,
  checkTier,
  dayNumber,
  DOMAIN_WINDOW_DAYS,
  type DomainRecord,
  type DomainStats,
  type DomainSummary,
  nextProbation,
  normalizeHost,
  normalizeOrigin,
  originHost,
  type Probation,
  type RobotsState,
  sameScope,
  shortReason,
  type TierCounts,
  tierCounts,
  type TierState,
  tierState,
  type VerdictScope,
} from "./types.ts";

export type { DomainRecord, DomainStats, DomainSummary, RobotsState, TierCounts, TierState };

/** Options of {@link SqliteDomainStats}. */
export interface SqliteDomainStatsOptions {
  /** Clock (ms since epoch); injectable for tests. */
  now?: () => number;
  /** How often a write also deletes buckets older than the window (ms); default 1 h. */
  pruneIntervalMs?: number;
  /**
   * Keep this tenant's origins only (hosted mode: one tenant per user, see `tenant.ts`):
   * they are stored as `<tenant> <origin>`, so no other tenant reads, lists or clears them.
   * Without a tenant, `summary` lists untenanted origins and `clear` forgets every origin,
   * every tenant's included.
   */
  tenant?: string;
}

interface InfoRow {
  last_failure_reason: string | null;
  last_failure_tier: string | null;
  last_failure_at: number | null;
  robots_state: string | null;
  robots_checked_at: number | null;
  llms_txt: number | null;
  llms_checked_at: number | null;
  seen_in_search?: number | null;
  seen_at?: number | null;
}

interface ProbationRow {
  tier: string;
  consecutive_failures: number;
  retry_at: number | null;
  policy: string | null;
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
 * await stats.record("https://example.com", "http", false, "timeout");
 * await stats.record("https://example.com", "browser", true);
 * const rec = await stats.get("https://example.com");
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
  readonly #known: StatementSync;
  readonly #failure: StatementSync;
  readonly #probation: StatementSync;
  readonly #probations: StatementSync;
  readonly #setProbation: StatementSync;
  readonly #robots: StatementSync;
  readonly #llms: StatementSync;
  readonly #seen: StatementSync;
  readonly #sample: StatementSync;
  readonly #tiers: StatementSync;
  readonly #info: StatementSync;
  readonly #ofHost: StatementSync;
  readonly #top: StatementSync;
  readonly #prune: StatementSync;
  readonly #pruneTiers: StatementSync;
  /** `<tenant> ` for a tenant, else empty: what stored origins and hosts start with. */
  readonly #p: string;

  /** Wraps an open, migrated database (see `openDatabase`). */
  constructor(db: DatabaseSync, options: SqliteDomainStatsOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#pruneEvery = options.pruneIntervalMs ?? 3_600_000;
    this.#p = options.tenant === undefined ? "" : `${checkTenant(options.tenant)} `;
    this.#bump = db.prepare(
      `INSERT INTO origin_daily (origin, tier, day, attempts, successes, failures)
       VALUES (?, ?, ?, 1, ?, ?)
       ON CONFLICT (origin, tier, day) DO UPDATE SET attempts = attempts + 1,
         successes = successes + excluded.successes, failures = failures + excluded.failures`,
    );
    this.#known = db.prepare(
      "INSERT INTO origin_info (origin, host) VALUES (?, ?) ON CONFLICT (origin) DO NOTHING",
    );
    this.#failure = db.prepare(
      `UPDATE origin_info SET last_failure_reason = ?, last_failure_tier = ?, last_failure_at = ?
       WHERE origin = ? AND coalesce(last_failure_at, 0) <= ?`,
    );
    this.#probation = db.prepare(
      "SELECT tier, consecutive_failures, retry_at, policy FROM origin_tiers WHERE origin = ? AND tier = ?",
    );
    this.#probations = db.prepare(
      "SELECT tier, consecutive_failures, retry_at, policy FROM origin_tiers WHERE origin = ?",
    );
    this.#setProbation = db.prepare(
      `INSERT INTO origin_tiers (origin, tier, consecutive_failures, retry_at, policy, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (origin, tier) DO UPDATE SET consecutive_failures = excluded.consecutive_failures,
         retry_at = excluded.retry_at, policy = excluded.policy, updated_at = excluded.updated_at`,
    );
    this.#robots = db.prepare(
      `INSERT INTO origin_info (origin, host, robots_state, robots_checked_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (origin) DO UPDATE SET robots_state = excluded.robots_state,
         robots_checked_at = excluded.robots_checked_at`,
    );
    this.#llms = db.prepare(
      `INSERT INTO origin_info (origin, host, llms_txt, llms_checked_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (origin) DO UPDATE SET llms_txt = excluded.llms_txt,
         llms_checked_at = excluded.llms_checked_at`,
    );
    this.#seen = db.prepare(
      `INSERT INTO origin_info (origin, host, seen_in_search, seen_at) VALUES (?, ?, 1, ?)
       ON CONFLICT (origin) DO UPDATE SET seen_in_search = coalesce(seen_in_search, 0) + 1,
         seen_at = excluded.seen_at`,
    );
    this.#sample = db.prepare(
      `UPDATE origin_info SET cap_sampled = coalesce(cap_sampled, 0) + 1,
         cap_json_ld = coalesce(cap_json_ld, 0) + ?, cap_og_title = coalesce(cap_og_title, 0) + ?
       WHERE origin = ? AND coalesce(cap_sampled, 0) < ${CAPABILITY_SAMPLE_PAGES}`,
    );
    this.#tiers = db.prepare(
      `SELECT tier, SUM(attempts) AS a, SUM(successes) AS s, SUM(failures) AS f
       FROM origin_daily WHERE origin = ? AND day > ? GROUP BY tier ORDER BY tier`,
    );
    this.#info = db.prepare("SELECT * FROM origin_info WHERE origin = ?");
    this.#ofHost = db.prepare("SELECT origin FROM origin_info WHERE host = ? ORDER BY origin");
    // A tenant's origins start with its prefix; untenanted ones have no space.
    this.#top = db.prepare(
      `SELECT origin, SUM(attempts) AS a, SUM(successes) AS s, SUM(failures) AS f
       FROM origin_daily WHERE day > ?1 AND ${
        this.#p ? "substr(origin, 1, length(?3)) = ?3" : "instr(origin, ' ') = 0"
      } GROUP BY origin ORDER BY a DESC, origin LIMIT ?2`,
    );
    this.#prune = db.prepare("DELETE FROM origin_daily WHERE day <= ?");
    this.#pruneTiers = db.prepare(
      "DELETE FROM origin_tiers WHERE updated_at < ? AND coalesce(retry_at, 0) < ?",
    );
  }

  /** {@inheritDoc DomainStats.record} */
  record(
    origin: string,
    tier: string,
    ok: boolean,
    reason?: string,
    scope?: VerdictScope,
  ): Promise<void> {
    return Promise.try(() => {
      const o = normalizeOrigin(origin);
      checkTier(tier);
      checkScope(scope);
      const now = this.#now();
      const day = dayNumber(now);
      const k = this.#p + o;
      transaction(this.#db, () => {
        this.#known.run(k, this.#p + originHost(o));
        this.#bump.run(k, tier, day, ok ? 1 : 0, ok ? 0 : 1);
        if (!ok) this.#failure.run(shortReason(reason), tier, now, k, now);
        const row = this.#probation.get(k, tier) as ProbationRow | undefined;
        const next = nextProbation(row && probation(row), ok, now, scope);
        this.#setProbation.run(
          k,
          tier,
          next.consecutive_failures,
          next.retry_at,
          next.policy,
          now,
        );
      });
      if (now - this.#lastPrune >= this.#pruneEvery) {
        this.#lastPrune = now;
        this.#prune.run(this.#oldestExcludedDay(now));
        const cutoff = now - DOMAIN_WINDOW_DAYS * 86_400_000;
        this.#pruneTiers.run(cutoff, now);
      }
    });
  }

  /** {@inheritDoc DomainStats.get} */
  get(origin: string, scope?: VerdictScope): Promise<DomainRecord | undefined> {
    return Promise.try(() => this.#record(normalizeOrigin(origin), this.#now(), checkScope(scope)));
  }

  /** {@inheritDoc DomainStats.forHost} */
  forHost(host: string, scope?: VerdictScope): Promise<DomainRecord[]> {
    return Promise.try(() => {
      checkScope(scope);
      const now = this.#now();
      const rows = this.#ofHost.all(this.#p + normalizeHost(host)) as { origin: string }[];
      return rows.map((r) => this.#record(r.origin.slice(this.#p.length), now, scope))
        .filter((r) => r !== undefined)
        .sort((a, b) => b.attempts - a.attempts || (a.origin < b.origin ? -1 : 1));
    });
  }

  #record(o: string, now: number, scope?: VerdictScope): DomainRecord | undefined {
    const k = this.#p + o;
    const rows = this.#tiers.all(k, this.#oldestExcludedDay(now)) as {
      tier: string;
      a: number;
      s: number;
      f: number;
    }[];
    const info = this.#info.get(k) as InfoRow | undefined;
    const probations = new Map(
      (this.#probations.all(k) as unknown as ProbationRow[]).map((p) => [p.tier, p]),
    );
    if (rows.length === 0 && !info && probations.size === 0) return undefined;
    const tiers: Record<string, TierState> = {};
    let a = 0, s = 0, f = 0;
    const names = new Set([...rows.map((r) => r.tier), ...probations.keys()]);
    const counts = new Map(rows.map((r) => [r.tier, r]));
    for (const tier of [...names].sort()) {
      const row = counts.get(tier);
      const p = probations.get(tier);
      const c = tierCounts(Number(row?.a ?? 0), Number(row?.s ?? 0), Number(row?.f ?? 0));
      tiers[tier] = tierState(c, p && probation(p), now, scope);
      a += c.attempts;
      s += c.successes;
      f += c.failures;
    }
    const record: DomainRecord = {
      origin: o,
      host: originHost(o),
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
    if (info?.seen_in_search != null && info.seen_at != null) {
      record.seen_in_search = {
        count: Number(info.seen_in_search),
        last_at: new Date(Number(info.seen_at)).toISOString(),
      };
    }
    const capabilities = capabilitiesFromFields(pickCapabilityFields(info as never));
    if (capabilities) record.capabilities = capabilities;
    return record;
  }

  /** {@inheritDoc DomainStats.summary} */
  summary(options: { limit?: number } = {}): Promise<DomainSummary[]> {
    return Promise.try(() => {
      const limit = checkLimit(options.limit);
      const day = this.#oldestExcludedDay(this.#now());
      const rows = (this.#p ? this.#top.all(day, limit, this.#p) : this.#top.all(day, limit)) as {
        origin: string;
        a: number;
        s: number;
        f: number;
      }[];
      return rows.map((r) => ({
        origin: r.origin.slice(this.#p.length),
        ...tierCounts(Number(r.a), Number(r.s), Number(r.f)),
      }));
    });
  }

  /** {@inheritDoc DomainStats.skipped} */
  skipped(origin: string, scope?: VerdictScope): Promise<Map<string, number>> {
    return Promise.try(() => {
      checkScope(scope);
      const now = this.#now();
      const skipped = new Map<string, number>();
      const k = this.#p + normalizeOrigin(origin);
      for (const p of this.#probations.all(k) as unknown as ProbationRow[]) {
        const at = num(p.retry_at);
        if (at !== null && at > now && sameScope(p.policy, scope)) skipped.set(p.tier, at);
      }
      return skipped;
    });
  }

  /** {@inheritDoc DomainStats.shouldSkip} */
  async shouldSkip(origin: string, tier: string, scope?: VerdictScope): Promise<boolean> {
    checkTier(tier);
    return (await this.skipped(origin, scope)).has(tier);
  }

  /** {@inheritDoc DomainStats.setRobots} */
  setRobots(origin: string, state: RobotsState): Promise<void> {
    return Promise.try(() => {
      const o = normalizeOrigin(origin);
      this.#robots.run(this.#p + o, this.#p + originHost(o), checkRobots(state), this.#now());
    });
  }

  /** {@inheritDoc DomainStats.setLlmsTxt} */
  setLlmsTxt(origin: string, exists: boolean): Promise<void> {
    return Promise.try(() => {
      const o = normalizeOrigin(origin);
      this.#llms.run(this.#p + o, this.#p + originHost(o), exists ? 1 : 0, this.#now());
    });
  }

  /** {@inheritDoc DomainStats.noteSeenInSearch} */
  noteSeenInSearch(origins: readonly string[]): Promise<void> {
    return Promise.try(() => {
      const now = this.#now();
      const distinct = new Set(origins.map((origin) => normalizeOrigin(origin)));
      transaction(this.#db, () => {
        for (const o of distinct) this.#seen.run(this.#p + o, this.#p + originHost(o), now);
      });
    });
  }

  /** {@inheritDoc DomainStats.noteCapabilities} */
  noteCapabilities(origin: string, facts: CapabilityFacts): Promise<void> {
    return Promise.try(() => {
      const o = normalizeOrigin(origin);
      if (facts.preferred_strategy !== undefined) checkTier(facts.preferred_strategy);
      const k = this.#p + o;
      transaction(this.#db, () => {
        this.#known.run(k, this.#p + originHost(o));
        if (facts.page) {
          this.#sample.run(facts.page.json_ld_article ? 1 : 0, facts.page.og_title ? 1 : 0, k);
        }
        this.#setCapabilities(k, capabilitySetFields(facts, this.#now()));
      });
    });
  }

  /** Writes stored capability fields of one stored origin key (the names are ours, not input). */
  #setCapabilities(k: string, fields: CapabilityFields): void {
    const names = Object.keys(fields);
    if (names.length === 0) return;
    this.#db.prepare(
      `UPDATE origin_info SET ${names.map((n) => `${n} = ?`).join(", ")} WHERE origin = ?`,
    ).run(...names.map((n) => fields[n as keyof CapabilityFields]!), k);
  }

  /**
   * {@inheritDoc DomainStats.clear} A tenant forgets its own origins only;
   * without a tenant every origin is forgotten, every tenant's included.
   */
  clear(): Promise<number> {
    if (this.#p) return Promise.try(() => this.#clearTenant());
    return Promise.try(() =>
      transaction(this.#db, () => {
        const known = this.#db.prepare(
          `SELECT count(*) AS n FROM (SELECT origin FROM origin_info UNION
             SELECT origin FROM origin_daily UNION SELECT origin FROM origin_tiers)`,
        ).get() as { n: number };
        this.#db.exec(
          "DELETE FROM origin_daily; DELETE FROM origin_tiers; DELETE FROM origin_info;",
        );
        return Number(known.n);
      })
    );
  }

  #clearTenant(): number {
    const mine = "substr(origin, 1, length(?1)) = ?1";
    return transaction(this.#db, () => {
      const known = this.#db.prepare(
        `SELECT count(*) AS n FROM (SELECT origin FROM origin_info WHERE ${mine} UNION
           SELECT origin FROM origin_daily WHERE ${mine} UNION
           SELECT origin FROM origin_tiers WHERE ${mine})`,
      ).get(this.#p) as { n: number };
      for (const table of ["origin_daily", "origin_tiers", "origin_info"]) {
        this.#db.prepare(`DELETE FROM ${table} WHERE ${mine}`).run(this.#p);
      }
      return Number(known.n);
    });
  }

  /** {@inheritDoc DomainStats.snapshot} */
  snapshot(): Promise<DomainSnapshotEntry[]> {
    return Promise.try(() => {
      const where = this.#p ? "substr(origin, 1, length(?1)) = ?1" : "instr(origin, ' ') = 0";
      const args = this.#p ? [this.#p] : [];
      const entries = new Map<string, DomainSnapshotEntry>();
      const entry = (stored: string) => {
        const origin = stored.slice(this.#p.length);
        let found = entries.get(origin);
        if (!found) entries.set(origin, found = { origin, days: [], probation: [] });
        return found;
      };
      for (
        const row of this.#db.prepare(
          `SELECT * FROM origin_daily WHERE ${where} ORDER BY origin, day, tier`,
        ).all(...args) as Record<string, string | number>[]
      ) {
        entry(String(row.origin)).days.push({
          day: Number(row.day),
          tier: String(row.tier),
          attempts: Number(row.attempts),
          successes: Number(row.successes),
          failures: Number(row.failures),
        });
      }
      for (
        const row of this.#db.prepare(
          `SELECT * FROM origin_tiers WHERE ${where} ORDER BY origin, tier`,
        ).all(...args) as unknown as (ProbationRow & { origin: string })[]
      ) {
        entry(row.origin).probation.push({ tier: row.tier, ...probation(row) });
      }
      for (
        const row of this.#db.prepare(`SELECT * FROM origin_info WHERE ${where}`).all(
          ...args,
        ) as unknown as (InfoRow & { origin: string })[]
      ) {
        const e = entry(row.origin);
        if (row.last_failure_at != null) {
          e.last_failure = {
            tier: row.last_failure_tier ?? "unknown",
            reason: row.last_failure_reason ?? "unknown",
            at: Number(row.last_failure_at),
          };
        }
        if (row.robots_state != null && row.robots_checked_at != null) {
          e.robots = {
            state: row.robots_state as RobotsState,
            checked_at: Number(row.robots_checked_at),
          };
        }
        if (row.llms_txt != null && row.llms_checked_at != null) {
          e.llms_txt = {
            exists: Number(row.llms_txt) === 1,
            checked_at: Number(row.llms_checked_at),
          };
        }
        if (row.seen_in_search != null && row.seen_at != null) {
          e.seen_in_search = { count: Number(row.seen_in_search), last_at: Number(row.seen_at) };
        }
        const capabilities = pickCapabilityFields(row as never);
        if (capabilities) e.capabilities = capabilities;
      }
      return [...entries.values()].sort((a, b) => (a.origin < b.origin ? -1 : 1));
    });
  }

  /** {@inheritDoc DomainStats.restore} */
  restore(raw: unknown): Promise<DomainSnapshotEntry> {
    return Promise.try(() => {
      const e = parseSnapshotEntry(raw);
      const k = this.#p + e.origin;
      const host = this.#p + originHost(e.origin);
      transaction(this.#db, () => {
        this.#known.run(k, host);
        const day = this.#db.prepare(
          `INSERT INTO origin_daily (origin, tier, day, attempts, successes, failures)
           VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (origin, tier, day) DO UPDATE SET
           attempts = excluded.attempts, successes = excluded.successes, failures = excluded.failures`,
        );
        for (const d of e.days) day.run(k, d.tier, d.day, d.attempts, d.successes, d.failures);
        for (const p of e.probation) {
          this.#setProbation.run(
            k,
            p.tier,
            p.consecutive_failures,
            p.retry_at,
            p.policy,
            this.#now(),
          );
        }
        if (e.last_failure) {
          this.#db.prepare(
            `UPDATE origin_info SET last_failure_reason = ?, last_failure_tier = ?,
             last_failure_at = ? WHERE origin = ?`,
          ).run(shortReason(e.last_failure.reason), e.last_failure.tier, e.last_failure.at, k);
        }
        if (e.robots) this.#robots.run(k, host, e.robots.state, e.robots.checked_at);
        if (e.llms_txt) {
          this.#llms.run(k, host, e.llms_txt.exists ? 1 : 0, e.llms_txt.checked_at);
        }
        if (e.seen_in_search) {
          this.#db.prepare(
            "UPDATE origin_info SET seen_in_search = ?, seen_at = ? WHERE origin = ?",
          )
            .run(e.seen_in_search.count, e.seen_in_search.last_at, k);
        }
        if (e.capabilities) this.#setCapabilities(k, e.capabilities);
      });
      return e;
    });
  }

  /** The newest day no longer inside the window (buckets must be newer). */
  #oldestExcludedDay(now: number): number {
    return dayNumber(now) - DOMAIN_WINDOW_DAYS;
  }
}

function probation(row: ProbationRow): Probation {
  return {
    consecutive_failures: Number(row.consecutive_failures),
    retry_at: num(row.retry_at),
    policy: row.policy ?? null,
  };
}

function num(value: number | bigint | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}
