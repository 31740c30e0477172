import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { SqliteDomainStats } from "./domain_stats.ts";
import { openDatabase } from "./sqlite.ts";
import { assertRaceCounts, runWriters } from "./testdata/helpers.ts";

const DAY = 86_400_000;

function clock(start = Date.UTC(2025, 5, 15, 12)) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms), start };
}

Deno.test("domain stats count per tier and keep the last failure, robots and llms.txt", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const stats = new SqliteDomainStats(db, { now: c.now });
  assert.equal(await stats.get("example.com"), undefined);
  await stats.record("Example.COM.", "http", true);
  await stats.record("example.com", "http", false, "http_403\n(blocked)");
  await stats.record("example.com", "browser", true);
  await stats.setRobots("example.com", "partial");
  await stats.setLlmsTxt("example.com", true);
  const rec = await stats.get("EXAMPLE.com");
  assert.ok(rec);
  assert.equal(rec.domain, "example.com");
  assert.equal(rec.window_days, 30);
  assert.deepEqual(
    { a: rec.attempts, s: rec.successes, f: rec.failures, r: rec.success_rate },
    { a: 3, s: 2, f: 1, r: 2 / 3 },
  );
  assert.deepEqual(rec.tiers.http, { attempts: 2, successes: 1, failures: 1, success_rate: 0.5 });
  assert.deepEqual(rec.tiers.browser, {
    attempts: 1,
    successes: 1,
    failures: 0,
    success_rate: 1,
  });
  assert.deepEqual(rec.last_failure, {
    tier: "http",
    reason: "http_403 (blocked)",
    at: new Date(c.start).toISOString(),
  });
  assert.deepEqual(rec.robots, { state: "partial", checked_at: new Date(c.start).toISOString() });
  assert.deepEqual(rec.llms_txt, { exists: true, checked_at: new Date(c.start).toISOString() });
  await assert.rejects(stats.record("example.com", "Bad Tier", true), GleanerError);
  await assert.rejects(stats.record("", "http", true), GleanerError);
  await assert.rejects(stats.setRobots("example.com", "maybe" as "partial"), GleanerError);
  db.close();
});

Deno.test("domain stats sum only the last 30 days of buckets", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const stats = new SqliteDomainStats(db, { now: c.now, pruneIntervalMs: Infinity });
  const today = c.start;
  const at = async (daysAgo: number, ok: boolean, times = 1) => {
    c.set(today - daysAgo * DAY);
    for (let i = 0; i < times; i++) await stats.record("old.example", "http", ok, "timeout");
  };
  await at(45, false, 7); // long gone
  await at(30, false, 5); // first day outside the window
  await at(29, true, 3); // oldest day inside
  await at(0, true, 2);
  c.set(today);
  const rec = await stats.get("old.example");
  assert.equal(rec?.attempts, 5);
  assert.equal(rec?.successes, 5);
  assert.equal(rec?.failures, 0);
  // The last failure is remembered even though its bucket left the window.
  assert.equal(rec?.last_failure?.at, new Date(today - 30 * DAY).toISOString());
  // A day later the 29-days-ago bucket drops out too.
  c.set(today + DAY);
  assert.equal((await stats.get("old.example"))?.attempts, 2);
  db.close();
});

Deno.test("old buckets are pruned on write", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const stats = new SqliteDomainStats(db, { now: c.now, pruneIntervalMs: 0 });
  c.set(c.start - 40 * DAY);
  await stats.record("a.example", "http", true);
  c.set(c.start);
  await stats.record("b.example", "http", true);
  const rows = db.prepare("SELECT domain FROM domain_daily").all() as { domain: string }[];
  assert.deepEqual(rows.map((r) => r.domain), ["b.example"]);
  db.close();
});

Deno.test("shouldSkip: under 30% success over at least 10 attempts, per tier", async () => {
  const db = openDatabase(":memory:");
  const stats = new SqliteDomainStats(db);
  for (let i = 0; i < 9; i++) await stats.record("bad.example", "http", false, "timeout");
  assert.equal(await stats.shouldSkip("bad.example", "http"), false, "9 attempts are too few");
  await stats.record("bad.example", "http", false, "timeout");
  assert.equal(await stats.shouldSkip("bad.example", "http"), true, "0/10");
  assert.equal(await stats.shouldSkip("bad.example", "browser"), false, "other tier untouched");
  assert.equal(await stats.shouldSkip("unknown.example", "http"), false);

  // 3 of 10 = exactly 30% → not skipped; 2 of 10 → skipped.
  for (let i = 0; i < 7; i++) await stats.record("edge.example", "http", false);
  for (let i = 0; i < 3; i++) await stats.record("edge.example", "http", true);
  assert.equal(await stats.shouldSkip("edge.example", "http"), false, "3/10");
  for (let i = 0; i < 2; i++) await stats.record("low.example", "http", true);
  for (let i = 0; i < 8; i++) await stats.record("low.example", "http", false);
  assert.equal(await stats.shouldSkip("low.example", "http"), true, "2/10");
  db.close();
});

Deno.test("summary lists the busiest domains in the window, most first", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const stats = new SqliteDomainStats(db, { now: c.now, pruneIntervalMs: Infinity });
  c.set(c.start - 31 * DAY);
  for (let i = 0; i < 50; i++) await stats.record("stale.example", "http", true);
  c.set(c.start);
  for (let i = 0; i < 3; i++) await stats.record("b.example", "http", i > 0);
  for (let i = 0; i < 5; i++) await stats.record("a.example", "pdf", true);
  await stats.record("c.example", "http", false);
  const top = await stats.summary({ limit: 2 });
  assert.deepEqual(top, [
    { domain: "a.example", attempts: 5, successes: 5, failures: 0, success_rate: 1 },
    { domain: "b.example", attempts: 3, successes: 2, failures: 1, success_rate: 2 / 3 },
  ]);
  assert.equal((await stats.summary()).length, 3);
  await assert.rejects(stats.summary({ limit: 0 }), GleanerError);
  db.close();
});

Deno.test("two processes creating one SQLite file and recording 200 attempts each lose no counts", async () => {
  const root = await Deno.makeTempDir();
  try {
    const path = `${root}/shared.db`;
    // The file does not exist yet: both writers create and migrate it at the same time.
    await runWriters(2, { backend: "sqlite", target: path, domain: "race.example", n: 200 });
    const db = openDatabase(path);
    const rec = await new SqliteDomainStats(db).get("race.example");
    db.close();
    assertRaceCounts(rec);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
