import assert from "node:assert/strict";
import {
  configFromEnv,
  parseConfig,
  providerApiKey,
  redactConfig,
  SECRET_KEYS,
} from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import {
  type FakeProviderName,
  withFakeProviders,
} from "../../../testing/fixtures/fake_providers.ts";
import { configuredProviders, KEYLESS_ENGINES, PROVIDERS, usableProviders } from "./registry.ts";

/** The providers that take an API key. */
const KEYED: readonly FakeProviderName[] = [
  "brave",
  "exa",
  "tavily",
  "parallel",
  "gemini",
  "jina",
  "keenable",
  "seltz",
  "querit",
  "tinyfish",
];

Deno.test("provider settings: keys from their usual environment names, orders as lists", () => {
  const config = parseConfig(configFromEnv({
    BRAVE_API_KEY: "b",
    EXA_API_KEY: "e",
    TAVILY_API_KEY: "t",
    PARALLEL_API_KEY: "p",
    GEMINI_API_KEY: "g",
    JINA_API_KEY: "j",
    KEENABLE_API_KEY: "k",
    SELTZ_API_KEY: "s",
    QUERIT_API_KEY: "q",
    TINYFISH_API_KEY: "f",
    GLEANER_SEARCH_SEARCH_ORDER: "tavily, exa",
    GLEANER_SEARCH_PROVIDERS: '{"exa":{"timeout_ms":2500,"max_results":5}}',
    GLEANER_SEARCH_PRESENTATION: "roles",
  }));
  assert.equal(config.search.exa_api_key, "e");
  assert.equal(config.search.tinyfish_api_key, "f");
  assert.deepEqual(config.search.search_order, ["tavily", "exa"]);
  assert.deepEqual(config.search.providers.exa, { timeout_ms: 2500, max_results: 5 });
  assert.equal(config.search.presentation, "roles");
  assert.deepEqual(
    configuredProviders(config).map((p) => p.name),
    [
      "brave",
      "exa",
      "tavily",
      "parallel",
      "seltz",
      "querit",
      "gemini",
      "jina",
      "keenable",
      "tinyfish",
      ...KEYLESS_ENGINES,
    ],
  );
  assert.equal(config.search.seltz_api_key, "s");
  assert.equal(config.search.querit_api_key, "q");
  assert.deepEqual(usableProviders(config, "search").map((p) => p.name), ["tavily", "exa"]);
  // TinyFish's search and fetch use no credits: in the default orders once its key is set.
  const unordered = parseConfig(configFromEnv({ TINYFISH_API_KEY: "f", EXA_API_KEY: "e" }));
  assert.deepEqual(usableProviders(unordered, "search").map((p) => p.name), [
    "exa",
    "tinyfish",
    ...KEYLESS_ENGINES,
  ]);
  assert.deepEqual(usableProviders(unordered, "contents").map((p) => p.name), ["exa", "tinyfish"]);
  assert.deepEqual(usableProviders(config, "answer").map((p) => p.name), [
    "exa",
    "tavily",
    "gemini",
    "parallel",
  ]);
});

Deno.test("provider settings: every key is a secret, redacted in /config", () => {
  const keys = KEYED;
  const search = Object.fromEntries(keys.map((k) => [`${k}_api_key`, `secret-${k}`]));
  const shown = JSON.stringify(redactConfig(parseConfig({ search })));
  for (const key of keys) {
    assert.ok(SECRET_KEYS.has(`search.${key}_api_key`), `${key} is listed as secret`);
    assert.ok(!shown.includes(`secret-${key}`), `${key} redacted`);
  }
});

Deno.test("provider settings: unknown per-provider keys and bad presentations are refused", () => {
  assert.throws(
    () => parseConfig({ search: { providers: { exa: { base_urll: "x" } } } }),
    (e) => e instanceof GleanerError && /search\.providers/.test(e.message),
  );
  assert.throws(
    () => parseConfig({ search: { presentation: "everything" } }),
    (e) => e instanceof GleanerError && e.code === "invalid_arguments",
  );
  const off = parseConfig({ search: { exa_api_key: "e", providers: { exa: { enabled: false } } } });
  assert.deepEqual(configuredProviders(off).map((p) => p.name), [...KEYLESS_ENGINES]);
});

Deno.test("provider settings: every keyed provider sends the key of search.providers.<name>.api_key", async () => {
  const keyed = KEYED;
  await withFakeProviders(async (fakes) => {
    const providers = Object.fromEntries(keyed.map((name) => [name, { api_key: `own-${name}-7` }]));
    const config = parseConfig(fakes.config({}, { providers }));
    const env = { config, fetcher: createFetcher(config.network) };
    for (const name of keyed) {
      const provider = PROVIDERS.find((p) => p.name === name)!;
      assert.equal(providerApiKey(config, name), `own-${name}-7`);
      assert.ok(provider.isConfigured(config), `${name} is configured by the new key alone`);
      await provider.search!({ query: "wal", max_results: 2 }, env);
      const [request] = fakes.requestsOf(name);
      assert.ok(
        Object.values(request.headers).some((value) => String(value).includes(`own-${name}-7`)),
        `${name} sent its key: ${JSON.stringify(Object.keys(request.headers))}`,
      );
    }
  });
});
