import assert from "node:assert/strict";
import { createCircuitBreaker } from "./breaker.ts";

Deno.test("circuit breaker: failures in a row open, a trial failure re-opens, success closes", () => {
  let now = 0;
  const breaker = createCircuitBreaker<string>({ failures: 2, cooldownMs: 100, now: () => now });
  breaker.failure("k", "first");
  assert.ok(!breaker.isOpen("k"));
  breaker.failure("k", "second");
  assert.ok(breaker.isOpen("k"));
  assert.deepEqual(breaker.status(), [
    { key: "k", state: "open", failures: 2, openUntil: 100, lastReason: "second" },
  ]);
  now = 100;
  assert.ok(!breaker.isOpen("k"), "the cool-down ends at its last millisecond");
  assert.equal(breaker.status()[0].state, "half_open");
  breaker.failure("k");
  assert.ok(breaker.isOpen("k"), "a failure on trial re-opens at once");
  assert.equal(breaker.status()[0].lastReason, "second", "no reason keeps the last one");
  now = 300;
  breaker.success("k");
  assert.deepEqual(breaker.status(), [
    { key: "k", state: "closed", failures: 0, lastReason: "second" },
  ]);
  assert.ok(!breaker.isOpen("never seen"));
});

Deno.test("circuit breaker: opening for a given time never shortens an open circuit", () => {
  let now = 0;
  const breaker = createCircuitBreaker({ failures: 5, cooldownMs: 1000, now: () => now });
  breaker.failure("k", undefined, 500);
  assert.ok(breaker.isOpen("k"), "opens at once, below the threshold");
  breaker.failure("k", undefined, 10);
  now = 400;
  assert.ok(breaker.isOpen("k"), "the shorter opening did not cut the longer one");
  now = 500;
  assert.ok(!breaker.isOpen("k"));
});
