import assert from "node:assert/strict";
import { shareBudget } from "./budget.ts";

Deno.test("shareBudget: equal shares when every group can use more", () => {
  assert.deepEqual(shareBudget(900, [Infinity, Infinity, Infinity]), [300, 300, 300]);
});

Deno.test("shareBudget: what a group cannot use goes to the others", () => {
  assert.deepEqual(shareBudget(1000, [100, Infinity, 250]), [100, 650, 250]);
  assert.deepEqual(shareBudget(1000, [100, 200]), [100, 200]);
});

Deno.test("shareBudget: never more than the total, remainders spread", () => {
  const shares = shareBudget(1001, [Infinity, Infinity, Infinity]);
  assert.equal(shares.reduce((a, b) => a + b, 0), 1001);
  assert.ok(Math.max(...shares) - Math.min(...shares) <= 1);
});
