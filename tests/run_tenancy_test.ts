/**
 * A provider's long-running run belongs to the tenant that started it.
 *
 * A hosted server (trusted proxy headers from loopback) with Parallel,
 * TinyFish and Gemini Deep Research on the fake providers
 * (testing/fixtures/fake_providers.ts, fake_parallel_runs.ts), every run
 * answering `in_progress` at once. Over REST and over MCP (the real SDK
 * client with the proxy headers), for every tool that starts a run and the
 * tool that resumes it (Parallel's research, enrichment and dataset with
 * their status tools, `tinyfish_run`, `gemini_grounded_answer`, and
 * `web_answer_tool` of the `roles` presentation): Alice starts a run; Bob,
 * with the id Alice was handed or with the provider's own id inside it, gets
 * `not_found`, in the same words as for an id nobody ever had, and the fake
 * provider is never asked; the operator (admin key) resumes Alice's run;
 * Alice resumes it to its end under the same id. A run the operator started
 * is not found for Bob either.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { hostedMemory, userHeaders } from "../testing/hosted.ts";
import { startFakeProviders } from "../testing/fixtures/fake_providers.ts";

const ADMIN_KEY = "admin-key-0123456789abcdef0123456789ab";

// deno-lint-ignore no-explicit-any
type Json = any;

/** What one call answered: the structured output, or the error code and message. */
type Outcome = { ok: true; out: Json } | { ok: false; code: string; message: string };

/** Calls one tool as one user. */
type Caller = ((tool: string, args: Record<string, unknown>) => Promise<Outcome>) & {
  close(): Promise<void>;
};

/** A tool that starts a run, the tool that resumes it, and the field that carries its id. */
interface RunCase {
  start: string;
  startArgs: Record<string, unknown>;
  resume: string;
  /** The resume call's arguments for an id. */
  resumeArgs: (id: string) => Record<string, unknown>;
  /** Where the answer carries the id. */
  idField: "run_id" | "interaction_id";
}

const ALL_TOOLS_CASES: RunCase[] = [
  {
    start: "parallel_research",
    startArgs: { query: "history of sqlite wal" },
    resume: "parallel_research_status",
    resumeArgs: (id) => ({ run_id: id }),
    idField: "run_id",
  },
  {
    start: "parallel_enrich",
    startArgs: { rows: [{ company: "Acme" }], fields: { founded: "Year founded" } },
    resume: "parallel_enrich_status",
    resumeArgs: (id) => ({ run_id: id }),
    idField: "run_id",
  },
  {
    start: "parallel_dataset",
    startArgs: { objective: "sqlite hosting companies" },
    resume: "parallel_dataset_status",
    resumeArgs: (id) => ({ run_id: id }),
    idField: "run_id",
  },
  {
    start: "tinyfish_run",
    startArgs: { url: "https://shop.example/products", goal: "list the product names" },
    resume: "tinyfish_run",
    resumeArgs: (id) => ({ run_id: id }),
    idField: "interaction_id",
  },
  {
    start: "gemini_grounded_answer",
    startArgs: { query: "history of sqlite wal", depth: "deep" },
    resume: "gemini_grounded_answer",
    resumeArgs: (id) => ({ query: "history of sqlite wal", interaction_id: id }),
    idField: "interaction_id",
  },
];

const ROLES_CASES: RunCase[] = [
  {
    start: "web_answer_tool",
    startArgs: { query: "history of sqlite wal", depth: "deep", provider: "gemini" },
    resume: "web_answer_tool",
    resumeArgs: (id) => ({
      query: "history of sqlite wal",
      provider: "gemini",
      interaction_id: id,
    }),
    idField: "interaction_id",
  },
];

/** The provider's own id inside what a caller was handed (the whole of it outside hosted mode). */
const upstreamId = (handed: string) => handed.split("~")[0];

for (
  const [presentation, cases] of [["all_tools", ALL_TOOLS_CASES], ["roles", ROLES_CASES]] as const
) {
  Deno.test(`runs (${presentation}): a run is its tenant's; another tenant's status or resume is not_found and never reaches the provider; the operator may`, async () => {
    const fakes = startFakeProviders();
    const root = await Deno.makeTempDir();
    const base = fakes.config({ parallel: "pk", tinyfish: "tk", gemini: "gk" }, {
      presentation,
      answer_order: ["gemini"],
      providers: {
        parallel: { run_wait_ms: 0, run_poll_ms: 10 },
        tinyfish: { run_timeout_ms: 0, run_poll_ms: 10, requests_per_second: 100 },
        gemini: { deep_research: true, deep_research_wait_ms: 0, deep_research_poll_ms: 10 },
      },
    });
    const gleaner = await createGleaner({
      ...base,
      server: { port: 0 },
      store: { path: `${root}/gleaner.db` },
      memory: hostedMemory(`${root}/memory.db`, { hosted_admin_key: ADMIN_KEY }),
    });
    const server = serveHttp(gleaner);
    const headersFor = (user: string, admin: boolean): Record<string, string> => ({
      ...userHeaders(user),
      ...(admin ? { "x-gleaner-admin-key": ADMIN_KEY } : {}),
    });
    const rest = (user: string, admin = false): Caller =>
      Object.assign(async (tool: string, args: Record<string, unknown>): Promise<Outcome> => {
        const res = await fetch(`${server.url}/v1/tools/${tool}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headersFor(user, admin) },
          body: JSON.stringify(args),
        });
        const json = await res.json() as Json;
        return res.ok
          ? { ok: true, out: json }
          : { ok: false, code: json.error?.code, message: json.error?.message };
      }, { close: () => Promise.resolve() });
    const mcp = async (user: string, admin = false): Promise<Caller> => {
      const client = new Client({ name: `runs-${user}`, version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: headersFor(user, admin) },
        }) as Transport,
      );
      return Object.assign(async (tool: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name: tool, arguments: args }) as Json;
        if (result.isError) {
          const text: string = result.content[0].text;
          return { ok: false as const, code: text.split(":")[0], message: text };
        }
        return { ok: true as const, out: result.structuredContent };
      }, { close: () => client.close() });
    };
    const surfaces: [string, (user: string, admin?: boolean) => Promise<Caller>][] = [
      ["REST", (user, admin) => Promise.resolve(rest(user, admin))],
      ["MCP", mcp],
    ];
    try {
      for (const [surface, as] of surfaces) {
        const alice = await as(`alice-${surface}`);
        const bob = await as(`bob-${surface}`);
        // The operator's key rides on Bob's own request: the key, not the user, decides.
        const operator = await as(`bob-${surface}`, true);
        for (const c of cases) {
          const where = `${surface} ${c.start}`;
          const started = await alice(c.start, c.startArgs);
          assert.ok(started.ok, `${where}: ${JSON.stringify(started)}`);
          assert.equal(started.out.status, "in_progress", where);
          const handed: string = started.out[c.idField];
          assert.equal(typeof handed, "string", where);
          const upstream = upstreamId(handed);

          // Bob: Alice's id, as handed or as the provider gave it, is not found, unasked.
          const unknown = await bob(c.resume, c.resumeArgs("never_started_0"));
          assert.equal(unknown.ok, false, `${where}: an id nobody had`);
          const before = fakes.requests.length;
          for (const id of new Set([handed, upstream])) {
            const refused = await bob(c.resume, c.resumeArgs(id));
            assert.equal(refused.ok, false, `${where}: Bob resumed Alice's run with ${id}`);
            assert.ok(!refused.ok);
            assert.equal(refused.code, "not_found", `${where}: ${refused.message}`);
            assert.ok(!unknown.ok);
            assert.equal(refused.message, unknown.message, `${where}: the refusal says more`);
          }
          assert.deepEqual(
            fakes.requests.slice(before).map((r) => `${r.method} ${r.path}`),
            [],
            `${where}: the provider was asked about Alice's run for Bob`,
          );

          // The operator may resume any run.
          const byOperator = await operator(c.resume, c.resumeArgs(handed));
          assert.ok(byOperator.ok, `${where} (operator): ${JSON.stringify(byOperator)}`);
          assert.ok(
            fakes.requests.slice(before).some((r) => r.path.includes(upstream)),
            `${where}: the operator's call reached the provider`,
          );

          // Alice resumes her run to its end, under the id she was handed.
          let out: Json;
          for (let i = 0; i < 6; i++) {
            const resumed = await alice(c.resume, c.resumeArgs(handed));
            assert.ok(resumed.ok, `${where} (Alice): ${JSON.stringify(resumed)}`);
            out = resumed.out;
            assert.equal(out[c.idField], handed, `${where}: the id stays the one Alice has`);
            if (out.status === "completed") break;
          }
          assert.equal(out.status, "completed", `${where}: ${JSON.stringify(out)}`);

          // A run the operator started is not Bob's either.
          const own = await operator(c.start, c.startArgs);
          assert.ok(own.ok, `${where} (operator starts): ${JSON.stringify(own)}`);
          const operatorRun: string = own.out[c.idField];
          const mark = fakes.requests.length;
          const refused = await bob(c.resume, c.resumeArgs(operatorRun));
          assert.ok(!refused.ok && refused.code === "not_found", `${where}: the operator's run`);
          assert.equal(fakes.requests.length, mark, `${where}: asked about the operator's run`);
        }
        if (presentation === "all_tools") {
          // A run that ends badly names it by the id Alice was handed.
          const started = await alice("tinyfish_run", {
            url: "https://shop.example/products",
            goal: "this fails",
          });
          assert.ok(started.ok);
          const handed: string = started.out.interaction_id;
          let failed: Outcome = started;
          for (let i = 0; i < 6 && failed.ok; i++) {
            failed = await alice("tinyfish_run", { run_id: handed });
          }
          assert.ok(!failed.ok, `${surface}: the run did not fail`);
          assert.equal(failed.code, "provider_unavailable");
          assert.ok(failed.message.includes(`agent run ${handed} ended FAILED`), failed.message);
        }
        await alice.close();
        await bob.close();
        await operator.close();
      }
    } finally {
      await server.shutdown();
      await gleaner.close();
      await fakes.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}
