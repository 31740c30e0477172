import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { createRoleRouter } from "../roles.ts";
import { timeRangeStart } from "../time_range.ts";
import { parallelProvider } from "./parallel.ts";

const KEY = "parallel-test-key-987";

Deno.test("parallel: search sends objective, queries, mode and max_results; excerpts become snippets", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ parallel: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await parallelProvider.search!({
      query: "sqlite wal",
      max_results: 2,
      depth: "deep",
    }, env);
    const [req] = fakes.requestsOf("parallel");
    assert.equal(req.method, "POST");
    assert.equal(req.path, "/v1/search");
    assert.equal(req.headers["x-api-key"], KEY);
    assert.deepEqual(req.body, {
      objective: "sqlite wal",
      search_queries: ["sqlite wal"],
      mode: "advanced",
      advanced_settings: { max_results: 2 },
    });
    assert.equal(hits.length, 2);
    assert.equal(
      hits[0].snippet,
      "The default method by which SQLite implements atomic commit; about sqlite wal. … A second excerpt.",
    );
    assert.equal(hits[0].published, "2024-05-01T00:00:00.000Z");
    assert.equal(hits[0].provider_data?.search_id, "search_fake_1");

    const tool = parallelProvider.tools[0];
    await tool.run(tool.input.parse({ objective: "find wal docs", search_queries: ["wal"] }), env);
    assert.deepEqual(fakes.requestsOf("parallel")[1].body, {
      objective: "find wal docs",
      search_queries: ["wal"],
      mode: "basic",
      advanced_settings: { max_results: 10 },
    });
  });
});

Deno.test("parallel: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ parallel: KEY }, {
      providers: { parallel: { timeout_ms: 400 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(
      fakes,
      "parallel",
      KEY,
      () => parallelProvider.search!({ query: "x", max_results: 2 }, env),
    );
  });
});

Deno.test("parallel: only documented modes are sent; the tool refuses the legacy `fast`", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ parallel: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    await parallelProvider.search!({ query: "sqlite wal", max_results: 2, depth: "quick" }, env);
    assert.equal((fakes.requestsOf("parallel")[0].body as { mode: string }).mode, "basic");
    const tool = parallelProvider.tools[0];
    assert.throws(() => tool.input.parse({ objective: "x", mode: "fast" }));
    await tool.run(tool.input.parse({ objective: "x", mode: "turbo" }), env);
    assert.equal((fakes.requestsOf("parallel")[1].body as { mode: string }).mode, "turbo");
  });
});

Deno.test("parallel: contents through /v1/extract with full content; a URL in errors fails alone; blocked URLs never sent", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ parallel: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const out = await parallelProvider.contents!({
      urls: ["https://a.example/one", "https://a.example/missing", "http://127.0.0.1/admin"],
      query: "the first page",
    }, env);
    const [req] = fakes.requestsOf("parallel");
    assert.equal(req.path, "/v1/extract");
    assert.equal(req.headers["x-api-key"], KEY);
    assert.deepEqual(req.body, {
      urls: ["https://a.example/one", "https://a.example/missing"],
      objective: "the first page",
      advanced_settings: { full_content: true },
    });
    assert.equal(out.pages[0].title, "Page https://a.example/one");
    assert.match(out.pages[0].content, /main content of https:\/\/a\.example\/one/);
    assert.equal(out.pages[0].published, "2024-05-01T00:00:00.000Z");
    assert.equal(out.pages[1].error?.code, "not_found");
    assert.match(out.pages[1].error!.message, /fetch_error, HTTP 404/);
    assert.equal(out.pages[2].error?.code, "blocked_url", "loopback refused before sending");
  });
});

Deno.test("parallel: answers through the OpenAI-compatible chat with the speed model; citations from basis; deep answered at quick depth and said", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ parallel: KEY }));
    const notices: string[] = [];
    const env = {
      config,
      fetcher: createFetcher(config.network),
      notice: (t: string) => notices.push(t),
    };
    const quick = await parallelProvider.answer!({ query: "what is wal", depth: "quick" }, env);
    const [req] = fakes.requestsOf("parallel");
    assert.equal(req.path, "/chat/completions");
    assert.equal(req.headers["authorization"], `Bearer ${KEY}`);
    assert.deepEqual(req.body, {
      model: "speed",
      messages: [{ role: "user", content: "what is wal" }],
      stream: false,
    });
    assert.equal(quick.answer, "The answer to what is wal, according to the sources.");
    assert.deepEqual(quick.citations.map((c) => c.url), [
      "https://sqlite.org/wal.html",
      "https://docs.deno.com/runtime/",
    ]);
    assert.equal(notices.length, 0);
    await parallelProvider.answer!({ query: "what is wal", depth: "deep" }, env);
    assert.equal((fakes.requestsOf("parallel")[1].body as { model: string }).model, "speed");
    assert.deepEqual(notices, ["parallel answers at quick depth (model speed)"]);
  });
});

Deno.test("parallel_search without search_queries sends its objective cut to Parallel's 200 characters as the query", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ parallel: KEY }));
    const notices: string[] = [];
    const env = {
      config,
      fetcher: createFetcher(config.network),
      notice: (t: string) => void notices.push(t),
    };
    const objective = Array.from({ length: 60 }, (_, i) => `objective-word-${i}`).join(" ");
    assert.ok(objective.length > 1000);
    const tool = parallelProvider.tools[0];
    const out = await tool.run(tool.input.parse({ objective }), env) as { results: unknown[] };
    assert.ok(out.results.length > 0);
    const body = fakes.requestsOf("parallel")[0].body as Record<string, unknown>;
    assert.equal(body.objective, objective, "the objective itself is sent whole");
    const [query] = body.search_queries as string[];
    assert.ok(query.length <= 200, `${query.length} characters`);
    assert.ok(objective.startsWith(`${query} `), "a whole-word prefix of the objective");
    assert.match(notices.join(" "), /parallel.*200 characters/);
  });
});

Deno.test("parallel: domains and time range go to source_policy; language and topic it cannot send are named", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ parallel: KEY }, { search_order: ["parallel"] }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const today = new Date().toISOString();
    fakes.setResults([
      { url: "https://sqlite.org/wal.html", title: "WAL", snippet: "s", published: today },
      { url: "https://sqlite.org/old.html", title: "Old", snippet: "s", published: "2020-01-01" },
      { url: "https://spam.example/wal", title: "Spam", snippet: "s", published: today },
    ]);
    const out = await roles.search({
      query: "sqlite wal",
      max_results: 5,
      domains: ["sqlite.org"],
      exclude_domains: ["spam.example"],
      time_range: "week",
      language: "de",
      topic: "news",
    });
    const body = fakes.requestsOf("parallel")[0].body as Record<string, unknown>;
    assert.deepEqual(body.search_queries, ["sqlite wal"], "no site: hint in the query");
    assert.deepEqual((body.advanced_settings as Record<string, unknown>).source_policy, {
      include_domains: ["sqlite.org"],
      exclude_domains: ["spam.example"],
      after_date: timeRangeStart("week"),
    });
    assert.deepEqual(out.results.map((r) => r.url), ["https://sqlite.org/wal.html"]);
    assert.match(out.notices?.join(" ") ?? "", /parallel: language "de", topic "news" not sent/);
  });
});
