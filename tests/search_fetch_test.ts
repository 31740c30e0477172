/**
 * Search, then read the top results whole (`fetch_count` on a `search` query, 1 to 3), through
 * the real MCP SDK Client against the fixture web and the fake search upstreams on loopback.
 */
import { linkMcpClient } from "../testing/mcp_client.ts";
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "../mcp/server.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";

type Item = {
  results: { url: string }[];
  pages?: { url: string; title?: string; markdown: string; error?: { code: string } }[];
};

Deno.test("search fetch_count: the top results are read whole, in order; at most three", async () => {
  const world = await startTestWorld();
  const gleaner = await createGleaner({ ...world.config, embed: { provider: "none" } });
  const { client, close } = await linkMcpClient(createMcpServer(gleaner, toolsFor(gleaner.config)));
  try {
    const out = await client.callTool({
      name: "search",
      arguments: { items: [{ query: "web browser", max_results: 5, fetch_count: 2 }] },
    }) as {
      content: { text: string }[];
      structuredContent: { items: Item[] };
      isError?: boolean;
    };
    assert.ok(!out.isError, out.content[0].text);
    const item = out.structuredContent.items[0];
    assert.equal(item.pages?.length, 2);
    assert.deepEqual(item.pages!.map((p) => p.url), item.results.slice(0, 2).map((r) => r.url));
    for (const page of item.pages!) {
      assert.equal(page.error, undefined, page.url);
      assert.ok(page.markdown.length > 200, `${page.url}: ${page.markdown.length} chars`);
      assert.ok(
        out.content[0].text.includes(page.markdown.slice(0, 80)),
        "the text shows the page",
      );
    }
    // Without fetch_count nothing is read; more than three is refused.
    const plain = await client.callTool({
      name: "search",
      arguments: { items: [{ query: "web browser" }] },
    }) as { structuredContent: { items: Item[] } };
    assert.equal(plain.structuredContent.items[0].pages, undefined);
    const tooMany = await client.callTool({
      name: "search",
      arguments: { items: [{ query: "web browser", fetch_count: 4 }] },
    }) as { isError?: boolean; content: { text: string }[] };
    assert.equal(tooMany.isError, true);
    assert.match(tooMany.content[0].text, /^invalid_arguments/);
  } finally {
    await close();
    await gleaner.close();
    await world.close();
  }
});
