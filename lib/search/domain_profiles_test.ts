import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { domainProfileNames, resolveDomainProfile } from "./domain_profiles.ts";

Deno.test("domain profiles: built-in ones, the operator's, and replacements", () => {
  const config = parseConfig({
    search: {
      domain_profiles: {
        dev: { prefer: ["https://WWW.Example.dev/docs"], exclude: [] },
        news: { prefer: ["apnews.com"], exclude: ["example-farm.com"], boost: 1 },
      },
    },
  });
  assert.deepEqual(domainProfileNames(config), ["dev", "homelab", "news"]);
  assert.deepEqual(resolveDomainProfile(config, "dev").prefer, ["example.dev"]);
  assert.equal(resolveDomainProfile(config, "news").boost, 1);
  const homelab = resolveDomainProfile(config, "homelab");
  assert.ok(homelab.prefer.includes("wiki.archlinux.org"));
  assert.ok(homelab.exclude.includes("geeksforgeeks.org"));
});

Deno.test("domain profiles: an unknown name is invalid_arguments naming the field", () => {
  const config = parseConfig({});
  assert.throws(() => resolveDomainProfile(config, "toString"), (error: unknown) => {
    assert.ok(error instanceof GleanerError);
    assert.equal(error.code, "invalid_arguments");
    assert.equal(error.details?.field, "domain_profile");
    assert.match(error.message, /dev, homelab/);
    return true;
  });
});

Deno.test("domain profiles: a malformed operator profile is refused at load, from env too", () => {
  assert.throws(
    () => parseConfig({ search: { domain_profiles: { Bad: { prefer: [] } } } }),
    /search\.domain_profiles/,
  );
  assert.throws(
    () => parseConfig({ search: { domain_profiles: { ok: { prefer: [], extra: 1 } } } }),
    /search\.domain_profiles/,
  );
  const fromEnv = parseConfig({
    search: { domain_profiles: '{"docs":{"prefer":["docs.example.org"]}}' as unknown as never },
  });
  assert.deepEqual(fromEnv.search.domain_profiles.docs.prefer, ["docs.example.org"]);
});
