/**
 * The provider tools TinySearch lists and Gleaner added: `exa_get_contents`,
 * `parallel_extract`, `parallel_chat` through the real MCP SDK Client (`all_tools`
 * presentation) against the fakes built from Exa's and Parallel's documentation, and a
 * TinyFish agent run that waits longer when the client asks (`wait_s`, up to 300 s).
 */
import { linkMcpClient } from "../testing/mcp_client.ts";
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { parseConfig } from "../lib/config/config.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "../mcp/server.ts";
import { withFakeProviders } from "../testing/fixtures/fake_providers.ts";

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

Deno.test("provider tools: exa_get_contents, parallel_extract and parallel_chat over MCP", async () => {
  await withFakeProviders(async (fakes) => {
    const gleaner = await createGleaner({
      embed: { provider: "none" },
      ...fakes.config({ exa: "ke", parallel: "kp", tinyfish: "kf" }, {
        presentation: "all_tools",
        providers: { tinyfish: { run_timeout_ms: 0, run_poll_ms: 10 } },
      }),
    });
    const { client, close } = await linkMcpClient(
      createMcpServer(gleaner, toolsFor(gleaner.config)),
    );
    const call = async (name: string, args: Record<string, unknown>) =>
      await client.callTool({ name, arguments: args }) as ToolResult;
    try {
      const names = (await client.listTools()).tools.map((t: { name: string }) => t.name);
      for (const name of ["exa_get_contents", "parallel_extract", "parallel_chat"]) {
        assert.ok(names.includes(name), name);
      }

      // Exa's /contents (https://exa.ai/docs/reference/get-contents): text, and with
      // `summary`/`highlights` objects focused by `query`.
      const exa = await call("exa_get_contents", {
        urls: ["https://a.example/", "https://a.example/missing"],
        query: "wal",
        include_summary: true,
      });
      assert.ok(!exa.isError, exa.content[0].text);
      const sent = fakes.requestsOf("exa").at(-1)!;
      assert.equal(sent.path, "/contents");
      assert.deepEqual((sent.body as Record<string, unknown>).summary, { query: "wal" });
      const pages = exa.structuredContent!.pages as { content: string; error?: { code: string } }[];
      assert.match(pages[0].content, /read by exa/);
      assert.equal(pages[1].error?.code, "not_found");

      // Parallel's extract (https://docs.parallel.ai/api-reference/extract/extract):
      // excerpts unless `full_content`.
      const excerpts = await call("parallel_extract", {
        urls: ["https://b.example/"],
        objective: "pricing",
        full_content: false,
      });
      assert.ok(!excerpts.isError, excerpts.content[0].text);
      const extract = fakes.requestsOf("parallel").at(-1)!;
      assert.equal(extract.path, "/v1/extract");
      assert.equal((extract.body as Record<string, unknown>).objective, "pricing");
      const page = (excerpts.structuredContent!.pages as { content: string }[])[0];
      assert.match(page.content, /An excerpt of https:\/\/b\.example\//);
      const whole = await call("parallel_extract", { urls: ["https://b.example/"] });
      assert.match(
        (whole.structuredContent!.pages as { content: string }[])[0].content,
        /read by parallel/,
      );

      // Parallel's chat (https://docs.parallel.ai/chat-api/chat-quickstart): the model and
      // the whole conversation are sent.
      const chat = await call("parallel_chat", {
        model: "base",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "what is WAL mode" },
        ],
      });
      assert.ok(!chat.isError, chat.content[0].text);
      const asked = fakes.requestsOf("parallel").at(-1)!;
      assert.equal(asked.path, "/chat/completions");
      assert.equal((asked.body as Record<string, unknown>).model, "base");
      assert.equal(((asked.body as Record<string, unknown>).messages as unknown[]).length, 2);
      assert.match(String(chat.structuredContent!.answer), /what is WAL mode/);
      const bad = await call("parallel_chat", { model: "ultra", messages: [] });
      assert.equal(bad.isError, true);

      // TinyFish: with run_timeout_ms 0 a run answers in_progress at once; a client that
      // asks to wait (`wait_s`) gets the finished run in the same call.
      const quick = await call("tinyfish_run", { goal: "title", url: "https://c.example/" });
      assert.equal(quick.structuredContent!.status, "in_progress");
      const waited = await call("tinyfish_run", {
        goal: "title",
        url: "https://c.example/",
        wait_s: 120,
      });
      assert.ok(!waited.isError, waited.content[0].text);
      assert.equal(waited.structuredContent!.status, "completed");
      const tooLong = await call("tinyfish_run", {
        goal: "t",
        url: "https://c.example/",
        wait_s: 301,
      });
      assert.equal(tooLong.isError, true);
    } finally {
      await close();
      await gleaner.close();
    }
  });
});

Deno.test("provider tools: listed only when their provider is configured", () => {
  const names = (search: Record<string, unknown>) =>
    toolsFor(parseConfig({ search: { presentation: "all_tools", ...search } })).map((t) => t.name);
  const none = names({});
  for (const name of ["exa_get_contents", "parallel_extract", "parallel_chat"]) {
    assert.ok(!none.includes(name), name);
  }
  assert.ok(names({ exa_api_key: "k" }).includes("exa_get_contents"));
  // The default presentation lists no provider tool at all.
  assert.ok(
    !toolsFor(parseConfig({ search: { exa_api_key: "k", parallel_api_key: "k" } }))
      .some((t) => /^(exa|parallel)_/.test(t.name)),
  );
});
