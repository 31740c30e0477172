import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { createFetcher } from "../net/fetch.ts";
import { startFixtureWeb } from "../../testing/fixtures/web.ts";
import { createReader } from "./cascade.ts";
import { httpTier } from "./tiers/http.ts";
import { createTierRules, parseTierRules } from "./tier_rules.ts";

const RULES = {
  rules: [
    { match: "example.com", tiers: { wayback: false, http: true } },
    { match: "example.com/docs/", tiers: { browser: true, http: false } },
    { match: "docs.example.com/docs/api/", tiers: { http: true } },
  ],
};

async function withRulesFile(fn: (path: string) => Promise<void> | void): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(`${dir}/tier_rules.json`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const u = (s: string) => new URL(s);

Deno.test("tier rules: longest matching prefix naming the tier decides", async () => {
  await withRulesFile((path) => {
    Deno.writeTextFileSync(path, JSON.stringify(RULES));
    const rule = createTierRules(path);
    assert.equal(rule(u("https://example.com/docs/intro"), "browser"), true);
    assert.equal(rule(u("https://example.com/docs/intro"), "http"), false);
    assert.equal(rule(u("https://www.example.com/docs/intro"), "http"), false);
    // The docs rule does not name wayback: the domain rule decides.
    assert.equal(rule(u("https://example.com/docs/intro"), "wayback"), false);
    assert.equal(rule(u("https://example.com/blog/"), "http"), true);
    assert.equal(rule(u("https://example.com/blog/"), "browser"), undefined);
    // Subdomains fall under the domain; a longer rule for them wins.
    assert.equal(rule(u("https://docs.example.com/docs/intro"), "http"), false);
    assert.equal(rule(u("https://docs.example.com/docs/api/x"), "http"), true);
    assert.equal(rule(u("https://notexample.com/docs/intro"), "http"), undefined);
    assert.equal(rule(u("https://example.org/"), "http"), undefined);
  });
});

Deno.test("tier rules: reloaded after the file changes, checked at most once per second", async () => {
  await withRulesFile((path) => {
    let now = 10_000;
    Deno.writeTextFileSync(
      path,
      JSON.stringify({ rules: [{ match: "example.com", tiers: { http: true } }] }),
    );
    const rule = createTierRules(path, { now: () => now });
    const url = u("https://example.com/a");
    assert.equal(rule(url, "http"), true);

    Deno.writeTextFileSync(
      path,
      JSON.stringify({ rules: [{ match: "example.com", tiers: { http: false } }] }),
    );
    Deno.utimeSync(path, new Date(), new Date(Date.now() + 5_000));
    now += 500;
    assert.equal(rule(url, "http"), true, "not checked again within a second");
    now += 600;
    assert.equal(rule(url, "http"), false, "reloaded after the change");

    // Same size, new mtime: still seen.
    Deno.writeTextFileSync(
      path,
      JSON.stringify({ rules: [{ match: "example.com", tiers: { pdf: false } }] }),
    );
    Deno.utimeSync(path, new Date(), new Date(Date.now() + 10_000));
    now += 1_000;
    assert.equal(rule(url, "http"), undefined);
    assert.equal(rule(url, "pdf"), false);

    // An invalid edit keeps the rules in force.
    Deno.writeTextFileSync(path, "{ not json");
    now += 1_000;
    assert.equal(rule(url, "pdf"), false);

    // A removed file means no rules; a new file is picked up.
    Deno.removeSync(path);
    now += 1_000;
    assert.equal(rule(url, "pdf"), undefined);
    Deno.writeTextFileSync(
      path,
      JSON.stringify({ rules: [{ match: "example.com/a", tiers: { browser: true } }] }),
    );
    now += 1_000;
    assert.equal(rule(url, "browser"), true);
  });
});

Deno.test("tier rules: an invalid file at start is refused with invalid_arguments", async () => {
  await withRulesFile((path) => {
    Deno.writeTextFileSync(
      path,
      JSON.stringify({ rules: [{ match: "x.com", tiers: { teleport: true } }] }),
    );
    assert.throws(
      () => createTierRules(path),
      (e) => e instanceof GleanerError && e.code === "invalid_arguments",
    );
    assert.throws(
      () => parseTierRules("[]"),
      (e) => e instanceof GleanerError && /rules/.test(e.message),
    );
    // A missing file is no rules at all.
    Deno.removeSync(path);
    assert.equal(createTierRules(path)(u("https://x.com/"), "http"), undefined);
  });
});

Deno.test("tier rules drive the reader: a tier forced off is not used", async () => {
  const web = await startFixtureWeb();
  try {
    await withRulesFile(async (path) => {
      Deno.writeTextFileSync(
        path,
        JSON.stringify({ rules: [{ match: "127.0.0.1/pages/", tiers: { http: false } }] }),
      );
      const config = parseConfig({
        network: { allow_private: [web.origin] },
        read: { render: "never" },
      });
      const reader = createReader({
        config,
        fetcher: createFetcher(config.network),
        tiers: [httpTier],
        tierRule: createTierRules(path),
      });
      await assert.rejects(
        reader.read({ url: web.url("/pages/001") }),
        (e) => e instanceof GleanerError && e.code === "unsupported_content",
      );
      assert.equal(web.requests.filter((p) => p.startsWith("/pages/")).length, 0);
      const page = await reader.read({ url: web.url("/json") });
      assert.equal(page.tier, "structured");
    });
  } finally {
    await web.close();
  }
});
