/**
 * Every setting declares its tenancy on its own field, and the lists the rest
 * of Gleaner uses (secrets, aliases, environment-only, writable, applied at
 * once) follow from those declarations, and the README lists them as declared.
 */
import assert from "node:assert/strict";
import {
  configFromEnv,
  ENV_ALIASES,
  ENV_ONLY_KEYS,
  LIVE_SETTINGS,
  SECRET_KEYS,
  settingMeta,
  settingPaths,
  settingsOfScope,
  TENANCY_SCOPES,
  WRITABLE_SETTINGS,
} from "./config.ts";

const README = new URL("../../README.md", import.meta.url);

Deno.test("settings: every field of every section declares a tenancy scope", () => {
  const paths = settingPaths();
  assert.ok(paths.length > 150, `${paths.length} settings`);
  const undeclared = paths.filter((path) => {
    const scope = settingMeta(path)?.scope;
    return scope === undefined || !TENANCY_SCOPES.includes(scope);
  });
  assert.deepEqual(undeclared, [], "each of these fields needs operatorOnly(…) or shared(…)");
  assert.equal(
    settingPaths().length,
    settingsOfScope("operator").length + settingsOfScope("shared").length +
      settingsOfScope("tenant").length,
  );
});

Deno.test("settings: operator settings, secrets and environment-only settings are never writable", () => {
  for (const path of settingPaths()) {
    const meta = settingMeta(path)!;
    if (meta.scope === "operator" || meta.secret || meta.envOnly) {
      assert.equal(meta.writable, false, path);
    }
    if (meta.secret) assert.equal(meta.scope, "operator", `${path} is a secret`);
  }
  // What must stay the operator's (the server itself, the guard's openings, endpoints that
  // receive the operator's credentials, files, private data).
  const operator = [
    ...settingPaths().filter((path) =>
      path.startsWith("server.") || path.startsWith("memory.hosted") ||
      path.startsWith("read.hister_") || path.startsWith("events.")
    ),
    "network.allow_private",
    "network.allowed_ports",
    "network.proxy_url",
    "network.no_proxy",
    "network.user_agent",
    "read.chrome_path",
    "read.browser_cdp_url",
    "read.github_token",
    "read.github_api_url",
    "read.tier_rules_path",
    "read.firecrawl_url",
    "read.crawl4ai_url",
    "read.kiwix_url",
    "search.providers",
    "search.searxng_url",
    "search.rerank_url",
    "store.path",
    "store.cache_url",
    "memory.path",
    "memory.backend",
    "memory.postgres_url",
    "embed.models_dir",
    "embed.model",
    "embed.api_url",
    "embed.allow_remote",
    "llm.url",
    "log.level",
  ];
  for (const path of operator) {
    assert.equal(settingMeta(path)?.scope, "operator", path);
    assert.ok(!WRITABLE_SETTINGS.has(path), path);
  }
  for (const path of SECRET_KEYS) assert.ok(!WRITABLE_SETTINGS.has(path), path);
  // Limits that bound work or hostile input are shared, and not writable either.
  for (const path of ["network.max_bytes", "network.respect_robots", "read.max_html_chars"]) {
    assert.equal(settingMeta(path)?.scope, "shared", path);
    assert.ok(!WRITABLE_SETTINGS.has(path), path);
  }
});

Deno.test("settings: the derived lists keep their users' names and meaning", () => {
  // Applied at once is a kind of writable.
  for (const path of LIVE_SETTINGS) assert.ok(WRITABLE_SETTINGS.has(path), path);
  assert.ok(LIVE_SETTINGS.has("rank.max_tokens") && LIVE_SETTINGS.has("read.llms_txt_domains"));
  assert.ok(!LIVE_SETTINGS.has("rank.rerank") && !LIVE_SETTINGS.has("network.timeout_ms"));
  assert.deepEqual([...ENV_ONLY_KEYS].sort(), [
    "memory.hosted_admin_key",
    "server.allow_config_write",
  ]);
  for (
    const [name, path] of [
      ["GLEANER_HOST", "server.host"],
      ["GLEANER_API_KEY", "server.api_key"],
      ["GLEANER_ALLOW_CONFIG_WRITE", "server.allow_config_write"],
      ["GLEANER_ALLOW_PRIVATE_NETWORK", "network.allow_private"],
      ["GLEANER_DB", "store.path"],
      ["GITHUB_TOKEN", "read.github_token"],
      ["CRAWL4AI_API_TOKEN", "read.crawl4ai_token"],
    ]
  ) assert.equal(ENV_ALIASES[name], path, name);
  // Two names for the Brave key: BRAVE_API_KEY, declared last, wins.
  const both = configFromEnv({ BRAVE_SEARCH_API_KEY: "old-name", BRAVE_API_KEY: "new-name" });
  assert.equal(both.search?.brave_api_key, "new-name");
  for (const path of ["server.api_key", "memory.postgres_url", "store.cache_url"]) {
    assert.ok(SECRET_KEYS.has(path), path);
  }
});

Deno.test("settings: the README lists the operator settings and the writable ones as declared", async () => {
  const paragraphs = (await Deno.readTextFile(README)).split("\n\n");
  const named = (label: string) => {
    const paragraph = paragraphs.find((text) => text.startsWith(label));
    assert.ok(paragraph, `README has a paragraph starting ${label}`);
    return new Set([...paragraph.matchAll(/`([a-z0-9_]+\.[a-z0-9_]+)`/g)].map((m) => m[1]));
  };
  const same = (listed: Set<string>, declared: readonly string[]) =>
    assert.deepEqual({
      missing: declared.filter((path) => !listed.has(path)),
      extra: [...listed].filter((path) => !declared.includes(path)),
    }, { missing: [], extra: [] });
  same(named("**Operator settings**"), settingsOfScope("operator"));
  same(named("**Shared, writable through `PUT /config`**"), [...WRITABLE_SETTINGS]);
  same(
    named("**Shared, fixed**"),
    settingsOfScope("shared").filter((path) => !WRITABLE_SETTINGS.has(path)),
  );
});
