import assert from "node:assert/strict";
import { delay } from "./delay.ts";
import { withDeadline } from "./deadline.ts";

Deno.test("withDeadline: the work's value or error within the deadline", async () => {
  assert.equal(await withDeadline(Promise.resolve("on time"), 1_000, () => "late"), "on time");
  await assert.rejects(
    withDeadline(Promise.reject(new Error("broke")), 1_000, () => "late"),
    /broke/,
  );
});

Deno.test("withDeadline: past the deadline, onTimeout's value or its error; late work is handed over", async () => {
  const handed: string[] = [];
  const slow = delay(30).then(() => "connection");
  const answer = await withDeadline(slow, 1, () => "degraded", {
    settledLate: (value) => handed.push(value),
  });
  assert.equal(answer, "degraded");
  await assert.rejects(
    withDeadline(delay(30), 1, () => {
      throw new Error("took too long");
    }),
    /took too long/,
  );
  await slow;
  await delay(0);
  assert.deepEqual(handed, ["connection"]);
});
