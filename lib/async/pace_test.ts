import assert from "node:assert/strict";
import { pace, PACE_BUSY_MS, PACE_IDLE_MS, PACE_PAUSE_MS } from "./pace.ts";

/** Keeps the thread busy for `ms`. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* busy */ }
}

Deno.test("pace: callers go on at once after a pause, then pause together once the turn is spent", async () => {
  await (pace() ?? Promise.resolve());
  // Right after a pause the turn is fresh.
  if (pace()) await pace(); // (a slow machine may have spent it already)
  assert.equal(pace(), undefined);
  spin(PACE_BUSY_MS + 1);
  const first = pace();
  const second = pace();
  assert.ok(first instanceof Promise);
  assert.equal(second, first, "every caller waits for the same pause");
  const started = performance.now();
  await first;
  assert.ok(performance.now() - started >= PACE_PAUSE_MS - 1);
  assert.equal(pace(), undefined);
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
