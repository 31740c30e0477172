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

Deno.test("doctor --online: each keyed provider is asked once; a refused key or retired model fails with what to do", async () => {
  const { withFakeProviders } = await import("../testing/fixtures/fake_providers.ts");
  await withFakeProviders(async (fakes) => {
    const options = (search: Record<string, unknown> = {}) =>
      parseConfig({
        ...fakes.config({ brave: "brave-key-1", gemini: "AIza-key-2" }, search),
        store: { path: ":memory:" },
        embed: { provider: "none" },
      });
    const offline = await runDoctor(options());
    assert.ok(!offline.checks.some((c) => c.name.startsWith("provider ")), "offline asks nobody");
    assert.equal(fakes.requestsOf("brave").length + fakes.requestsOf("gemini").length, 0);

    const good = await runDoctor(options(), { online: true });
    const brave = good.checks.find((c) => c.name === "provider brave (search)")!;
    const gemini = good.checks.find((c) => c.name === "provider gemini (answer)")!;
    assert.ok(brave.ok && /key accepted \(a one-result search/.test(brave.detail), brave.detail);
    assert.ok(gemini.ok, gemini.detail);
    assert.match(gemini.detail, /model models\/gemini-3\.5-flash-lite available/);
    assert.equal(fakes.requestsOf("gemini").at(-1)!.method, "GET", "models.get, not a paid answer");
    assert.ok(
      !good.checks.some((c) => c.name.startsWith("provider duckduckgo")),
      "keyless skipped",
    );

    fakes.setMode("brave", "unauthorized");
    const refused = await runDoctor(
      options({ providers: { gemini: { model: "gemini-2.5-flash" } } }),
      { online: true },
    );
    assert.equal(refused.ok, false);
    const badKey = refused.checks.find((c) => c.name.startsWith("provider brave"))!;
    assert.ok(
      !badKey.ok && /the key was refused: check it: search\.brave_api_key/.test(badKey.detail),
    );
    assert.ok(!badKey.detail.includes("brave-key-1"), "never the key");
    const retired = refused.checks.find((c) => c.name.startsWith("provider gemini"))!;
    assert.ok(!retired.ok && /check its setting/.test(retired.detail), retired.detail);
  });
});
