import assert from "node:assert/strict";
import {
  loadConfig,
  mergeConfig,
  parseConfig,
  providerApiKey,
  redactConfig,
  settingPaths,
} from "./config.ts";

/** The providers whose key has the old `search.<name>_api_key` spelling in the schema. */
const OLD_KEYS = settingPaths()
  .map((path) => /^search\.([a-z0-9_]+)_api_key$/.exec(path)?.[1])
  .filter((name): name is string => name !== undefined && name !== "rerank");

async function withConfigFile(
  settings: unknown,
  fn: (file: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(settings));
    await fn(`${dir}/config.json`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("provider keys: search.providers.<name>.api_key is read, the old spelling too", () => {
  assert.ok(OLD_KEYS.length >= 7, `old provider keys found: ${OLD_KEYS.join()}`);
  for (const name of OLD_KEYS) {
    const own = parseConfig({ search: { providers: { [name]: { api_key: `own-${name}` } } } });
    assert.equal(providerApiKey(own, name), `own-${name}`);
    const old = parseConfig({ search: { [`${name}_api_key`]: `old-${name}` } });
    assert.equal(providerApiKey(old, name), `old-${name}`);
    assert.equal(providerApiKey(parseConfig({}), name), undefined);
  }
  const both = parseConfig({
    search: { exa_api_key: "old", providers: { exa: { api_key: "own" } } },
  });
  assert.equal(providerApiKey(both, "exa"), "own", "in one layer the new spelling wins");
  const later = parseConfig({ search: { providers: { acme: { api_key: "a-key" } } } });
  assert.equal(providerApiKey(later, "acme"), "a-key", "any provider name, not only today's");
  assert.throws(() => parseConfig({ search: { providers: { exa: { api_key: "" } } } }), /api_key/);
});

Deno.test("provider keys: both spellings are redacted wherever the configuration is shown", () => {
  const config = parseConfig({
    search: {
      brave_api_key: "old-brave-secret",
      providers: { exa: { api_key: "own-exa-secret", max_results: 5 }, acme: { api_key: "x1" } },
    },
  });
  const shown = redactConfig(config);
  const text = JSON.stringify(shown);
  for (const secret of ["old-brave-secret", "own-exa-secret", '"x1"']) {
    assert.ok(!text.includes(secret), `${secret} redacted`);
  }
  assert.equal(shown.search.providers.exa.api_key, "[redacted]");
  assert.equal(shown.search.providers.exa.max_results, 5, "other provider settings are shown");
  assert.equal(config.search.providers.exa.api_key, "own-exa-secret", "the original is untouched");
});

Deno.test("provider keys: the old spelling in a file, --set or code warns naming the new key; env names do not", async () => {
  const oldSettings = Object.fromEntries(OLD_KEYS.map((name) => [`${name}_api_key`, `k-${name}`]));
  await withConfigFile({ search: oldSettings }, async (file) => {
    const warnings: string[] = [];
    const env = Object.fromEntries(OLD_KEYS.map((n) => [`${n.toUpperCase()}_API_KEY`, `e-${n}`]));
    const config = await loadConfig({ env, file, warn: (m) => warnings.push(m) });
    for (const name of OLD_KEYS) {
      assert.ok(
        warnings.some((w) =>
          w.includes(`config file ${file}`) && w.includes(`search.${name}_api_key is deprecated`) &&
          w.includes(`search.providers.${name}.api_key`)
        ),
        `a warning for search.${name}_api_key: ${warnings.join(" | ")}`,
      );
      assert.equal(providerApiKey(config, name), `e-${name}`, "the environment still wins");
    }
    assert.equal(warnings.length, OLD_KEYS.length, "one warning each, none for the environment");
  });
  const quiet: string[] = [];
  await withConfigFile({ search: { providers: { exa: { api_key: "f" } } } }, async (file) => {
    const config = await loadConfig({
      env: { EXA_API_KEY: "e", GLEANER_SEARCH_TAVILY_API_KEY: "t" },
      file,
      overrides: { search: { brave_api_key: "b" } },
      flags: { "search.parallel_api_key": "p" },
      warn: (m) => quiet.push(m),
    });
    assert.equal(providerApiKey(config, "parallel"), "p");
    assert.equal(providerApiKey(config, "brave"), "b");
  });
  assert.deepEqual(quiet.map((w) => w.split(":")[0]).sort(), ["--set", "settings given in code"]);
});

Deno.test("provider keys: each layer's key wins over the layers below, whichever spelling", async () => {
  await withConfigFile(
    { search: { providers: { exa: { api_key: "file-own" } } } },
    async (file) => {
      const fromEnv = await loadConfig({ env: { EXA_API_KEY: "env-old" }, file, warn: () => {} });
      assert.equal(providerApiKey(fromEnv, "exa"), "env-old", "environment over config file");
      const fromCode = await loadConfig({
        env: { EXA_API_KEY: "env-old" },
        file,
        overrides: { search: { providers: { exa: { api_key: "code-own" } } } },
      });
      assert.equal(providerApiKey(fromCode, "exa"), "code-own", "code over environment");
    },
  );
  await withConfigFile({ search: { exa_api_key: "file-old" } }, async (file) => {
    const config = await loadConfig({
      env: { GLEANER_SEARCH_PROVIDERS: '{"exa":{"api_key":"env-own","max_results":3}}' },
      file,
      warn: () => {},
    });
    assert.equal(providerApiKey(config, "exa"), "env-own", "environment (new spelling) over file");
    assert.equal(config.search.providers.exa.max_results, 3);
  });
  const merged = mergeConfig(
    { search: { providers: { exa: { api_key: "a", max_results: 4 } } } },
    { search: { exa_api_key: "b" } },
  );
  assert.equal(providerApiKey(parseConfig(merged), "exa"), "b");
  assert.equal(parseConfig(merged).search.providers.exa.max_results, 4, "other settings stay");
});

Deno.test("provider keys: layers merge search.providers provider by provider, so no key is lost", async () => {
  await withConfigFile(
    { search: { providers: { exa: { api_key: "file-exa", max_results: 4 } } } },
    async (file) => {
      const config = await loadConfig({
        env: {
          GLEANER_SEARCH_PROVIDERS: '{"tavily":{"api_key":"env-tavily"},"exa":{"timeout_ms":900}}',
        },
        file,
        flags: { "search.providers": '{"exa":{"api_key":"flag-exa"}}' },
      });
      assert.equal(providerApiKey(config, "tavily"), "env-tavily");
      assert.equal(providerApiKey(config, "exa"), "flag-exa");
      assert.deepEqual(config.search.providers.exa, {
        api_key: "flag-exa",
        max_results: 4,
        timeout_ms: 900,
      });
    },
  );
  const config = await loadConfig({
    env: { GLEANER_SEARCH_PROVIDERS: '{"exa":{"api_key":"env-own"}}' },
    file: undefined,
    flags: { "search.exa_api_key": "flag-old" },
    warn: () => {},
  });
  assert.equal(providerApiKey(config, "exa"), "flag-old", "--set over the environment's JSON");
});
