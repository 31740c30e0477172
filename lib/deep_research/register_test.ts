/**
 * The toolkit end to end: a fresh SDK server (the high-level `McpServer` and
 * the low-level `Server`) with a toy catalogue, driven by the real SDK
 * `Client` over the SDK's in-memory transport, in both locales. The checks
 * are the contract's (https://platform.openai.com/docs/mcp): exactly `search`
 * and `fetch`, one compact JSON text block equal to `structuredContent`,
 * `{ results: [{ id, title, url }] }` and `{ id, title, text, url, metadata }`.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { GleanerError, toGleanerError } from "../errors.ts";
import { ToolServer } from "../../mcp/tool_server.ts";
import { contractJsonSchemas, type FetchDocument } from "./contract.ts";
import type { ContractLocale } from "./messages.ts";
import { createIndex, type IndexEntry } from "./rank.ts";
import {
  createDeepResearchHandlers,
  type DeepResearchToolsOptions,
  registerDeepResearchTools,
} from "./register.ts";

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  isError?: boolean;
};

/** A toy catalogue: 14 population tables, one price table, one that throws, one without URL. */
const ENTRIES: IndexEntry[] = [
  ...Array.from({ length: 14 }, (_, i) => ({
    id: `pop:${i + 1}`,
    title: `Resident population table ${i + 1}`,
    url: `https://stats.example.org/tables/pop-${i + 1}`,
    keywords: ["população", "population"],
  })),
  { id: "cpi", title: "Consumer price index", url: "https://stats.example.org/tables/cpi" },
];

interface Recorded {
  kind: string;
  name: string;
}

function toyOptions(locale: ContractLocale, recorded: Recorded[]): DeepResearchToolsOptions {
  // The index returns everything that matches; the toolkit cuts at `limit`.
  const index = createIndex(ENTRIES, { locale });
  return {
    corpus: "the example statistics catalogue",
    richTools: "the `stats_*` tools",
    locale,
    limit: 5,
    search: (query) => {
      if (query === "boom") throw new Error("upstream said: token=s3cr3t");
      if (query === "refused") {
        throw new GleanerError("rate_limited", "stats.example.org: too many requests");
      }
      return {
        results: index.search(query, { limit: 100 }),
        extras: { structured: { provenance: { source: "toy" } }, meta: { "toy/source": "index" } },
      };
    },
    fetch: (id) => {
      if (id === "broken") throw new Error("disk on fire");
      if (id === "nourl") {
        return { document: { id, title: "No URL", text: "…", url: "" } as FetchDocument };
      }
      const entry = ENTRIES.find((e) => e.id === id);
      if (!entry) return null;
      return {
        document: {
          id,
          title: entry.title,
          text: `# ${entry.title}\n\nRows and columns.`,
          url: entry.url,
          metadata: { kind: "table" },
        },
        extras: { structured: { id: "overridden?", retrieved_at: "2026-12-01T00:00:00Z" } },
      };
    },
    record: (kind, name) => recorded.push({ kind, name }),
  };
}

/** The contract's shape check, applied to every successful result. */
function assertContract(result: ToolResult, keys: string[]): Record<string, unknown> {
  assert.ok(!result.isError, result.content[0]?.text);
  assert.equal(result.content.length, 1, "exactly one content item");
  assert.equal(result.content[0].type, "text");
  assert.ok(!result.content[0].text.includes("\n"), "compact JSON");
  const fromText = JSON.parse(result.content[0].text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(fromText).sort(), [...keys].sort(), "text holds the contract only");
  for (const key of keys) {
    assert.deepEqual(result.structuredContent?.[key], fromText[key], `structuredContent.${key}`);
  }
  return fromText;
}

async function connect(server: McpServer | Server | ToolServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide as Transport);
  const client = new Client({ name: "deep-research-toolkit-test", version: "1.0.0" });
  await client.connect(clientSide as Transport);
  return client;
}

const MESSAGES = {
  en: {
    title: "Deep Research search",
    notFound: 'Document not found: "pop:99". Use an id returned by search.',
    thrown: "search failed unexpectedly; try again later.",
    refused: "search failed: rate_limited: stats.example.org: too many requests",
    noUrl: 'The document "nourl" has no URL to cite.',
    unknownKey: /Unrecognized key: "max_tokens"/,
  },
  "pt-BR": {
    title: "Busca para Deep Research",
    notFound: 'Documento não encontrado: "pop:99". Use um id devolvido por search.',
    thrown: "Falha inesperada em search; tente de novo mais tarde.",
    refused: "Falha em search: rate_limited: stats.example.org: too many requests",
    noUrl: 'O documento "nourl" não tem URL para citar.',
    unknownKey: /Chave não reconhecida: "max_tokens"/,
  },
} as const;

for (const kind of ["McpServer", "Server"] as const) {
  for (const locale of ["en", "pt-BR"] as const) {
    Deno.test(`register on the SDK's ${kind} (${locale}): the contract end to end`, async () => {
      const recorded: Recorded[] = [];
      const server = kind === "McpServer"
        ? new McpServer({ name: "toy", version: "1.0.0" })
        : new Server({ name: "toy", version: "1.0.0" }, { capabilities: { tools: {} } });
      registerDeepResearchTools(server, toyOptions(locale, recorded));
      const client = await connect(server);
      const text = MESSAGES[locale];
      try {
        // tools/list: exactly search and fetch, with the draft-07 schemas.
        const { tools } = await client.listTools() as { tools: Tool[] };
        assert.deepEqual(tools.map((t) => t.name), ["search", "fetch"]);
        const json = contractJsonSchemas(locale);
        for (const tool of tools) {
          assert.equal(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
          const input = { ...tool.inputSchema } as Record<string, unknown>;
          const output = { ...tool.outputSchema } as Record<string, unknown>;
          for (const schema of [input, output]) {
            if ("$schema" in schema) {
              assert.equal(schema.$schema, "http://json-schema.org/draft-07/schema#");
              delete schema.$schema;
            }
            assert.ok(!JSON.stringify(schema).includes('"$ref"'));
          }
          assert.equal(input.additionalProperties, false, `${tool.name} refuses unknown keys`);
          assert.deepEqual(
            input,
            tool.name === "search" ? json.searchInputSchema : json.fetchInputSchema,
          );
          assert.deepEqual(
            output,
            tool.name === "search" ? json.searchOutputSchema : json.fetchDocumentSchema,
          );
          assert.match(tool.description ?? "", /Deep Research contract/, "English for the model");
          assert.match(tool.description ?? "", /the example statistics catalogue/);
        }
        assert.equal(tools[0].title, text.title);

        // search: { results: [{ id, title, url }] }, cut at the limit, extras beside.
        const found = await client.callTool({
          name: "search",
          arguments: { query: "População residente" },
        }) as ToolResult;
        const out = assertContract(found, ["results"]) as {
          results: { id: string; title: string; url: string }[];
        };
        assert.equal(out.results.length, 5, "cut at limit 5 though the index gave 14");
        assert.deepEqual(out.results.map((r) => r.id), [
          "pop:1",
          "pop:2",
          "pop:3",
          "pop:4",
          "pop:5",
        ]);
        for (const r of out.results) {
          assert.deepEqual(Object.keys(r).sort(), ["id", "title", "url"]);
          assert.ok(r.url.startsWith("https://stats.example.org/"));
        }
        assert.deepEqual(found.structuredContent?.provenance, { source: "toy" });
        assert.deepEqual(found._meta, { "toy/source": "index" });

        const none = await client.callTool({ name: "search", arguments: { query: "  " } });
        assert.deepEqual(assertContract(none as ToolResult, ["results"]), { results: [] });
        const unmatched = await client.callTool({ name: "search", arguments: { query: "zebra" } });
        assert.deepEqual(assertContract(unmatched as ToolResult, ["results"]), { results: [] });

        // fetch: { id, title, text, url, metadata }; the contract's keys win over extras.
        const fetched = await client.callTool({
          name: "fetch",
          arguments: { id: "cpi" },
        }) as ToolResult;
        const doc = assertContract(fetched, ["id", "title", "text", "url", "metadata"]);
        assert.deepEqual(doc, {
          id: "cpi",
          title: "Consumer price index",
          text: "# Consumer price index\n\nRows and columns.",
          url: "https://stats.example.org/tables/cpi",
          metadata: { kind: "table" },
        });
        assert.equal(fetched.structuredContent?.id, "cpi");
        assert.equal(fetched.structuredContent?.retrieved_at, "2026-12-01T00:00:00Z");

        // Failures: isError results with the message in the locale.
        const unknown = await client.callTool({ name: "fetch", arguments: { id: "pop:99" } });
        assert.equal(unknown.isError, true);
        assert.deepEqual((unknown as ToolResult).content, [{ type: "text", text: text.notFound }]);
        const thrown = await client.callTool({ name: "search", arguments: { query: "boom" } });
        assert.equal(thrown.isError, true);
        assert.equal((thrown as ToolResult).content[0].text, text.thrown);
        assert.ok(!JSON.stringify(thrown).includes("s3cr3t"), "an unknown error is not echoed");
        const refused = await client.callTool({ name: "search", arguments: { query: "refused" } });
        assert.equal(refused.isError, true);
        assert.equal((refused as ToolResult).content[0].text, text.refused);
        const noUrl = await client.callTool({ name: "fetch", arguments: { id: "nourl" } });
        assert.equal(noUrl.isError, true);
        assert.equal((noUrl as ToolResult).content[0].text, text.noUrl);

        // A key outside the contract is refused, naming it; nothing runs.
        const calls = recorded.length;
        const extra = await client.callTool({
          name: "fetch",
          arguments: { id: "cpi", max_tokens: 10 },
        }) as ToolResult;
        assert.equal(extra.isError, true);
        assert.match(extra.content[0].text, text.unknownKey);
        assert.match(extra.content[0].text, /\bfetch\b/);
        assert.equal(recorded.length, calls, "a refused call never reached the tool");

        // The usage recorder: tool_call for each call, tool_error for each failure.
        assert.deepEqual(recorded, [
          { kind: "tool_call", name: "search" },
          { kind: "tool_call", name: "search" },
          { kind: "tool_call", name: "search" },
          { kind: "tool_call", name: "fetch" },
          { kind: "tool_call", name: "fetch" },
          { kind: "tool_error", name: "fetch" },
          { kind: "tool_call", name: "search" },
          { kind: "tool_error", name: "search" },
          { kind: "tool_call", name: "search" },
          { kind: "tool_error", name: "search" },
          { kind: "tool_call", name: "fetch" },
          { kind: "tool_error", name: "fetch" },
        ]);
      } finally {
        await client.close();
        await server.close();
      }
    });
  }
}

Deno.test("register: bad results are left out, one at a time; titles default to the URL", async () => {
  const handlers = createDeepResearchHandlers({
    corpus: "a catalogue",
    search: () =>
      [
        { id: "a", title: "A", url: "https://example.org/a", text: "not in the contract" },
        { id: "", title: "no id", url: "https://example.org/x" },
        { id: "b", title: "B", url: "" },
        null,
        { id: "a", title: "A again", url: "https://example.org/a2" },
        { id: "c", title: "", url: "https://example.org/c" },
      ] as never,
    fetch: () => null,
  });
  const out = await handlers.call("search", { query: "anything" });
  assert.deepEqual(out.structuredContent, {
    results: [
      { id: "a", title: "A", url: "https://example.org/a" },
      { id: "c", title: "https://example.org/c", url: "https://example.org/c" },
    ],
  });
});

Deno.test("register: extendOutputSchema publishes the provenance block and the SDK client accepts it", async () => {
  const provenance = z.object({ source: z.string(), retrieved_at: z.string() });
  const server = new McpServer({ name: "toy", version: "1.0.0" });
  registerDeepResearchTools(server, {
    corpus: "a catalogue",
    search: () => ({
      results: [{ id: "a", title: "A", url: "https://example.org/a" }],
      extras: { structured: { provenance: { source: "toy", retrieved_at: "now" } } },
    }),
    fetch: () => null,
    extendOutputSchema: (schema) => schema.extend({ provenance }),
  });
  const client = await connect(server);
  try {
    const { tools } = await client.listTools() as { tools: Tool[] };
    const search = tools.find((t) => t.name === "search")!;
    const props = search.outputSchema?.properties as Record<string, unknown>;
    assert.ok("provenance" in props && "results" in props);
    assert.deepEqual(search.outputSchema?.required, ["results", "provenance"]);
    const found = await client.callTool({ name: "search", arguments: { query: "a" } });
    assert.ok(!found.isError, JSON.stringify(found));
    const blank = await client.callTool({ name: "search", arguments: { query: " " } });
    assert.ok(!blank.isError, "a blank query still carries the required extras");
    assert.deepEqual(found.structuredContent, {
      provenance: { source: "toy", retrieved_at: "now" },
      results: [{ id: "a", title: "A", url: "https://example.org/a" }],
    });
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("register: bad options are refused naming the field", () => {
  const base = { corpus: "c", search: () => [], fetch: () => null };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...base, limit: 0 }, "limit"],
    [{ ...base, limit: 2.5 }, "limit"],
    [{ ...base, limit: 5_000 }, "limit"],
    [{ ...base, corpus: " " }, "corpus"],
    [{ ...base, search: "x" }, "search"],
    [{ ...base, locale: "fr" }, "locale"],
  ];
  for (const [options, field] of cases) {
    assert.throws(
      () => createDeepResearchHandlers(options as unknown as DeepResearchToolsOptions),
      (e: unknown) =>
        e instanceof GleanerError && e.code === "invalid_arguments" &&
        e.message.includes(field),
      field,
    );
  }
});

Deno.test("register on Gleaner's ToolServer (what /mcp/deep-research runs on), errors as code: message", async () => {
  const server = new ToolServer({ name: "gleaner", version: "0" }, { capabilities: { tools: {} } });
  registerDeepResearchTools(server, {
    corpus: "the web and the agent's memories",
    annotations: { readOnlyHint: true, openWorldHint: true },
    search: () => [{ id: "https://example.org/", title: "Example", url: "https://example.org/" }],
    fetch: (id) => {
      throw new GleanerError("invalid_arguments", `id: not an id from search: ${id}`);
    },
    onError: (error, tool) => {
      const e = toGleanerError(error, tool);
      return `${e.code}: ${e.message}`;
    },
  });
  const client = await connect(server);
  try {
    const { tools } = await client.listTools() as { tools: Tool[] };
    assert.deepEqual(tools.map((t) => t.name), ["search", "fetch"]);
    assert.equal(tools[0].annotations?.openWorldHint, true);
    const found = await client.callTool({ name: "search", arguments: { query: "example" } });
    assert.deepEqual(assertContract(found as ToolResult, ["results"]), {
      results: [{ id: "https://example.org/", title: "Example", url: "https://example.org/" }],
    });
    const bad = await client.callTool({ name: "fetch", arguments: { id: "doc-1" } }) as ToolResult;
    assert.equal(bad.isError, true);
    assert.equal(bad.content[0].text, "invalid_arguments: id: not an id from search: doc-1");
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("register: titles, notFound and onError override the locale's defaults; long ids are clipped", async () => {
  const handlers = createDeepResearchHandlers({
    corpus: "a catalogue",
    locale: "pt-BR",
    titles: { search: "Buscar tabelas" },
    notFound: (id) => `sem ${id}`,
    onError: (_error, tool) => `quebrou: ${tool}`,
    search: () => {
      throw new Error("x");
    },
    fetch: () => null,
  });
  assert.equal(handlers.tools[0].title, "Buscar tabelas");
  assert.equal(handlers.tools[1].title, "Documento para Deep Research");
  const missing = await handlers.call("fetch", { id: "t9" });
  assert.deepEqual(missing.content, [{ type: "text", text: "sem t9" }]);
  const thrown = await handlers.call("search", { query: "q" });
  assert.deepEqual(thrown.content, [{ type: "text", text: "quebrou: search" }]);
  const plain = createDeepResearchHandlers({ corpus: "c", search: () => [], fetch: () => null });
  const long = await plain.call("fetch", { id: "x".repeat(4_000) });
  assert.ok((long.content[0] as { text: string }).text.length < 300, "the id is clipped");
  const unknown = await plain.call("delete", {});
  assert.equal(unknown.isError, true);
  assert.match((unknown.content[0] as { text: string }).text, /Tool desconhecida: "delete"/);
});

Deno.test("register: without a locale the surface is pt-BR and createIndex drops pt-BR stop-words; locale en switches", async () => {
  const entries: IndexEntry[] = [
    { id: "a", title: "Taxa de desocupação", url: "https://example.org/a" },
    { id: "b", title: "Para onde vai a renda", url: "https://example.org/b" },
  ];
  // "para" and "de" are Portuguese stop-words: only "desocupacao" is searched for.
  const index = createIndex(entries);
  assert.deepEqual(index.search("para de desocupação").map((r) => r.id), ["a"]);
  assert.deepEqual(
    createIndex(entries, { locale: "en" }).search("para de desocupação").map((r) => r.id),
    ["a", "b"],
  );
  for (const locale of [undefined, "en"] as const) {
    const server = new McpServer({ name: "toy", version: "1.0.0" });
    registerDeepResearchTools(server, {
      corpus: "a catalogue",
      search: (query) => index.search(query),
      fetch: () => null,
      ...(locale ? { locale } : {}),
    });
    const client = await connect(server);
    try {
      const { tools } = await client.listTools() as { tools: Tool[] };
      const text = MESSAGES[locale ?? "pt-BR"];
      assert.equal(tools[0].title, text.title);
      assert.deepEqual(
        tools[0].inputSchema.properties,
        contractJsonSchemas(locale).searchInputSchema.properties,
      );
      const missing = await client.callTool({ name: "fetch", arguments: { id: "pop:99" } });
      assert.equal(missing.isError, true);
      assert.deepEqual(missing.content, [{ type: "text", text: text.notFound }]);
    } finally {
      await client.close();
    }
  }
});
