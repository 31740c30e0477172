import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { configFromEnv, loadConfig, parseConfig, privateAllowed, redactConfig } from "./config.ts";

Deno.test("config: embedded defaults are safe", () => {
  const config = parseConfig({});
  assert.equal(config.server.host, "127.0.0.1");
  assert.equal(config.server.port, 8787);
  assert.equal(config.network.allow_private, false);
  assert.equal(config.network.respect_robots, true);
  assert.equal(config.network.max_bytes, 5_000_000);
  assert.match(config.network.user_agent, /^Gleaner\/\d+\.\d+\.\d+ \(\+https?:\/\//);
});

Deno.test("config: precedence is flag > env > file > default", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/config.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify({ server: { port: 1111, host: "127.0.0.2" }, search: { region: "fr-fr" } }),
  );
  try {
    const fromFile = await loadConfig({ env: {}, file });
    assert.equal(fromFile.server.port, 1111);
    const fromEnv = await loadConfig({
      env: { GLEANER_PORT: "2222", GLEANER_SEARCH_REGION: "de-de" },
      file,
    });
    assert.equal(fromEnv.server.port, 2222);
    assert.equal(fromEnv.server.host, "127.0.0.2", "file values survive where env is silent");
    assert.equal(fromEnv.search.region, "de-de");
    const fromFlag = await loadConfig({
      env: { GLEANER_PORT: "2222" },
      flags: { "server.port": "3333" },
      file,
    });
    assert.equal(fromFlag.server.port, 3333);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("config: env values are typed from the schema; allow_private takes a list of origins", () => {
  const env = configFromEnv({
    GLEANER_ALLOW_PRIVATE_NETWORK: "http://127.0.0.1:9000,http://docs.internal:8080",
    GLEANER_NETWORK_ALLOWED_PORTS: "80,443,9000",
    GLEANER_NETWORK_RESPECT_ROBOTS: "false",
  });
  const config = parseConfig(env);
  assert.deepEqual(config.network.allow_private, [
    "http://127.0.0.1:9000",
    "http://docs.internal:8080",
  ]);
  assert.deepEqual(config.network.allowed_ports, [80, 443, 9000]);
  assert.equal(config.network.respect_robots, false);
  assert.equal(privateAllowed(config.network, "http://127.0.0.1:9000"), true);
  assert.equal(privateAllowed(config.network, "http://127.0.0.1:9001"), false);
  assert.equal(
    parseConfig(configFromEnv({ GLEANER_ALLOW_PRIVATE_NETWORK: "true" })).network.allow_private,
    true,
  );
});

Deno.test("config: a bad value fails with invalid_arguments naming the field", () => {
  assert.throws(
    () => parseConfig(configFromEnv({ GLEANER_PORT: "eighty" })),
    (e: GleanerError) => e.code === "invalid_arguments" && e.message.includes("server.port"),
  );
});

Deno.test("config: an explicit config file that cannot be read is an error, a missing default one is not", async () => {
  await assert.rejects(
    loadConfig({ env: { GLEANER_CONFIG: "/nonexistent/gleaner.json" } }),
    (e: GleanerError) => e.code === "invalid_arguments",
  );
  const config = await loadConfig({ env: { XDG_CONFIG_HOME: "/nonexistent" } });
  assert.equal(config.server.port, 8787);
});

Deno.test("config: secrets are redacted whenever printed", () => {
  const config = parseConfig({
    server: { api_key: "k-123" },
    read: { github_token: "ghp_secret" },
    embed: { api_key: "sk-embed" },
    store: { cache_url: "redis://:pw@127.0.0.1:6379" },
  });
  const shown = JSON.stringify(redactConfig(config));
  for (const secret of ["k-123", "ghp_secret", "sk-embed", "pw@"]) {
    assert.ok(!shown.includes(secret), secret);
  }
  assert.equal(config.server.api_key, "k-123", "the original is untouched");
});

Deno.test("config: an unknown section or setting is refused, naming the nearest", () => {
  assert.throws(
    () => parseConfig({ search: { searxng: "http://x/" } }),
    (e: GleanerError) =>
      e.code === "invalid_arguments" &&
      e.message === 'config: unknown setting "search.searxng"; did you mean "search.searxng_url"?',
  );
  assert.throws(
    () => parseConfig({ serach: {} }),
    (e: GleanerError) => /unknown section "serach"; did you mean "search"/.test(e.message),
  );
});

Deno.test("config: misspelt GLEANER_* names warn; other GLEANER_ switches do not", async () => {
  const warnings: string[] = [];
  const config = await loadConfig({
    env: { GLEANER_NETWROK_TIMEOUT_MS: "5", GLEANER_REQUIRE_BROWSER: "1", GLEANER_CONFIG_X: "" },
    warn: (message) => warnings.push(message),
  });
  assert.equal(config.network.timeout_ms, 20_000);
  assert.equal(warnings.length, 2, warnings.join("\n"));
  assert.match(warnings[0], /GLEANER_NETWROK_TIMEOUT_MS .*GLEANER_NETWORK_TIMEOUT_MS/);
});

Deno.test("config: URL credentials and query values are masked in the printed config", () => {
  const shown = redactConfig(parseConfig({
    search: { searxng_url: "https://u:p4ss@searx.example/?apikey=zq9tk" },
    embed: { api_url: "https://u:embedpw@api.example/v1" },
    read: { browser_cdp_url: "ws://127.0.0.1:9222/devtools?token=cdptok" },
  }));
  const text = JSON.stringify(shown);
  for (const secret of ["p4ss", "zq9tk", "embedpw", "cdptok"]) assert.ok(!text.includes(secret));
  assert.equal(shown.read.browser_cdp_url, "ws://127.0.0.1:9222/devtools?token=[redacted]");
});

Deno.test("config: the Brave key is read from BRAVE_SEARCH_API_KEY too; BRAVE_API_KEY wins", async () => {
  // No config file: HOME points nowhere.
  const home = "/nonexistent-gleaner-home";
  const other = await loadConfig({ env: { BRAVE_SEARCH_API_KEY: "search-key", HOME: home } });
  assert.equal(other.search.brave_api_key, "search-key");
  const both = await loadConfig({
    env: { BRAVE_SEARCH_API_KEY: "search-key", BRAVE_API_KEY: "api-key", HOME: home },
  });
  assert.equal(both.search.brave_api_key, "api-key");
  const reversed = configFromEnv({ BRAVE_API_KEY: "api-key", BRAVE_SEARCH_API_KEY: "search-key" });
  assert.equal(
    reversed.search?.brave_api_key,
    "api-key",
    "the winner does not depend on env order",
  );
  const warn: string[] = [];
  await loadConfig({ env: { BRAVE_SEARCH_API_KEY: "k", HOME: home }, warn: (m) => warn.push(m) });
  assert.deepEqual(warn, []);
});

Deno.test("config: memory thresholds are settings with today's values, validated, from the environment", async () => {
  const { memory } = parseConfig({});
  assert.deepEqual(
    [
      memory.duplicate_similarity,
      memory.review_similarity,
      memory.split_tokens,
      memory.rrf_k,
      memory.recall_budget,
      memory.access_weight,
      memory.context_max_tokens,
      memory.context_before,
      memory.context_after,
    ],
    [0.95, 0.8, 800, 60, 2_000, 0, 230, 2, 2],
  );
  const fromEnv = await loadConfig({
    env: {
      GLEANER_MEMORY_DUPLICATE_SIMILARITY: "0.9",
      GLEANER_MEMORY_REVIEW_SIMILARITY: "0.7",
      GLEANER_MEMORY_SPLIT_TOKENS: "300",
      GLEANER_MEMORY_RRF_K: "10",
      GLEANER_MEMORY_RECALL_BUDGET: "500",
      GLEANER_MEMORY_ACCESS_WEIGHT: "0.25",
      GLEANER_MEMORY_CONTEXT_MAX_TOKENS: "0",
      GLEANER_MEMORY_CONTEXT_AFTER: "3",
    },
  });
  assert.deepEqual(
    [
      fromEnv.memory.duplicate_similarity,
      fromEnv.memory.review_similarity,
      fromEnv.memory.split_tokens,
      fromEnv.memory.rrf_k,
      fromEnv.memory.recall_budget,
      fromEnv.memory.access_weight,
      fromEnv.memory.context_max_tokens,
      fromEnv.memory.context_after,
    ],
    [0.9, 0.7, 300, 10, 500, 0.25, 0, 3],
  );
  const refused: [Record<string, number>, string][] = [
    [{ duplicate_similarity: 1.2 }, "memory.duplicate_similarity"],
    [{ review_similarity: -0.1 }, "memory.review_similarity"],
    [{ review_similarity: 0.97 }, "memory.review_similarity"],
    [{ duplicate_similarity: 0.7 }, "memory.review_similarity"],
    [{ split_tokens: 0 }, "memory.split_tokens"],
    [{ split_tokens: 2.5 }, "memory.split_tokens"],
    [{ rrf_k: -1 }, "memory.rrf_k"],
    [{ recall_budget: 0 }, "memory.recall_budget"],
    [{ access_weight: 2 }, "memory.access_weight"],
    [{ context_max_tokens: -1 }, "memory.context_max_tokens"],
    [{ context_before: 11 }, "memory.context_before"],
  ];
  for (const [memory, field] of refused) {
    assert.throws(
      () => parseConfig({ memory }),
      (error: GleanerError) =>
        error.code === "invalid_arguments" && error.details?.field === field &&
        error.message.includes(field),
      JSON.stringify(memory),
    );
  }
});

Deno.test("config: search quality and llm settings come from GLEANER_* and keys are redacted", async () => {
  const config = await loadConfig({
    env: {
      GLEANER_SEARCH_RERANK_URL: "https://api.jina.ai/v1/rerank",
      GLEANER_SEARCH_RERANK_API_KEY: "jina_secret_key",
      GLEANER_SEARCH_RERANK_RECENCY_WEIGHT: "0.3",
      GLEANER_SEARCH_DOMAIN_PROFILES: '{"docs":{"prefer":["docs.python.org"],"boost":1}}',
      GLEANER_LLM_URL: "http://127.0.0.1:11434",
      GLEANER_LLM_MODEL: "llama3.2",
      GLEANER_LLM_API: "generate",
      GLEANER_LLM_API_KEY: "llm_secret_key",
    },
    warn: (message) => assert.fail(message),
  });
  assert.equal(config.search.rerank_recency_weight, 0.3);
  assert.equal(config.search.rerank_model, "jina-reranker-v2-base-multilingual");
  assert.deepEqual(config.search.domain_profiles.docs, {
    prefer: ["docs.python.org"],
    exclude: [],
    boost: 1,
  });
  assert.equal(config.llm.api, "generate");
  assert.equal(config.llm.model, "llama3.2");
  const shown = JSON.stringify(redactConfig(config));
  assert.ok(!shown.includes("jina_secret_key") && !shown.includes("llm_secret_key"), shown);
  assert.throws(
    () => parseConfig({ search: { rerank_recency_weight: 2 } }),
    /rerank_recency_weight/,
  );
  assert.throws(() => parseConfig({ llm: { api: "completions" } }), /llm\.api/);
});

Deno.test("config: a record setting (read.kiwix_books) reads a JSON object from the environment", async () => {
  const config = await loadConfig({
    env: {
      GLEANER_READ_KIWIX_URL: "http://127.0.0.1:8080",
      GLEANER_READ_KIWIX_BOOKS: '{"en.wikipedia.org":"wikipedia_en_all_maxi_2024-01"}',
      XDG_CONFIG_HOME: "/nonexistent/gleaner-test-config",
    },
    flags: {},
  });
  assert.deepEqual(config.read.kiwix_books, {
    "en.wikipedia.org": "wikipedia_en_all_maxi_2024-01",
  });
  await assert.rejects(
    loadConfig({
      env: { GLEANER_READ_KIWIX_BOOKS: "en.wikipedia.org", XDG_CONFIG_HOME: "/nonexistent/x" },
      flags: {},
    }),
    /read\.kiwix_books/,
  );
});

Deno.test("config: min/max pairs are checked across fields, from a file, the environment or code", async () => {
  const refused = (error: unknown) =>
    error instanceof GleanerError && error.code === "invalid_arguments" &&
    error.details?.field === "rank.unit_min_words" &&
    /rank\.unit_min_words: must not exceed rank\.unit_max_words/.test(error.message);
  assert.throws(() => parseConfig({ rank: { unit_min_words: 500, unit_max_words: 10 } }), refused);
  // One side alone is checked against the other's default (40).
  assert.throws(() => parseConfig({ rank: { unit_min_words: 41 } }), refused);
  assert.equal(parseConfig({ rank: { unit_min_words: 40 } }).rank.unit_min_words, 40);
  await assert.rejects(
    () =>
      loadConfig({
        env: { GLEANER_RANK_UNIT_MIN_WORDS: "500", GLEANER_RANK_UNIT_MAX_WORDS: "10" },
      }),
    refused,
  );
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/config.json`;
    await Deno.writeTextFile(file, JSON.stringify({ rank: { unit_max_words: 10 } }));
    await assert.rejects(() => loadConfig({ env: {}, file }), refused);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert.throws(
    () => parseConfig({ memory: { review_similarity: 0.9, duplicate_similarity: 0.8 } }),
    /memory\.review_similarity: must not exceed memory\.duplicate_similarity/,
  );
});

Deno.test("config: inherited names are unknown sections and settings, never a crash", async () => {
  const bodies: [string, string][] = [
    ['{"constructor":{"name":"x"}}', "constructor"],
    ['{"__proto__":{"polluted":true}}', "__proto__"],
    ['{"toString":{}}', "toString"],
    ['{"rank":{"constructor":1}}', "rank.constructor"],
    ['{"rank":{"__proto__":{"polluted":true}}}', "rank.__proto__"],
    ['{"rank":{"hasOwnProperty":1}}', "rank.hasOwnProperty"],
  ];
  for (const [json, field] of bodies) {
    assert.throws(
      () => parseConfig(JSON.parse(json)),
      (error: unknown) =>
        error instanceof GleanerError && error.code === "invalid_arguments" &&
        error.details?.field === field && error.message.includes(`"${field}"`),
      json,
    );
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/config.json`;
    await Deno.writeTextFile(file, '{"constructor":{"prototype":{}}}');
    await assert.rejects(() => loadConfig({ env: {}, file }), /unknown section "constructor"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
