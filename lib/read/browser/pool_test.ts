import assert from "node:assert/strict";
import { GleanerError } from "../../errors.ts";
import { createSlotPool } from "./pool.ts";

function tracked(max: number) {
  const destroyed: number[] = [];
  let made = 0;
  const pool = createSlotPool<number>({
    max,
    create: () => Promise.resolve(++made),
    destroy: (n) => {
      destroyed.push(n);
      return Promise.resolve();
    },
  });
  return { pool, destroyed, made: () => made };
}

Deno.test("slot pool never hands out more than max and serves waiters in order", async () => {
  const { pool, made } = tracked(2);
  const a = await pool.acquire();
  const b = await pool.acquire();
  const order: number[] = [];
  const c = pool.acquire().then((n) => (order.push(1), n));
  const d = pool.acquire().then((n) => (order.push(2), n));
  assert.deepEqual(pool.stats(), { busy: 2, idle: 0, waiting: 2 });
  await pool.release(a, true);
  assert.equal(await c, a, "the idle resource is reused");
  await pool.release(b, false); // broken: destroyed, its slot creates a fresh one
  assert.equal(await d, 3);
  assert.deepEqual(order, [1, 2]);
  assert.equal(made(), 3);
  assert.deepEqual(pool.stats(), { busy: 2, idle: 0, waiting: 0 });
});

Deno.test("slot pool waiters can give up, and drain rejects the rest", async () => {
  const { pool, destroyed } = tracked(1);
  const a = await pool.acquire();
  const controller = new AbortController();
  const gaveUp = pool.acquire(controller.signal);
  const drained = pool.acquire();
  controller.abort(new GleanerError("timeout", "gave up"));
  await assert.rejects(gaveUp, (e: GleanerError) => e.code === "timeout");
  assert.equal(pool.stats().waiting, 1);
  await pool.drain(new GleanerError("provider_unavailable", "closed"));
  await assert.rejects(drained, (e: GleanerError) => e.code === "provider_unavailable");
  await pool.release(a, true); // released after the drain: destroyed, not kept
  assert.deepEqual(destroyed, [a]);
  await assert.rejects(pool.acquire(), (e: GleanerError) => e.code === "provider_unavailable");
});

Deno.test("slot pool frees the slot when create fails", async () => {
  let fail = true;
  const pool = createSlotPool<string>({
    max: 1,
    create: () => fail ? Promise.reject(new Error("boom")) : Promise.resolve("ok"),
    destroy: () => Promise.resolve(),
  });
  await assert.rejects(pool.acquire(), /boom/);
  fail = false;
  assert.equal(await pool.acquire(), "ok");
});
