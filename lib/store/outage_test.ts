import assert from "node:assert/strict";
import { createOutageGate } from "./outage.ts";

Deno.test("outage gate: one failure pauses the store; warnings at most once a minute", () => {
  let t = 0;
  const gate = createOutageGate({ pauseMs: 30_000, warnEveryMs: 60_000, now: () => t });
  assert.ok(gate.open(), "a store that never failed is used");
  assert.equal(gate.failed(), true, "the first failure is warned about");
  assert.ok(!gate.open(), "left alone after one failure");
  t = 29_999;
  assert.ok(!gate.open());
  t = 30_000;
  assert.ok(gate.open(), "tried again once the pause is over");
  assert.equal(gate.failed(), false, "a second failure within the minute is not warned about");
  assert.ok(!gate.open(), "and pauses again");
  t = 60_000;
  assert.equal(gate.failed(), true, "a minute after the last warning: warned again");
  t = 89_999;
  assert.ok(!gate.open(), "the pause runs from the latest failure");
});
