import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { MEMORY_TOOLS, TOOLS } from "./mod.ts";
import { toolsFor } from "./presentations.ts";

Deno.test("default presentation: every tool with memory on, no memory tool with it off", () => {
  const on = toolsFor(parseConfig({})).map((t) => t.name);
  assert.deepEqual(on, TOOLS.map((t) => t.name));
  const off = toolsFor(parseConfig({ memory: { enabled: false } })).map((t) => t.name);
  const memory = MEMORY_TOOLS.map((t) => t.name);
  assert.deepEqual(memory.filter((name) => off.includes(name)), []);
  assert.deepEqual(off, on.filter((name) => !memory.includes(name)));
  assert.ok(off.includes("search") && off.includes("scrape_urls"));
});

Deno.test("MEMORY_TOOLS are the tools under /v1/memories", () => {
  const byPath = TOOLS.filter((t) => t.http?.path.startsWith("/v1/memories/")).map((t) => t.name);
  assert.deepEqual(MEMORY_TOOLS.map((t) => t.name).sort(), byPath.sort());
});

Deno.test("router presentation: one search tool, memory tools or not, with the usable search providers", () => {
  for (const enabled of [true, false]) {
    const tools = toolsFor(parseConfig({
      memory: { enabled },
      search: { presentation: "router", exa_api_key: "k" },
    }));
    assert.deepEqual(tools.map((t) => t.name), ["search"]);
    assert.ok(tools[0].input.safeParse({ query: "x", provider: "exa" }).success);
    assert.ok(tools[0].input.safeParse({ query: "x", provider: "duckduckgo" }).success);
    assert.ok(!tools[0].input.safeParse({ query: "x", provider: "tavily" }).success);
  }
});

Deno.test("provider tools: keyless Jina offers its reader, not the search it would be refused", () => {
  const names = (search: Record<string, unknown>) =>
    toolsFor(parseConfig({ search: { presentation: "all_tools", ...search } })).map((t) => t.name);
  const keyless = names({ providers: { jina: { enabled: true } } });
  assert.ok(keyless.includes("jina_read"));
  assert.ok(!keyless.includes("jina_search"));
  assert.ok(names({ jina_api_key: "k" }).includes("jina_search"), "a key brings search back");
  const one = toolsFor(parseConfig({
    search: {
      presentation: "one_provider",
      presentation_provider: "jina",
      providers: { jina: { enabled: true } },
    },
  })).map((t) => t.name);
  assert.deepEqual(one, ["jina_read"]);
});
