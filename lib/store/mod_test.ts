import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { openStore } from "./mod.ts";

Deno.test("openStore uses $XDG_DATA_HOME/gleaner/gleaner.db by default, created 0600", async () => {
  const root = await Deno.makeTempDir();
  try {
    const store = openStore({}, { env: { XDG_DATA_HOME: root } });
    assert.equal(store.path, `${root}/gleaner/gleaner.db`);
    assert.equal(store.backend, "sqlite");
    await store.cache.set("pages", "https://example.com/", { title: "Example" });
    await store.domains.record("https://example.com", "http", true);
    await store.embeddings.put("m", new Map([["h", new Float32Array([0.5])]]));
    await store.close();
    await store.close();
    assert.equal((await Deno.stat(store.path)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(`${root}/gleaner`)).mode! & 0o777, 0o700);

    const again = openStore({ path: store.path });
    assert.deepEqual(await again.cache.get("pages", "https://example.com/"), { title: "Example" });
    assert.equal((await again.domains.get("https://example.com"))?.successes, 1);
    assert.equal((await again.embeddings.get("m", ["h"])).get("h")?.[0], 0.5);
    await again.close();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("openStore passes TTLs and the size cap from the settings", async () => {
  let now = Date.UTC(2025, 0, 1);
  const store = openStore(
    { path: ":memory:", search_ttl_s: 10, cache_max_bytes: 500 },
    { now: () => now },
  );
  try {
    assert.equal((await store.cache.stats()).max_bytes, 500);
    await store.cache.set("search", "q", 1);
    now += 9_000;
    assert.equal(await store.cache.get("search", "q"), 1);
    now += 1_000;
    assert.equal(await store.cache.get("search", "q"), undefined);
    await store.cache.set("pages", "big", "x".repeat(600));
    assert.equal(await store.cache.get("pages", "big"), undefined);
  } finally {
    await store.close();
  }
});

Deno.test("openStore rejects invalid settings with invalid_arguments naming the field", () => {
  assert.throws(
    () => openStore({ path: ":memory:", cache_max_bytes: -1 }),
    (e) =>
      e instanceof GleanerError && e.code === "invalid_arguments" &&
      e.message.includes("store.cache_max_bytes"),
  );
  assert.throws(
    () => openStore({ path: ":memory:", cache_url: "ftp://nope" }),
    (e) => e instanceof GleanerError && e.code === "invalid_arguments",
  );
});

Deno.test("with an unreachable cache_url, ready() and commands fail provider_unavailable", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close(); // nothing listens there now
  const store = openStore({ path: ":memory:", cache_url: `redis://:s3cret@127.0.0.1:${port}` });
  try {
    assert.equal(store.backend, "valkey");
    const unavailable = (e: unknown) =>
      e instanceof GleanerError && e.code === "provider_unavailable" &&
      !e.message.includes("s3cret");
    await assert.rejects(store.ready(), unavailable);
    await assert.rejects(store.cache.get("search", "q"), unavailable);
    await assert.rejects(store.domains.record("https://a.example", "http", true), unavailable);
  } finally {
    await store.close();
  }
});
