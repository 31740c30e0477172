import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { geminiProvider } from "./gemini.ts";

const KEY = "AIza-gemini-test-key";

Deno.test("gemini: grounded answer with the google_search tool; chunks become citations", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ gemini: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const quick = await geminiProvider.answer!({ query: "what is wal", depth: "quick" }, env);
    const [req] = fakes.requestsOf("gemini");
    assert.equal(req.method, "POST");
    assert.equal(req.path, "/v1beta/models/gemini-3.5-flash-lite:generateContent");
    assert.equal(req.headers["x-goog-api-key"], KEY);
    assert.deepEqual(req.body, {
      contents: [{ role: "user", parts: [{ text: "what is wal" }] }],
      tools: [{ google_search: {} }],
    });
    assert.equal(
      quick.answer,
      "The answer to what is wal, according to the sources. (model gemini-3.5-flash-lite)",
    );
    assert.deepEqual(quick.citations.map((c) => [c.url, c.title]), [
      ["https://sqlite.org/wal.html", "sqlite.org"],
      ["https://docs.deno.com/runtime/", "docs.deno.com"],
    ]);
    assert.deepEqual(quick.provider_data?.search_queries, ["what is wal"]);

    await geminiProvider.answer!({ query: "what is wal", depth: "deep" }, env);
    assert.equal(
      fakes.requestsOf("gemini")[1].path,
      "/v1beta/models/gemini-3.8-flash:generateContent",
    );
  });
});

Deno.test("gemini: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ gemini: KEY }, {
      providers: { gemini: { timeout_ms: 400 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(
      fakes,
      "gemini",
      KEY,
      () => geminiProvider.answer!({ query: "x", depth: "quick" }, env),
    );
  });
});

Deno.test("gemini: a model past its shutdown date is not_found (falls back); the setting picks another", async () => {
  await withFakeProviders(async (fakes) => {
    const retired = parseConfig(fakes.config({ gemini: KEY }, {
      providers: { gemini: { model: "gemini-2.5-flash" } },
    }));
    const env = { config: retired, fetcher: createFetcher(retired.network) };
    await assert.rejects(
      () => geminiProvider.answer!({ query: "what is wal", depth: "quick" }, env),
      (error: Error & { code?: string }) => error.code === "not_found",
    );
    const chosen = parseConfig(fakes.config({ gemini: KEY }, {
      providers: { gemini: { model: "gemini-3.6-flash" } },
    }));
    const answer = await geminiProvider.answer!({ query: "what is wal", depth: "quick" }, {
      config: chosen,
      fetcher: createFetcher(chosen.network),
    });
    assert.match(answer.answer, /model gemini-3\.6-flash/);
  });
});
