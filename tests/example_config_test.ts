/**
 * The annotated example config (`gleaner.example.jsonc`) loads as the config file of a real
 * server, every value in it is the default except the ones its comments say differ
 * (`search.max_results`), and that operator default reaches REST: a search or `web_search_tool`
 * call without `max_results` gets `search.max_results` results, a call's own value wins.
 */
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { loadConfig } from "../lib/config/load.ts";
import { parseConfig } from "../lib/config/config.ts";
import { parseConfigText } from "../lib/config/jsonc.ts";
import { serveHttp } from "../http/serve.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";

const EXAMPLE = new URL("../gleaner.example.jsonc", import.meta.url).pathname;
/** The settings the example changes on purpose, as its comments say. */
const CHANGED = new Set(["search.max_results"]);

Deno.test("gleaner.example.jsonc loads; its values are the defaults but the ones it says it changes", async () => {
  const warnings: string[] = [];
  const config = await loadConfig({ file: EXAMPLE, env: {}, warn: (m) => warnings.push(m) });
  assert.deepEqual(warnings, []);
  assert.equal(config.search.max_results, 8);
  const defaults = parseConfig({}) as unknown as Record<string, Record<string, unknown>>;
  const file = parseConfigText(await Deno.readTextFile(EXAMPLE)) as Record<
    string,
    Record<string, unknown>
  >;
  let compared = 0;
  for (const [section, values] of Object.entries(file)) {
    for (const [key, value] of Object.entries(values)) {
      if (CHANGED.has(`${section}.${key}`)) continue;
      assert.deepEqual(value, defaults[section][key], `${section}.${key} is its default`);
      compared++;
    }
  }
  assert.ok(compared >= 15, `the example sets many settings (${compared})`);
});

Deno.test("search.max_results: the operator's default for calls without max_results, over REST", async () => {
  const world = await startTestWorld();
  world.fakes.setResults(
    Array.from({ length: 12 }, (_, i) => ({
      url: world.web.url(`/pages/p${i}`),
      title: `result ${i}`,
      snippet: "{query}",
    })),
  );
  const config = await loadConfig({ file: EXAMPLE, env: {}, overrides: world.config });
  const gleaner = await createGleaner({
    ...config,
    search: { ...config.search, max_results: 3 },
    server: { ...config.server, port: 0 },
  });
  const server = serveHttp(gleaner);
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 200);
    return await response.json();
  };
  try {
    const omitted = await post("/v1/search", { items: [{ query: "sqlite wal" }] });
    assert.equal(omitted.items[0].results.length, 3, "search.max_results when the call omits it");
    const given = await post("/v1/search", { items: [{ query: "sqlite wal", max_results: 5 }] });
    assert.equal(given.items[0].results.length, 5, "the call's own value wins");
    const tools = await (await fetch(`${server.url}/v1/tools`)).json();
    const search = tools.tools.find((tool: { name: string }) => tool.name === "search");
    assert.equal(
      search.input_schema.properties.items.items.properties.max_results.default,
      undefined,
    );
  } finally {
    await server.shutdown();
    await gleaner.close();
    await world.close();
  }
});
