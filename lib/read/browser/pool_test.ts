import assert from "node:assert/strict";
import { GleanerError } from "../../errors.ts";
import { createSlotPool, type SlotLease } from "./pool.ts";

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

/** Lets the pool's promise callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("slot pool never hands out more than max and serves one caller's waiters in order", async () => {
  const { pool, made } = tracked(2);
  const caller = {};
  const a = await pool.acquire({ caller });
  const b = await pool.acquire({ caller });
  const order: number[] = [];
  const c = pool.acquire({ caller }).then((lease) => (order.push(1), lease));
  const d = pool.acquire({ caller }).then((lease) => (order.push(2), lease));
  assert.deepEqual(pool.stats(), { busy: 2, idle: 0, waiting: 2, callers: 1, revoked: 0 });
  await pool.release(a, true);
  assert.equal((await c).item, a.item, "the idle resource is reused");
  await pool.release(b, false); // broken: destroyed, its slot creates a fresh one
  assert.equal((await d).item, 3);
  assert.deepEqual(order, [1, 2]);
  assert.equal(made(), 3);
  assert.deepEqual(pool.stats(), { busy: 2, idle: 0, waiting: 0, callers: 1, revoked: 0 });
});

Deno.test("slot pool waiters can give up, and drain rejects the rest", async () => {
  const { pool, destroyed } = tracked(1);
  const a = await pool.acquire();
  const controller = new AbortController();
  const gaveUp = pool.acquire({ signal: controller.signal });
  const drained = pool.acquire();
  controller.abort(new GleanerError("timeout", "gave up"));
  await assert.rejects(gaveUp, (e: GleanerError) => e.code === "timeout");
  assert.equal(pool.stats().waiting, 1);
  await pool.drain(new GleanerError("provider_unavailable", "closed"));
  await assert.rejects(drained, (e: GleanerError) => e.code === "provider_unavailable");
  await pool.release(a, true); // released after the drain: destroyed, not kept
  assert.deepEqual(destroyed, [a.item]);
  await assert.rejects(pool.acquire(), (e: GleanerError) => e.code === "provider_unavailable");
  assert.equal(
    pool.stats().callers,
    0,
    "no caller is remembered once it holds and waits for nothing",
  );
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
  assert.equal((await pool.acquire()).item, "ok");
});

Deno.test("slot pool: a second caller is served before the first caller's queued requests", async () => {
  const { pool } = tracked(2);
  const first = {};
  const second = {};
  const order: string[] = [];
  const take = (caller: object, name: string) =>
    pool.acquire({ caller }).then((lease) => (order.push(name), lease));
  const a1 = await take(first, "a1");
  const a2 = await take(first, "a2");
  // The first caller queues three more (five items of one tool call on two pages).
  const queued = [take(first, "a3"), take(first, "a4"), take(first, "a5")];
  const b1 = take(second, "b1");
  await settle();
  // The first caller held both pages while the second waits with none: its newest lease is
  // revoked, its oldest keeps working.
  assert.equal(a2.revoked.aborted, true, "the newest lease of the caller holding most is revoked");
  assert.equal(a1.revoked.aborted, false);
  assert.equal(pool.held(first), 1, "a revoked lease no longer counts as held");
  assert.equal(pool.stats().revoked, 1);
  await pool.release(a2, true);
  const b = await b1;
  assert.deepEqual(order, ["a1", "a2", "b1"], "the second caller before a3, a4, a5");
  assert.equal(pool.held(first), 1);
  assert.equal(pool.held(second), 1);
  // Each holds its share (ceil(2 / 2) = 1); the first caller's queue moves as pages come back.
  await pool.release(b, true);
  await pool.release(a1, true);
  for (const next of queued) await pool.release(await next, true);
  assert.deepEqual(order, ["a1", "a2", "b1", "a3", "a4", "a5"]);
  assert.deepEqual(pool.stats(), { busy: 0, idle: 2, waiting: 0, callers: 0, revoked: 1 });
});

Deno.test("slot pool: callers take turns (round robin), not requests in arrival order", async () => {
  const { pool } = tracked(1);
  const [a, b, c] = [{}, {}, {}];
  const order: string[] = [];
  const served: SlotLease<number>[] = [];
  const take = (caller: object, name: string) =>
    pool.acquire({ caller }).then((lease) => {
      order.push(name);
      served.push(lease);
    });
  await take(a, "a1");
  // Queued in this order: b1, a2, c1. With one page no caller can be two ahead of another,
  // so no lease is revoked here: only the turns decide.
  const pending = [take(b, "b1"), take(a, "a2"), take(c, "c1")];
  await settle();
  assert.equal(served[0].revoked.aborted, false);
  for (let i = 0; i < 4; i++) {
    assert.equal(served.length, i + 1, "one page: one holder at a time");
    await pool.release(served[i], true);
    await settle();
  }
  await Promise.all(pending);
  // a was served last: b and c (never served) go first, in their arrival order.
  assert.deepEqual(order, ["a1", "b1", "c1", "a2"]);
});

Deno.test("slot pool: shares converge on ceil(max / callers) while callers wait", async () => {
  const { pool } = tracked(4);
  const [a, b, c] = [{}, {}, {}];
  const leases = new Map<object, SlotLease<number>[]>([[a, []], [b, []], [c, []]]);
  const take = (caller: object) =>
    pool.acquire({ caller }).then((lease) => {
      leases.get(caller)!.push(lease);
      // A holder hands a revoked lease back as soon as it sees it (it may be revoked already).
      const giveBack = () => {
        const list = leases.get(caller)!;
        list.splice(list.indexOf(lease), 1);
        void pool.release(lease, true);
      };
      if (lease.revoked.aborted) giveBack();
      else lease.revoked.addEventListener("abort", giveBack, { once: true });
      return lease;
    });
  for (let i = 0; i < 4; i++) await take(a);
  // Still waiting when the pool drains at the end: their rejection is expected.
  const later = (caller: object) => void take(caller).catch(() => {});
  for (let i = 0; i < 3; i++) later(a);
  for (let i = 0; i < 3; i++) later(b);
  for (let i = 0; i < 3; i++) later(c);
  for (let i = 0; i < 5; i++) await settle();
  const held = [a, b, c].map((caller) => pool.held(caller));
  assert.ok(
    held.every((n) => n >= 1 && n <= 2),
    `ceil(4 / 3) = 2 at most, never less than 1: ${held}`,
  );
  assert.deepEqual(
    [a, b, c].map((caller) => leases.get(caller)!.length),
    held,
    "what each holds really",
  );
  assert.equal(pool.stats().busy, 4, "never more than max");
  assert.ok(pool.stats().revoked >= 2, "the first caller gave back at least two pages");
  await pool.drain(new GleanerError("provider_unavailable", "closed"));
});
