import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { GleanerError } from "../errors.ts";
import { openStore } from "./mod.ts";
import { checkTenant, tenantCache, webTenant } from "./tenant.ts";

Deno.test("tenantCache: tenants never see each other's entries; clearing and sizing are the operator's", async () => {
  const store = openStore({ path: ":memory:" });
  try {
    const a = store.forTenant("a").cache;
    const b = store.forTenant("b").cache;
    await a.set("pages", "https://example.com/", { who: "a" });
    await store.cache.set("pages", "https://example.com/", { who: "operator" });
    assert.deepEqual(await a.get("pages", "https://example.com/"), { who: "a" });
    assert.equal(await b.get("pages", "https://example.com/"), undefined);
    assert.deepEqual(await store.cache.get("pages", "https://example.com/"), { who: "operator" });
    assert.equal(await b.delete("pages", "https://example.com/"), false, "B cannot delete A's");
    for (const call of [() => b.clear("all"), () => b.stats()]) {
      await assert.rejects(
        call,
        (e: unknown) => e instanceof GleanerError && e.code === "unauthorized",
      );
    }
    assert.equal((await store.cache.clear("all")).removed, 2, "the operator clears every tenant's");
    assert.equal(await a.get("pages", "https://example.com/"), undefined);
    assert.throws(() => tenantCache(store.cache, "a:b"), /tenant/);
  } finally {
    await store.close();
  }
});

Deno.test("webTenant: a keyed tag per user, not the user id, and not the memory file's name", () => {
  const secret = "s".repeat(32);
  const tag = webTenant(secret, "alice@example.com");
  assert.equal(checkTenant(tag), tag);
  assert.ok(!tag.includes("alice"));
  assert.equal(tag, webTenant(secret, "alice@example.com"));
  assert.notEqual(tag, webTenant(secret, "bob@example.com"));
  assert.notEqual(tag, webTenant("t".repeat(32), "alice@example.com"));
  const memoryFileName = createHmac("sha256", secret).update("alice@example.com", "utf8")
    .digest("hex").slice(0, 32);
  assert.notEqual(tag, memoryFileName);
});
