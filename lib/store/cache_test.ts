import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { SqliteCache, utf8Length } from "./cache.ts";
import { openDatabase } from "./sqlite.ts";

function clock(start = Date.UTC(2025, 0, 1)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

Deno.test("cache stores JSON values and keeps namespaces apart", async () => {
  const db = openDatabase(":memory:");
  const cache = new SqliteCache(db);
  await cache.set("search", "q", { results: [1, 2, 3], note: "héllo ✓" });
  await cache.set("pages", "q", "a page");
  assert.deepEqual(await cache.get("search", "q"), { results: [1, 2, 3], note: "héllo ✓" });
  assert.equal(await cache.get("pages", "q"), "a page");
  assert.equal(await cache.get("crawl", "q"), undefined);
  await cache.set("search", "q", null);
  assert.equal(await cache.get("search", "q"), null);
  assert.equal(await cache.delete("search", "q"), true);
  assert.equal(await cache.delete("search", "q"), false);
  await assert.rejects(
    cache.get("nope" as "search", "q"),
    (e) => e instanceof GleanerError && e.code === "invalid_arguments",
  );
  await assert.rejects(cache.set("search", "u", undefined), GleanerError);
  db.close();
});

Deno.test("cache expiry: namespace TTL at read time, maxAgeS per read", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const cache = new SqliteCache(db, { ttls: { search: 3600, pages: 86_400 }, now: c.now });
  await cache.set("search", "k", 1);
  await cache.set("pages", "k", 2);
  assert.equal(await cache.get("search", "k", { maxAgeS: 0 }), undefined);
  assert.equal(await cache.get("search", "k"), 1, "maxAgeS miss does not delete");
  c.advance(3599_000);
  assert.equal(await cache.get("search", "k"), 1);
  assert.equal(await cache.get("search", "k", { maxAgeS: 60 }), undefined);
  c.advance(1_000);
  assert.equal(await cache.get("search", "k"), undefined, "expired at exactly the TTL");
  assert.equal((await cache.stats()).entries.search, 0, "expired entry removed on read");
  assert.equal(await cache.get("pages", "k"), 2);
  await assert.rejects(cache.get("pages", "k", { maxAgeS: -1 }), GleanerError);
  db.close();
});

Deno.test("cache sweep removes expired entries of every namespace; writes sweep too", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const cache = new SqliteCache(db, {
    ttls: { search: 10, pages: 100, crawl: 50 },
    now: c.now,
    sweepIntervalMs: 60_000,
  });
  for (let i = 0; i < 5; i++) {
    await cache.set("search", `s${i}`, i);
    await cache.set("pages", `p${i}`, i);
    await cache.set("crawl", `c${i}`, i);
  }
  c.advance(60_000);
  assert.equal(await cache.sweep(), 10);
  assert.deepEqual((await cache.stats()).entries, { search: 0, pages: 5, crawl: 0 });
  c.advance(60_000);
  await cache.set("search", "fresh", true); // a write after the interval sweeps the pages
  assert.deepEqual((await cache.stats()).entries, { search: 1, pages: 0, crawl: 0 });
  db.close();
});

Deno.test("cache evicts least recently accessed entries to stay under the cap", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const value = "x".repeat(98); // JSON "xxx…" = 100 bytes, key "kN" = 2 bytes → 102 per entry
  const cache = new SqliteCache(db, { maxBytes: 1_000, lowWaterRatio: 1, now: c.now });
  for (let i = 0; i < 9; i++) {
    await cache.set("pages", `k${i}`, value);
    c.advance(1_000);
  }
  assert.equal((await cache.stats()).bytes, 9 * 102);
  // Touch k0 and k1: now k2 and k3 are the least recently used.
  assert.equal(await cache.get("pages", "k0"), value);
  c.advance(1_000);
  assert.equal(await cache.get("pages", "k1"), value);
  c.advance(1_000);
  await cache.set("pages", "k9", value); // 1020 > 1000 → evict one (k2)
  const present = async () => {
    const keys: string[] = [];
    for (let i = 0; i < 12; i++) {
      if (await cache.get("pages", `k${i}`, { maxAgeS: 1e9 }) !== undefined) keys.push(`k${i}`);
    }
    return keys;
  };
  const stats = await cache.stats();
  assert.ok(stats.bytes! <= 1_000, `bytes ${stats.bytes}`);
  assert.equal(stats.entries.pages, 9);
  // (present() itself touches entries in key order, so read it once at the end only.)
  assert.deepEqual(await present(), ["k0", "k1", "k3", "k4", "k5", "k6", "k7", "k8", "k9"]);
  db.close();
});

Deno.test("cache eviction goes down to the low-water mark and refuses oversize values", async () => {
  const c = clock();
  const db = openDatabase(":memory:");
  const cache = new SqliteCache(db, { maxBytes: 1_000, now: c.now }); // low water 900
  for (let i = 0; i < 9; i++) {
    await cache.set("search", `k${i}`, "y".repeat(98));
    c.advance(10);
  }
  await cache.set("search", "k9", "y".repeat(98)); // 1020 → evict to ≤ 900: two oldest go
  const stats = await cache.stats();
  assert.equal(stats.entries.search, 8);
  assert.equal(stats.bytes, 8 * 102);
  assert.equal(await cache.get("search", "k0"), undefined);
  assert.equal(await cache.get("search", "k1"), undefined);
  assert.equal(await cache.get("search", "k2"), "y".repeat(98));

  await cache.set("search", "big", "z".repeat(2_000));
  assert.equal(await cache.get("search", "big"), undefined);
  assert.equal((await cache.stats()).entries.search, 8, "nothing evicted for an oversize value");
  db.close();
});

Deno.test("cache clear returns counts removed per namespace", async () => {
  const db = openDatabase(":memory:");
  const cache = new SqliteCache(db);
  for (let i = 0; i < 3; i++) await cache.set("search", `s${i}`, i);
  for (let i = 0; i < 2; i++) await cache.set("pages", `p${i}`, i);
  await cache.set("crawl", "c", 1);
  assert.deepEqual(await cache.clear("pages"), {
    removed: 2,
    by_namespace: { search: 0, pages: 2, crawl: 0 },
  });
  assert.deepEqual(await cache.clear("all"), {
    removed: 4,
    by_namespace: { search: 3, pages: 0, crawl: 1 },
  });
  assert.deepEqual(await cache.stats(), {
    entries: { search: 0, pages: 0, crawl: 0 },
    bytes: 0,
    max_bytes: 200_000_000,
  });
  db.close();
});

Deno.test("cache byte total stays exact when two connections share one file", async () => {
  const root = await Deno.makeTempDir();
  try {
    const a = openDatabase(`${root}/g.db`);
    const b = openDatabase(`${root}/g.db`);
    const ca = new SqliteCache(a);
    const cb = new SqliteCache(b);
    await ca.set("pages", "k", "abc"); // "\"abc\"" 5 + key 1 = 6
    await cb.set("pages", "k", "abcdef"); // replaces: 8 + 1 = 9
    await cb.set("pages", "é", "é"); // 4 + 2 = 6
    assert.equal(await ca.get("pages", "k"), "abcdef");
    assert.equal((await ca.stats()).bytes, 15);
    await ca.delete("pages", "k");
    assert.equal((await cb.stats()).bytes, 6);
    a.close();
    b.close();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("utf8Length matches TextEncoder", () => {
  for (const s of ["", "abc", "é", "✓", "😀", "a\ud800b", "mixed é ✓ 😀 text"]) {
    assert.equal(utf8Length(s), new TextEncoder().encode(s).length, JSON.stringify(s));
  }
});
