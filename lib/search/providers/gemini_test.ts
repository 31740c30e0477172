import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { groundingRedirect, withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { geminiProvider } from "./gemini.ts";
import { usableProviders } from "./registry.ts";

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
    // The citations are Google's grounding redirects, kept as the API returns them.
    assert.deepEqual(quick.citations.map((c) => [c.url, c.title]), [
      [groundingRedirect("https://sqlite.org/wal.html"), "sqlite.org"],
      [groundingRedirect("https://docs.deno.com/runtime/"), "docs.deno.com"],
      [
        groundingRedirect("https://developer.mozilla.org/en-US/docs/Web/HTTP"),
        "developer.mozilla.org",
      ],
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

Deno.test("gemini search: grounding chunks become hits ranked by the answer segments they support", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ gemini: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await geminiProvider.search!({ query: "sqlite wal", max_results: 3 }, env);
    const [req] = fakes.requestsOf("gemini");
    assert.equal(req.path, "/v1beta/models/gemini-3.5-flash-lite:generateContent");
    assert.deepEqual(req.body, {
      contents: [{ role: "user", parts: [{ text: "sqlite wal" }] }],
      tools: [{ google_search: {} }],
    });
    // The fake's third chunk is cited by both segments, the first by one, the second by none.
    assert.deepEqual(hits.map((h) => [h.url, h.title]), [
      [
        groundingRedirect("https://developer.mozilla.org/en-US/docs/Web/HTTP"),
        "developer.mozilla.org",
      ],
      [groundingRedirect("https://sqlite.org/wal.html"), "sqlite.org"],
      [groundingRedirect("https://docs.deno.com/runtime/"), "docs.deno.com"],
    ]);
    assert.equal(
      hits[0].snippet,
      "The answer to sqlite wal, according to the sources. … WAL is the default commit method.",
    );
    assert.equal(hits[1].snippet, "The answer to sqlite wal, according to the sources.");
    assert.equal(hits[2].snippet, "");
    assert.ok(hits.every((h) => h.source === "gemini"));
    assert.deepEqual(hits[0].provider_data, { supports: 2, search_queries: ["sqlite wal"] });

    const two = await geminiProvider.search!({ query: "sqlite wal", max_results: 2 }, env);
    assert.equal(two.length, 2, "max_results cuts the ranked list");
  });
});

Deno.test("gemini search: not in the default search order; search_order adds it", () => {
  const plain = parseConfig({ search: { gemini_api_key: KEY } });
  assert.ok(!usableProviders(plain, "search").some((p) => p.name === "gemini"));
  const added = parseConfig({ search: { gemini_api_key: KEY, search_order: ["gemini"] } });
  assert.deepEqual(usableProviders(added, "search").map((p) => p.name), ["gemini"]);
});

/** Deep Research settings for the fakes: short polls, a bound well above two polls. */
function deepConfig(fakes: Parameters<Parameters<typeof withFakeProviders>[0]>[0], extra = {}) {
  return parseConfig(fakes.config({ gemini: KEY }, {
    providers: {
      gemini: {
        deep_research: true,
        deep_research_poll_ms: 10,
        deep_research_wait_ms: 60_000,
        ...extra,
      },
    },
  }));
}

Deno.test("gemini deep research: started in background mode, polled until completed; the report and its annotations answer", async () => {
  await withFakeProviders(async (fakes) => {
    const config = deepConfig(fakes);
    const env = { config, fetcher: createFetcher(config.network) };
    const out = await geminiProvider.answer!({ query: "history of wal", depth: "deep" }, env);
    const reqs = fakes.requestsOf("gemini");
    assert.equal(reqs[0].method, "POST");
    assert.equal(reqs[0].path, "/v1beta/interactions");
    assert.equal(reqs[0].headers["x-goog-api-key"], KEY);
    assert.deepEqual(reqs[0].body, {
      input: "history of wal",
      agent: "deep-research-preview-04-2026",
      background: true,
    });
    // Two in_progress polls, then the completed one.
    assert.deepEqual(reqs.slice(1).map((r) => `${r.method} ${r.path}`), [
      "GET /v1beta/interactions/v1_fake_run_1",
      "GET /v1beta/interactions/v1_fake_run_1",
      "GET /v1beta/interactions/v1_fake_run_1",
    ]);
    assert.equal(out.status, "completed");
    assert.equal(out.interaction_id, "v1_fake_run_1");
    assert.equal(
      out.answer,
      "# Report\n\nThe answer to history of wal, according to the sources. (agent deep-research-preview-04-2026)",
    );
    assert.deepEqual(out.citations.map((c) => [c.url, c.title]), [
      ["https://sqlite.org/wal.html", "Write-Ahead Logging"],
      ["https://docs.deno.com/runtime/", "Deno <b>runtime</b>"],
    ]);
    assert.equal(out.provider_data?.agent, "deep-research-preview-04-2026");

    // Quick answers still use generateContent; so do deep ones with deep_research off.
    await geminiProvider.answer!({ query: "q", depth: "quick" }, env);
    assert.match(fakes.requestsOf("gemini").at(-1)!.path, /:generateContent$/);
    const off = parseConfig(fakes.config({ gemini: KEY }));
    await geminiProvider.answer!({ query: "q", depth: "deep" }, {
      config: off,
      fetcher: createFetcher(off.network),
    });
    assert.equal(
      fakes.requestsOf("gemini").at(-1)!.path,
      "/v1beta/models/gemini-3.8-flash:generateContent",
    );
  });
});

Deno.test("gemini deep research: the bounded poll returns in_progress with the id; the id resumes without a new run", async () => {
  await withFakeProviders(async (fakes) => {
    const bounded = deepConfig(fakes, {
      deep_research_wait_ms: 0,
      deep_research_agent: "deep-research-x",
    });
    const first = await geminiProvider.answer!({ query: "history of wal", depth: "deep" }, {
      config: bounded,
      fetcher: createFetcher(bounded.network),
    });
    assert.equal(first.status, "in_progress");
    assert.equal(first.answer, "");
    assert.deepEqual(first.citations, []);
    assert.equal(first.interaction_id, "v1_fake_run_1");
    assert.equal(
      (fakes.requestsOf("gemini")[0].body as { agent: string }).agent,
      "deep-research-x",
    );
    assert.equal(fakes.requestsOf("gemini").length, 1, "no poll past the bound");

    const config = deepConfig(fakes);
    const env = { config, fetcher: createFetcher(config.network) };
    const resumed = await geminiProvider.answer!({
      query: "history of wal",
      depth: "deep",
      interaction_id: first.interaction_id,
    }, env);
    assert.equal(resumed.status, "completed");
    assert.match(resumed.answer, /agent deep-research-x/);
    assert.equal(
      fakes.requestsOf("gemini").filter((r) => r.method === "POST").length,
      1,
      "resuming starts no new run",
    );

    await assert.rejects(
      () =>
        geminiProvider.answer!({ query: "x", depth: "deep", interaction_id: "v1_unknown" }, env),
      (e: Error & { code?: string }) => e.code === "not_found",
    );
    const before = fakes.requestsOf("gemini").length;
    await assert.rejects(
      () =>
        geminiProvider.answer!({ query: "x", depth: "deep", interaction_id: "../models/x" }, env),
      (e: Error & { code?: string; details?: Record<string, unknown> }) =>
        e.code === "invalid_arguments" && e.details?.field === "interaction_id",
    );
    assert.equal(fakes.requestsOf("gemini").length, before, "a malformed id is never sent");
  });
});

Deno.test("gemini deep research: failed and cancelled runs are provider errors classified as Google errors", async () => {
  await withFakeProviders(async (fakes) => {
    const config = deepConfig(fakes);
    const env = { config, fetcher: createFetcher(config.network) };
    const cases: [string, string, string | undefined][] = [
      ["over quota", "rate_limited", "RESOURCE_EXHAUSTED"],
      ["this run fails", "provider_unavailable", undefined],
      ["cancel this run", "provider_unavailable", undefined],
    ];
    for (const [query, code, upstream] of cases) {
      const error = await geminiProvider.answer!({ query, depth: "deep" }, env).then(
        () => assert.fail(`${query}: expected a failure`),
        (e) => e,
      );
      assert.equal(error.code, code, `${query}: ${error.message}`);
      assert.match(
        error.message,
        /^gemini: the Deep Research run v1_fake_run_\d+ ended (failed|cancelled)/,
      );
      assert.equal(error.details?.upstream_code, upstream, query);
    }
  });
});
