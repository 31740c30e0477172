/**
 * The Deep Research presentation, driven by the real MCP SDK client over
 * Streamable HTTP at `/mcp/deep-research`, against the loopback world.
 */
import { connectAs, hostedMemory, userHeaders } from "../testing/hosted.ts";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { normalizeText, startTestWorld } from "../testing/fixtures/world.ts";

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** The contract's shape check, applied to every result. */
function assertContract(result: ToolResult, keys: string[]): Record<string, unknown> {
  assert.ok(!result.isError, result.content[0]?.text);
  assert.equal(result.content.length, 1, "exactly one content item");
  assert.equal(result.content[0].type, "text");
  const fromText = JSON.parse(result.content[0].text) as Record<string, unknown>;
  assert.deepEqual(fromText, result.structuredContent, "text is the object as JSON");
  assert.ok(!result.content[0].text.includes("\n"), "compact JSON");
  for (const key of keys) assert.ok(key in fromText, `has ${key}`);
  return fromText;
}

Deno.test("Deep Research presentation: exactly search and fetch, contract shapes, strict input", async () => {
  const world = await startTestWorld();
  const gleaner = await createGleaner({
    ...world.config,
    server: { port: 0 },
    memory: { path: ":memory:" },
  });
  const saved = await (await gleaner.memories()).save({
    memories: [{
      content: "The team streams large fetch api responses through a TransformStream.",
    }],
  });
  const ref = saved.results[0].ref!;
  const server = serveHttp(gleaner);
  const client = new Client({ name: "deep-research-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/deep-research`)) as Transport,
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t: { name: string }) => t.name).sort(), ["fetch", "search"]);
    assert.equal(
      client.getServerCapabilities()?.resources,
      undefined,
      "memories are not resources of a Deep Research client unless memory.deep_research is on",
    );
    for (const tool of tools) {
      assert.equal(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
      assert.equal(
        (tool.inputSchema as { additionalProperties?: unknown }).additionalProperties,
        false,
        `${tool.name} refuses unknown keys`,
      );
    }

    const found = await client.callTool({
      name: "search",
      arguments: { query: "fetch api streams" },
    }) as ToolResult;
    const out = assertContract(found, ["results"]) as {
      results: { id: string; title: string; url: string }[];
    };
    assert.ok(out.results.length > 0 && out.results.length <= 10);
    for (const r of out.results) {
      assert.deepEqual(Object.keys(r).sort(), ["id", "title", "url"]);
      assert.ok(r.url.length > 0 && r.id.length > 0);
    }
    // Off by default: a Deep Research client is a third party and sees no stored memory.
    assert.ok(
      out.results.every((r) => !r.id.startsWith("memory:") && !r.url.startsWith("gleaner:")),
      "no memory among the results by default",
    );
    assert.ok(!found.content[0].text.includes("TransformStream"));
    assert.ok(out.results.some((r) => r.url === world.web.url("/pages/mozilla-1")));
    for (const tool of tools) assert.doesNotMatch(tool.description ?? "", /memor/i);

    // fetch of the saved memory's id answers exactly as for an id that names nothing.
    const hidden = await client.callTool({
      name: "fetch",
      arguments: { id: `memory:${ref}` },
    }) as ToolResult;
    const unknown = await client.callTool({
      name: "fetch",
      arguments: { id: "memory:zzzzzzzz" },
    }) as ToolResult;
    assert.equal(hidden.isError, true);
    assert.equal(unknown.isError, true);
    assert.match(hidden.content[0].text, /^not_found: /);
    assert.ok(!hidden.content[0].text.includes("TransformStream"));
    assert.equal(
      hidden.content[0].text.replace(ref, "REF"),
      unknown.content[0].text.replace("zzzzzzzz", "REF"),
      "a stored memory's id is indistinguishable from an unknown one",
    );

    const empty = await client.callTool({
      name: "search",
      arguments: { query: "  " },
    }) as ToolResult;
    assert.deepEqual(assertContract(empty, ["results"]), { results: [] });

    const pageUrl = world.web.url("/pages/002");
    const fetched = await client.callTool({
      name: "fetch",
      arguments: { id: pageUrl },
    }) as ToolResult;
    const doc = assertContract(fetched, ["id", "title", "text", "url"]) as {
      id: string;
      text: string;
      url: string;
      title: string;
    };
    assert.equal(doc.id, pageUrl);
    assert.equal(doc.url, pageUrl);
    assert.ok(doc.title.length > 0);
    assert.ok(
      normalizeText(doc.text).includes(
        normalizeText("Both interfaces have a boolean attribute bodyUsed"),
      ),
      "the whole page text is returned",
    );

    const unknownKey = await client.callTool({
      name: "fetch",
      arguments: { id: pageUrl, max_tokens: 10 },
    }) as ToolResult;
    assert.equal(unknownKey.isError, true);
    assert.match(unknownKey.content[0].text, /max_tokens/);

    const notAnId = await client.callTool({
      name: "fetch",
      arguments: { id: "doc-1" },
    }) as ToolResult;
    assert.equal(notAnId.isError, true);
    assert.match(notAnId.content[0].text, /^invalid_arguments/);

    const blocked = await client.callTool({
      name: "fetch",
      arguments: { id: "http://169.254.169.254/latest/meta-data/" },
    }) as ToolResult;
    assert.equal(blocked.isError, true);
    assert.match(blocked.content[0].text, /^blocked_url/);

    // The default endpoint keeps Gleaner's own tools.
    const own = new Client({ name: "own-tools", version: "1.0.0" });
    await own.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport);
    const ownTools = (await own.listTools()).tools.map((t: { name: string }) => t.name);
    await own.close();
    assert.ok(ownTools.includes("scrape_urls") && !ownTools.includes("fetch"));
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
    await world.close();
  }
});

Deno.test("Deep Research: memory.deep_research on lets stored memories lead the results", async () => {
  const world = await startTestWorld();
  const gleaner = await createGleaner({
    ...world.config,
    server: { port: 0 },
    memory: { path: ":memory:", deep_research: true },
  });
  const saved = await (await gleaner.memories()).save({
    memories: [{
      content: "The team streams large fetch api responses through a TransformStream.",
    }],
  });
  const ref = saved.results[0].ref!;
  const server = serveHttp(gleaner);
  const client = new Client({ name: "deep-research-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/deep-research`)) as Transport,
    );
    const found = await client.callTool({
      name: "search",
      arguments: { query: "fetch api streams" },
    }) as ToolResult;
    const out = assertContract(found, ["results"]) as {
      results: { id: string; title: string; url: string }[];
    };
    assert.deepEqual(out.results[0], {
      id: `memory:${ref}`,
      title: "The team streams large fetch api responses through a TransformStream.",
      url: `gleaner://memory/${ref}`,
    }, "corpus = memories + web");
    assert.ok(out.results.some((r) => r.url === world.web.url("/pages/mozilla-1")));
    // The citation resolves as an MCP resource, here and on Gleaner's own endpoint.
    const own = new Client({ name: "own-tools", version: "1.0.0" });
    await own.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport);
    try {
      for (const reader of [client, own]) {
        const cited = await reader.readResource({ uri: out.results[0].url });
        assert.equal(cited.contents[0].uri, `gleaner://memory/${ref}`);
        assert.match(String(cited.contents[0].text), /through a TransformStream/);
      }
    } finally {
      await own.close();
    }

    const remembered = await client.callTool({
      name: "fetch",
      arguments: { id: `memory:${ref}` },
    }) as ToolResult;
    const memoryDoc = assertContract(remembered, ["id", "title", "text", "url"]) as {
      text: string;
      metadata: { source: string };
    };
    assert.match(memoryDoc.text, /TransformStream/);
    assert.equal(memoryDoc.metadata.source, "memory");

    const unknown = await client.callTool({
      name: "fetch",
      arguments: { id: "memory:zzzzzzzz" },
    }) as ToolResult;
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0].text, /^not_found: id: no document memory:zzzzzzzz/);
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
    await world.close();
  }
});

Deno.test("Deep Research in hosted mode: user B never sees user A's memory, even with memory.deep_research on", async () => {
  const world = await startTestWorld();
  const root = await Deno.makeTempDir();
  const gleaner = await createGleaner({
    ...world.config,
    server: { port: 0 },
    store: { path: `${root}/gleaner.db` },
    memory: hostedMemory(`${root}/memory.db`, { deep_research: true }),
  });
  const server = serveHttp(gleaner);
  const alice = await connectAs(server.url, "alice", "/mcp/deep-research");
  const bob = await connectAs(server.url, "bob", "/mcp/deep-research");
  try {
    const res = await fetch(`${server.url}/v1/memories/save`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...userHeaders("alice"),
      },
      body: JSON.stringify({
        memories: [{ content: "Alice's bank PIN hint: the fetch api streams lighthouse year." }],
      }),
    });
    assert.equal(res.status, 200);
    const ref = (await res.json()).results[0].ref as string;

    const search = async (client: Client) =>
      (assertContract(
        await client.callTool({
          name: "search",
          arguments: { query: "fetch api streams PIN" },
        }) as ToolResult,
        ["results"],
      ) as { results: { id: string }[] }).results.map((r) => r.id);
    assert.equal((await search(alice))[0], `memory:${ref}`, "Alice sees her own memory");
    const bobIds = await search(bob);
    assert.ok(bobIds.length > 0, "Bob gets web results");
    assert.ok(bobIds.every((id) => !id.startsWith("memory:")), "Bob sees no memory of Alice's");

    const fromBob = await bob.callTool({
      name: "fetch",
      arguments: { id: `memory:${ref}` },
    }) as ToolResult;
    assert.equal(fromBob.isError, true);
    assert.match(fromBob.content[0].text, /^not_found: /);
    assert.ok(!fromBob.content[0].text.includes("lighthouse"));
    // Nor as a resource: Alice's citation is not found for Bob, and resolves for Alice.
    await assert.rejects(
      bob.readResource({ uri: `gleaner://memory/${ref}` }),
      (error: Error) =>
        /Resource not found/.test(error.message) && !/lighthouse/.test(error.message),
    );
    assert.match(
      String((await alice.readResource({ uri: `gleaner://memory/${ref}` })).contents[0].text),
      /lighthouse/,
    );
    const fromAlice = await alice.callTool({
      name: "fetch",
      arguments: { id: `memory:${ref}` },
    }) as ToolResult;
    assert.match(
      (assertContract(fromAlice, ["text"]) as { text: string }).text,
      /lighthouse/,
    );
  } finally {
    await alice.close();
    await bob.close();
    await server.shutdown();
    await gleaner.close();
    await world.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("gleaner mcp --presentation deep-research serves exactly search and fetch over stdio", async () => {
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const { DENO_RUN_FLAGS } = await import("../testing/fixtures/world.ts");
  const world = await startTestWorld();
  const client = new Client({ name: "deep-research-stdio", version: "1.0.0" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: [
          "run",
          ...DENO_RUN_FLAGS,
          new URL("../cli.ts", import.meta.url).pathname,
          "mcp",
          "--presentation",
          "deep-research",
        ],
        env: { ...Deno.env.toObject(), ...world.env, GLEANER_MEMORY_PATH: ":memory:" },
        stderr: "pipe",
      }) as Transport,
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t: { name: string }) => t.name).sort(), ["fetch", "search"]);
    assert.equal(
      client.getServerCapabilities()?.resources,
      undefined,
      "memories are not resources of a Deep Research client unless memory.deep_research is on",
    );
    const found = await client.callTool({
      name: "search",
      arguments: { query: "streams" },
    }) as ToolResult;
    assertContract(found, ["results"]);
  } finally {
    await client.close();
    await world.close();
  }
});
