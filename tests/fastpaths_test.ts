/**
 * The YouTube, Reddit and Hister fast paths through the real MCP client:
 * each answers `scrape_urls` under its own `tier`, and domain memory learns
 * it like any tier. Fakes on loopback answer in the services' real formats.
 */
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { createMcpServer } from "../mcp/mod.ts";
import { linkMcpClient } from "../testing/mcp_client.ts";
import { startFakeYoutube } from "../testing/fixtures/fake_youtube.ts";
import { startFakeReddit } from "../testing/fixtures/fake_reddit.ts";
import { startFakeHister } from "../testing/fixtures/fake_hister.ts";

type ToolResult = {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
};

const VISITED = "https://intranet.example/wiki/Gears";

Deno.test("MCP scrape_urls: youtube, reddit and hister tiers answer, and domain memory learns them", async () => {
  const youtube = startFakeYoutube();
  const reddit = startFakeReddit();
  const hister = startFakeHister({
    [VISITED]: {
      title: "Gears - Intranet Wiki",
      html: "<html><head><title>Gears - Intranet Wiki</title></head><body><main><article>" +
        "<h1>Gears</h1><p>Gears transmit torque between shafts through meshing teeth; the ratio " +
        "of their teeth sets the ratio of their speeds, as every gearbox in the plant shows.</p>" +
        "</article></main></body></html>",
      text: "Gears transmit torque.",
      added: 1709640000,
    },
  }, "hister-token-42");
  const gleaner = await createGleaner({
    // Robots.txt off: YouTube's disallows /api/ (timed text) and Reddit's disallows everything.
    network: {
      allow_private: [youtube.origin, reddit.origin, hister.origin],
      respect_robots: false,
    },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: {
      render: "never",
      youtube_url: youtube.origin,
      reddit_url: reddit.origin,
      hister_url: hister.origin,
      hister_token: "hister-token-42",
    },
  });
  const { client, close } = await linkMcpClient(createMcpServer(gleaner));
  try {
    const call = async (name: string, args: Record<string, unknown>) =>
      await client.callTool({ name, arguments: args }) as ToolResult;
    const urls = [
      "https://youtu.be/Gl3anerVid1",
      "https://old.reddit.com/r/Deno/comments/1abc2d/how_do_i_read_a_file_stream_it/",
      VISITED,
    ];
    const queries = ["how are sprockets made", "reading a file with streams", "gears torque"];
    const result = await call("scrape_urls", {
      items: urls.map((url, i) => ({ url, query: queries[i] })),
    });
    assert.ok(!result.isError, result.content[0]?.text);
    const items = result.structuredContent?.items as {
      url: string;
      ok: boolean;
      tier?: string;
      title?: string;
      archived_at?: string;
    }[];
    assert.deepEqual(items.map((i) => [i.ok, i.tier]), [
      [true, "youtube"],
      [true, "reddit"],
      [true, "hister"],
    ]);
    assert.equal(items[0].title, "How Sprockets Are Made");
    assert.equal(items[2].archived_at, "2024-03-05T12:00:00.000Z");
    const evidence = JSON.stringify(result.structuredContent?.evidence);
    assert.match(evidence, /Welcome to the factory/);
    assert.match(evidence, /Deno\.open/);
    assert.match(evidence, /Gears transmit torque/);

    for (
      const [domain, tier] of [
        ["youtu.be", "youtube"],
        ["old.reddit.com", "reddit"],
        ["intranet.example", "hister"],
      ]
    ) {
      const stats = await call("domain_stats", { domain });
      assert.ok(!stats.isError, stats.content[0]?.text);
      const origins = stats.structuredContent?.origins as {
        tiers: Record<string, { successes: number }>;
      }[];
      assert.equal(origins.length, 1, domain);
      assert.equal(origins[0].tiers[tier]?.successes, 1, `${domain}: ${JSON.stringify(origins)}`);
    }
  } finally {
    await close();
    await gleaner.close();
    await youtube.close();
    await reddit.close();
    await hister.close();
  }
});
