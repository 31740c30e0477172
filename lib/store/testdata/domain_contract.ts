/**
 * Test helper (not part of the library): the behaviour every
 * {@link DomainStats} backend must show, run by the SQLite and Valkey tests.
 *
 * @module
 */
import assert from "node:assert/strict";
import { GleanerError } from "../../errors.ts";
import type { DomainStats } from "../types.ts";
import { CAPABILITY_SAMPLE_PAGES } from "../capabilities.ts";

const MIN = 60_000;

/** A settable clock. */
export interface TestClock {
  /** Current time (ms). */
  now: () => number;
  /** Sets the time. */
  set: (ms: number) => number;
}

/** Counts, last failure, robots and llms.txt are kept per origin; a host lists its origins. */
export async function checkOriginKeys(stats: DomainStats, c: TestClock): Promise<void> {
  const at = new Date(c.now()).toISOString();
  assert.equal(await stats.get("https://example.com"), undefined);
  await stats.record("https://Example.COM:443/", "http", true);
  await stats.record("https://example.com", "http", false, "http_403\n(blocked)");
  await stats.record("https://example.com", "browser", true);
  await stats.record("http://example.com:8080", "http", false, "timeout");
  await stats.setRobots("https://example.com", "partial");
  await stats.setLlmsTxt("https://example.com", true);
  const rec = await stats.get("HTTPS://example.com/");
  assert.ok(rec);
  assert.equal(rec.origin, "https://example.com");
  assert.equal(rec.host, "example.com");
  assert.equal(rec.window_days, 30);
  assert.deepEqual(
    { a: rec.attempts, s: rec.successes, f: rec.failures, r: rec.success_rate },
    { a: 3, s: 2, f: 1, r: 2 / 3 },
  );
  assert.deepEqual(rec.tiers.http, {
    attempts: 2,
    successes: 1,
    failures: 1,
    success_rate: 0.5,
    consecutive_failures: 1,
  });
  assert.deepEqual(rec.tiers.browser, {
    attempts: 1,
    successes: 1,
    failures: 0,
    success_rate: 1,
    consecutive_failures: 0,
  });
  assert.deepEqual(rec.last_failure, { tier: "http", reason: "http_403 (blocked)", at });
  assert.deepEqual(rec.robots, { state: "partial", checked_at: at });
  assert.deepEqual(rec.llms_txt, { exists: true, checked_at: at });
  const other = await stats.get("http://example.com:8080");
  assert.equal(other?.attempts, 1, "another port is another origin");
  assert.equal(other?.last_failure?.reason, "timeout");
  const all = await stats.forHost("EXAMPLE.com");
  assert.deepEqual(all.map((r) => r.origin), ["https://example.com", "http://example.com:8080"]);
  assert.deepEqual(await stats.forHost("nothing.example"), []);
  await stats.record("http://[::1]:8080", "http", true);
  assert.deepEqual((await stats.forHost("::1")).map((r) => r.origin), ["http://[::1]:8080"]);
  assert.deepEqual((await stats.forHost("[::1]")).map((r) => r.host), ["[::1]"]);
  const top = await stats.summary({ limit: 1 });
  assert.deepEqual(top, [{
    origin: "https://example.com",
    attempts: 3,
    successes: 2,
    failures: 1,
    success_rate: 2 / 3,
  }]);
  await assert.rejects(stats.record("https://example.com", "Bad Tier", true), GleanerError);
  await assert.rejects(stats.record("example.com", "http", true), GleanerError, "not an origin");
  await assert.rejects(stats.record("ftp://example.com", "http", true), GleanerError);
  await assert.rejects(stats.setRobots("https://example.com", "maybe" as "partial"), GleanerError);
}

/**
 * Probation: skipped from the 3rd failure in a row for 5 min, then 15 min,
 * 1 h, 6 h at most; failures in flight during probation do not lengthen it;
 * a success resets it; a one-minute outage costs one short probation.
 */
export async function checkProbation(stats: DomainStats, c: TestClock): Promise<void> {
  const o = "http://flaky.example:8080";
  const t0 = c.now();
  await stats.record(o, "http", false, "timeout");
  await stats.record(o, "http", false, "timeout");
  assert.equal(await stats.shouldSkip(o, "http"), false, "two failures are not a pattern");
  await stats.record(o, "http", false, "timeout");
  assert.equal(await stats.shouldSkip(o, "http"), true);
  assert.equal(await stats.shouldSkip(o, "browser"), false, "other tier untouched");
  assert.equal(await stats.shouldSkip("http://flaky.example:8081", "http"), false, "other port");
  assert.deepEqual(await stats.skipped(o), new Map([["http", t0 + 5 * MIN]]));
  // Reads that were in flight fail during the probation: counted, not escalated.
  for (let i = 0; i < 10; i++) await stats.record(o, "http", false, "timeout");
  let rec = await stats.get(o);
  assert.equal(rec?.tiers.http.failures, 13);
  assert.equal(rec?.tiers.http.consecutive_failures, 3);
  assert.equal(rec?.tiers.http.skipped_until, new Date(t0 + 5 * MIN).toISOString());
  // After the probation the next attempt is a probe.
  c.set(t0 + 5 * MIN + 1);
  assert.equal(await stats.shouldSkip(o, "http"), false);
  await stats.record(o, "http", false, "timeout");
  assert.deepEqual(await stats.skipped(o), new Map([["http", c.now() + 15 * MIN]]));
  c.set(c.now() + 15 * MIN + 1);
  await stats.record(o, "http", false, "timeout");
  assert.deepEqual(await stats.skipped(o), new Map([["http", c.now() + 60 * MIN]]));
  for (let i = 0; i < 4; i++) {
    c.set(c.now() + 6 * 60 * MIN + 1);
    await stats.record(o, "http", false, "timeout");
    assert.deepEqual(await stats.skipped(o), new Map([["http", c.now() + 6 * 60 * MIN]]), "capped");
  }
  // One success resets it.
  c.set(c.now() + 6 * 60 * MIN + 1);
  await stats.record(o, "http", true);
  rec = await stats.get(o);
  assert.equal(rec?.tiers.http.consecutive_failures, 0);
  assert.equal(rec?.tiers.http.skipped_until, undefined);
  assert.deepEqual(await stats.skipped(o), new Map());

  // A one-minute outage: 30 failures in a minute, then the origin is back.
  const down = "https://outage.example";
  const start = c.now();
  for (let i = 0; i < 30; i++) {
    c.set(start + i * 2_000);
    await stats.record(down, "http", false, "provider_unavailable");
  }
  c.set(start + 4_000 + 5 * MIN + 1);
  assert.equal(await stats.shouldSkip(down, "http"), false, "retried minutes later, not weeks");
}

/** `clear` forgets every origin and says how many there were. */
export async function checkClear(stats: DomainStats): Promise<void> {
  await stats.record("https://a.example", "http", false, "timeout");
  await stats.record("https://b.example", "http", true);
  await stats.setLlmsTxt("https://c.example", false);
  assert.equal(await stats.clear(), 3);
  assert.equal(await stats.get("https://a.example"), undefined);
  assert.deepEqual(await stats.forHost("a.example"), []);
  assert.deepEqual(await stats.summary(), []);
  assert.equal(await stats.clear(), 0);
}

/**
 * A probation reached under one policy (settings fingerprint) is neither
 * applied nor shown under another, and the new policy starts the run afresh.
 */
export async function checkPolicy(stats: DomainStats): Promise<void> {
  const o = "https://policy.example";
  const old = { policy: "ua-1" };
  const next = { policy: "ua-2" };
  for (let i = 0; i < 3; i++) await stats.record(o, "http", false, "unauthorized", old);
  assert.equal(await stats.shouldSkip(o, "http", old), true);
  assert.equal(await stats.shouldSkip(o, "http"), true, "no policy given: every verdict applies");
  assert.equal(await stats.shouldSkip(o, "http", next), false, "another policy: not applied");
  assert.equal((await stats.get(o, next))?.tiers.http.skipped_until, undefined, "nor shown");
  assert.ok((await stats.get(o, old))?.tiers.http.skipped_until);
  await stats.record(o, "http", false, "unauthorized", next);
  const rec = await stats.get(o, next);
  assert.equal(rec?.tiers.http.consecutive_failures, 1, "the run starts afresh");
  assert.equal(rec?.tiers.http.failures, 4, "counts are kept");
  assert.equal(await stats.shouldSkip(o, "http", old), false, "the old verdict is gone");
  await assert.rejects(stats.record(o, "http", true, undefined, { policy: "has space" }));
}

/**
 * Tenants (hosted mode): `make(tenant)` gives a tenant's view of one store,
 * `make()` the operator's. Each tenant reads, lists and clears its own
 * origins only; the operator's clear forgets every tenant's too.
 */
export async function checkTenants(make: (tenant?: string) => DomainStats): Promise<void> {
  const base = make();
  const a = make("tenant-a");
  const b = make("tenant-b");
  await a.record("https://a-only.example", "http", false, "timeout");
  for (let i = 0; i < 2; i++) await a.record("https://a-only.example", "http", false, "timeout");
  await a.setRobots("https://a-only.example", "partial");
  await a.setLlmsTxt("https://a-only.example", true);
  await b.record("https://shared.example", "http", true);
  await a.record("https://shared.example", "browser", true);
  assert.equal(await b.get("https://a-only.example"), undefined, "B knows nothing of A's origin");
  assert.deepEqual(await b.forHost("a-only.example"), []);
  assert.equal(await b.shouldSkip("https://a-only.example", "http"), false, "A's probation is A's");
  assert.equal(await a.shouldSkip("https://a-only.example", "http"), true);
  assert.deepEqual((await b.summary()).map((s) => s.origin), ["https://shared.example"]);
  const shared = await b.get("https://shared.example");
  assert.deepEqual(Object.keys(shared!.tiers), ["http"], "B's record holds B's attempts only");
  const own = await a.get("https://a-only.example");
  assert.equal(own?.origin, "https://a-only.example");
  assert.equal(own?.host, "a-only.example");
  assert.equal(own?.robots?.state, "partial");
  assert.equal(own?.llms_txt?.exists, true);
  assert.deepEqual((await a.forHost("A-ONLY.example")).map((r) => r.origin), [
    "https://a-only.example",
  ]);
  assert.deepEqual(await base.summary(), [], "the operator's own view lists no tenant's origin");
  assert.equal(await b.clear(), 1, "a tenant forgets its own origins only");
  assert.equal(await b.get("https://shared.example"), undefined);
  assert.ok(await a.get("https://shared.example"), "A's record of the same origin survives");
  await base.record("https://operator.example", "http", true);
  assert.equal(await base.clear(), 3, "the operator's clear forgets every tenant's origins");
  assert.deepEqual(await a.summary(), []);
  assert.equal(await a.get("https://a-only.example"), undefined);
  assert.throws(() => make("Not A Tenant"), /tenant/);
}

/**
 * Capabilities: a page sample capped at `CAPABILITY_SAMPLE_PAGES`, the cheap fetch's metadata,
 * llms-full.txt's size (or its absence), the preferred strategy; a snapshot carries them and
 * `seen_in_search`, and restoring it after a clear gives the same record.
 */
export async function checkCapabilities(stats: DomainStats, c: TestClock): Promise<void> {
  const at = new Date(c.now()).toISOString();
  const o = "https://caps.example";
  for (let i = 0; i < CAPABILITY_SAMPLE_PAGES + 5; i++) {
    await stats.noteCapabilities(o, { page: { json_ld_article: i % 2 === 0, og_title: true } });
  }
  await stats.noteCapabilities(o, {
    metadata_fetch: true,
    llms_full_txt_bytes: 1234,
    preferred_strategy: "browser",
  });
  await stats.noteSeenInSearch([`${o}/a`]);
  await stats.noteCapabilities("https://none.example", { llms_full_txt_bytes: null });
  const half = CAPABILITY_SAMPLE_PAGES / 2;
  const expected = {
    metadata_fetch: { ok: true, checked_at: at },
    json_ld_article: { sampled: CAPABILITY_SAMPLE_PAGES, present: half, rate: 0.5 },
    og_title: { sampled: CAPABILITY_SAMPLE_PAGES, present: CAPABILITY_SAMPLE_PAGES, rate: 1 },
    llms_full_txt: { present: true, size_bytes: 1234, last_checked: at },
    preferred_strategy: { tier: "browser", at },
  };
  assert.deepEqual((await stats.get(o))?.capabilities, expected);
  assert.deepEqual((await stats.get("https://none.example"))?.capabilities, {
    llms_full_txt: { present: false, last_checked: at },
  });
  await assert.rejects(
    stats.noteCapabilities(o, { preferred_strategy: "Not A Tier" }),
    GleanerError,
  );
  const entries = await stats.snapshot();
  const entry = entries.find((e) => e.origin === o);
  assert.deepEqual(entry?.seen_in_search, { count: 1, last_at: c.now() });
  assert.equal(entry?.capabilities?.cap_strategy, "browser");
  await stats.clear();
  assert.equal(await stats.get(o), undefined);
  for (const e of entries) await stats.restore(JSON.parse(JSON.stringify(e)));
  const restored = await stats.get(o);
  assert.deepEqual(restored?.capabilities, expected);
  assert.deepEqual(restored?.seen_in_search, { count: 1, last_at: at });
}
