/**
 * Parallel's long-running runs as provider tools: `parallel_research` (one
 * Task API run), `parallel_enrich` (a Task Group, one run per row) and
 * `parallel_dataset` (a FindAll run), each with its `*_status` tool. Every
 * call sends `x-api-key: <key>` to `<base>` (`search.providers.parallel.base_url`,
 * default `https://api.parallel.ai`) with the provider's `timeout_ms`.
 *
 * Starting a run polls its status every `run_poll_ms` (default 1000) until the
 * run is no longer active or `run_wait_ms` (default 5000) is over; a run still
 * going answers `status: "in_progress"` with its `run_id`, which the status
 * tool takes (it polls the same way, never starting a new run). A finished run
 * answers `status: "completed"` with its output and basis. A run that ended
 * `failed`, `cancelled` or `action_required` is a provider error classified by
 * `../../net/classify.ts` from its error (a message about credit is
 * `insufficient_balance`, else `provider_unavailable`); the upstream message
 * itself is never shown.
 *
 * Research, the Task API (https://docs.parallel.ai/task-api/task-deep-research,
 * https://docs.parallel.ai/api-reference/tasks/create-task-run):
 * - start: `POST /v1/tasks/runs` with `input` (the question), `processor`
 *   (one of {@link PARALLEL_PROCESSORS}, https://docs.parallel.ai/task-api/guides/choose-a-processor),
 *   `task_spec.output_schema` (`{ type: "text", description? }` for a Markdown
 *   report, `{ type: "auto" }`, or `{ type: "json", json_schema }`); answers
 *   202 with a `TaskRun` (`run_id`, `status`, `is_active`, `processor`,
 *   `interaction_id`, `warnings[]`, `error`).
 * - poll: `GET /v1/tasks/runs/{run_id}` (the same `TaskRun`,
 *   https://docs.parallel.ai/api-reference/tasks/retrieve-task-run); statuses
 *   `queued`, `action_required`, `running`, `completed`, `failed`,
 *   `cancelling`, `cancelled`; `is_active` while queued, running or cancelling.
 * - result: `GET /v1/tasks/runs/{run_id}/result?timeout=<s>`
 *   (https://docs.parallel.ai/api-reference/tasks/retrieve-task-run-result):
 *   `{ run, output: { type: "text" | "json", content, basis[] } }`, each basis
 *   `{ field, reasoning, confidence?, citations[]: { url, title?, excerpts? } }`
 *   (https://docs.parallel.ai/task-api/guides/access-research-basis). Only asked
 *   once the run is `completed`, with a timeout below the call's own.
 * - documented errors: 401 (credentials), 402 (insufficient credit), 403
 *   (invalid processor: reported as `invalid_arguments` naming `processor`),
 *   404 (run failed or unknown id), 408 (run still active), 422 (validation),
 *   429 (quota), each `{ type: "error", error: { ref_id, message } }`.
 * - limits checked before sending: the input at most 15,000 characters (Deep
 *   Research, https://docs.parallel.ai/task-api/task-deep-research); the task
 *   spec and input together at most 25,000 characters and an output schema
 *   nested at most 3 levels (https://docs.parallel.ai/resources/warnings-and-errors).
 *
 * Enrichment, Task Groups (https://docs.parallel.ai/task-api/group-api,
 * https://docs.parallel.ai/api-reference/tasks/add-runs-to-task-group):
 * - `POST /v1/tasks/groups` (`{}`) → `{ taskgroup_id, status }`;
 * - `POST /v1/tasks/groups/{taskgroup_id}/runs` with `default_task_spec`
 *   (`output_schema: { type: "json", json_schema }` built from the asked
 *   fields) and `inputs[]` (`{ input: <row>, processor }`, at most 1,000 per
 *   request; Gleaner sends at most 50) → `{ run_ids, status }`;
 * - poll `GET /v1/tasks/groups/{taskgroup_id}` → `{ status: { is_active,
 *   num_task_runs, task_run_status_counts, status_message } }`
 *   (https://docs.parallel.ai/api-reference/tasks/retrieve-task-group);
 * - once inactive, `GET /v1/tasks/groups/{taskgroup_id}/runs?include_input=true&include_output=true`
 *   (https://docs.parallel.ai/api-reference/tasks/fetch-task-group-runs), a
 *   Server-Sent Events stream of `task_run.state` events (`run`, `input`,
 *   `output` when completed) and `error` events: one item per run; a run that
 *   failed is an item with an `error`, the others still answer. The `run_id`
 *   of an enrichment is its `taskgroup_id`. Validation errors are FastAPI's
 *   `{ detail: [{ loc, msg, type }] }` (422).
 *
 * Datasets, FindAll (beta; header `parallel-beta: findall-2025-09-15`,
 * https://docs.parallel.ai/findall-api/findall-quickstart,
 * https://docs.parallel.ai/api-reference/findall/create-findall-run):
 * - without `entity_type` or `match_conditions`, `POST /v1beta/findall/ingest`
 *   (`{ objective }`) proposes them (`{ entity_type, match_conditions[]: { name, description } }`);
 * - start: `POST /v1beta/findall/runs` with `objective`, `entity_type`,
 *   `match_conditions`, `generator` (`preview`, `base`, `core`, `pro`) and
 *   `match_limit` (5 to 1,000) → `{ findall_id, status? }`;
 * - poll: `GET /v1beta/findall/runs/{findall_id}` → `{ findall_id, status:
 *   { status, is_active, metrics, termination_reason } }`; a run that ended
 *   with `termination_reason: "insufficient_funds"` is `insufficient_balance`;
 * - result: `GET /v1beta/findall/runs/{findall_id}/result` → `{ run,
 *   candidates[]: { candidate_id, name, url, description, match_status,
 *   output, basis } }` (https://docs.parallel.ai/findall-api/core-concepts/findall-candidates);
 *   the `matched` candidates are the items. FindAll allows 300 runs per hour
 *   (https://docs.parallel.ai/getting-started/rate-limits): a 429 is `rate_limited`.
 *
 * @module
 */
import { z } from "zod";
import { delay } from "../../async/delay.ts";
import { GleanerError } from "../../errors.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import { providerFailure } from "../../net/classify.ts";
import { boundedData, isWebUrl, providerSettings } from "./http.ts";
import { callJson, callProvider, isRecord, records, str } from "../../net/json_call.ts";
import type {
  AnyProviderTool,
  ProviderEnv,
  ProviderHit,
  ProviderRun,
  ProviderSlice,
  ProviderTool,
  RunBasis,
  RunItem,
} from "./types.ts";
import { RUN_REF_MAX_CHARS } from "./types.ts";
import { providerKey } from "./define.ts";

/** The settings it reads (`define.ts`): its `search.providers` entry and `search.timeout_ms`. */
type Slice = ProviderSlice;

/** The provider's name (as in `parallel.ts`). */
const PARALLEL = "parallel";

/**
 * The FindAll beta header value the documentation and the SDKs send.
 *
 * @internal exported for tests only
 */
export const PARALLEL_FINDALL_BETA = "findall-2025-09-15";

/** Task API processors (https://docs.parallel.ai/task-api/guides/choose-a-processor); each has a `-fast` variant. */
const BASE_PROCESSORS = [
  "lite",
  "base",
  "core",
  "core2x",
  "pro",
  "ultra",
  "ultra2x",
  "ultra4x",
  "ultra8x",
] as const;

/** Every documented processor name, standard and `-fast`. */
const PARALLEL_PROCESSORS: readonly string[] = [
  ...BASE_PROCESSORS,
  ...BASE_PROCESSORS.map((p) => `${p}-fast`),
];

/** Longest research input (Deep Research, https://docs.parallel.ai/task-api/task-deep-research). */
const RESEARCH_INPUT_MAX_CHARS = 15_000;
/** Longest task spec and input together (https://docs.parallel.ai/resources/warnings-and-errors). */
const TASK_SPEC_INPUT_MAX_CHARS = 25_000;
/** Deepest output schema nesting (https://docs.parallel.ai/resources/warnings-and-errors). */
const OUTPUT_SCHEMA_MAX_DEPTH = 3;
/** Most rows one enrichment sends (Parallel takes up to 1,000 per request). */
const ENRICH_MAX_ROWS = 50;
/** Longest text output kept (characters). */
const CONTENT_MAX_CHARS = 200_000;
/** Most items kept of a batch run. */
const ITEMS_MAX = 1_000;
/** Most citations kept per basis field, and in all. */
const FIELD_CITATIONS_MAX = 20;
const CITATIONS_MAX = 100;

/** Run ids are opaque tokens; anything else is refused before it reaches a URL. */
const RUN_ID = /^[A-Za-z0-9_-]{1,200}$/;

function settings(config: Slice) {
  const own = config.search.providers[PARALLEL] ?? {};
  return {
    ...providerSettings(config, PARALLEL, { baseUrl: "https://api.parallel.ai", maxResults: 20 }),
    waitMs: own.run_wait_ms ?? 5_000,
    pollMs: own.run_poll_ms ?? 1_000,
  };
}

function keyHeader(env: ProviderEnv<Slice>): Record<string, string> {
  return { "x-api-key": providerKey(env.config, PARALLEL) ?? "" };
}

function invalid(field: string, message: string): GleanerError {
  return new GleanerError("invalid_arguments", `${field}: ${message}`, {
    details: { field, provider: PARALLEL },
  });
}

function checkRunId(id: string): string {
  if (!RUN_ID.test(id)) throw invalid("run_id", "must be the run_id a parallel run returned");
  return id;
}

/**
 * Depth of object nesting of a JSON Schema (a flat object is 1).
 *
 * @internal exported for tests only
 */
export function schemaDepth(schema: unknown, seen = 0): number {
  if (!isRecord(schema) || seen > 20) return 0;
  let deepest = 0;
  const visit = (child: unknown) => {
    deepest = Math.max(deepest, schemaDepth(child, seen + 1));
  };
  if (isRecord(schema.properties)) Object.values(schema.properties).forEach(visit);
  if (schema.items !== undefined) visit(schema.items);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach(visit);
  }
  const isObject = schema.type === "object" || isRecord(schema.properties);
  return deepest + (isObject ? 1 : 0);
}

/** A `TaskRun` (https://docs.parallel.ai/api-reference/tasks/retrieve-task-run). */
function isTaskRun(value: unknown): value is Record<string, unknown> & {
  run_id: string;
  status: string;
} {
  return isRecord(value) && typeof value.run_id === "string" && typeof value.status === "string";
}

/** True while a run may still change (queued, running, cancelling). */
function active(status: string, isActive: unknown): boolean {
  if (typeof isActive === "boolean") return isActive;
  return status === "queued" || status === "running" || status === "cancelling";
}

/**
 * Polls `get` while `isActive` says the run goes on, until `run_wait_ms` is
 * over (or the call is cancelled): `done` says whether it ended.
 */
async function settle<T>(
  first: T,
  get: () => Promise<T>,
  isActive: (value: T) => boolean,
  env: ProviderEnv<Slice>,
): Promise<{ value: T; done: boolean }> {
  const s = settings(env.config);
  const deadline = Date.now() + s.waitMs;
  let value = first;
  while (isActive(value)) {
    if (env.signal?.aborted || Date.now() + s.pollMs > deadline) return { value, done: false };
    await delay(s.pollMs, env.signal);
    if (env.signal?.aborted) return { value, done: false };
    value = await get();
  }
  return { value, done: true };
}

/**
 * A run that ended without output: classified by `../../net/classify.ts` from its error
 * (read, never shown), `insufficient_balance` when `balance` says so, else
 * `provider_unavailable`.
 */
function runFailure(
  what: string,
  id: string,
  status: string,
  where: string,
  error: unknown,
  balance = false,
): SearchFailure {
  const message = isRecord(error) ? str(error.message) : "";
  const verdict = providerFailure(PARALLEL, where, {
    status: balance ? 402 : 503,
    body: JSON.stringify({ error: { message } }),
  });
  return new SearchFailure(
    verdict.outcome,
    `${PARALLEL}: the ${what} run ${id} ended ${status} (${
      verdict.code === "insufficient_balance" ? "out of credit" : "unavailable"
    })`,
    {
      backend: PARALLEL,
      code: verdict.code,
      details: { provider: PARALLEL, run_id: id, run_status: status },
    },
  );
}

/** Parallel's 403 on starting a run means an invalid processor (create-task-run). */
function processorRefused(error: unknown): unknown {
  if (error instanceof SearchFailure && error.details?.status === 403) {
    return new SearchFailure("invalid", `${PARALLEL}: the processor was refused`, {
      backend: PARALLEL,
      code: "invalid_arguments",
      details: { provider: PARALLEL, status: 403, field: "processor", request: true },
    });
  }
  return error;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A bounded copy of Parallel's `basis[]` (`FieldBasis`). */
function basisOf(value: unknown): RunBasis[] {
  return records(value).slice(0, 100).map((b) => ({
    field: cut(str(b.field), 200),
    reasoning: cut(str(b.reasoning), 2_000),
    ...(typeof b.confidence === "string" ? { confidence: cut(b.confidence, 20) } : {}),
    citations: records(b.citations).filter((c) => isWebUrl(c.url)).slice(0, FIELD_CITATIONS_MAX)
      .map((c) => ({
        url: str(c.url).trim(),
        ...(typeof c.title === "string" && c.title ? { title: cut(c.title, 300) } : {}),
        ...(Array.isArray(c.excerpts)
          ? {
            excerpts: c.excerpts.filter((e) => typeof e === "string").slice(0, 3).map((e) =>
              cut(e, 500)
            ),
          }
          : {}),
      })),
  }));
}

/** Every cited source of some basis lists, once each, as hits. */
function citationsOf(...lists: RunBasis[][]): ProviderHit[] {
  const seen = new Set<string>();
  const hits: ProviderHit[] = [];
  for (const basis of lists) {
    for (const field of basis) {
      for (const c of field.citations) {
        if (seen.has(c.url) || hits.length >= CITATIONS_MAX) continue;
        seen.add(c.url);
        hits.push({
          title: c.title || c.url,
          url: c.url,
          snippet: cut((c.excerpts ?? []).join(" … "), 600),
          source: PARALLEL,
        });
      }
    }
  }
  return hits;
}

/** A bounded output `content`: text cut to its limit, JSON kept when it fits. */
function contentOf(value: unknown): unknown {
  if (typeof value === "string") return cut(value, CONTENT_MAX_CHARS);
  if (value === undefined || value === null) return undefined;
  const text = JSON.stringify(value);
  return text.length <= CONTENT_MAX_CHARS ? value : cut(text, CONTENT_MAX_CHARS);
}

function inProgress(id: string, runStatus: string, data: Record<string, unknown>): ProviderRun {
  return {
    status: "in_progress",
    run_id: id,
    run_status: runStatus,
    citations: [],
    provider_data: boundedData(data),
  };
}

// ---------------------------------------------------------------- research

const ProcessorSchema = (fallback: string, hint: string) =>
  z.enum(PARALLEL_PROCESSORS as [string, ...string[]]).default(fallback).describe(
    `Parallel processor (lite, base, core, core2x, pro, ultra, ultra2x, ultra4x, ultra8x; add -fast for lower latency); ${hint}`,
  );

const ResearchInput = z.strictObject({
  query: z.string().min(1).max(RESEARCH_INPUT_MAX_CHARS).describe(
    "The research question, in plain words (at most 15,000 characters)",
  ),
  processor: ProcessorSchema("pro-fast", "default pro-fast"),
  output: z.enum(["text", "auto"]).default("text").describe(
    "`text`: a Markdown report with citations; `auto`: structured JSON chosen by Parallel",
  ),
  output_description: z.string().min(1).max(5_000).optional().describe(
    "What the report should contain (length, focus); text output only",
  ),
  output_schema: z.record(z.string(), z.unknown()).optional().describe(
    "A JSON Schema object for structured output (nested at most 3 levels)",
  ),
});

const RunIdInput = z.strictObject({
  run_id: z.string().min(1).max(RUN_REF_MAX_CHARS).describe("The run_id an earlier call returned"),
});

function researchSpec(input: z.output<typeof ResearchInput>): Record<string, unknown> {
  if (input.output_schema) {
    if (input.output_schema.type !== "object" && !isRecord(input.output_schema.properties)) {
      throw invalid("output_schema", "must be a JSON Schema of type object");
    }
    if (schemaDepth(input.output_schema) > OUTPUT_SCHEMA_MAX_DEPTH) {
      throw invalid(
        "output_schema",
        `Parallel accepts output schemas nested at most ${OUTPUT_SCHEMA_MAX_DEPTH} levels`,
      );
    }
    return { output_schema: { type: "json", json_schema: input.output_schema } };
  }
  if (input.output === "auto") return { output_schema: { type: "auto" } };
  return {
    output_schema: {
      type: "text",
      ...(input.output_description ? { description: input.output_description } : {}),
    },
  };
}

function researchData(run: Record<string, unknown>): Record<string, unknown> {
  return {
    processor: run.processor,
    interaction_id: run.interaction_id,
    warnings: records(run.warnings).map((w) => str(w.type)).filter(Boolean),
  };
}

/** Polls a task run and, once completed, reads its result. */
async function finishTaskRun(
  first: Record<string, unknown> & { run_id: string; status: string },
  env: ProviderEnv<Slice>,
): Promise<ProviderRun> {
  const s = settings(env.config);
  const where = `${s.baseUrl}/v1/tasks/runs`;
  const url = (id: string) => `${where}/${encodeURIComponent(id)}`;
  const { value: run, done } = await settle(
    first,
    () =>
      callJson(env, {
        provider: PARALLEL,
        url: url(first.run_id),
        headers: keyHeader(env),
        timeoutMs: s.timeoutMs,
      }, isTaskRun),
    (r) => active(r.status, r.is_active),
    env,
  );
  if (!done) return inProgress(run.run_id, run.status, researchData(run));
  if (run.status !== "completed") {
    throw runFailure("research", run.run_id, run.status, where, run.error);
  }
  // The run is complete: the result answers at once; its own timeout stays below the call's.
  const timeoutS = Math.max(1, Math.floor(s.timeoutMs / 2_000));
  const result = await callJson(env, {
    provider: PARALLEL,
    url: `${url(run.run_id)}/result?timeout=${timeoutS}`,
    headers: keyHeader(env),
    timeoutMs: s.timeoutMs,
  }, (v): v is Record<string, unknown> => isRecord(v) && isRecord(v.output));
  const output = result.output as Record<string, unknown>;
  const basis = basisOf(output.basis);
  return {
    status: "completed",
    run_id: run.run_id,
    run_status: "completed",
    content: contentOf(output.content),
    basis,
    citations: citationsOf(basis),
    provider_data: boundedData({ ...researchData(run), output_type: output.type }),
  };
}

async function research(
  input: z.output<typeof ResearchInput>,
  env: ProviderEnv<Slice>,
): Promise<ProviderRun> {
  const spec = researchSpec(input);
  if (JSON.stringify(spec).length + input.query.length > TASK_SPEC_INPUT_MAX_CHARS) {
    throw invalid(
      input.output_schema ? "output_schema" : "query",
      `Parallel accepts a task spec and input of at most ${TASK_SPEC_INPUT_MAX_CHARS} characters together`,
    );
  }
  const s = settings(env.config);
  const started = await callJson(env, {
    provider: PARALLEL,
    url: `${s.baseUrl}/v1/tasks/runs`,
    method: "POST",
    headers: keyHeader(env),
    json: { input: input.query, processor: input.processor, task_spec: spec },
    timeoutMs: s.timeoutMs,
  }, isTaskRun).catch((error) => {
    throw processorRefused(error);
  });
  return await finishTaskRun(started, env);
}

/** `GET <base><path><run id>`: the state of a run a status tool asks for (the id checked first). */
function getRun<T>(
  env: ProviderEnv<Slice>,
  path: string,
  runId: string,
  headers: Record<string, string>,
  isRun: (value: unknown) => value is T,
): Promise<T> {
  const s = settings(env.config);
  return callJson(env, {
    provider: PARALLEL,
    url: `${s.baseUrl}${path}${encodeURIComponent(runId)}`,
    headers,
    timeoutMs: s.timeoutMs,
  }, isRun);
}

async function researchStatus(
  input: z.output<typeof RunIdInput>,
  env: ProviderEnv<Slice>,
): Promise<ProviderRun> {
  const id = checkRunId(input.run_id);
  const run = await getRun(env, "/v1/tasks/runs/", id, keyHeader(env), isTaskRun);
  return await finishTaskRun(run, env);
}

// ---------------------------------------------------------------- enrichment

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const EnrichInput = z.strictObject({
  rows: z.array(
    z.record(
      z.string().min(1).max(100),
      z.union([z.string().max(5_000), z.number(), z.boolean(), z.null()]),
    ),
  ).min(1).max(ENRICH_MAX_ROWS).describe(
    `The records to enrich (1-${ENRICH_MAX_ROWS}), e.g. [{"company": "Acme", "website": "acme.com"}]`,
  ),
  fields: z.record(z.string().regex(FIELD_NAME), z.string().min(1).max(1_000)).describe(
    'The output fields to fill, name → what it holds, e.g. {"founded": "Year the company was founded"}',
  ),
  processor: ProcessorSchema("base", "default base (lite or base for simple fields)"),
});

/** The enrichment's output schema: one string field per asked field. */
function enrichSpec(fields: Record<string, string>): Record<string, unknown> {
  const names = Object.keys(fields);
  if (names.length < 1 || names.length > 25) {
    throw invalid("fields", "must name 1 to 25 output fields");
  }
  return {
    output_schema: {
      type: "json",
      json_schema: {
        type: "object",
        properties: Object.fromEntries(
          names.map((name) => [name, { type: "string", description: fields[name] }]),
        ),
        required: names,
        additionalProperties: false,
      },
    },
  };
}

/** A task group (https://docs.parallel.ai/api-reference/tasks/retrieve-task-group). */
function isGroup(value: unknown): value is Record<string, unknown> & {
  taskgroup_id?: string;
  status: Record<string, unknown>;
} {
  return isRecord(value) && isRecord(value.status);
}

function groupData(group: Record<string, unknown>): Record<string, unknown> {
  const status = isRecord(group.status) ? group.status : {};
  return {
    num_task_runs: status.num_task_runs,
    task_run_status_counts: status.task_run_status_counts,
  };
}

/**
 * The events of a Server-Sent Events body (`data:` lines joined; unparsable events skipped).
 *
 * @internal exported for tests only
 */
export function sseEvents(text: string, max = ITEMS_MAX): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block.split(/\r?\n/).filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, "")).join("\n");
    if (!data) continue;
    try {
      const value = JSON.parse(data);
      if (isRecord(value)) events.push(value);
    } catch {
      // A malformed event is skipped; the others still count.
    }
    if (events.length >= max) break;
  }
  return events;
}

async function finishGroup(
  id: string,
  first: Record<string, unknown> & { status: Record<string, unknown> },
  env: ProviderEnv<Slice>,
): Promise<ProviderRun> {
  const s = settings(env.config);
  const where = `${s.baseUrl}/v1/tasks/groups`;
  const groupUrl = `${where}/${encodeURIComponent(id)}`;
  const { value: group, done } = await settle(
    first,
    () =>
      callJson(env, {
        provider: PARALLEL,
        url: groupUrl,
        headers: keyHeader(env),
        timeoutMs: s.timeoutMs,
      }, isGroup),
    (g) => g.status.is_active !== false,
    env,
  );
  if (!done) return inProgress(id, "running", groupData(group));
  const res = await callProvider(env, {
    provider: PARALLEL,
    url: `${groupUrl}/runs?include_input=true&include_output=true`,
    headers: { ...keyHeader(env), accept: "text/event-stream" },
    timeoutMs: s.timeoutMs,
  });
  const items: RunItem[] = [];
  const allBasis: RunBasis[][] = [];
  for (const event of sseEvents(res.text())) {
    if (event.type === "error") {
      items.push({
        status: "error",
        error: {
          code: "provider_unavailable",
          message: `${PARALLEL}: the run stream of task group ${id} reported an error`,
        },
      });
      continue;
    }
    if (event.type !== "task_run.state" || !isTaskRun(event.run)) continue;
    const run = event.run;
    const input = isRecord(event.input) ? event.input.input : undefined;
    const output = isRecord(event.output) ? event.output : undefined;
    if (run.status === "completed" && output) {
      const basis = basisOf(output.basis);
      allBasis.push(basis);
      items.push({ input, status: run.status, content: contentOf(output.content), basis });
    } else {
      const failure = active(run.status, run.is_active)
        ? new GleanerError(
          "provider_unavailable",
          `${PARALLEL}: the run ${run.run_id} is still ${run.status}`,
        )
        : runFailure("enrichment", run.run_id, run.status, where, run.error);
      items.push({
        input,
        status: run.status,
        error: { code: failure.code, message: failure.message },
      });
    }
  }
  return {
    status: "completed",
    run_id: id,
    run_status: "completed",
    items,
    citations: citationsOf(...allBasis),
    provider_data: boundedData(groupData(group)),
  };
}

async function enrich(
  input: z.output<typeof EnrichInput>,
  env: ProviderEnv<Slice>,
): Promise<ProviderRun> {
  const spec = enrichSpec(input.fields);
  const specChars = JSON.stringify(spec).length;
  input.rows.forEach((row, i) => {
    if (specChars + JSON.stringify(row).length > TASK_SPEC_INPUT_MAX_CHARS) {
      throw invalid(
        `rows[${i}]`,
        `Parallel accepts a task spec and input of at most ${TASK_SPEC_INPUT_MAX_CHARS} characters together`,
      );
    }
  });
  const s = settings(env.config);
  const created = await callJson(
    env,
    {
      provider: PARALLEL,
      url: `${s.baseUrl}/v1/tasks/groups`,
      method: "POST",
      headers: keyHeader(env),
      json: {},
      timeoutMs: s.timeoutMs,
    },
    (v): v is Record<string, unknown> & { taskgroup_id: string } =>
      isRecord(v) && typeof v.taskgroup_id === "string" && RUN_ID.test(v.taskgroup_id),
  );
  const id = created.taskgroup_id;
  const added = await callJson(env, {
    provider: PARALLEL,
    url: `${s.baseUrl}/v1/tasks/groups/${encodeURIComponent(id)}/runs`,
    method: "POST",
    headers: keyHeader(env),
    json: {
      default_task_spec: spec,
      inputs: input.rows.map((row) => ({ input: row, processor: input.processor })),
    },
    timeoutMs: s.timeoutMs,
  }, isGroup).catch((error) => {
    throw processorRefused(error);
  });
  return await finishGroup(id, added, env);
}

async function enrichStatus(
  input: z.output<typeof RunIdInput>,
  env: ProviderEnv<Slice>,
): Promise<ProviderRun> {
  const id = checkRunId(input.run_id);
  const group = await getRun(env, "/v1/tasks/groups/", id, keyHeader(env), isGroup);
  return await finishGroup(id, group, env);
}

// ---------------------------------------------------------------- datasets

const GENERATORS = ["preview", "base", "core", "pro"] as const;

const DatasetInput = z.strictObject({
  objective: z.string().min(1).max(5_000).describe(
    'What to find, in plain words, e.g. "AI companies that raised a Series A in 2024"',
  ),
  entity_type: z.string().min(1).max(200).optional().describe(
    "What kind of entity (companies, people, …); default: proposed by Parallel",
  ),
  match_conditions: z.array(z.strictObject({
    name: z.string().regex(FIELD_NAME),
    description: z.string().min(1).max(2_000),
  })).min(1).max(20).optional().describe(
    "Conditions every entity must meet; default: proposed by Parallel from the objective",
  ),
  generator: z.enum(GENERATORS).default("base").describe(
    "`preview` (~10 candidates, to test), `base`, `core`, `pro` (most thorough)",
  ),
  match_limit: z.number().int().min(5).max(1_000).default(10).describe(
    "Most matches to find (5-1,000)",
  ),
});

function findallHeaders(env: ProviderEnv<Slice>): Record<string, string> {
  return { ...keyHeader(env), "parallel-beta": PARALLEL_FINDALL_BETA };
}

/** A FindAll run's status object (`{ status, is_active, metrics, termination_reason }`). */
function findallStatus(run: Record<string, unknown>): Record<string, unknown> {
  return isRecord(run.status) ? run.status : {};
}

function isFindAllRun(value: unknown): value is Record<string, unknown> & { findall_id: string } {
  return isRecord(value) && typeof value.findall_id === "string";
}

function findallData(run: Record<string, unknown>): Record<string, unknown> {
  const status = findallStatus(run);
  const metrics = isRecord(status.metrics) ? status.metrics : {};
  return {
    generator: run.generator,
    generated_candidates: metrics.generated_candidates_count,
    matched_candidates: metrics.matched_candidates_count,
    termination_reason: status.termination_reason,
  };
}

async function finishFindAll(
  first: Record<string, unknown> & { findall_id: string },
  env: ProviderEnv<Slice>,
): Promise<ProviderRun> {
  const s = settings(env.config);
  const where = `${s.baseUrl}/v1beta/findall/runs`;
  const url = `${where}/${encodeURIComponent(first.findall_id)}`;
  const statusWord = (r: Record<string, unknown>) => str(findallStatus(r).status) || "queued";
  const { value: run, done } = await settle(
    first,
    () =>
      callJson(env, {
        provider: PARALLEL,
        url,
        headers: findallHeaders(env),
        timeoutMs: s.timeoutMs,
      }, isFindAllRun),
    (r) => active(statusWord(r), findallStatus(r).is_active),
    env,
  );
  const id = first.findall_id;
  if (!done) return inProgress(id, statusWord(run), findallData(run));
  const status = statusWord(run);
  if (status !== "completed") {
    const reason = str(findallStatus(run).termination_reason);
    throw runFailure("dataset", id, status, where, {}, reason === "insufficient_funds");
  }
  const result = await callJson(env, {
    provider: PARALLEL,
    url: `${url}/result`,
    headers: findallHeaders(env),
    timeoutMs: s.timeoutMs,
  }, (v): v is Record<string, unknown> => isRecord(v) && Array.isArray(v.candidates));
  const items: RunItem[] = [];
  const allBasis: RunBasis[][] = [];
  for (const c of records(result.candidates)) {
    if (c.match_status !== "matched" || items.length >= ITEMS_MAX) continue;
    const basis = basisOf(c.basis);
    allBasis.push(basis);
    items.push({
      name: cut(str(c.name), 300),
      ...(isWebUrl(c.url) ? { url: str(c.url).trim() } : {}),
      status: "matched",
      content: contentOf({
        ...(typeof c.description === "string" ? { description: c.description } : {}),
        ...(isRecord(c.output) ? { output: c.output } : {}),
      }),
      basis,
    });
  }
  const finalRun = isRecord(result.run) ? result.run : run;
  return {
    status: "completed",
    run_id: id,
    run_status: "completed",
    items,
    citations: citationsOf(...allBasis),
    provider_data: boundedData({ ...findallData(run), ...findallData(finalRun) }),
  };
}

async function dataset(
  input: z.output<typeof DatasetInput>,
  env: ProviderEnv<Slice>,
): Promise<ProviderRun> {
  const s = settings(env.config);
  let entityType = input.entity_type;
  let conditions = input.match_conditions;
  if (entityType === undefined || conditions === undefined) {
    // Ingest proposes the entity type and the match conditions from the objective.
    const proposed = await callJson(
      env,
      {
        provider: PARALLEL,
        url: `${s.baseUrl}/v1beta/findall/ingest`,
        method: "POST",
        headers: findallHeaders(env),
        json: { objective: input.objective },
        timeoutMs: s.timeoutMs,
      },
      (v): v is Record<string, unknown> =>
        isRecord(v) && typeof v.entity_type === "string" && Array.isArray(v.match_conditions),
    );
    entityType ??= str(proposed.entity_type);
    conditions ??= records(proposed.match_conditions).slice(0, 20).map((c) => ({
      name: str(c.name),
      description: str(c.description),
    }));
  }
  const started = await callJson(env, {
    provider: PARALLEL,
    url: `${s.baseUrl}/v1beta/findall/runs`,
    method: "POST",
    headers: findallHeaders(env),
    json: {
      objective: input.objective,
      entity_type: entityType,
      match_conditions: conditions,
      generator: input.generator,
      match_limit: input.match_limit,
    },
    timeoutMs: s.timeoutMs,
  }, isFindAllRun);
  if (!RUN_ID.test(started.findall_id)) {
    throw providerFailure(PARALLEL, `${s.baseUrl}/v1beta/findall/runs`, {
      status: 200,
      unreadable: true,
    });
  }
  return await finishFindAll(started, env);
}

async function datasetStatus(
  input: z.output<typeof RunIdInput>,
  env: ProviderEnv<Slice>,
): Promise<ProviderRun> {
  const id = checkRunId(input.run_id);
  const run = await getRun(env, "/v1beta/findall/runs/", id, findallHeaders(env), isFindAllRun);
  return await finishFindAll(run, env);
}

// ---------------------------------------------------------------- tools

function runTool<I extends z.ZodObject>(
  tool: Omit<ProviderTool<I, "run", Slice>, "kind">,
): ProviderTool<I, "run", Slice> {
  return { ...tool, kind: "run" };
}

/**
 * Parallel's run tools and their status tools, for the `all_tools` and
 * `one_provider` presentations.
 *
 * @example
 * ```ts
 * import { PARALLEL_RUN_TOOLS } from "./parallel_runs.ts";
 * console.assert(PARALLEL_RUN_TOOLS.map((t) => t.name).includes("parallel_research_status"));
 * ```
 */
export const PARALLEL_RUN_TOOLS: readonly AnyProviderTool[] = [
  runTool({
    name: "parallel_research",
    title: "Parallel research",
    description:
      "Starts a Parallel deep-research run on a question and answers its report (Markdown, or JSON) with sources per field; a run still going after a few seconds answers in_progress with a run_id for parallel_research_status. Billed per run by processor.",
    input: ResearchInput,
    run: research,
  }),
  runTool({
    name: "parallel_research_status",
    title: "Parallel research status",
    description:
      "The state of a parallel_research run by run_id: its report and sources when completed, else in_progress.",
    input: RunIdInput,
    run: researchStatus,
  }),
  runTool({
    name: "parallel_enrich",
    title: "Parallel enrich",
    description:
      "Enriches records (e.g. companies) with fields researched on the web by Parallel, one run per row, each field with its sources; a batch still going answers in_progress with a run_id for parallel_enrich_status. A row that fails carries an error; the others still answer.",
    input: EnrichInput,
    run: enrich,
  }),
  runTool({
    name: "parallel_enrich_status",
    title: "Parallel enrich status",
    description:
      "The state of a parallel_enrich batch by run_id: its rows when finished, else in_progress.",
    input: RunIdInput,
    run: enrichStatus,
  }),
  runTool({
    name: "parallel_dataset",
    title: "Parallel dataset",
    description:
      "Builds a dataset of entities (companies, people, …) matching an objective with Parallel FindAll: each match with its URL, the conditions it meets and their sources; a run still going answers in_progress with a run_id for parallel_dataset_status.",
    input: DatasetInput,
    run: dataset,
  }),
  runTool({
    name: "parallel_dataset_status",
    title: "Parallel dataset status",
    description:
      "The state of a parallel_dataset run by run_id: its matched entities when finished, else in_progress.",
    input: RunIdInput,
    run: datasetStatus,
  }),
];
