/**
 * The Kiwix tier against a real kiwix-serve (a ZIM built by the test with
 * zimwriterfs), through the MCP SDK Client and the real server: Wikipedia,
 * Stack Overflow and ArchWiki URLs are read from the ZIM (tier `kiwix`, the
 * live URL kept, relative links resolved to the live site); a title the book
 * lacks falls through to the next tier; nothing reaches the real sites (tier
 * rules turn every other tier off for them), and only the tier may reach the
 * loopback kiwix-serve.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import { parseConfig } from "../lib/config/config.ts";
import { createKiwixTier } from "../lib/read/tiers/kiwix.ts";
import { serveHttp } from "../http/serve.ts";
import { kiwixRequirement, startKiwix } from "../testing/fixtures/kiwix.ts";

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>` +
  `<h1>${title}</h1>${body}</body></html>`;

const PAGES: Record<string, string> = {
  Tide: page(
    "Tide",
    `<p>Tides are the rise and fall of sea levels caused by the gravity of the <a href="Moon">Moon</a> and the Sun, offline edition.</p>`,
  ),
  Pacman: page("pacman", `<p>The pacman package manager, offline ArchWiki copy.</p>`),
  "questions/11227809/why-is-processing-a-sorted-array-faster": page(
    "Why is processing a sorted array faster?",
    `<p>Branch prediction, offline Stack Overflow copy.</p>`,
  ),
};

Deno.test("kiwix: no tier until read.kiwix_url and read.kiwix_books are set", () => {
  assert.equal(createKiwixTier(parseConfig({})), undefined);
  assert.equal(
    createKiwixTier(parseConfig({ read: { kiwix_url: "http://127.0.0.1:8080" } })),
    undefined,
  );
});

Deno.test({
  name:
    `kiwix: Wikipedia, Stack Overflow and ArchWiki pages come from kiwix-serve${kiwixRequirement.suffix}`,
  ignore: kiwixRequirement.ignore,
  async fn() {
    const kiwix = await startKiwix("offline_test_en", PAGES);
    const rules = await Deno.makeTempFile({ suffix: ".json" });
    // The live sites are never asked: every other tier is off for them.
    const off = { github: false, llms_txt: false, http: false, browser: false, wayback: false };
    await Deno.writeTextFile(
      rules,
      JSON.stringify({
        rules: ["wikipedia.org", "stackoverflow.com", "wiki.archlinux.org"].map((match) => ({
          match,
          tiers: off,
        })),
      }),
    );
    const gleaner = await createGleaner({
      store: { path: ":memory:" },
      embed: { provider: "none" },
      read: {
        render: "never",
        tier_rules_path: rules,
        kiwix_url: kiwix.origin,
        kiwix_books: {
          "en.wikipedia.org": kiwix.book,
          "stackoverflow.com": kiwix.book,
          "wiki.archlinux.org": kiwix.book,
        },
      },
      server: { port: 0 },
    });
    const server = serveHttp(gleaner);
    const client = new Client({ name: "gleaner-test", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport,
      );
      const wiki = "https://en.wikipedia.org/wiki/Tide";
      const so =
        "https://stackoverflow.com/questions/11227809/why-is-processing-a-sorted-array-faster";
      const arch = "https://wiki.archlinux.org/title/Pacman";
      const missing = "https://en.wikipedia.org/wiki/Not_in_this_book";
      const result = await client.callTool({
        name: "scrape_urls",
        arguments: {
          items: [
            { url: wiki },
            { url: so },
            { url: arch },
            { url: missing },
            { url: `${kiwix.origin}/raw/${kiwix.book}/content/Tide` },
          ],
        },
      }) as {
        isError?: boolean;
        content: { text: string }[];
        structuredContent?: {
          items: {
            url: string;
            ok: boolean;
            tier?: string;
            final_url?: string;
            links?: { url: string }[];
            error?: { code: string; message: string };
          }[];
          evidence: { url: string; text: string }[];
        };
      };
      assert.ok(!result.isError, result.content[0]?.text);
      const out = result.structuredContent!;
      const [tide, question, pacman, absent, direct] = out.items;
      for (const item of [tide, question, pacman]) {
        assert.equal(item.ok, true, JSON.stringify(item));
        assert.equal(item.tier, "kiwix", item.url);
        assert.equal(item.final_url, item.url, "the live URL is kept");
      }
      const text = (url: string) =>
        out.evidence.filter((e) => e.url === url).map((e) => e.text).join("\n");
      assert.match(text(wiki), /rise and fall of sea levels .* offline edition/);
      assert.match(text(so), /Branch prediction, offline Stack Overflow copy/);
      assert.match(text(arch), /offline ArchWiki copy/);
      assert.ok(
        tide.links?.some((l) => l.url === "https://en.wikipedia.org/wiki/Moon"),
        `links resolve to the live site: ${JSON.stringify(tide.links)}`,
      );
      // Not in the book: the tier steps aside (404), and no other tier may read it here.
      assert.equal(absent.ok, false);
      assert.equal(absent.error?.code, "unsupported_content", absent.error?.message);
      assert.match(absent.error!.message, /no reading tier applies/);
      // The exemption is the tier's alone: a page read of kiwix-serve itself is refused.
      assert.equal(direct.error?.code, "blocked_url", JSON.stringify(direct));
    } finally {
      await client.close();
      await server.shutdown();
      await gleaner.close();
      await kiwix.close();
      await Deno.remove(rules);
    }
  },
});
