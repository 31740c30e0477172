import assert from "node:assert/strict";
import { parseConfig } from "./config/config.ts";
import { runDoctor } from "./doctor.ts";

Deno.test("doctor names the outbound proxy without its credentials", async () => {
  const proxied = await runDoctor(parseConfig({
    store: { path: ":memory:" },
    embed: { provider: "none" },
    network: { proxy_url: "http://me:s3cret@proxy.corp:3128", no_proxy: ["intranet.corp"] },
  }));
  const check = proxied.checks.find((c) => c.name === "outbound proxy");
  assert.ok(check, "an outbound proxy check");
  assert.match(check.detail, /^http:\/\/proxy\.corp:3128, bypassed for intranet\.corp/);
  assert.match(check.detail, /checked by the proxy/);
  assert.ok(!check.detail.includes("s3cret") && !check.detail.includes("me:"));

  const direct = await runDoctor(
    parseConfig({ store: { path: ":memory:" }, embed: { provider: "none" } }),
  );
  assert.equal(
    direct.checks.find((c) => c.name === "outbound proxy")?.detail,
    "none: direct connections",
  );
});
