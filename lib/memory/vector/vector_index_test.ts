import assert from "node:assert/strict";
import { cosine } from "../../embed/vector.ts";
import type { MemoryCandidate, MemoryKind, MemoryScope } from "../types.ts";
import { VectorIndex, type VectorIndexOptions } from "./vector_index.ts";
import { rng } from "../testdata/rng.ts";

function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

function randomVector(r: () => number, d: number): Float32Array {
  const v = new Float32Array(d);
  for (let i = 0; i < d; i++) v[i] = gaussian(r);
  return v;
}

/** A vector at cosine `c` (to float precision) from `base`. */
function atCosine(r: () => number, base: Float32Array, c: number): Float32Array {
  const d = base.length;
  const u = unitOf(base);
  const w = randomVector(r, d);
  let dot = 0;
  for (let i = 0; i < d; i++) dot += w[i] * u[i];
  for (let i = 0; i < d; i++) w[i] -= dot * u[i];
  const v = unitOf(w);
  const s = Math.sqrt(1 - c * c);
  const scale = 0.5 + r() * 2; // not unit: cosine must not depend on length
  return Float32Array.from(u, (x, i) => (c * x + s * v[i]) * scale);
}

function unitOf(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  return Float32Array.from(v, (x) => x / n);
}

interface Row {
  id: number;
  kind: MemoryKind;
  session: string | null;
  vector: Float32Array;
}

function inScope(row: Row, scope: MemoryScope): boolean {
  if (scope.kind && row.kind !== scope.kind) return false;
  if (scope.session_id !== undefined && row.session !== scope.session_id) return false;
  return true;
}

function exhaustiveSearch(rows: Row[], q: Float32Array, k: number, scope: MemoryScope) {
  return rows.filter((r) => inScope(r, scope))
    .map((r) => ({ id: r.id, score: cosine(q, r.vector) }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, k);
}

function exhaustiveNearest(rows: Row[], q: Float32Array, scope: MemoryScope, min: number) {
  const [top] = exhaustiveSearch(rows, q, 1, scope);
  return top && top.score >= min ? top : undefined;
}

/** Duplicate decision as the save path makes it. */
function decision(c: MemoryCandidate | undefined): string {
  if (!c) return "new";
  return `${c.score >= 0.95 ? "duplicate" : c.score >= 0.8 ? "similar" : "new"} of ${c.id}`;
}

const SESSIONS = [null, "a", "b"];

function build(options: VectorIndexOptions, d: number, n: number, seed: number) {
  const r = rng(seed);
  const index = new VectorIndex(d, options);
  const rows = new Map<number, Row>();
  // Clusters of near-duplicates so that many rows sit near 0.80 and 0.95 of each other.
  const centres = Array.from({ length: 12 }, () => randomVector(r, d));
  for (let id = 1; id <= n; id++) {
    const centre = centres[Math.floor(r() * centres.length)];
    const vector = atCosine(r, centre, 0.7 + r() * 0.3);
    const row: Row = {
      id,
      kind: r() < 0.1 ? "profile" : "episodic",
      session: SESSIONS[Math.floor(r() * 3)],
      vector,
    };
    rows.set(id, row);
    index.upsert(row.id, row.kind, row.session, row.vector);
  }
  // Churn: deletions and replacements must keep the index equal to the rows.
  for (let i = 0; i < n / 5; i++) {
    const id = 1 + Math.floor(r() * n);
    if (r() < 0.5) {
      rows.delete(id);
      index.remove(id);
    } else if (rows.has(id)) {
      const row = { ...rows.get(id)!, vector: randomVector(r, d) };
      rows.set(id, row);
      index.upsert(row.id, row.kind, row.session, row.vector);
    }
  }
  return { r, index, rows: [...rows.values()], centres };
}

const VARIANTS: [string, VectorIndexOptions][] = [
  ["int8 codes, WebAssembly", {}],
  ["float32, WebAssembly", { int8: false }],
  ["float32, TypeScript", { simd: false }],
];

for (const [label, options] of VARIANTS) {
  Deno.test(`vector index (${label}) scans as asked`, () => {
    const index = new VectorIndex(8, options);
    assert.equal(index.simd, options.simd !== false);
    assert.equal(index.int8, options.simd !== false && options.int8 !== false);
  });

  Deno.test(`vector index (${label}): search returns the exhaustive float64 top k`, () => {
    for (const [d, n] of [[3, 50], [100, 3_000], [37, 1_500]]) {
      const { r, index, rows, centres } = build(options, d, n, d * 7 + n);
      assert.equal(index.size, rows.length);
      const scopes: MemoryScope[] = [
        {},
        { kind: "episodic" },
        { session_id: null },
        { session_id: "a", kind: "profile" },
        { session_id: "nobody" },
      ];
      for (let i = 0; i < 40; i++) {
        const q = i % 2 ? randomVector(r, d) : atCosine(r, centres[i % centres.length], 0.9);
        const scope = scopes[i % scopes.length];
        for (const k of [1, 10, 50]) {
          assert.deepEqual(index.search(q, k, scope), exhaustiveSearch(rows, q, k, scope));
        }
      }
    }
  });

  Deno.test(`vector index (${label}): the batch duplicate decision equals the exact one`, () => {
    const d = 100;
    const { r, index, rows } = build(options, d, 4_000, 99);
    const queries: Float32Array[] = [];
    const scopes: MemoryScope[] = [];
    for (let i = 0; i < 203; i++) {
      const target = rows[Math.floor(r() * rows.length)];
      // Around both thresholds, some within a millionth of them, and plain random ones.
      const c = [0.95, 0.8][i % 2] + [-1e-6, 1e-6, -0.01, 0.01, 0][i % 5];
      queries.push(i % 7 === 6 ? randomVector(r, d) : atCosine(r, target.vector, c));
      scopes.push({ session_id: i % 3 === 0 ? target.session : SESSIONS[i % 3] });
    }
    queries.push(new Float32Array(d)); // a zero vector matches nothing
    scopes.push({});
    const got = index.nearest(queries, scopes, 0.8);
    let near = 0;
    queries.forEach((q, i) => {
      const want = exhaustiveNearest(rows, q, scopes[i], 0.8);
      assert.deepEqual(got[i], want, `query ${i}`);
      assert.equal(decision(got[i]), decision(want));
      if (want) near++;
    });
    assert.ok(near > 60, `enough queries land near a stored vector (${near})`);
  });
}

Deno.test("vector index: removal moves the last row; wrong lengths are refused", () => {
  const index = new VectorIndex(2);
  index.upsert(1, "episodic", null, new Float32Array([1, 0]));
  index.upsert(2, "episodic", null, new Float32Array([0, 1]));
  index.upsert(3, "profile", "s", new Float32Array([1, 1]));
  index.remove(1);
  index.remove(42);
  assert.equal(index.size, 2);
  assert.deepEqual(index.search(new Float32Array([1, 1]), 5, {}).map((c) => c.id), [3, 2]);
  index.upsert(2, "episodic", null, new Float32Array([0, 0])); // zero: no direction, removed
  assert.equal(index.has(2), false);
  assert.throws(() => index.upsert(4, "episodic", null, new Float32Array(3)), RangeError);
  assert.deepEqual(index.search(new Float32Array(3), 5, {}), []);
  assert.ok(index.bytes() > 0);
});

Deno.test("vector index: rows tied at the top (identical vectors) resolve to the lowest ids", () => {
  for (const [, options] of VARIANTS) {
    const index = new VectorIndex(16, options);
    const r = rng(5);
    const same = randomVector(r, 16);
    for (let id = 3_000; id >= 1; id--) {
      index.upsert(id, "episodic", null, id % 3 ? same : randomVector(r, 16));
    }
    const [top] = index.nearest([same], [{}], 0.8);
    assert.equal(top?.id, 1);
    assert.ok(Math.abs(top!.score - 1) < 1e-6);
    assert.deepEqual(index.search(same, 5, {}).map((c) => c.id), [1, 2, 4, 5, 7]);
  }
});
