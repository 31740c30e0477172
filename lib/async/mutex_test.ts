import assert from "node:assert/strict";
import { Mutex } from "./mutex.ts";

Deno.test("Mutex: read-modify-write tasks never interleave, in order, past a failure", async () => {
  const mutex = new Mutex();
  let value = 0;
  const order: number[] = [];
  const bump = (n: number) =>
    mutex.run(async () => {
      const seen = value;
      // A real wait between read and write: without the mutex every task reads 0.
      await new Promise((resolve) => setTimeout(resolve, 2));
      value = seen + 1;
      order.push(n);
      if (n === 3) throw new Error("task 3 fails");
      return n;
    });
  const results = await Promise.allSettled(Array.from({ length: 10 }, (_, n) => bump(n)));
  assert.equal(value, 10);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(results[3].status, "rejected");
  assert.deepEqual(results[9], { status: "fulfilled", value: 9 });
});
