import assert from "node:assert/strict";
import { fuseRankings, relevanceOf } from "./fusion.ts";

Deno.test("fuseRankings: known answers with k = 60 and weights 0.5 / 0.5", () => {
  const fused = fuseRankings([
    { order: ["a", "b", "c"], weight: 0.5 },
    { order: ["b", "a", "d"], weight: 0.5 },
  ], 60);
  const max = 0.5 / 61 + 0.5 / 61;
  const expect = {
    a: (0.5 / 61 + 0.5 / 62) / max,
    b: (0.5 / 62 + 0.5 / 61) / max,
    c: (0.5 / 63) / max,
    d: (0.5 / 63) / max,
  };
  const got = Object.fromEntries(fused.map((f) => [f.key, f.score]));
  for (const key of ["a", "b", "c", "d"] as const) {
    assert.ok(Math.abs(got[key] - expect[key]) < 1e-12, key);
  }
  assert.deepEqual(fused.slice(2).map((f) => f.key).sort(), ["c", "d"]);
  assert.ok(Math.abs(got.c - 61 / 126) < 1e-12);
});

Deno.test("fuseRankings: first in every ranking scores exactly 1; weights tilt the order", () => {
  assert.equal(
    fuseRankings([{ order: [7, 8], weight: 0.3 }, { order: [7], weight: 0.7 }])[0].score,
    1,
  );
  const tilted = fuseRankings([{ order: ["x", "y"], weight: 0.8 }, {
    order: ["y", "x"],
    weight: 0.2,
  }]);
  assert.deepEqual(tilted.map((f) => f.key), ["x", "y"]);
  assert.deepEqual(fuseRankings([{ order: ["x"], weight: 0 }]), []);
});

Deno.test("relevanceOf: thresholds 0.90 / 0.75", () => {
  assert.equal(relevanceOf(0.9), "high");
  assert.equal(relevanceOf(0.8999), "medium");
  assert.equal(relevanceOf(0.75), "medium");
  assert.equal(relevanceOf(0.7499), "low");
});
