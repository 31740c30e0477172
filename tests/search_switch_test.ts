/**
 * `search.enabled: false` turns web search off for a deployment: the tools that search are not
 * declared (MCP, REST's tool list), their REST paths answer `search_disabled`, the library's
 * role router refuses `search` and `answer` with it, and reading pages still works.
 */
import { linkMcpClient } from "../testing/mcp_client.ts";
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { GleanerError } from "../lib/errors.ts";
import { parseConfig } from "../lib/config/config.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "../mcp/server.ts";
import { createApp } from "../http/app.ts";
import { withFakeProviders } from "../testing/fixtures/fake_providers.ts";
import { serveLoopback } from "../testing/fixtures/serve.ts";

Deno.test("search switch: off, the searching tools are not declared and answer search_disabled", async () => {
  await withFakeProviders(async (fakes) => {
    const gleaner = await createGleaner({
      embed: { provider: "none" },
      ...fakes.config({ exa: "ke" }, { enabled: false }),
    });
    const tools = toolsFor(gleaner.config);
    const { client, close } = await linkMcpClient(createMcpServer(gleaner, tools));
    const http = serveLoopback((request) => createApp(gleaner, tools).fetch(request));
    try {
      const names = (await client.listTools()).tools.map((t: { name: string }) => t.name);
      for (const name of ["search", "research"]) assert.ok(!names.includes(name), name);
      assert.ok(names.includes("scrape_urls"), "reading pages stays");

      // REST: the search tool's own path and its /v1/tools path answer the stable code.
      for (const path of ["/v1/search", "/v1/tools/search", "/v1/tools/research"]) {
        const res = await fetch(`${http.origin}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ items: [{ query: "wal" }] }),
        });
        assert.equal(res.status, 403, path);
        const body = await res.json();
        assert.equal(body.error.code, "search_disabled", path);
        assert.match(body.error.message, /search\.enabled/);
      }
      const listed = await (await fetch(`${http.origin}/v1/tools`)).json();
      assert.ok(!listed.tools.some((t: { name: string }) => t.name === "search"));

      // The library: the role router refuses search and answer; nothing reaches a provider.
      for (
        const call of [
          () => gleaner.roles.search({ query: "wal", max_results: 3 }),
          () => gleaner.roles.answer({ query: "wal" }),
        ]
      ) {
        const error = await call().then(() => assert.fail("expected a failure"), (e) => e);
        assert.ok(error instanceof GleanerError);
        assert.equal(error.code, "search_disabled");
      }
      assert.equal(fakes.requestsOf("exa").length, 0);
      // Reading pages through a provider still works.
      const read = await gleaner.roles.contents({ urls: ["https://a.example/"], provider: "exa" });
      assert.match(read.pages[0].content, /read by exa/);
    } finally {
      await http.close();
      await close();
      await gleaner.close();
    }
  });
});

Deno.test("search switch: every presentation leaves out what searches and keeps what reads", () => {
  const base = { exa_api_key: "ke", enabled: false } as const;
  const names = (search: Record<string, unknown>) =>
    toolsFor(parseConfig({ search: { ...base, ...search } })).map((t) => t.name);
  assert.deepEqual(names({ presentation: "roles" }), ["web_contents_tool"]);
  const all = names({ presentation: "all_tools" });
  assert.ok(all.length > 0 && all.every((name) => !/_search$|_answer$/.test(name)), all.join());
  assert.deepEqual(names({ presentation: "router" }), []);
  // On by default.
  assert.ok(toolsFor(parseConfig({})).some((t) => t.name === "search"));
});
