import assert from "node:assert/strict";
import type { GleanerError } from "../errors.ts";
import { SerialQueue } from "./queue.ts";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

Deno.test("SerialQueue runs one task at a time, in order", async () => {
  const queue = new SerialQueue(10, "test");
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  await Promise.all([1, 2, 3, 4].map((n) =>
    queue.run(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      order.push(n);
      running--;
    })
  ));
  assert.equal(peak, 1);
  assert.deepEqual(order, [1, 2, 3, 4]);
});

Deno.test("SerialQueue is bounded, and a task failing does not stop the next", async () => {
  const queue = new SerialQueue(2, "embedder x");
  const gate = deferred();
  const running = queue.run(() => gate.promise);
  const waiting = [
    queue.run(() => Promise.reject(new Error("boom"))),
    queue.run(() => Promise.resolve(7)),
  ];
  assert.equal(queue.pending, 2);
  await assert.rejects(
    queue.run(() => Promise.resolve(0)),
    (e: GleanerError) => e.code === "rate_limited" && e.message.includes("embedder x"),
  );
  gate.resolve();
  await running;
  await assert.rejects(waiting[0], /boom/);
  assert.equal(await waiting[1], 7);
});

Deno.test("SerialQueue: an abort while waiting rejects with timeout and frees the slot", async () => {
  const queue = new SerialQueue(1, "test");
  const gate = deferred();
  const running = queue.run(() => gate.promise);
  const controller = new AbortController();
  let ran = false;
  const waiting = queue.run(() => {
    ran = true;
    return Promise.resolve();
  }, controller.signal);
  controller.abort(new DOMException("stop", "AbortError"));
  await assert.rejects(waiting, (e: GleanerError) => e.code === "timeout");
  assert.equal(queue.pending, 0);
  gate.resolve();
  await running;
  assert.equal(ran, false);
  queue.clear(new Error("closed"));
});
