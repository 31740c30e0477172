import assert from "node:assert/strict";
import { cosine, isZeroVector, toUnitVector } from "./vector.ts";

Deno.test("toUnitVector normalises and turns NaN, Infinity and zero into the zero vector", () => {
  const v = toUnitVector([3, 0, 4]);
  assert.ok(Math.abs(v[0] - 0.6) < 1e-7 && v[1] === 0 && Math.abs(v[2] - 0.8) < 1e-7);
  for (const bad of [[NaN, 1], [Infinity, 0], [0, 0], [1e-30, 0]]) {
    const out = toUnitVector(bad);
    assert.equal(out.length, 2);
    assert.ok(isZeroVector(out), `${bad} → ${out}`);
  }
});

Deno.test("cosine never returns NaN and stays in [-1, 1]", () => {
  const a = new Float32Array([1, 2, 3]);
  assert.ok(Math.abs(cosine(a, a) - 1) < 1e-6);
  assert.ok(Math.abs(cosine(a, new Float32Array([-1, -2, -3])) + 1) < 1e-6);
  assert.equal(cosine(a, new Float32Array(3)), 0);
  assert.equal(cosine(new Float32Array(0), new Float32Array(0)), 0);
  assert.equal(cosine(a, new Float32Array([1, 2])), 0);
  assert.equal(cosine(a, new Float32Array([NaN, 1, 1])), 0);
  assert.ok(
    Math.abs(cosine(new Float32Array([1, 0]), new Float32Array([1, 1])) - Math.SQRT1_2) < 1e-6,
  );
});
