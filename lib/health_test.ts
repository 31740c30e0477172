import assert from "node:assert/strict";
import { type ComponentHealth, createHealth } from "./health.ts";

const ok = (): Promise<ComponentHealth> => Promise.resolve({ status: "ok" });

Deno.test("health: checks run once per TTL; a stale report is served while one refresh runs", async () => {
  let now = 0;
  let runs = 0;
  let cache: ComponentHealth = { status: "ok" };
  const health = createHealth({
    store: () => {
      runs++;
      return ok();
    },
    cache: () => Promise.resolve(cache),
    browser: ok,
    memory: () => Promise.resolve({ status: "off", reason: "memory.enabled is off" }),
  }, { ttlMs: 1_000, now: () => now });
  const [a, b] = await Promise.all([health.report(), health.report()]);
  assert.equal(runs, 1, "concurrent first calls share one run");
  assert.equal(a.status, "ok", "off is not degraded");
  assert.equal(b, a);
  now = 999;
  await health.report();
  assert.equal(runs, 1, "fresh: no check runs");
  cache = { status: "degraded", reason: "the cache server does not answer" };
  now = 1_000;
  const stale = await health.report();
  assert.equal(stale.status, "ok", "the stale report answers at once");
  await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(runs, 2, "and one refresh ran");
  const fresh = await health.report();
  assert.equal(fresh.status, "degraded");
  assert.equal(fresh.components.cache.reason, "the cache server does not answer");
});

Deno.test("health: a check that hangs or throws is degraded, the others answer", async () => {
  const health = createHealth({
    store: ok,
    cache: () => new Promise<ComponentHealth>(() => {}),
    browser: () => Promise.reject(new Error("secret://user:pw@host")),
    memory: ok,
  }, { timeoutMs: 20 });
  const report = await health.report();
  assert.equal(report.status, "degraded");
  assert.deepEqual(report.components.cache, {
    status: "degraded",
    reason: "no answer within 20 ms",
  });
  assert.deepEqual(report.components.browser, { status: "degraded", reason: "the check failed" });
  assert.ok(!JSON.stringify(report).includes("secret"), "a failure's message is not shown");
  assert.equal(report.components.store.status, "ok");
});
