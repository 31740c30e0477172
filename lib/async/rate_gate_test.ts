import assert from "node:assert/strict";
import { createRateGate } from "./rate_gate.ts";

Deno.test("rate gate: calls beyond the rate wait their slot; too long a wait is refused", async () => {
  const gate = createRateGate();
  assert.ok(await gate.wait("p", 2, 10_000));
  assert.ok(!(await gate.wait("p", 0.001, 100)), "the next slot is beyond the wait allowed");
  assert.ok(await gate.wait("p", undefined, 0), "no limit: no wait");
  const aborted = AbortSignal.abort(new Error("stop"));
  await assert.rejects(
    gate.wait("q", 1, 10_000, aborted).then(() => gate.wait("q", 1, 10_000, aborted)),
    /stop/,
  );
});

Deno.test("rate gate: an abort during the wait rejects at once", async () => {
  const gate = createRateGate();
  assert.ok(await gate.wait("k", 0.01, 1_000_000));
  const stop = new AbortController();
  const waiting = gate.wait("k", 0.01, 1_000_000, stop.signal);
  stop.abort(new Error("cancelled"));
  await assert.rejects(waiting, /cancelled/);
});

Deno.test("rate gate: a budget lets a burst through, then refuses until its window frees a slot", async () => {
  const gate = createRateGate();
  const limit = { budget: { count: 3, ms: 3_600_000 } };
  for (let i = 0; i < 3; i++) {
    assert.ok(await gate.wait("hourly", limit, 0), `call ${i + 1} at once`);
  }
  assert.ok(!(await gate.wait("hourly", limit, 60_000)), "the fourth waits for the hour: refused");
  assert.ok(await gate.wait("other", limit, 0), "each key has its own budget");
});

Deno.test("rate gate: a budget and a per-second spacing hold together", async () => {
  const gate = createRateGate();
  const limit = { perSecond: 0.001, budget: { count: 10, ms: 60_000 } };
  assert.ok(await gate.wait("both", limit, 0));
  assert.ok(!(await gate.wait("both", limit, 100)), "spacing still applies within the budget");
});

Deno.test("rate gate: delayOf says how long a key would wait, reserving nothing", async () => {
  const gate = createRateGate();
  assert.equal(gate.delayOf("a", 1), 0, "never asked: free");
  assert.ok(await gate.wait("a", 1, 10_000));
  const wait = gate.delayOf("a", 1);
  assert.ok(wait > 0 && wait <= 1000, `the next slot is within the second: ${wait}`);
  assert.equal(gate.delayOf("a", undefined), 0, "no rate: no wait");
  assert.equal(gate.delayOf("b", 1), 0, "other keys are free");
  assert.ok(gate.delayOf("a", 1) > 0, "asking reserved nothing");
  const hourly = { budget: { count: 1, ms: 3_600_000 } };
  assert.ok(await gate.wait("h", hourly, 0));
  assert.ok(gate.delayOf("h", hourly) > 3_500_000, "a spent budget: the window's length");
});
