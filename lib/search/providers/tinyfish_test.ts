import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses, BODY_SECRET } from "../../../testing/fixtures/provider_checks.ts";
import type { ProviderAnswer, ProviderEnv } from "./types.ts";
import { tinyfishProvider } from "./tinyfish.ts";

const KEY = "tf_test_key_321";

function runTool(input: Record<string, unknown>, env: ProviderEnv): Promise<ProviderAnswer> {
  const tool = tinyfishProvider.tools.find((t) => t.name === "tinyfish_run")!;
  return tool.run(tool.input.parse(input), env) as Promise<ProviderAnswer>;
}

Deno.test("tinyfish: search sends the documented parameters with X-API-Key and reads the results", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ tinyfish: KEY }));
    assert.ok(tinyfishProvider.isConfigured(config));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await tinyfishProvider.search!({
      query: "sqlite wal",
      max_results: 2,
      language: "pt-BR",
      time_range: "week",
      topic: "news",
    }, env);
    const req = fakes.requestsOf("tinyfish")[0];
    assert.equal(req.method, "GET");
    assert.equal(req.path, "/v1/search");
    assert.equal(req.headers["x-api-key"], KEY);
    assert.deepEqual(req.query, {
      query: "sqlite wal",
      language: "pt",
      location: "BR",
      recency_minutes: "10080",
      domain_type: "news",
    });
    assert.equal(hits.length, 2);
    assert.equal(hits[0].url, "https://sqlite.org/wal.html");
    assert.equal(hits[0].source, "tinyfish");
    assert.equal(hits[0].published, "2024-05-01T00:00:00.000Z", "a news result's date");
    assert.equal(hits[0].provider_data?.site_name, "sqlite.org");
    assert.match(hits[1].title, /Deno runtime/, "tags stripped");

    // A plain search sends the query alone.
    await tinyfishProvider.search!({ query: "wal", max_results: 10 }, env);
    assert.deepEqual(fakes.requestsOf("tinyfish")[1].query, { query: "wal" });
  });
});

Deno.test("tinyfish: fetch sends ten URLs a request at most, says so, and fails a missing page alone", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ tinyfish: KEY }));
    const notices: string[] = [];
    const env = {
      config,
      fetcher: createFetcher(config.network),
      notice: (text: string) => void notices.push(text),
    };
    const urls = Array.from({ length: 12 }, (_, i) => `https://a.example/p${i}`);
    urls[3] = "https://a.example/missing";
    const out = await tinyfishProvider.contents!({ urls }, env);
    const sent = fakes.requestsOf("tinyfish").map((r) => (r.body as { urls: string[] }).urls);
    assert.deepEqual(sent.map((batch) => batch.length), [10, 2]);
    assert.deepEqual(sent.flat(), urls);
    assert.ok(
      fakes.requestsOf("tinyfish").every((r) =>
        r.path === "/v1/fetch" && r.method === "POST" && r.headers["x-api-key"] === KEY &&
        (r.body as { format: string }).format === "markdown"
      ),
    );
    assert.equal(notices.length, 1);
    assert.match(notices[0], /at most 10 URLs a request; the 12 URLs were sent in 2 requests/);
    assert.equal(out.pages.length, 12);
    assert.match(out.pages[0].content, /read by tinyfish/);
    assert.equal(out.pages[0].title, "Page https://a.example/p0");
    assert.equal(out.pages[0].published, "2024-05-01T00:00:00.000Z");
    assert.equal(out.pages[3].error?.code, "not_found");
    assert.match(out.pages[3].error!.message, /target_http_error, HTTP 404/);
    assert.equal(out.pages[11].error, undefined);

    // Ten or fewer: one request, no notice.
    await tinyfishProvider.contents!({ urls: urls.slice(0, 10) }, env);
    assert.equal(notices.length, 1);
  });
});

Deno.test("tinyfish: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ tinyfish: KEY }, {
      providers: { tinyfish: { timeout_ms: 400 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(
      fakes,
      "tinyfish",
      KEY,
      () => tinyfishProvider.search!({ query: "x", max_results: 2 }, env),
    );
    await assertFailureClasses(
      fakes,
      "tinyfish",
      KEY,
      () => tinyfishProvider.contents!({ urls: ["https://a.example/"] }, env),
    );
    await assertFailureClasses(
      fakes,
      "tinyfish",
      KEY,
      () => runTool({ goal: "read the title", url: "https://a.example/" }, env),
    );
  });
});

Deno.test("tinyfish_run: starts a run, polls it to COMPLETED and answers its result", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ tinyfish: KEY }, {
      providers: { tinyfish: { run_poll_ms: 10 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    const out = await runTool({
      goal: "extract the title",
      url: "https://shop.example/a/../list#top",
      browser_profile: "stealth",
    }, env);
    const [start, ...polls] = fakes.requestsOf("tinyfish");
    assert.equal(start.method, "POST");
    assert.equal(start.path, "/v1/automation/run-async");
    assert.equal(start.headers["x-api-key"], KEY);
    assert.deepEqual(start.body, {
      url: "https://shop.example/list",
      goal: "extract the title",
      browser_profile: "stealth",
    });
    assert.deepEqual(polls.map((r) => `${r.method} ${r.path}`), [
      "GET /v1/runs/tf_run_1",
      "GET /v1/runs/tf_run_1",
      "GET /v1/runs/tf_run_1",
    ]);
    assert.equal(out.status, "completed");
    assert.equal(out.interaction_id, "tf_run_1");
    assert.deepEqual(JSON.parse(out.answer), {
      page: "https://shop.example/list",
      title: "Page https://shop.example/list",
      goal: "extract the title",
    });
    assert.equal(out.provider_data?.goal_status, "success");
  });
});

Deno.test("tinyfish_run: the wait bound answers in_progress with the run_id, which resumes the same run", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ tinyfish: KEY }, {
      providers: { tinyfish: { run_timeout_ms: 0 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    const first = await runTool({ goal: "extract the title", url: "https://a.example/" }, env);
    assert.equal(first.status, "in_progress");
    assert.equal(first.answer, "");
    assert.equal(first.interaction_id, "tf_run_1");
    const statuses = [first.provider_data?.run_status];
    let last = first;
    for (let i = 0; i < 5 && last.status === "in_progress"; i++) {
      last = await runTool({ run_id: "tf_run_1" }, env);
      statuses.push(last.provider_data?.run_status);
    }
    assert.deepEqual(statuses, ["PENDING", "PENDING", "RUNNING", "COMPLETED"]);
    assert.equal(last.status, "completed");
    assert.equal(
      fakes.requestsOf("tinyfish").filter((r) => r.method === "POST").length,
      1,
      "one run, resumed",
    );
  });
});

Deno.test("tinyfish_run: a FAILED or CANCELLED run is a provider error; a goal the run says failed is reported", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ tinyfish: KEY }, {
      providers: { tinyfish: { run_poll_ms: 10 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    for (const [goal, status] of [["this fails", "FAILED"], ["cancel me", "CANCELLED"]]) {
      const error = await runTool({ goal, url: "https://a.example/" }, env).then(
        () => assert.fail(`${status}: expected a failure`),
        (e) => e,
      );
      assert.ok(error instanceof GleanerError);
      assert.equal(error.code, "provider_unavailable", error.message);
      assert.match(error.message, new RegExp(`tinyfish: the agent run tf_run_\\d ended ${status}`));
      assert.equal(error.details?.run_status, status);
      assert.ok(!JSON.stringify(error.toJSON()).includes(BODY_SECRET), "no upstream message");
    }
    const out = await runTool({ goal: "an impossible task", url: "https://a.example/" }, env);
    assert.equal(out.status, "completed");
    assert.equal(
      out.answer,
      "The agent finished but did not achieve the goal: Could not find any products on the page",
    );
    assert.equal(out.provider_data?.goal_status, "failure");

    // A poll that fails: its own class, and the run_id that resumes the run.
    const polling = parseConfig(fakes.config({ tinyfish: KEY }, {
      providers: { tinyfish: { run_poll_ms: 10, run_timeout_ms: 5_000 } },
    }));
    const pollEnv = { config: polling, fetcher: createFetcher(polling.network) };
    fakes.reply("tinyfish", { status: 200, body: { run_id: "tf_run_7", error: null } }, 1);
    const started = runTool({ goal: "extract", url: "https://a.example/" }, pollEnv);
    fakes.setMode("tinyfish", "unavailable");
    const lost = await started.then(() => assert.fail("expected a failure"), (e) => e);
    fakes.setMode("tinyfish", "ok");
    assert.equal(lost.code, "provider_unavailable");
    assert.equal(lost.details?.run_id, "tf_run_7");
    assert.match(lost.message, /call again with run_id tf_run_7/);
  });
});

Deno.test("tinyfish_run: the start page passes the network policy; a missing goal, url or bad run_id is refused before sending", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ tinyfish: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ goal: "g", url: "http://169.254.169.254/latest/meta-data/" }, "blocked_url", "url"],
      [{ goal: "g", url: "http://127.0.0.1:8080/admin" }, "blocked_url", "url"],
      [{ url: "https://a.example/" }, "invalid_arguments", "goal"],
      [{ goal: "g" }, "invalid_arguments", "url"],
      [{ run_id: "../../v1/automation/run" }, "invalid_arguments", "run_id"],
    ];
    for (const [input, code, field] of cases) {
      const error = await runTool(input, env).then(
        () => assert.fail(`${JSON.stringify(input)}: expected a refusal`),
        (e) => e,
      );
      assert.ok(error instanceof GleanerError);
      assert.equal(error.code, code, `${JSON.stringify(input)}: ${error.message}`);
      if (code === "invalid_arguments") assert.equal(error.details?.field, field);
    }
    assert.equal(fakes.requestsOf("tinyfish").length, 0, "nothing reached TinyFish");

    // An unknown run is TinyFish's 404: not_found.
    const unknown = await runTool({ run_id: "tf_run_99" }, env).then(
      () => assert.fail("expected not_found"),
      (e) => e,
    );
    assert.equal(unknown.code, "not_found");
  });
});

Deno.test("tinyfish: INVALID_INPUT names the field TinyFish refused; the key never shows", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ tinyfish: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    // browser_profile outside the documented values, sent past the tool's own schema.
    const error = await tinyfishProvider.tools.find((t) => t.name === "tinyfish_run")!.run(
      { goal: "g", url: "https://a.example/", browser_profile: "turbo" },
      env,
    ).then(() => assert.fail("expected a refusal"), (e) => e);
    assert.equal(error.code, "invalid_arguments");
    assert.equal(error.details?.field, "browser_profile");
    assert.match(error.message, /tinyfish: .* parameter browser_profile/);
    assert.ok(!error.message.includes(KEY));
  });
});

Deno.test("tinyfish: a fetch may take the time TinyFish documents for it, longer than search.timeout_ms; its own setting wins", async () => {
  await withFakeProviders(async (fakes) => {
    // https://docs.tinyfish.ai/for-coding-agents: fetch 1-20 s, suggested timeout 150 s; search 10 s.
    fakes.setDelay("tinyfish", 700);
    const envOf = (providers: Record<string, unknown> = {}) => {
      const config = parseConfig(fakes.config({ tinyfish: KEY }, { timeout_ms: 250, providers }));
      return { config, fetcher: createFetcher(config.network) };
    };
    const out = await tinyfishProvider.contents!({ urls: ["https://a.example/slow"] }, envOf());
    assert.equal(out.pages[0].error, undefined, out.pages[0].error?.message);
    assert.match(out.pages[0].content, /read by tinyfish/, "the slow fetch was waited for");
    const search = await tinyfishProvider.search!({ query: "slow", max_results: 1 }, envOf())
      .then(() => assert.fail("expected a timeout"), (e) => e);
    assert.equal(search.code, "timeout", "search keeps search.timeout_ms");
    const own = await tinyfishProvider.contents!(
      { urls: ["https://a.example/slow"] },
      envOf({ tinyfish: { timeout_ms: 250 } }),
    ).then(() => assert.fail("expected a timeout"), (e) => e);
    assert.equal(own.code, "timeout", "search.providers.tinyfish.timeout_ms wins");
  });
});
