/**
 * `depth: "deep"` prefers Gemini Deep Research, a provider of its own
 * (`gemini_deep_research`), and falls back to grounded answers; it can be ordered and pinned
 * apart from grounded Gemini. Through the library's role router and the MCP `roles`
 * presentation, against the fake Gemini (generateContent and the Interactions API, from
 * https://ai.google.dev/gemini-api/docs/deep-research) on loopback.
 */
import { linkMcpClient } from "../testing/mcp_client.ts";
import assert from "node:assert/strict";
import { createGleaner, GleanerError } from "../mod.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "../mcp/server.ts";
import { type FakeProviders, withFakeProviders } from "../testing/fixtures/fake_providers.ts";

async function withDeep(
  fakes: FakeProviders,
  search: Record<string, unknown>,
  fn: (gleaner: Gleaner) => Promise<void>,
) {
  const input = fakes.config({ gemini: "kg", ...(search.keys as object ?? {}) }, {
    presentation: "roles",
    ...search,
    providers: {
      gemini: { deep_research_wait_ms: 5_000, deep_research_poll_ms: 10 },
      gemini_deep_research: { enabled: true },
    },
  });
  delete (input.search as Record<string, unknown>).keys;
  const gleaner = await createGleaner({ embed: { provider: "none" }, ...input });
  try {
    await fn(gleaner);
  } finally {
    await gleaner.close();
  }
}

const interactions = (fakes: FakeProviders) =>
  fakes.requestsOf("gemini").filter((r) => r.path.startsWith("/v1beta/interactions"));
const grounded = (fakes: FakeProviders) =>
  fakes.requestsOf("gemini").filter((r) => r.path.includes(":generateContent"));

Deno.test("deep answers: Deep Research answers deep questions first; quick ones never reach it", async () => {
  await withFakeProviders(async (fakes) => {
    await withDeep(fakes, { keys: { exa: "ke" } }, async (gleaner) => {
      assert.ok(gleaner.roles.providers("answer").includes("gemini_deep_research"));
      const deep = await gleaner.roles.answer({ query: "history of wal", depth: "deep" });
      assert.equal(deep.provider, "gemini_deep_research");
      assert.equal(deep.status, "completed");
      assert.match(deep.answer, /^# Report/);
      assert.equal(fakes.requestsOf("exa").length, 0);

      const asked = interactions(fakes).length;
      const quick = await gleaner.roles.answer({ query: "what is wal", depth: "quick" });
      assert.equal(quick.provider, "exa");
      assert.equal(interactions(fakes).length, asked, "a quick question never starts a run");

      // Pinned apart from grounded Gemini; a quick pin is refused.
      const pinned = await gleaner.roles.answer({
        query: "q",
        depth: "quick",
        provider: "gemini_deep_research",
      }).then(() => assert.fail("expected a refusal"), (e) => e);
      assert.ok(pinned instanceof GleanerError && pinned.code === "invalid_arguments");
      const groundedPin = await gleaner.roles.answer({
        query: "q",
        depth: "deep",
        provider: "gemini",
      });
      assert.equal(groundedPin.provider, "gemini");
    });
  });
});

Deno.test("deep answers: when Deep Research fails, grounded Gemini answers (not the same research)", async () => {
  await withFakeProviders(async (fakes) => {
    await withDeep(fakes, {}, async (gleaner) => {
      // Google's 429 RESOURCE_EXHAUSTED (https://ai.google.dev/gemini-api/docs/troubleshooting).
      fakes.setMode("gemini", "ratelimit", 1);
      const out = await gleaner.roles.answer({ query: "history of wal", depth: "deep" });
      assert.equal(out.provider, "gemini");
      assert.deepEqual(out.fallback_from, [{
        provider: "gemini_deep_research",
        code: "rate_limited",
      }]);
      assert.equal(interactions(fakes).length, 1, "one run asked, none started again");
      assert.ok(grounded(fakes).length >= 1, "the grounded model answered");
    });
  });
});

Deno.test("deep answers: answer_order orders Deep Research like any provider; MCP lists it", async () => {
  await withFakeProviders(async (fakes) => {
    await withDeep(fakes, { answer_order: ["gemini", "gemini_deep_research"] }, async (gleaner) => {
      const out = await gleaner.roles.answer({ query: "history of wal", depth: "deep" });
      assert.equal(out.provider, "gemini");
      assert.equal(interactions(fakes).length, 0, "grounded Gemini first, as ordered");

      const { client, close } = await linkMcpClient(
        createMcpServer(gleaner, toolsFor(gleaner.config)),
      );
      try {
        const tools = (await client.listTools()).tools as {
          name: string;
          inputSchema: { properties: Record<string, { enum?: string[] }> };
        }[];
        const answer = tools.find((t) => t.name === "web_answer_tool")!;
        assert.deepEqual(answer.inputSchema.properties.provider.enum, [
          "gemini",
          "gemini_deep_research",
        ]);
      } finally {
        await close();
      }
    });
  });
});
