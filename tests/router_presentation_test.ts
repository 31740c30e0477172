/**
 * The `router` presentation end to end: the real MCP SDK Client over an
 * in-memory transport and the HTTP API, against fake providers on loopback.
 * One `search` tool; `provider` picks the one provider that answers, the
 * search role's first usable provider by default.
 */
import { linkMcpClient } from "../testing/mcp_client.ts";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createGleaner } from "../mod.ts";
import type { ConfigInput } from "../lib/config/config.ts";
import { parseConfig } from "../lib/config/config.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { GleanerError } from "../lib/errors.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "../mcp/server.ts";
import { createApp } from "../http/app.ts";
import { type FakeProviders, withFakeProviders } from "../testing/fixtures/fake_providers.ts";
import { KEYLESS_ENGINES } from "../lib/search/providers/registry.ts";

type ListedTool = {
  name: string;
  inputSchema: { properties?: Record<string, { enum?: string[] }>; required?: string[] };
};

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: {
    provider: string;
    role: string;
    fallback_from: unknown[];
    results: { url: string; source: string }[];
  };
  isError?: boolean;
};

async function withRouter(
  fakes: FakeProviders,
  search: Record<string, unknown>,
  fn: (client: Client, gleaner: Gleaner) => Promise<void>,
): Promise<void> {
  const input: ConfigInput = fakes.config({ brave: "kb", exa: "ke" }, {
    presentation: "router",
    ...search,
  });
  const gleaner = await createGleaner({ embed: { provider: "none" }, ...input });
  const { client, close } = await linkMcpClient(createMcpServer(gleaner, toolsFor(gleaner.config)));
  try {
    await fn(client, gleaner);
  } finally {
    await close();
    await gleaner.close();
  }
}

Deno.test("router: MCP lists one search tool whose provider enum is the usable search providers", async () => {
  await withFakeProviders(async (fakes) => {
    await withRouter(fakes, {}, async (client, gleaner) => {
      assert.equal(gleaner.config.memory.enabled, true, "memory on, as by default");
      const tools = (await client.listTools()).tools as ListedTool[];
      assert.deepEqual(tools.map((t) => t.name), ["search"]);
      const props = tools[0].inputSchema.properties!;
      assert.deepEqual(props.provider.enum, ["brave", "exa", ...KEYLESS_ENGINES]);
      for (const field of ["query", "max_results", "domains", "time_range", "language", "depth"]) {
        assert.ok(props[field], `the search role's ${field}`);
      }
      assert.deepEqual(tools[0].inputSchema.required, ["query"]);
    });
    // A configured search_order is the order of the enum and its first entry the default.
    const tools = toolsFor(parseConfig(fakes.config({ brave: "kb", exa: "ke" }, {
      presentation: "router",
      search_order: ["exa", "brave"],
    })));
    assert.deepEqual(tools.map((t) => t.name), ["search"]);
    assert.match(tools[0].description, /\(exa, brave; default exa\)/);
  });
});

Deno.test("router: provider omitted asks the first usable provider, provider named asks that one", async () => {
  await withFakeProviders(async (fakes) => {
    await withRouter(fakes, {}, async (client) => {
      const first = await client.callTool({
        name: "search",
        arguments: { query: "sqlite wal", max_results: 2 },
      }) as ToolResult;
      assert.ok(!first.isError, first.content[0]?.text);
      assert.equal(first.structuredContent!.provider, "brave");
      assert.equal(first.structuredContent!.role, "search");
      assert.equal(first.structuredContent!.results.length, 2);
      assert.equal(fakes.requestsOf("brave").length, 1);
      assert.equal(fakes.requestsOf("brave")[0].path, "/res/v1/web/search");
      assert.equal(fakes.requestsOf("exa").length, 0);
      assert.match(first.content[0].text, /\(via brave\)/);

      const named = await client.callTool({
        name: "search",
        arguments: { query: "sqlite wal", max_results: 2, provider: "exa", depth: "deep" },
      }) as ToolResult;
      assert.ok(!named.isError, named.content[0]?.text);
      assert.equal(named.structuredContent!.provider, "exa");
      assert.deepEqual(named.structuredContent!.results.map((r) => r.source), ["exa", "exa"]);
      assert.equal(fakes.requestsOf("brave").length, 1, "brave not asked again");
      const [exa] = fakes.requestsOf("exa");
      assert.equal(exa.path, "/search");
      assert.equal((exa.body as { type: string }).type, "deep", "depth reaches Exa's deep search");

      // The search role's normalisation: domains become a site: hint for Brave, hits are checked.
      const scoped = await client.callTool({
        name: "search",
        arguments: { query: "wal", provider: "brave", domains: ["https://SQLite.org/"] },
      }) as ToolResult;
      assert.ok(!scoped.isError, scoped.content[0]?.text);
      assert.match(fakes.requestsOf("brave")[1].query.q, /^wal site:sqlite\.org$/);
      assert.deepEqual(scoped.structuredContent!.results.map((r) => r.url), [
        "https://sqlite.org/wal.html",
      ]);
    });
  });
});

Deno.test("router: no fallback; an unknown or unusable provider is refused naming provider and the usable ones", async () => {
  await withFakeProviders(async (fakes) => {
    await withRouter(fakes, {}, async (client, gleaner) => {
      fakes.setMode("brave", "ratelimit");
      const limited = await client.callTool({
        name: "search",
        arguments: { query: "sqlite wal" },
      }) as ToolResult;
      assert.ok(limited.isError);
      assert.match(limited.content[0].text, /^rate_limited: brave/);
      assert.equal(fakes.requestsOf("exa").length, 0, "the default provider alone answers");
      fakes.setMode("brave", "ok");

      for (const provider of ["tavily", "nope"]) {
        const refused = await client.callTool({
          name: "search",
          arguments: { query: "x", provider },
        }) as ToolResult;
        assert.ok(refused.isError, provider);
        assert.equal(
          refused.content[0].text,
          `invalid_arguments: search: provider: "${provider}" is not a usable search provider; usable: brave, exa, ${
            KEYLESS_ENGINES.join(", ")
          }`,
        );
      }
      assert.equal(fakes.requestsOf("brave").length, 1, "nothing sent for a refused provider");

      // A tool built for another configuration, run by this Gleaner: checked again at call time.
      const [foreign] = toolsFor(parseConfig(fakes.config({ tavily: "kt" }, {
        presentation: "router",
      })));
      const error = await foreign.handler({ query: "x", max_results: 2, provider: "tavily" }, {
        gleaner,
      }).catch((e: unknown) => e);
      assert.ok(error instanceof GleanerError && error.code === "invalid_arguments");
      assert.equal(error.details?.field, "provider");
      assert.deepEqual(error.details?.usable, ["brave", "exa", ...KEYLESS_ENGINES]);
    });
  });
});

Deno.test("router: HTTP declares and runs the same search tool", async () => {
  await withFakeProviders(async (fakes) => {
    await withRouter(fakes, {}, async (_client, gleaner) => {
      const app = createApp(gleaner, toolsFor(gleaner.config));
      const listing = await (await app.request("http://localhost/v1/tools")).json();
      assert.deepEqual(
        listing.tools.map((t: { name: string; path: string }) => [t.name, t.path]),
        [["search", "/v1/tools/search"]],
      );
      const res = await app.request("http://localhost/v1/tools/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "sqlite wal", max_results: 1, provider: "exa" }),
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.provider, "exa");
      assert.equal(body.results.length, 1);
      const bad = await app.request("http://localhost/v1/tools/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "x", provider: "jina" }),
      });
      assert.equal(bad.status, 400);
      assert.match((await bad.json()).error.message, /provider: "jina" is not a usable/);
    });
  });
});
