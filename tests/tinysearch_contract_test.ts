/**
 * TinySearch's Search service contract (2.0) over HTTP on loopback: `ListTools` declares the
 * same tools, with the same input schemas, as MCP's `tools/list`; `ExecuteTool` runs them and
 * answers the normalized shape; failures carry `tinysearch.<code>: ` messages.
 */
import { linkMcpClient } from "../testing/mcp_client.ts";
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "../mcp/server.ts";
import { createApp } from "../http/app.ts";
import { withFakeProviders } from "../testing/fixtures/fake_providers.ts";
import { serveLoopback } from "../testing/fixtures/serve.ts";

const PATH = "/ai/tinyhumans/tinysearch/Search";

Deno.test("tinysearch contract: ListTools and ExecuteTool over the same tool specs", async () => {
  await withFakeProviders(async (fakes) => {
    const gleaner = await createGleaner({
      embed: { provider: "none" },
      ...fakes.config({ exa: "ke", tavily: "kt" }, {
        presentation: "roles",
        search_order: ["exa", "tavily"],
        answer_order: ["exa", "tavily"],
      }),
    });
    const tools = toolsFor(gleaner.config);
    const http = serveLoopback((request) => createApp(gleaner, tools).fetch(request));
    const { client, close } = await linkMcpClient(createMcpServer(gleaner, tools));
    const bus = async (member: string, body: unknown[]) => {
      const res = await fetch(`${http.origin}${PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ member, body }),
      });
      return { status: res.status, json: await res.json() };
    };
    try {
      const listed = await bus("ListTools", []);
      assert.equal(listed.status, 200);
      assert.equal(listed.json.kind, "method_return");
      assert.equal(listed.json.contract_version, "2.0");
      const names = listed.json.body.tools.map((t: { name: string }) => t.name);
      assert.deepEqual(names, ["web_search_tool", "web_answer_tool", "web_contents_tool"]);
      // One definition feeds all: the same schemas MCP declares.
      const mcp = (await client.listTools()).tools as { name: string; inputSchema: unknown }[];
      for (const tool of listed.json.body.tools) {
        const twin = mcp.find((t) => t.name === tool.name)!;
        assert.deepEqual(
          tool.parameters.properties,
          (twin.inputSchema as { properties: unknown }).properties,
        );
      }

      const searched = await bus("ExecuteTool", [{
        name: "web_search_tool",
        arguments: { query: "wal mode", max_results: 2 },
      }]);
      assert.equal(searched.status, 200, JSON.stringify(searched.json));
      assert.equal(searched.json.body.status, "completed");
      assert.equal(searched.json.body.role, "search");
      assert.equal(searched.json.body.provider, "exa");
      assert.equal(searched.json.body.results.length, 2);
      assert.deepEqual(searched.json.body.fallback_from, []);

      fakes.setMode("exa", "balance");
      const answered = await bus("ExecuteTool", [{
        name: "web_answer_tool",
        arguments: { query: "what is wal" },
      }]);
      assert.equal(answered.json.body.provider, "tavily");
      assert.match(answered.json.body.answer, /what is wal/);
      assert.ok(Array.isArray(answered.json.body.citations));
      assert.equal(answered.json.body.fallback_from[0].code, "insufficient_balance");

      // Pinned to the provider out of credit: the classified code, as TinySearch words it.
      const pinned = await bus("ExecuteTool", [{
        name: "web_search_tool",
        arguments: { query: "pinned", provider: "exa" },
      }]);
      assert.equal(pinned.status, 402);
      assert.equal(pinned.json.kind, "error");
      assert.equal(pinned.json.error_name, "ai.tinyhumans.tinysearch.Search.Error.Failed");
      assert.match(pinned.json.body, /^tinysearch\.insufficient_balance: /);

      const invalid = await bus("ExecuteTool", [{ name: "web_search_tool", arguments: {} }]);
      assert.equal(invalid.status, 400);
      assert.match(invalid.json.body, /^tinysearch\.invalid_arguments: /);
      const unknown = await bus("ExecuteTool", [{ name: "exa_search", arguments: {} }]);
      assert.equal(unknown.json.error_name, "ai.tinyhumans.tinysearch.Search.Error.UnknownTool");
      const member = await bus("Ping", []);
      assert.equal(member.json.error_name, "ai.tinyhumans.tinybus.Error.UnknownMethod");
    } finally {
      await close();
      await http.close();
      await gleaner.close();
    }
  });
});
