import assert from "node:assert/strict";
import { parseConfig } from "../../config/parse.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import { cutSlice, declaredSettings, defineProvider } from "./define.ts";
import { PROVIDERS } from "./registry.ts";
import { ROLES } from "./types.ts";
import type { ProviderEnv, ProviderSlice } from "./types.ts";

Deno.test("defineProvider: every provider of the registry is defined with the slice it reads", () => {
  const undeclared = PROVIDERS.filter((p) => declaredSettings(p) === undefined).map((p) => p.name);
  assert.deepEqual(undeclared, []);
  // Every provider reads its own entry.
  for (const provider of PROVIDERS) {
    assert.ok(declaredSettings(provider)!.providers!.includes(provider.name), provider.name);
  }
});

Deno.test("defineProvider: a provider's checks run on its slice under a configuration that sets every key", () => {
  const providers = Object.fromEntries(
    PROVIDERS.map((p) => [p.name, { api_key: `key-${p.name}`, enabled: true }]),
  );
  const config = parseConfig({
    search: { providers, searxng_url: "http://127.0.0.1:9/" },
  });
  for (const provider of PROVIDERS) {
    assert.equal(provider.isConfigured(config), true, provider.name);
    provider.rateLimit?.(config);
    for (const role of ROLES) provider.missingSetting?.(role, config);
  }
});

Deno.test("cutSlice: the declared entries with their keys folded in, the declared settings, nothing else", () => {
  const config = parseConfig({
    search: {
      exa_api_key: "old-spelling",
      providers: { tavily: { api_key: "own", timeout_ms: 7 }, brave: { api_key: "other" } },
      region: "de-de",
    },
  });
  const slice = cutSlice(config, ["exa", "tavily", "jina"], ["region"]);
  assert.equal(slice.search.providers.exa?.api_key, "old-spelling");
  assert.deepEqual(slice.search.providers.tavily, { api_key: "own", timeout_ms: 7 });
  assert.equal(slice.search.providers.jina, undefined);
  assert.deepEqual(Object.keys(slice.search).sort(), ["providers", "region", "timeout_ms"]);
  assert.deepEqual(Object.keys(slice.search.providers).sort(), ["exa", "tavily"]);
  assert.equal(slice.network, config.network);
  assert.throws(
    () => slice.search.providers.brave,
    (error) => error instanceof GleanerError && error.code === "internal",
  );
  // A slice can be shown (logged, serialised) without tripping the guard.
  assert.ok(JSON.stringify(slice).includes("old-spelling"));
});

Deno.test("defineProvider: a call receives its slice, cut once per configuration", async () => {
  const seen: ProviderSlice<"safesearch">[] = [];
  const provider = defineProvider({
    name: "example",
    title: "Example",
    scope: "shared",
    roles: ["search"],
    configHint: "search.providers.example.api_key",
    settings: { search: ["safesearch"] },
    isConfigured: (s) => s.search.providers.example?.api_key !== undefined,
    search(_req, env: ProviderEnv<ProviderSlice<"safesearch">>) {
      seen.push(env.config);
      return Promise.resolve([]);
    },
    tools: [],
  });
  const config = parseConfig({ search: { providers: { example: { api_key: "k" } } } });
  const fetcher = createFetcher(config.network);
  await provider.search!({ query: "q", max_results: 1 }, { config, fetcher });
  await provider.search!({ query: "q", max_results: 1 }, { config, fetcher });
  assert.equal(seen.length, 2);
  assert.equal(seen[0], seen[1]);
  assert.deepEqual(Object.keys(seen[0].search).sort(), ["providers", "safesearch", "timeout_ms"]);
  assert.equal("answer" in provider, false);
  assert.equal("settings" in provider, false);
  assert.deepEqual(declaredSettings(provider), { providers: ["example"], search: ["safesearch"] });
  // Another configuration gets its own slice.
  const other = parseConfig({ search: { safesearch: 2 } });
  assert.equal(provider.isConfigured(other), false);
});
