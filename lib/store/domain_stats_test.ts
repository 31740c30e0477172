import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { SqliteDomainStats } from "./domain_stats.ts";
import { openDatabase } from "./sqlite.ts";
import {
  checkCapabilities,
  checkClear,
  checkOriginKeys,
  checkPolicy,
  checkProbation,
  checkTenants,
} from "./testdata/domain_contract.ts";
import { assertRaceCounts, runWriters } from "./testdata/helpers.ts";

const DAY = 86_400_000;

function clock(start = Date.UTC(2025, 5, 15, 12)) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms), start };
}

Deno.test("domain stats count per origin and tier, keep the last failure, robots and llms.txt", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  await checkOriginKeys(new SqliteDomainStats(db, { now: c.now }), c);
  db.close();
});

Deno.test("capabilities: a capped page sample, metadata fetch, llms-full.txt size, preferred strategy; kept by snapshots", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  await checkCapabilities(new SqliteDomainStats(db, { now: c.now }), c);
  db.close();
});

Deno.test("probation: short and growing, reset by a success; a one-minute outage is not a lockout", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  await checkProbation(new SqliteDomainStats(db, { now: c.now }), c);
  db.close();
});

Deno.test("a verdict reached under other settings is not applied", async () => {
  const db = openDatabase(":memory:");
  await checkPolicy(new SqliteDomainStats(db));
  db.close();
});

Deno.test("clear forgets every origin", async () => {
  const db = openDatabase(":memory:");
  await checkClear(new SqliteDomainStats(db));
  db.close();
});

Deno.test("domain stats sum only the last 30 days of buckets", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const stats = new SqliteDomainStats(db, { now: c.now, pruneIntervalMs: Infinity });
  const today = c.start;
  const at = async (daysAgo: number, ok: boolean, times = 1) => {
    c.set(today - daysAgo * DAY);
    for (let i = 0; i < times; i++) {
      await stats.record("https://old.example", "http", ok, "timeout");
    }
  };
  await at(45, false, 7); // long gone
  await at(30, false, 5); // first day outside the window
  await at(29, true, 3); // oldest day inside
  await at(0, true, 2);
  c.set(today);
  const rec = await stats.get("https://old.example");
  assert.equal(rec?.attempts, 5);
  assert.equal(rec?.successes, 5);
  assert.equal(rec?.failures, 0);
  // The last failure is remembered even though its bucket left the window.
  assert.equal(rec?.last_failure?.at, new Date(today - 30 * DAY).toISOString());
  // A day later the 29-days-ago bucket drops out too.
  c.set(today + DAY);
  assert.equal((await stats.get("https://old.example"))?.attempts, 2);
  db.close();
});

Deno.test("old buckets are pruned on write", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const stats = new SqliteDomainStats(db, { now: c.now, pruneIntervalMs: 0 });
  c.set(c.start - 40 * DAY);
  await stats.record("https://a.example", "http", true);
  c.set(c.start);
  await stats.record("https://b.example", "http", true);
  const rows = db.prepare("SELECT origin FROM origin_daily").all() as { origin: string }[];
  assert.deepEqual(rows.map((r) => r.origin), ["https://b.example"]);
  db.close();
});

Deno.test("summary lists the busiest domains in the window, most first", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const stats = new SqliteDomainStats(db, { now: c.now, pruneIntervalMs: Infinity });
  c.set(c.start - 31 * DAY);
  for (let i = 0; i < 50; i++) await stats.record("https://stale.example", "http", true);
  c.set(c.start);
  for (let i = 0; i < 3; i++) await stats.record("https://b.example", "http", i > 0);
  for (let i = 0; i < 5; i++) await stats.record("https://a.example", "pdf", true);
  await stats.record("https://c.example", "http", false);
  const top = await stats.summary({ limit: 2 });
  assert.deepEqual(top, [
    { origin: "https://a.example", attempts: 5, successes: 5, failures: 0, success_rate: 1 },
    { origin: "https://b.example", attempts: 3, successes: 2, failures: 1, success_rate: 2 / 3 },
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
    await runWriters(2, {
      backend: "sqlite",
      target: path,
      domain: "https://race.example",
      n: 200,
    });
    const db = openDatabase(path);
    const rec = await new SqliteDomainStats(db).get("https://race.example");
    db.close();
    assertRaceCounts(rec);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("tenants: each sees, lists and clears its own origins; the operator's clear forgets all", async () => {
  const db = openDatabase(":memory:");
  await checkTenants((tenant) => new SqliteDomainStats(db, { tenant }));
  db.close();
});
