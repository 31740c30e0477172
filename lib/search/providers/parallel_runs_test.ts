import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import {
  DOCUMENTED_FAILURES,
  type FakeProviders,
  withFakeProviders,
} from "../../../testing/fixtures/fake_providers.ts";
import { parallelProvider } from "./parallel.ts";
import { PARALLEL_FINDALL_BETA, schemaDepth, sseEvents } from "./parallel_runs.ts";
import type { ProviderRun } from "./types.ts";

const KEY = "parallel-runs-key-123";

function envOf(fakes: FakeProviders, wait: number) {
  const config = parseConfig(fakes.config({ parallel: KEY }, {
    providers: { parallel: { run_wait_ms: wait, run_poll_ms: 10 } },
  }));
  return { config, fetcher: createFetcher(config.network) };
}

function tool(name: string) {
  const found = parallelProvider.tools.find((t) => t.name === name);
  assert.ok(found, `${name} is declared`);
  return found;
}

function run(name: string, input: unknown, env: ReturnType<typeof envOf>): Promise<ProviderRun> {
  const t = tool(name);
  return t.run(t.input.parse(input), env) as Promise<ProviderRun>;
}

async function failure(promise: Promise<unknown>): Promise<GleanerError> {
  const error = await promise.then(() => assert.fail("expected a failure"), (e) => e);
  assert.ok(error instanceof GleanerError, String(error));
  return error;
}

Deno.test("parallel_research: one task run polled to completion; the text report with its basis and citations", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, 60_000);
    const out = await run("parallel_research", {
      query: "history of sqlite wal",
      output_description: "two paragraphs",
    }, env);
    const reqs = fakes.requestsOf("parallel");
    assert.deepEqual(reqs.map((r) => `${r.method} ${r.path}`), [
      "POST /v1/tasks/runs",
      "GET /v1/tasks/runs/trun_fake_1",
      "GET /v1/tasks/runs/trun_fake_1",
      "GET /v1/tasks/runs/trun_fake_1/result",
    ]);
    assert.ok(reqs.every((r) => r.headers["x-api-key"] === KEY));
    assert.deepEqual(reqs[0].body, {
      input: "history of sqlite wal",
      processor: "pro-fast",
      task_spec: { output_schema: { type: "text", description: "two paragraphs" } },
    });
    assert.ok(Number(reqs[3].query.timeout) >= 1, "the result call is bounded");
    assert.equal(out.status, "completed");
    assert.equal(out.run_id, "trun_fake_1");
    assert.match(String(out.content), /^# Report\n\nThe answer to history of sqlite wal/);
    assert.equal(out.basis?.[0].field, "output");
    assert.equal(out.basis?.[0].confidence, "high");
    assert.deepEqual(out.citations.map((c) => c.url), [
      "https://sqlite.org/wal.html",
      "https://docs.deno.com/runtime/",
    ]);
    assert.match(out.citations[0].snippet, /atomic commit/);
    assert.equal(out.provider_data?.processor, "pro-fast");
    assert.equal(out.provider_data?.output_type, "text");
  });
});

Deno.test("parallel_research: a run still going answers in_progress; the status tool fetches it later without a new run", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, 0);
    const started = await run("parallel_research", { query: "wal", output: "auto" }, env);
    assert.equal(started.status, "in_progress");
    assert.equal(started.run_id, "trun_fake_1");
    assert.equal(started.run_status, "queued");
    assert.deepEqual((fakes.requestsOf("parallel")[0].body as { task_spec: unknown }).task_spec, {
      output_schema: { type: "auto" },
    });
    const statuses = [started.run_status];
    let last = started;
    for (let i = 0; i < 5 && last.status === "in_progress"; i++) {
      last = await run("parallel_research_status", { run_id: started.run_id }, env);
      statuses.push(last.run_status);
    }
    assert.deepEqual(statuses, ["queued", "running", "completed"]);
    assert.deepEqual(last.content, { summary: "Findings on wal" });
    assert.equal(
      fakes.requestsOf("parallel").filter((r) => r.method === "POST").length,
      1,
      "one run, resumed",
    );
  });
});

Deno.test("parallel_research: a failed run is a classified provider error that never shows Parallel's message", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, 60_000);
    const failed = await failure(run("parallel_research", { query: "this one fails" }, env));
    assert.equal(failed.code, "provider_unavailable");
    assert.match(failed.message, /^parallel: the research run trun_fake_1 ended failed/);
    assert.ok(!failed.message.includes("Internal error"), "no upstream text");
    assert.equal(failed.details?.run_id, "trun_fake_1");

    const broke = await failure(run("parallel_research", { query: "out of credit" }, env));
    assert.equal(broke.code, "insufficient_balance");
    assert.ok(!broke.message.includes("Payment required"));

    // The status tool on an unknown run: Parallel's documented 404.
    const unknown = await failure(run("parallel_research_status", { run_id: "trun_nope" }, env));
    assert.equal(unknown.code, "not_found");
  });
});

Deno.test("parallel_research: Parallel's documented limits are checked before sending", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, 60_000);
    const research = tool("parallel_research");
    assert.throws(() => research.input.parse({ query: "x".repeat(15_001) }), "15,000 characters");
    assert.throws(() => research.input.parse({ query: "x", processor: "mega" }), "processor");
    const deep = {
      type: "object",
      properties: {
        a: {
          type: "object",
          properties: {
            b: { type: "object", properties: { c: { type: "array", items: { type: "object" } } } },
          },
        },
      },
    };
    assert.equal(schemaDepth(deep), 4);
    const nested = await failure(
      run("parallel_research", { query: "x", output_schema: deep }, env),
    );
    assert.equal(nested.code, "invalid_arguments");
    assert.equal(nested.details?.field, "output_schema");
    const big = {
      type: "object",
      properties: { summary: { type: "string", description: "d".repeat(14_000) } },
    };
    const long = await failure(
      run("parallel_research", { query: "q".repeat(12_000), output_schema: big }, env),
    );
    assert.equal(long.code, "invalid_arguments");
    assert.match(long.message, /25000 characters/);
    const bad = await failure(run("parallel_research_status", { run_id: "../../v1/search" }, env));
    assert.equal(bad.details?.field, "run_id");
    assert.equal(fakes.requestsOf("parallel").length, 0, "nothing was sent");
  });
});

Deno.test("parallel_research: every documented error of the Task API is classified; a refused processor names the field", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, 60_000);
    const cases = DOCUMENTED_FAILURES.parallel ?? [];
    assert.ok(cases.length >= 5);
    for (const doc of cases) {
      fakes.reply("parallel", doc, 1);
      const error = await failure(run("parallel_research", { query: "wal" }, env));
      assert.equal(error.code, doc.code, `${doc.name} (${doc.source}): ${error.message}`);
      assert.match(error.message, /parallel/);
      assert.ok(!JSON.stringify(error.toJSON()).includes(KEY), "no key");
      assert.ok(!error.message.includes("ref_id") && !error.message.includes("fcb2b4f3"));
    }
    fakes.reply("parallel", {
      status: 403,
      body: {
        type: "error",
        error: { ref_id: "r", message: "Forbidden: invalid processor in request" },
      },
    }, 1);
    const refused = await failure(run("parallel_research", { query: "wal" }, env));
    assert.equal(refused.code, "invalid_arguments");
    assert.equal(refused.details?.field, "processor");
  });
});

Deno.test("parallel_enrich: one task group run per row; a failed row carries its error, the others their fields and sources", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, 60_000);
    const out = await run("parallel_enrich", {
      rows: [{ company: "Acme" }, { company: "this one fails" }, { company: "Initech" }],
      fields: { founded: "Year the company was founded", ceo: "Current CEO" },
    }, env);
    const reqs = fakes.requestsOf("parallel");
    assert.deepEqual(reqs.slice(0, 2).map((r) => `${r.method} ${r.path}`), [
      "POST /v1/tasks/groups",
      "POST /v1/tasks/groups/tgrp_fake_1/runs",
    ]);
    assert.deepEqual(reqs[1].body, {
      default_task_spec: {
        output_schema: {
          type: "json",
          json_schema: {
            type: "object",
            properties: {
              founded: { type: "string", description: "Year the company was founded" },
              ceo: { type: "string", description: "Current CEO" },
            },
            required: ["founded", "ceo"],
            additionalProperties: false,
          },
        },
      },
      inputs: [
        { input: { company: "Acme" }, processor: "base" },
        { input: { company: "this one fails" }, processor: "base" },
        { input: { company: "Initech" }, processor: "base" },
      ],
    });
    const stream = reqs.at(-1)!;
    assert.equal(stream.path, "/v1/tasks/groups/tgrp_fake_1/runs");
    assert.deepEqual(stream.query, { include_input: "true", include_output: "true" });
    assert.equal(out.status, "completed");
    assert.equal(out.run_id, "tgrp_fake_1");
    assert.equal(out.items?.length, 3);
    const [acme, failed, initech] = out.items!;
    assert.deepEqual(acme.input, { company: "Acme" });
    assert.equal(acme.status, "completed");
    assert.deepEqual(acme.content, {
      founded: 'founded of {"company":"Acme"}',
      ceo: 'ceo of {"company":"Acme"}',
    });
    assert.deepEqual(acme.basis?.map((b) => b.field), ["founded", "ceo"]);
    assert.equal(failed.status, "failed");
    assert.equal(failed.error?.code, "provider_unavailable");
    assert.match(failed.error!.message, /enrichment run trun_fake_2 ended failed/);
    assert.equal(initech.status, "completed");
    assert.ok(out.citations.length > 0);
    assert.equal(out.provider_data?.num_task_runs, 3);
  });
});

Deno.test("parallel_enrich: in_progress with the group id; the status tool reads the rows once it is done; limits checked first", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, 0);
    const started = await run("parallel_enrich", {
      rows: [{ company: "Acme" }],
      fields: { founded: "Year founded" },
      processor: "lite-fast",
    }, env);
    assert.equal(started.status, "in_progress");
    assert.equal(started.run_id, "tgrp_fake_1");
    let last = started;
    for (let i = 0; i < 5 && last.status === "in_progress"; i++) {
      last = await run("parallel_enrich_status", { run_id: started.run_id }, env);
    }
    assert.equal(last.status, "completed");
    assert.deepEqual(last.items?.map((i) => i.status), ["completed"]);
    assert.equal(fakes.requestsOf("parallel").filter((r) => r.method === "POST").length, 2);

    const before = fakes.requestsOf("parallel").length;
    const enrich = tool("parallel_enrich");
    assert.throws(() =>
      enrich.input.parse({ rows: Array(51).fill({ a: "b" }), fields: { x: "y" } })
    );
    const none = await failure(run("parallel_enrich", { rows: [{ a: "b" }], fields: {} }, env));
    assert.equal(none.details?.field, "fields");
    const huge = await failure(run("parallel_enrich", {
      rows: [
        { a: "b" },
        Object.fromEntries([...Array(6)].map((_, i) => [`k${i}`, "v".repeat(5_000)])),
      ],
      fields: { x: "y" },
    }, env));
    assert.equal(huge.details?.field, "rows[1]");
    assert.equal(fakes.requestsOf("parallel").length, before, "nothing was sent");
  });
});

Deno.test("parallel_dataset: FindAll with the beta header; ingest proposes the conditions; matched entities with sources", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, 60_000);
    const out = await run("parallel_dataset", { objective: "databases with a WAL" }, env);
    const reqs = fakes.requestsOf("parallel");
    assert.deepEqual(reqs.map((r) => `${r.method} ${r.path}`), [
      "POST /v1beta/findall/ingest",
      "POST /v1beta/findall/runs",
      "GET /v1beta/findall/runs/findall_fake_1",
      "GET /v1beta/findall/runs/findall_fake_1",
      "GET /v1beta/findall/runs/findall_fake_1/result",
    ]);
    assert.ok(reqs.every((r) => r.headers["parallel-beta"] === PARALLEL_FINDALL_BETA));
    assert.deepEqual(reqs[1].body, {
      objective: "databases with a WAL",
      entity_type: "companies",
      match_conditions: [{
        name: "objective_check",
        description: "Entity must satisfy: databases with a WAL",
      }],
      generator: "base",
      match_limit: 10,
    });
    assert.equal(out.status, "completed");
    assert.equal(out.run_id, "findall_fake_1");
    assert.deepEqual(out.items?.map((i) => [i.name, i.url, i.status]), [
      ["Write-Ahead Logging", "https://sqlite.org/wal.html", "matched"],
      ["Deno <b>runtime</b>", "https://docs.deno.com/runtime/", "matched"],
    ]);
    assert.equal(out.items?.[0].basis?.[0].field, "objective_check");
    assert.equal(out.provider_data?.matched_candidates, 2);
    assert.equal(out.citations.length, 2);

    // Given conditions skip ingest; a run out of funds is insufficient_balance.
    const broke = await failure(run("parallel_dataset", {
      objective: "funds run out",
      entity_type: "companies",
      match_conditions: [{ name: "c", description: "d" }],
    }, env));
    assert.equal(broke.code, "insufficient_balance");
    assert.equal(fakes.requestsOf("parallel").filter((r) => r.path.endsWith("/ingest")).length, 1);
    assert.throws(() => tool("parallel_dataset").input.parse({ objective: "x", match_limit: 4 }));
  });
});

Deno.test("parallel_dataset: in_progress, then the status tool", async () => {
  await withFakeProviders(async (fakes) => {
    const env = envOf(fakes, 0);
    const started = await run("parallel_dataset", {
      objective: "x",
      entity_type: "companies",
      match_conditions: [{ name: "c", description: "d" }],
      generator: "preview",
      match_limit: 5,
    }, env);
    assert.deepEqual([started.status, started.run_status], ["in_progress", "queued"]);
    const statuses: string[] = [];
    let last = started;
    for (let i = 0; i < 5 && last.status === "in_progress"; i++) {
      last = await run("parallel_dataset_status", { run_id: started.run_id }, env);
      statuses.push(last.run_status);
    }
    assert.deepEqual(statuses, ["running", "completed"]);
    assert.equal(last.items?.length, 2);
  });
});

Deno.test("sseEvents reads data lines, skips broken events and stops at its bound", () => {
  const text = 'event: a\ndata: {"type":"x","n":1}\n\ndata: not json\n\ndata: {"n":\ndata: 2}\n\n';
  assert.deepEqual(sseEvents(text), [{ type: "x", n: 1 }, { n: 2 }]);
  assert.deepEqual(sseEvents(text, 1), [{ type: "x", n: 1 }]);
});
