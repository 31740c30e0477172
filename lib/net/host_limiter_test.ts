import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { createHostLimiter } from "./host_limiter.ts";

Deno.test("host limiter: slots per host, FIFO hand-over, hosts independent", async () => {
  const limiter = createHostLimiter(2);
  const a1 = await limiter.acquire("a.example");
  const a2 = await limiter.acquire("A.EXAMPLE");
  const b1 = await limiter.acquire("b.example");
  assert.equal(limiter.active("a.example"), 2);
  assert.equal(limiter.active("b.example"), 1);
  const order: number[] = [];
  const w3 = limiter.acquire("a.example").then((release) => (order.push(3), release));
  const w4 = limiter.acquire("a.example").then((release) => (order.push(4), release));
  await Promise.resolve();
  assert.equal(limiter.waiting("a.example"), 2);
  assert.deepEqual(order, []);
  a1();
  a1(); // releasing twice frees one slot only
  const r3 = await w3;
  assert.deepEqual(order, [3]);
  assert.equal(limiter.active("a.example"), 2);
  a2();
  const r4 = await w4;
  assert.deepEqual(order, [3, 4]);
  r3();
  r4();
  b1();
  assert.equal(limiter.active("a.example"), 0);
  assert.equal(limiter.waiting("a.example"), 0);
});

Deno.test("host limiter: an aborted waiter leaves the queue with timeout", async () => {
  const limiter = createHostLimiter(1);
  const held = await limiter.acquire("x.example");
  const controller = new AbortController();
  const waiting = limiter.acquire("x.example", controller.signal);
  controller.abort();
  await assert.rejects(waiting, (e: unknown) => e instanceof GleanerError && e.code === "timeout");
  assert.equal(limiter.waiting("x.example"), 0);
  held();
  assert.equal(limiter.active("x.example"), 0);
  const value = await limiter.run("x.example", () => Promise.resolve("ran"));
  assert.equal(value, "ran");
  await assert.rejects(limiter.run("x.example", () => Promise.reject(new Error("boom"))), /boom/);
  assert.equal(limiter.active("x.example"), 0, "a failing task must free its slot");
  assert.throws(() => createHostLimiter(0), GleanerError);
});
