import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { createFetcher } from "../net/fetch.ts";
import { withFakeProviders } from "../../testing/fixtures/fake_providers.ts";
import { CUT_MARKER, MAX_ANSWER_CHARS, MAX_SNIPPET_CHARS } from "./bounds.ts";
import { createRoleRouter } from "./roles.ts";

Deno.test("bounds: a very long snippet and a very long answer are cut with a marker", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(
      fakes.config({ exa: "ke", brave: "kb" }, { search_order: ["brave", "exa"] }),
    );
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const long = "word ".repeat(20_000);
    fakes.setResults([{ url: "https://long.example/", title: "Long", snippet: long }]);
    const found = await roles.search({ query: "long", max_results: 3 });
    // Brave's web search passes `description` through as the snippet.
    assert.equal(found.provider, "brave");
    const snippet = found.results[0].snippet;
    assert.ok(snippet.length <= MAX_SNIPPET_CHARS, `snippet of ${snippet.length} chars`);
    assert.ok(snippet.endsWith(CUT_MARKER));

    // Exa's /answer (https://exa.ai/docs/reference/answer): { answer, citations[] }.
    fakes.reply("exa", {
      status: 200,
      body: {
        answer: "A".repeat(50_000),
        citations: [{ id: "https://long.example/", url: "https://long.example/", title: "Long" }],
        requestId: "req-long",
      },
    }, 1);
    const answered = await roles.answer({ query: "long" });
    assert.ok(answered.answer.length <= MAX_ANSWER_CHARS, `answer of ${answered.answer.length}`);
    assert.ok(answered.answer.endsWith(CUT_MARKER));

    // A provider's own tool goes through the same bounds.
    fakes.setResults([{ url: "https://long.example/", title: "Long", snippet: long }]);
    const own = await roles.invoke(
      "exa",
      (env) =>
        roles.configured().find((p) => p.name === "exa")!.search!(
          { query: "long", max_results: 1 },
          env,
        ).then((results) => ({ results })),
    );
    assert.ok(own.results[0].snippet.length <= MAX_SNIPPET_CHARS);
  });
});
