import assert from "node:assert/strict";
import { createBreaker } from "./breaker.ts";

Deno.test("breaker: credit opens at once, failures in a row open, a failed trial re-opens", () => {
  let now = 0;
  const breaker = createBreaker({ failures: 3, cooldownMs: 1000, now: () => now });
  breaker.failure("a", "insufficient_balance");
  assert.ok(breaker.isOpen("a"), "out of credit: open at once");

  breaker.failure("b", "provider_unavailable");
  breaker.failure("b", "provider_unavailable");
  assert.ok(!breaker.isOpen("b"));
  breaker.success("b");
  breaker.failure("b", "provider_unavailable");
  breaker.failure("b", "provider_unavailable");
  assert.ok(!breaker.isOpen("b"), "a success resets the count");
  breaker.failure("b", "provider_unavailable");
  assert.ok(breaker.isOpen("b"));

  now = 1001;
  assert.ok(!breaker.isOpen("b"), "cool-down over: on trial");
  assert.equal(breaker.health().find((h) => h.provider === "b")?.state, "half_open");
  breaker.failure("b", "provider_unavailable");
  assert.ok(breaker.isOpen("b"), "a failed trial re-opens at once");
  now = 2002;
  breaker.success("b");
  assert.equal(breaker.health().find((h) => h.provider === "b")?.state, "closed");

  breaker.failure("c", "rate_limited", 5);
  assert.ok(breaker.isOpen("c"));
  now += 4000;
  assert.ok(breaker.isOpen("c"), "Retry-After: 5 s");
  now += 1001;
  assert.ok(!breaker.isOpen("c"));
});

Deno.test("breaker: a bot wall opens at once for the cool-down", () => {
  let now = 0;
  const breaker = createBreaker({ failures: 3, cooldownMs: 1000, now: () => now });
  breaker.failure("duckduckgo", "provider_unavailable", undefined, true);
  assert.ok(breaker.isOpen("duckduckgo"), "blocked: open after one failure");
  breaker.failure("mojeek", "provider_unavailable");
  assert.ok(!breaker.isOpen("mojeek"), "an outage still needs three in a row");
  now = 1001;
  assert.ok(!breaker.isOpen("duckduckgo"), "on trial after the cool-down");
});
