/**
 * The {@link DomainStats} contract over Valkey/Redis, so several Gleaner
 * processes share one domain memory. Domain counters are `HINCRBY` on per-day
 * hash keys that expire after 31 days, so concurrent updates never lose
 * counts.
 *
 * @module
 */
import { checkTenant } from "./tenant.ts";
import { type DomainSnapshotEntry, parseSnapshotEntry } from "./domain_snapshot.ts";
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
  normalizeHost,
  normalizeOrigin,
  originHost,
  type Probation,
  PROBATION_STEPS_MS,
  type RobotsState,
  sameScope,
  shortReason,
  SKIP_AFTER_FAILURES,
  tierCounts,
  type TierState,
  tierState,
  type VerdictScope,
} from "./types.ts";
import {
  call,
  checkExec,
  DEFAULT_KEY_PREFIX,
  globEscape,
  type Redis,
  regExpEscape,
  unavailable,
} from "./valkey_client.ts";

/** Lifetime of a per-day counter hash (seconds): the 30-day window plus one day. */
export const DAY_KEY_TTL_S = 31 * 86_400;
/** Lifetime of a domain's info hash after its last update (seconds). */
export const INFO_KEY_TTL_S = 180 * 86_400;

/** Options of {@link ValkeyDomainStats}. */
export interface ValkeyDomainStatsOptions {
  /** Key prefix (default `gleaner:`). */
  prefix?: string;
  /**
   * Keep this tenant's origins only (hosted mode, see `tenant.ts`): its keys live under
   * `<prefix>t:<tenant>:`, so no other tenant reads, lists or clears them. Without a
   * tenant, `clear` forgets every origin, every tenant's included.
   */
  tenant?: string;
  /** Clock (ms since epoch); injectable for tests. */
  now?: () => number;
}

/**
 * The probation step of {@link nextProbation}, atomically on the server.
 * KEYS[1] = probation hash; ARGV = tier, now, ok (1/0), threshold, ttl,
 * policy ('' for none), steps….
 */
const PROBATION_SCRIPT = `
local c_field = ARGV[1] .. ':c'
local r_field = ARGV[1] .. ':r'
local p_field = ARGV[1] .. ':p'
local now = tonumber(ARGV[2])
local policy = ARGV[6]
if policy ~= '' and redis.call('HGET', KEYS[1], p_field) ~= policy then
  redis.call('HSET', KEYS[1], c_field, '0', p_field, policy)
  redis.call('HDEL', KEYS[1], r_field)
end
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], c_field, '0')
  redis.call('HDEL', KEYS[1], r_field)
else
  local r = tonumber(redis.call('HGET', KEYS[1], r_field) or '0') or 0
  if r <= now then
    local c = redis.call('HINCRBY', KEYS[1], c_field, 1)
    local threshold = tonumber(ARGV[4])
    if c >= threshold then
      local steps = #ARGV - 6
      local i = math.min(c - threshold, steps - 1)
      redis.call('HSET', KEYS[1], r_field, string.format('%.0f', now + tonumber(ARGV[7 + i])))
    end
  end
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
return 1
`;

/**
 * {@link DomainStats} on Valkey. Keys: `<prefix>o:<origin>:<day>` (hash of
 * `<tier>:a|s|f` counters), `<prefix>oz:<day>` (sorted set of attempts per
 * origin, for the summary), `<prefix>ot:<origin>` (probation: `<tier>:c`
 * consecutive failures, `<tier>:r` retry time, `<tier>:p` policy), `<prefix>oi:<origin>` (host,
 * last failure, robots.txt, llms.txt) and `<prefix>oh:<host>` (the host's
 * origins). Counters only ever move by `HINCRBY`/`ZINCRBY` inside `MULTI`;
 * the probation step is one server-side script in the same transaction.
 *
 * @example
 * ```ts ignore
 * import { connectValkey } from "./valkey_client.ts";
 * import { ValkeyDomainStats } from "./valkey_domain_stats.ts";
 * const client = await connectValkey("redis://127.0.0.1:6379");
 * const stats = new ValkeyDomainStats(client);
 * await stats.record("https://example.com", "http", true);
 * console.assert((await stats.get("https://example.com"))?.successes === 1);
 * await client.quit();
 * ```
 */
export class ValkeyDomainStats implements DomainStats {
  readonly #client: Redis;
  readonly #prefix: string;
  /** The deployment's prefix (without the tenant part). */
  readonly #base: string;
  readonly #tenant: boolean;
  readonly #now: () => number;

  /** Uses a connected client (see {@link connectValkey}); does not own it. */
  constructor(client: Redis, options: ValkeyDomainStatsOptions = {}) {
    this.#client = client;
    this.#base = options.prefix ?? DEFAULT_KEY_PREFIX;
    this.#tenant = options.tenant !== undefined;
    this.#prefix = options.tenant === undefined
      ? this.#base
      : `${this.#base}t:${checkTenant(options.tenant)}:`;
    this.#now = options.now ?? Date.now;
  }

  #dayKey(origin: string, day: number): string {
    return `${this.#prefix}o:${origin}:${day}`;
  }

  #topKey(day: number): string {
    return `${this.#prefix}oz:${day}`;
  }

  #tiersKey(origin: string): string {
    return `${this.#prefix}ot:${origin}`;
  }

  #infoKey(origin: string): string {
    return `${this.#prefix}oi:${origin}`;
  }

  #hostKey(host: string): string {
    return `${this.#prefix}oh:${host}`;
  }

  /** The day numbers inside the window, newest first. */
  #days(): number[] {
    const today = dayNumber(this.#now());
    return Array.from({ length: DOMAIN_WINDOW_DAYS }, (_, i) => today - i);
  }

  /** {@inheritDoc DomainStats.record} */
  async record(
    origin: string,
    tier: string,
    ok: boolean,
    reason?: string,
    scope?: VerdictScope,
  ): Promise<void> {
    const o = normalizeOrigin(origin);
    checkTier(tier);
    checkScope(scope);
    const now = this.#now();
    const day = dayNumber(now);
    const dayKey = this.#dayKey(o, day);
    const topKey = this.#topKey(day);
    const infoKey = this.#infoKey(o);
    const hostKey = this.#hostKey(originHost(o));
    const tx = this.#client.multi()
      .hincrby(dayKey, `${tier}:a`, 1)
      .hincrby(dayKey, `${tier}:${ok ? "s" : "f"}`, 1)
      .expire(dayKey, DAY_KEY_TTL_S)
      .zincrby(topKey, 1, o)
      .expire(topKey, DAY_KEY_TTL_S)
      .hset(infoKey, { host: originHost(o) })
      .expire(infoKey, INFO_KEY_TTL_S)
      .sadd(hostKey, o)
      .expire(hostKey, INFO_KEY_TTL_S)
      .eval(
        PROBATION_SCRIPT,
        1,
        this.#tiersKey(o),
        tier,
        String(now),
        ok ? "1" : "0",
        String(SKIP_AFTER_FAILURES),
        String(DAY_KEY_TTL_S),
        scope?.policy ?? "",
        ...PROBATION_STEPS_MS.map(String),
      );
    if (!ok) {
      tx.hset(infoKey, {
        last_failure_reason: shortReason(reason),
        last_failure_tier: tier,
        last_failure_at: String(now),
      });
    }
    checkExec(await call(tx.exec()));
  }

  async #tierTotals(origin: string): Promise<Map<string, [number, number, number]>> {
    const pipe = this.#client.pipeline();
    for (const day of this.#days()) pipe.hgetall(this.#dayKey(origin, day));
    const totals = new Map<string, [number, number, number]>();
    for (const [error, hash] of (await call(pipe.exec())) ?? []) {
      if (error) throw unavailable(error);
      for (const [field, raw] of Object.entries(hash as Record<string, string>)) {
        const colon = field.lastIndexOf(":");
        const tier = field.slice(0, colon);
        const slot = { a: 0, s: 1, f: 2 }[field.slice(colon + 1)];
        if (slot === undefined) continue;
        const entry = totals.get(tier) ?? [0, 0, 0];
        entry[slot] += Number(raw) || 0;
        totals.set(tier, entry);
      }
    }
    return totals;
  }

  /** Probation per tier: consecutive failures and retry time. */
  async #probations(origin: string): Promise<Map<string, Probation>> {
    const hash = await call(this.#client.hgetall(this.#tiersKey(origin)));
    const out = new Map<string, Probation>();
    for (const [field, raw] of Object.entries(hash)) {
      const colon = field.lastIndexOf(":");
      const tier = field.slice(0, colon);
      const entry = out.get(tier) ?? { consecutive_failures: 0, retry_at: null, policy: null };
      if (field.endsWith(":c")) entry.consecutive_failures = Number(raw) || 0;
      else if (field.endsWith(":r")) entry.retry_at = Number(raw) || null;
      else if (field.endsWith(":p")) entry.policy = raw;
      else continue;
      out.set(tier, entry);
    }
    return out;
  }

  /** {@inheritDoc DomainStats.get} */
  get(origin: string, scope?: VerdictScope): Promise<DomainRecord | undefined> {
    return Promise.try(() => this.#record(normalizeOrigin(origin), checkScope(scope)));
  }

  async #record(o: string, scope?: VerdictScope): Promise<DomainRecord | undefined> {
    const [totals, probations, info] = await Promise.all([
      this.#tierTotals(o),
      this.#probations(o),
      call(this.#client.hgetall(this.#infoKey(o))),
    ]);
    if (totals.size === 0 && probations.size === 0 && Object.keys(info).length === 0) {
      return undefined;
    }
    const now = this.#now();
    const tiers: Record<string, TierState> = {};
    let a = 0, s = 0, f = 0;
    for (const tier of [...new Set([...totals.keys(), ...probations.keys()])].sort()) {
      const [ta, ts, tf] = totals.get(tier) ?? [0, 0, 0];
      tiers[tier] = tierState(tierCounts(ta, ts, tf), probations.get(tier), now, scope);
      a += ta;
      s += ts;
      f += tf;
    }
    const record: DomainRecord = {
      origin: o,
      host: originHost(o),
      window_days: DOMAIN_WINDOW_DAYS,
      ...tierCounts(a, s, f),
      tiers,
    };
    if (info.last_failure_at) {
      record.last_failure = {
        tier: info.last_failure_tier ?? "unknown",
        reason: info.last_failure_reason ?? "unknown",
        at: new Date(Number(info.last_failure_at)).toISOString(),
      };
    }
    if (info.robots_state && info.robots_checked_at) {
      record.robots = {
        state: info.robots_state as RobotsState,
        checked_at: new Date(Number(info.robots_checked_at)).toISOString(),
      };
    }
    if (info.llms_txt && info.llms_checked_at) {
      record.llms_txt = {
        exists: info.llms_txt === "1",
        checked_at: new Date(Number(info.llms_checked_at)).toISOString(),
      };
    }
    if (info.seen_in_search && info.seen_at) {
      record.seen_in_search = {
        count: Number(info.seen_in_search),
        last_at: new Date(Number(info.seen_at)).toISOString(),
      };
    }
    const capabilities = capabilitiesFromFields(pickCapabilityFields(info));
    if (capabilities) record.capabilities = capabilities;
    return record;
  }

  /** {@inheritDoc DomainStats.forHost} */
  async forHost(host: string, scope?: VerdictScope): Promise<DomainRecord[]> {
    checkScope(scope);
    const origins = await call(this.#client.smembers(this.#hostKey(normalizeHost(host))));
    const records = await Promise.all(origins.sort().map((o) => this.#record(o, scope)));
    return records.filter((r) => r !== undefined)
      .sort((x, y) => y.attempts - x.attempts || (x.origin < y.origin ? -1 : 1));
  }

  /** {@inheritDoc DomainStats.summary} */
  async summary(options: { limit?: number } = {}): Promise<DomainSummary[]> {
    const limit = checkLimit(options.limit);
    const keys = this.#days().map((day) => this.#topKey(day));
    const flat = await call(this.#client.zunion(keys.length, ...keys, "WITHSCORES"));
    const ranked: { origin: string; score: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      ranked.push({ origin: flat[i], score: Number(flat[i + 1]) });
    }
    ranked.sort((x, y) => y.score - x.score || (x.origin < y.origin ? -1 : 1));
    const top = ranked.slice(0, limit);
    const totals = await Promise.all(top.map((r) => this.#tierTotals(r.origin)));
    return top.map((r, i) => {
      let a = 0, s = 0, f = 0;
      for (const [ta, ts, tf] of totals[i].values()) {
        a += ta;
        s += ts;
        f += tf;
      }
      return { origin: r.origin, ...tierCounts(a, s, f) };
    });
  }

  /** {@inheritDoc DomainStats.skipped} */
  async skipped(origin: string, scope?: VerdictScope): Promise<Map<string, number>> {
    checkScope(scope);
    const now = this.#now();
    const skipped = new Map<string, number>();
    for (const [tier, p] of await this.#probations(normalizeOrigin(origin))) {
      if (p.retry_at !== null && p.retry_at > now && sameScope(p.policy, scope)) {
        skipped.set(tier, p.retry_at);
      }
    }
    return skipped;
  }

  /** {@inheritDoc DomainStats.shouldSkip} */
  async shouldSkip(origin: string, tier: string, scope?: VerdictScope): Promise<boolean> {
    checkTier(tier);
    return (await this.skipped(origin, scope)).has(tier);
  }

  /** {@inheritDoc DomainStats.setRobots} */
  async setRobots(origin: string, state: RobotsState): Promise<void> {
    await this.#setInfo(origin, {
      robots_state: checkRobots(state),
      robots_checked_at: String(this.#now()),
    });
  }

  /** {@inheritDoc DomainStats.setLlmsTxt} */
  async setLlmsTxt(origin: string, exists: boolean): Promise<void> {
    await this.#setInfo(origin, {
      llms_txt: exists ? "1" : "0",
      llms_checked_at: String(this.#now()),
    });
  }

  /** {@inheritDoc DomainStats.noteSeenInSearch} */
  async noteSeenInSearch(origins: readonly string[]): Promise<void> {
    const distinct = new Set(origins.map((origin) => normalizeOrigin(origin)));
    if (distinct.size === 0) return;
    const now = String(this.#now());
    let batch = this.#client.multi();
    for (const o of distinct) {
      const key = this.#infoKey(o);
      const hostKey = this.#hostKey(originHost(o));
      batch = batch.hincrby(key, "seen_in_search", 1)
        .hset(key, { host: originHost(o), seen_at: now })
        .expire(key, INFO_KEY_TTL_S)
        .sadd(hostKey, o)
        .expire(hostKey, INFO_KEY_TTL_S);
    }
    checkExec(await call(batch.exec()));
  }

  /**
   * {@inheritDoc DomainStats.noteCapabilities} Two processes sampling the same
   * origin at once may count a page or two beyond the cap.
   */
  async noteCapabilities(origin: string, facts: CapabilityFacts): Promise<void> {
    const o = normalizeOrigin(origin);
    if (facts.preferred_strategy !== undefined) checkTier(facts.preferred_strategy);
    const fields = stringFields(capabilitySetFields(facts, this.#now()));
    const key = this.#infoKey(o);
    if (facts.page) {
      const sampled = Number(await call(this.#client.hget(key, "cap_sampled")) ?? 0);
      if (sampled < CAPABILITY_SAMPLE_PAGES) {
        checkExec(
          await call(
            this.#client.multi()
              .hincrby(key, "cap_sampled", 1)
              .hincrby(key, "cap_json_ld", facts.page.json_ld_article ? 1 : 0)
              .hincrby(key, "cap_og_title", facts.page.og_title ? 1 : 0)
              .exec(),
          ),
        );
      }
    }
    await this.#setInfo(o, fields);
  }

  async #setInfo(origin: string, fields: Record<string, string>): Promise<void> {
    const o = normalizeOrigin(origin);
    const key = this.#infoKey(o);
    const hostKey = this.#hostKey(originHost(o));
    checkExec(
      await call(
        this.#client.multi()
          .hset(key, { host: originHost(o), ...fields })
          .expire(key, INFO_KEY_TTL_S)
          .sadd(hostKey, o)
          .expire(hostKey, INFO_KEY_TTL_S)
          .exec(),
      ),
    );
  }

  /** Every key of this view matching `<prefix><kind>:*`. */
  async #keys(kind: string): Promise<string[]> {
    const out: string[] = [];
    let cursor = "0";
    do {
      const [next, keys] = await call(
        this.#client.scan(cursor, "MATCH", `${globEscape(this.#prefix)}${kind}:*`, "COUNT", 500),
      );
      cursor = next;
      out.push(...keys);
    } while (cursor !== "0");
    return out;
  }

  /** {@inheritDoc DomainStats.snapshot} */
  async snapshot(): Promise<DomainSnapshotEntry[]> {
    const entries = new Map<string, DomainSnapshotEntry>();
    const entry = (origin: string) => {
      let found = entries.get(origin);
      if (!found) entries.set(origin, found = { origin, days: [], probation: [] });
      return found;
    };
    const dayPrefix = `${this.#prefix}o:`;
    for (const key of (await this.#keys("o")).sort()) {
      const colon = key.lastIndexOf(":");
      const origin = key.slice(dayPrefix.length, colon);
      const day = Number(key.slice(colon + 1));
      if (!Number.isInteger(day)) continue;
      const hash = await call(this.#client.hgetall(key));
      const tiers = new Map<string, { a: number; s: number; f: number }>();
      for (const [field, raw] of Object.entries(hash)) {
        const at = field.lastIndexOf(":");
        const slot = field.slice(at + 1) as "a" | "s" | "f";
        if (!["a", "s", "f"].includes(slot)) continue;
        const counts = tiers.get(field.slice(0, at)) ?? { a: 0, s: 0, f: 0 };
        counts[slot] = Number(raw) || 0;
        tiers.set(field.slice(0, at), counts);
      }
      for (const [tier, c] of [...tiers].sort()) {
        entry(origin).days.push({
          day,
          tier,
          attempts: c.a,
          successes: c.s,
          failures: c.f,
        });
      }
    }
    const tiersPrefix = `${this.#prefix}ot:`;
    for (const key of await this.#keys("ot")) {
      const origin = key.slice(tiersPrefix.length);
      for (const [tier, p] of [...await this.#probations(origin)].sort()) {
        entry(origin).probation.push({ tier, ...p });
      }
    }
    const infoPrefix = `${this.#prefix}oi:`;
    for (const key of await this.#keys("oi")) {
      const info = await call(this.#client.hgetall(key));
      const e = entry(key.slice(infoPrefix.length));
      if (info.last_failure_at) {
        e.last_failure = {
          tier: info.last_failure_tier ?? "unknown",
          reason: info.last_failure_reason ?? "unknown",
          at: Number(info.last_failure_at),
        };
      }
      if (info.robots_state && info.robots_checked_at) {
        e.robots = {
          state: info.robots_state as RobotsState,
          checked_at: Number(info.robots_checked_at),
        };
      }
      if (info.llms_txt && info.llms_checked_at) {
        e.llms_txt = { exists: info.llms_txt === "1", checked_at: Number(info.llms_checked_at) };
      }
      if (info.seen_in_search && info.seen_at) {
        e.seen_in_search = { count: Number(info.seen_in_search), last_at: Number(info.seen_at) };
      }
      const capabilities = pickCapabilityFields(info);
      if (capabilities) e.capabilities = capabilities;
    }
    return [...entries.values()].sort((a, b) => (a.origin < b.origin ? -1 : 1));
  }

  /** {@inheritDoc DomainStats.restore} */
  async restore(raw: unknown): Promise<DomainSnapshotEntry> {
    const e = parseSnapshotEntry(raw);
    const o = e.origin;
    const byDay = new Map<number, typeof e.days>();
    for (const d of e.days) byDay.set(d.day, [...(byDay.get(d.day) ?? []), d]);
    const tx = this.#client.multi();
    for (const [day, rows] of byDay) {
      const key = this.#dayKey(o, day);
      // The day's total (every tier) ranks the origin in the summary: recomputed from the merge.
      const stored = await call(this.#client.hgetall(key));
      for (const d of rows) {
        stored[`${d.tier}:a`] = String(d.attempts);
        stored[`${d.tier}:s`] = String(d.successes);
        stored[`${d.tier}:f`] = String(d.failures);
      }
      const total = Object.entries(stored)
        .filter(([field]) => field.endsWith(":a"))
        .reduce((n, [, value]) => n + (Number(value) || 0), 0);
      tx.hset(key, stored).expire(key, DAY_KEY_TTL_S)
        .zadd(this.#topKey(day), total, o).expire(this.#topKey(day), DAY_KEY_TTL_S);
    }
    if (e.probation.length > 0) {
      const fields: Record<string, string> = {};
      for (const p of e.probation) {
        fields[`${p.tier}:c`] = String(p.consecutive_failures);
        if (p.retry_at !== null) fields[`${p.tier}:r`] = String(p.retry_at);
        if (p.policy !== null) fields[`${p.tier}:p`] = p.policy;
      }
      const key = this.#tiersKey(o);
      tx.hdel(key, ...e.probation.flatMap((p) => [`${p.tier}:r`, `${p.tier}:p`]))
        .hset(key, fields).expire(key, DAY_KEY_TTL_S);
    }
    const info: Record<string, string> = { host: originHost(o) };
    if (e.last_failure) {
      info.last_failure_reason = shortReason(e.last_failure.reason);
      info.last_failure_tier = e.last_failure.tier;
      info.last_failure_at = String(e.last_failure.at);
    }
    if (e.robots) {
      info.robots_state = e.robots.state;
      info.robots_checked_at = String(e.robots.checked_at);
    }
    if (e.llms_txt) {
      info.llms_txt = e.llms_txt.exists ? "1" : "0";
      info.llms_checked_at = String(e.llms_txt.checked_at);
    }
    if (e.seen_in_search) {
      info.seen_in_search = String(e.seen_in_search.count);
      info.seen_at = String(e.seen_in_search.last_at);
    }
    Object.assign(info, stringFields(e.capabilities ?? {}));
    const infoKey = this.#infoKey(o);
    const hostKey = this.#hostKey(originHost(o));
    tx.hset(infoKey, info).expire(infoKey, INFO_KEY_TTL_S)
      .sadd(hostKey, o).expire(hostKey, INFO_KEY_TTL_S);
    checkExec(await call(tx.exec()));
    return e;
  }

  /**
   * {@inheritDoc DomainStats.clear} (also removes the host-keyed keys of
   * earlier versions). A tenant forgets its own origins only; without a
   * tenant every tenant's origins are forgotten too.
   */
  async clear(): Promise<number> {
    let origins = 0;
    const kinds = ["oi", "o", "oz", "ot", "oh", "d", "dz", "di"];
    const patterns = kinds.map((kind) => `${globEscape(this.#prefix)}${kind}:*`);
    if (!this.#tenant) patterns.push(`${globEscape(this.#base)}t:*`);
    const tenantInfo = new RegExp(`^${regExpEscape(this.#base)}t:[a-z0-9_-]+:oi:`);
    for (const [i, match] of patterns.entries()) {
      let cursor = "0";
      do {
        const [next, keys] = await call(
          this.#client.scan(cursor, "MATCH", match, "COUNT", 500),
        );
        cursor = next;
        if (keys.length > 0) {
          const removed = await call(this.#client.del(...keys));
          if (kinds[i] === "oi") origins += removed;
          if (i >= kinds.length) origins += keys.filter((k) => tenantInfo.test(k)).length;
        }
      } while (cursor !== "0");
    }
    return origins;
  }
}

/** Stored capability fields as hash values. */
function stringFields(fields: CapabilityFields): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
}
