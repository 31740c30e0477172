import assert from "node:assert/strict";
import { pace, PACE_BUSY_MS, PACE_IDLE_MS, PACE_PAUSE_MS } from "./pace.ts";

/** Keeps the thread busy for `ms`. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* busy */ }
}

Deno.test("pace: callers go on at once after a pause, then pause together once the turn is spent", async () => {
  // pace() reads the clock, so a scheduler that stalls this process for milliseconds can
  // spend a turn between two lines. Each attempt measures its own gaps: one in which a
  // stall could have changed the answer is inconclusive and is run again; the checks of a
  // conclusive attempt hold whatever the machine's speed.
  let conclusive = 0;
  for (let attempt = 0; attempt < 50 && conclusive < 3; attempt++) {
    // Every clock reading pace() keeps is taken after `before`.
    const before = performance.now();
    await (pace() ?? Promise.resolve());
    // Work that goes on without an idle spell spends the turn.
    spin(PACE_BUSY_MS + 1);
    // The pause begins inside the next call, so no earlier than `asked`: it ends at least
    // PACE_PAUSE_MS after `asked`, however long the machine stalls this process in between.
    const asked = performance.now();
    const first = pace();
    const second = pace();
    if (performance.now() - before >= PACE_IDLE_MS) continue; // stalled into an idle spell
    assert.ok(first instanceof Promise, "a spent turn pauses");
    assert.equal(second, first, "every caller waits for the same pause");
    await first;
    const after = pace();
    const waited = performance.now() - asked;
    assert.ok(waited >= PACE_PAUSE_MS - 1, `paused ${waited} ms`);
    // The pause ended no earlier than `asked` + PACE_PAUSE_MS: under PACE_BUSY_MS +
    // PACE_PAUSE_MS after `asked`, less than a turn has gone by since it ended.
    if (waited >= PACE_BUSY_MS + PACE_PAUSE_MS) continue;
    assert.equal(after, undefined, "right after a pause the turn is fresh");
    conclusive++;
  }
  assert.ok(conclusive > 0, "every attempt was stalled by the machine");
});

Deno.test("pace: a lone step after an idle spell does not pause", async () => {
  await (pace() ?? Promise.resolve());
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, PACE_IDLE_MS + 10));
    assert.equal(pace(), undefined, `step ${i}`);
  }
  // Work that goes on without idling still pauses.
  spin(PACE_BUSY_MS + 1);
  const paused = pace();
  assert.ok(paused instanceof Promise);
  await paused;
});

Deno.test("pace: a server on loopback answers while paced work keeps the thread busy", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("ok"),
  );
  try {
    let answeredAt: number | undefined;
    const request = fetch(`http://127.0.0.1:${server.addr.port}/`)
      .then((response) => response.text())
      .then((text) => {
        assert.equal(text, "ok");
        answeredAt = performance.now();
      });
    // 400 ms of work in 0.5 ms steps, paced.
    const end = performance.now() + 400;
    while (performance.now() < end) {
      spin(0.5);
      await pace();
    }
    const workDone = performance.now();
    await request;
    assert.ok(answeredAt !== undefined && answeredAt < workDone, "answered during the work");
  } finally {
    await server.shutdown();
  }
});
