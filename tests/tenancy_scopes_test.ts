/**
 * Every read tier, search provider and tool declares who it belongs to when
 * several users share one server (`TenancyScope`): the default cascade with
 * every tier configured on, every provider of the registry and Gleaner's
 * reader, and every tool (Gleaner's own, found in `lib/tools/` as the registry
 * test finds them, the role, router and provider tools of each presentation,
 * the Deep Research tools). A tier, provider or tool without a valid scope
 * fails here; so does an operator tier left in a tenant's cascade.
 */
import assert from "node:assert/strict";
import { parseConfig, TENANCY_SCOPES } from "../lib/config/config.ts";
import { createFetcher } from "../lib/net/fetch.ts";
import { ALL_OPERATOR_TIERS, defaultTiers } from "../lib/read/tiers.ts";
import type { Tier } from "../lib/read/types.ts";
import { PROVIDERS } from "../lib/search/providers/registry.ts";
import { createReaderProvider } from "../lib/search/providers/reader.ts";
import { DEEP_RESEARCH_TOOLS } from "../lib/tools/deep_research.ts";
import { MEMORY_TOOLS, TOOLS } from "../lib/tools/mod.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { providerToolRun, providerToolSpecs } from "../lib/tools/provider_tools.ts";
import { webAnswerTool, webContentsTool, webSearchTool } from "../lib/tools/role_tools.ts";
import { routerSearchTool } from "../lib/tools/router_tool.ts";
import { searchAndSummarizeTool } from "../lib/tools/search_and_summarize.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";

const valid = (scope: unknown) => TENANCY_SCOPES.includes(scope as never);

/** Every setting that turns a tier on, and a key for every provider. */
const EVERYTHING = {
  network: { allow_private: ["http://127.0.0.1:9"] },
  read: {
    wayback: true,
    github_token: "ghp_operatorsOwnToken0123456789",
    hister_url: "http://127.0.0.1:9",
    hister_token: "hister-token",
    kiwix_url: "http://127.0.0.1:9",
    kiwix_books: { "en.wikipedia.org": "wikipedia_en_all" },
    firecrawl_url: "http://127.0.0.1:9",
    crawl4ai_url: "http://127.0.0.1:9",
  },
  search: {
    searxng_url: "http://127.0.0.1:9",
    providers: Object.fromEntries(
      PROVIDERS.map((p) => [p.name, p.keyless ? { enabled: true } : { api_key: `key-${p.name}` }]),
    ),
  },
  llm: { url: "http://127.0.0.1:9/v1", model: "m" },
};

Deno.test("scopes: every tier of the default cascade (all configured on) declares one; tenants get no operator tier", async () => {
  const config = parseConfig(EVERYTHING);
  const set = defaultTiers(config, { fetcher: createFetcher(config.network) });
  try {
    const names = set.tiers.map((t) => t.name);
    for (
      const name of [
        "kiwix",
        "github",
        "youtube",
        "reddit",
        "hister",
        "firecrawl",
        "crawl4ai",
        "llms_txt",
        "http",
        "browser",
        "wayback",
      ]
    ) assert.ok(names.includes(name as never), `${name} is in the cascade: ${names.join()}`);
    const undeclared = set.tiers.filter((t) => !valid(t.scope)).map((t) => t.name);
    assert.deepEqual(undeclared, [], "these tiers declare no valid scope");
    const scopeOf = (tiers: Tier[], name: string) => tiers.find((t) => t.name === name)?.scope;
    // The operator's own data and credential.
    assert.equal(scopeOf(set.tiers, "hister"), "operator");
    assert.equal(scopeOf(set.tiers, "github"), "operator", "GitHub with the token");
    assert.deepEqual(set.tiersFor(ALL_OPERATOR_TIERS).map((t) => t.name), names);
    // A tenant: no Hister, GitHub without the token, nothing of the operator's.
    const tenant = set.tiersFor({ hister: false, githubToken: false });
    assert.deepEqual(tenant.filter((t) => t.scope === "operator").map((t) => t.name), []);
    assert.equal(scopeOf(tenant, "hister"), undefined);
    assert.equal(scopeOf(tenant, "github"), "shared", "GitHub read anonymously");
    assert.deepEqual(
      tenant.map((t) => t.name),
      names.filter((n) => n !== "hister"),
      "the rest of the cascade is the same",
    );
    // Mapped one by one.
    const histerOnly = set.tiersFor({ hister: true, githubToken: false });
    assert.equal(scopeOf(histerOnly, "hister"), "operator");
    assert.equal(scopeOf(histerOnly, "github"), "shared");
    const tokenOnly = set.tiersFor({ hister: false, githubToken: true });
    assert.equal(scopeOf(tokenOnly, "hister"), undefined);
    assert.equal(scopeOf(tokenOnly, "github"), "operator");
    // Without a token, GitHub is nobody's private tier.
    const plain = parseConfig({});
    const anonymous = defaultTiers(plain, { fetcher: createFetcher(plain.network) });
    try {
      assert.equal(scopeOf(anonymous.tiers, "github"), "shared");
      assert.deepEqual(anonymous.tiers.filter((t) => !valid(t.scope)).map((t) => t.name), []);
    } finally {
      await anonymous.close();
    }
  } finally {
    await set.close();
  }
});

Deno.test("scopes: every search provider declares one (keyed ones are shared: same answers, the operator's quota)", () => {
  assert.ok(PROVIDERS.length >= 12, `${PROVIDERS.length} providers`);
  const undeclared = PROVIDERS.filter((p) => !valid(p.scope)).map((p) => p.name);
  assert.deepEqual(undeclared, [], "these providers declare no valid scope");
  for (const provider of PROVIDERS) assert.equal(provider.scope, "shared", provider.name);
  const reader = createReaderProvider(() => Promise.resolve({ title: "", markdown: "" }));
  assert.equal(reader.scope, "tenant", "Gleaner's reader reads through the tenant's own cascade");
});

const LIB_TOOLS = new URL("../lib/tools/", import.meta.url);

function isTool(value: unknown): value is AnyToolSpec {
  return typeof value === "object" && value !== null &&
    typeof (value as AnyToolSpec).name === "string" &&
    typeof (value as AnyToolSpec).handler === "function" &&
    typeof (value as AnyToolSpec).render === "function";
}

/** Every tool a module of lib/tools exports (alone or in a list), as the registry test finds them. */
async function exportedTools(): Promise<AnyToolSpec[]> {
  const found: AnyToolSpec[] = [];
  for await (const entry of Deno.readDir(LIB_TOOLS)) {
    if (!entry.isFile || !entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
    const module = await import(new URL(entry.name, LIB_TOOLS).href) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (isTool(value)) found.push(value);
      else if (Array.isArray(value)) found.push(...value.filter(isTool));
    }
  }
  return found;
}

/** Every provider tool that starts or resumes a long-running run. */
const RUN_TOOLS = [
  "parallel_research",
  "parallel_research_status",
  "parallel_enrich",
  "parallel_enrich_status",
  "parallel_dataset",
  "parallel_dataset_status",
  "tinyfish_run",
  "gemini_grounded_answer",
  "gemini_deep_research",
];

Deno.test("scopes: a provider tool that takes a run's id is a run tool, the id its run field (per tenant in hosted mode)", () => {
  const runTools: string[] = [];
  for (const provider of PROVIDERS) {
    for (const tool of provider.tools) {
      const run = providerToolRun(tool);
      if (run) runTools.push(tool.name);
      for (const field of Object.keys(tool.input.shape)) {
        if (!/_id$/.test(field)) continue;
        assert.equal(run?.field, field, `${tool.name}.${field} names a run no tenant check sees`);
      }
    }
  }
  assert.deepEqual(runTools.sort(), [...RUN_TOOLS].sort());
});

Deno.test("scopes: every tool declares one; clear_cache is the operator's, memory and web tools are per tenant", async () => {
  const config = parseConfig(EVERYTHING);
  const tools: AnyToolSpec[] = [
    ...TOOLS,
    ...DEEP_RESEARCH_TOOLS,
    ...await exportedTools(),
    webSearchTool(["brave"]),
    webAnswerTool(["exa"]),
    webContentsTool(["gleaner"]),
    routerSearchTool(["brave"]),
    searchAndSummarizeTool(config),
    ...providerToolSpecs(PROVIDERS),
  ];
  for (
    const presentation of ["default", "roles", "all_tools", "deep_research", "router"] as const
  ) {
    tools.push(...toolsFor(parseConfig({
      ...EVERYTHING,
      search: { ...EVERYTHING.search, presentation },
    })));
  }
  assert.ok(tools.length > 60, `${tools.length} tools`);
  const undeclared = [...new Set(tools.filter((t) => !valid(t.scope)).map((t) => t.name))];
  assert.deepEqual(undeclared, [], "these tools declare no valid scope");
  const expected: Record<string, string> = {
    clear_cache: "operator",
    search: "tenant",
    scrape_urls: "tenant",
    research: "tenant",
    crawl_site: "tenant",
    domain_stats: "tenant",
    search_and_summarize: "tenant",
    fetch: "tenant",
    web_search_tool: "tenant",
    web_contents_tool: "tenant",
    // A long-running answer's interaction_id is the tenant's own.
    web_answer_tool: "tenant",
    current_datetime: "shared",
  };
  // Provider tools that start or resume a long-running run: the run is the tenant's own.
  for (const name of RUN_TOOLS) expected[name] = "tenant";
  for (const tool of MEMORY_TOOLS) expected[tool.name] = "tenant";
  const providerTools = new Set(providerToolSpecs(PROVIDERS).map((t) => t.name));
  for (const tool of tools) {
    const want = expected[tool.name] ?? (providerTools.has(tool.name) ? "shared" : undefined);
    assert.ok(want, `${tool.name} has no expected scope in this test`);
    assert.equal(tool.scope, want, tool.name);
  }
});
