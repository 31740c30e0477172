import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { blobToVector, SqliteEmbeddingCache, vectorToBlob } from "./embeddings.ts";
import { openDatabase } from "./sqlite.ts";

function unit(seed: number, dims: number): Float32Array {
  const v = new Float32Array(dims);
  for (let i = 0; i < dims; i++) v[i] = Math.sin(seed * 31 + i);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

Deno.test("embedding cache round-trips Float32 vectors by model and hash", async () => {
  const db = openDatabase(":memory:");
  const cache = new SqliteEmbeddingCache(db);
  const a = unit(1, 100);
  const b = unit(2, 100);
  await cache.put("static:m1", new Map([["ha", a], ["hb", b]]));
  await cache.put("static:m2", new Map([["ha", unit(3, 8)]]));
  const got = await cache.get("static:m1", ["ha", "hb", "hc", "ha"]);
  assert.deepEqual([...got.keys()].sort(), ["ha", "hb"]);
  assert.deepEqual(got.get("ha"), a);
  assert.deepEqual(got.get("hb"), b);
  const other = await cache.get("static:m2", ["ha", "hb"]);
  assert.equal(other.size, 1);
  assert.equal(other.get("ha")!.length, 8);
  assert.equal((await cache.get("static:m3", ["ha"])).size, 0);
  // Replacing a vector keeps one row.
  await cache.put("static:m1", new Map([["ha", b]]));
  assert.deepEqual((await cache.get("static:m1", ["ha"])).get("ha"), b);
  const n = db.prepare("SELECT COUNT(*) AS n FROM embeddings").get() as { n: number };
  assert.equal(n.n, 3);
  await assert.rejects(cache.get("", ["ha"]), GleanerError);
  db.close();
});

Deno.test("embedding cache handles more hashes than one lookup batch, and subarray views", async () => {
  const db = openDatabase(":memory:");
  const cache = new SqliteEmbeddingCache(db);
  const big = new Float32Array(1_300 * 4);
  const entries = new Map<string, Float32Array>();
  for (let i = 0; i < 1_300; i++) {
    big.set(unit(i, 4), i * 4);
    entries.set(`h${i}`, big.subarray(i * 4, i * 4 + 4)); // views into one buffer
  }
  await cache.put("m", entries);
  const hashes = [...entries.keys(), "missing-1", "missing-2"];
  const got = await cache.get("m", hashes);
  assert.equal(got.size, 1_300);
  for (const i of [0, 499, 500, 1_299]) assert.deepEqual(got.get(`h${i}`), unit(i, 4));
  db.close();
});

Deno.test("embeddings persist in the file across reopenings", async () => {
  const root = await Deno.makeTempDir();
  try {
    const path = `${root}/e.db`;
    const db = openDatabase(path);
    await new SqliteEmbeddingCache(db).put("m", new Map([["h", unit(7, 16)]]));
    db.close();
    const again = openDatabase(path);
    const got = await new SqliteEmbeddingCache(again).get("m", ["h"]);
    again.close();
    assert.deepEqual(got.get("h"), unit(7, 16));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("vector blobs are 4 bytes per dimension and decode to aligned copies", () => {
  const v = new Float32Array([1.5, -2.25, 0]);
  const blob = vectorToBlob(v);
  assert.equal(blob.byteLength, 12);
  const odd = new Uint8Array(13);
  odd.set(blob, 1);
  const back = blobToVector(odd.subarray(1));
  assert.deepEqual(back, v);
});

Deno.test("embedding cache stays under maxEntries, removing the oldest written first", async () => {
  const db = openDatabase(":memory:");
  let clock = 0;
  const cache = new SqliteEmbeddingCache(db, { now: () => ++clock, maxEntries: 10, checkEvery: 1 });
  for (let batch = 0; batch < 3; batch++) {
    const entries = new Map<string, Float32Array>();
    for (let i = 0; i < 5; i++) entries.set(`h${batch * 5 + i}`, unit(batch * 5 + i, 4));
    await cache.put(batch % 2 ? "m2" : "m1", entries);
  }
  const n = db.prepare("SELECT COUNT(*) AS n FROM embeddings").get() as { n: number };
  assert.ok(n.n <= 10, `${n.n} rows`);
  // The newest batch is whole; the first one written is gone.
  assert.equal((await cache.get("m1", ["h10", "h11", "h12", "h13", "h14"])).size, 5);
  assert.equal((await cache.get("m1", ["h0", "h1", "h2", "h3", "h4"])).size, 0);
  db.close();
});
