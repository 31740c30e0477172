/**
 * Gemini: search results and answers grounded in Google Search, and the Deep
 * Research agent for deep answers (`x-goog-api-key: <key>`).
 *
 * Answers (`POST <base>/v1beta/models/<model>:generateContent` with the
 * `google_search` tool, https://ai.google.dev/gemini-api/docs/google-search):
 * quick answers use {@link GEMINI_MODEL}, deep ones {@link GEMINI_DEEP_MODEL}
 * (settings `search.providers.gemini.model` / `deep_model`): the replacements
 * Google names for `gemini-2.5-flash` and `gemini-2.5-pro`, shut down on
 * 2026-12-01 (https://ai.google.dev/gemini-api/docs/deprecations, read
 * 2026-12-01). A retired model answers 404 `NOT_FOUND`, classified
 * `not_found`: the router falls back to the next provider.
 *
 * Request fields sent: `contents[0].parts[0].text` (the question),
 * `tools: [{ google_search: {} }]`.
 *
 * Fields read: `candidates[0].content.parts[].text` (joined: the answer),
 * `candidates[0].groundingMetadata.groundingChunks[].web` (`uri`, `title`:
 * the citations), `groundingMetadata.webSearchQueries`, `modelVersion` (kept
 * in `provider_data`). A candidate without text (blocked, or no answer) is
 * `provider_unavailable`.
 *
 * Search (the `search` role; not in the default search order, since every
 * search is one model call, billed as such: operators add `gemini` to
 * `search.search_order`): the same generateContent call with the quick model
 * and the `google_search` tool. The model's text is not a result list, so the
 * hits come from the grounding metadata the same page documents
 * (https://ai.google.dev/gemini-api/docs/google-search#understanding-the-grounding-response):
 * - `groundingChunks[].web.uri` and `.title`: one hit per chunk. The URI is
 *   Google's grounding redirect (`https://vertexaisearch.cloud.google.com/grounding-api-redirect/…`),
 *   not the page's own URL, and the title is usually the source's domain;
 *   both are kept as the API returns them (the redirect leads to the page).
 * - `groundingSupports[]` (`segment.text`, `groundingChunkIndices[]`): the
 *   sentences of the answer each chunk supports. A chunk's snippet is the
 *   text of the segments that cite it; chunks are ranked by how many segments
 *   cite them (then in the API's order), and chunks no segment cites come last
 *   with an empty snippet.
 * - `webSearchQueries`: the queries Google ran (kept in `provider_data`).
 *
 * Deep Research (`search.providers.gemini.deep_research: true`): a `deep`
 * answer runs Google's Deep Research agent through the Interactions API
 * instead of `deep_model` (https://ai.google.dev/gemini-api/docs/deep-research,
 * https://ai.google.dev/gemini-api/docs/background-execution). The agent runs
 * only in background mode:
 * - start: `POST <base>/v1beta/interactions` with `input` (the question),
 *   `agent` (`deep_research_agent`, default {@link GEMINI_DEEP_RESEARCH_AGENT},
 *   the agent the documentation names) and `background: true`; read `id` and
 *   `status`.
 * - poll: `GET <base>/v1beta/interactions/<id>` every `deep_research_poll_ms`
 *   (default 10 s, as the documentation's loop waits) until `status` is
 *   terminal or `deep_research_wait_ms` (default 45 s, below the 60 s an MCP
 *   client waits by default) is over. `status` is one
 *   of `in_progress`, `completed`, `failed`, `cancelled`, `requires_action`
 *   (the `Interaction` resource, https://googleapis.github.io/js-genai/release_docs/interfaces/interactions_client.GeminiNextGenAPIClient.Interactions.Interaction.html).
 * - still `in_progress` when the wait is over: the answer comes back with
 *   `status: "in_progress"`, an empty `answer` and the `interaction_id`; a call
 *   with that `interaction_id` resumes polling (no new run is started).
 * - `completed`: the report is the text of the last step that is not the
 *   `user_input` step, `steps[].content[]` blocks of `type: "text"` (the
 *   schema since May 2026, https://ai.google.dev/gemini-api/docs/interactions-breaking-changes-may-2026);
 *   the legacy `outputs[].text` is read when there are no steps. Citations are
 *   the text blocks' `annotations[]` with a `url` (and `title`), the
 *   `TextContent` annotations of https://googleapis.github.io/js-genai/release%5Fdocs/types/gaos_models_interactions_text-content.TextContent.html.
 * - `failed`, `cancelled` or `requires_action`: a provider error. The run's
 *   `error` (a `google.rpc.Status`: `code`, `message`, `status`) is classified
 *   like any Google error (a `RESOURCE_EXHAUSTED` run is `rate_limited`, …);
 *   without a documented code it is `provider_unavailable`. HTTP errors of the
 *   two calls are classified as for generateContent.
 *
 * @module
 */
import { delay } from "../../async/delay.ts";
import { z } from "zod";
import { GleanerError } from "../../errors.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import { providerFailure } from "../../net/classify.ts";
import { boundedData, isWebUrl, providerSettings } from "./http.ts";
import { callJson, hasArray, isRecord, records, str } from "../../net/json_call.ts";
import type {
  AnswerRequest,
  Provider,
  ProviderAnswer,
  ProviderEnv,
  ProviderHit,
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";
import { RUN_REF_MAX_CHARS } from "./types.ts";
import { defineProvider, providerKey } from "./define.ts";

/** The settings it reads (`define.ts`): its `search.providers` entry and `search.timeout_ms`. */
type Slice = ProviderSlice;

/** The provider's name. */
const GEMINI = "gemini";

function settings(config: Slice) {
  return providerSettings(config, GEMINI, {
    baseUrl: "https://generativelanguage.googleapis.com",
    maxResults: 20,
  });
}

/** The default model of quick answers (`search.providers.gemini.model`). */
const GEMINI_MODEL = "gemini-3.5-flash-lite";
/** The default model of deep answers (`search.providers.gemini.deep_model`). */
const GEMINI_DEEP_MODEL = "gemini-3.8-flash";
/**
 * The default Deep Research agent (`search.providers.gemini.deep_research_agent`),
 * as https://ai.google.dev/gemini-api/docs/deep-research names it.
 */
const GEMINI_DEEP_RESEARCH_AGENT = "deep-research-preview-04-2026";

function modelFor(config: Slice, depth: "quick" | "deep"): string {
  const own = config.search.providers[GEMINI] ?? {};
  return depth === "deep" ? own.deep_model ?? GEMINI_DEEP_MODEL : own.model ?? GEMINI_MODEL;
}

function deepResearchSettings(config: Slice) {
  const own = config.search.providers[GEMINI] ?? {};
  return {
    enabled: own.deep_research === true,
    agent: own.deep_research_agent ?? GEMINI_DEEP_RESEARCH_AGENT,
    // Below the 60 s an MCP client waits by default, so the in_progress answer arrives in time.
    waitMs: own.deep_research_wait_ms ?? 45_000,
    pollMs: own.deep_research_poll_ms ?? 10_000,
  };
}

/** One grounded generateContent call: the candidate and the model that answered. */
async function groundedCall(query: string, model: string, env: ProviderEnv<Slice>) {
  const s = settings(env.config);
  const url = `${s.baseUrl}/v1beta/models/${encodeURIComponent(model)}:generateContent`;
  const body = await callJson(env, {
    provider: GEMINI,
    url,
    method: "POST",
    headers: { "x-goog-api-key": providerKey(env.config, GEMINI) ?? "" },
    json: {
      contents: [{ role: "user", parts: [{ text: query }] }],
      tools: [{ google_search: {} }],
    },
    timeoutMs: s.timeoutMs,
  }, hasArray("candidates"));
  const candidate = records(body.candidates)[0] ?? {};
  const grounding = isRecord(candidate.groundingMetadata) ? candidate.groundingMetadata : {};
  return { url, body, candidate, grounding, maxResults: s.maxResults };
}

/** The web chunks of grounding metadata, in the API's order (non-web chunks kept as holes). */
function webChunks(grounding: Record<string, unknown>): ({ uri: string; title: string } | null)[] {
  return (Array.isArray(grounding.groundingChunks) ? grounding.groundingChunks : []).map(
    (chunk) => {
      const web = isRecord(chunk) && isRecord(chunk.web) ? chunk.web : {};
      return isWebUrl(web.uri) ? { uri: str(web.uri).trim(), title: str(web.title) } : null;
    },
  );
}

/**
 * Turns Gemini grounding metadata into ranked hits: one per web chunk, its
 * snippet the answer segments that cite it, ranked by how many segments do.
 *
 * @example
 * ```ts
 * import { geminiGroundingHits } from "./gemini.ts";
 * const hits = geminiGroundingHits({
 *   groundingChunks: [
 *     { web: { uri: "https://a.example/1", title: "a.example" } },
 *     { web: { uri: "https://b.example/2", title: "b.example" } },
 *   ],
 *   groundingSupports: [{ segment: { text: "B says so." }, groundingChunkIndices: [1] }],
 * });
 * console.assert(hits[0].url === "https://b.example/2" && hits[0].snippet === "B says so.");
 * console.assert(hits[1].snippet === "");
 * ```
 *
 * @internal exported for tests only
 */
export function geminiGroundingHits(grounding: Record<string, unknown>): ProviderHit[] {
  const chunks = webChunks(grounding);
  const segments: string[][] = chunks.map(() => []);
  for (const support of records(grounding.groundingSupports)) {
    const segment = isRecord(support.segment) ? support.segment : {};
    const text = str(segment.text).trim();
    if (!text || !Array.isArray(support.groundingChunkIndices)) continue;
    for (const index of support.groundingChunkIndices) {
      if (typeof index !== "number" || !Number.isInteger(index) || !segments[index]) continue;
      if (!segments[index].includes(text)) segments[index].push(text);
    }
  }
  const seen = new Set<string>();
  const ranked: { hit: ProviderHit; supports: number; order: number }[] = [];
  chunks.forEach((chunk, order) => {
    if (!chunk || seen.has(chunk.uri)) return;
    seen.add(chunk.uri);
    const snippet = segments[order].join(" … ");
    ranked.push({
      order,
      supports: segments[order].length,
      hit: {
        title: chunk.title || chunk.uri,
        url: chunk.uri,
        snippet: snippet.length > 600 ? `${snippet.slice(0, 600)}…` : snippet,
        source: GEMINI,
        provider_data: boundedData({ supports: segments[order].length }),
      },
    });
  });
  ranked.sort((a, b) => b.supports - a.supports || a.order - b.order);
  return ranked.map((r) => r.hit);
}

async function geminiSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  const call = await groundedCall(req.query, modelFor(env.config, "quick"), env);
  const queries = Array.isArray(call.grounding.webSearchQueries)
    ? call.grounding.webSearchQueries.filter((q) => typeof q === "string")
    : [];
  return geminiGroundingHits(call.grounding)
    .slice(0, Math.min(req.max_results, call.maxResults))
    .map((hit) => ({
      ...hit,
      provider_data: boundedData({ ...hit.provider_data, search_queries: queries }),
    }));
}

async function geminiAnswer(req: AnswerRequest, env: ProviderEnv<Slice>): Promise<ProviderAnswer> {
  if (
    req.interaction_id !== undefined ||
    (req.depth === "deep" && !req.grounded && deepResearchSettings(env.config).enabled)
  ) {
    return await deepResearchAnswer(req, env);
  }
  const model = modelFor(env.config, req.depth);
  const { url, body, candidate, grounding, maxResults } = await groundedCall(req.query, model, env);
  const content = isRecord(candidate.content) ? candidate.content : {};
  const answer = records(content.parts).map((part) => str(part.text)).join("").trim();
  if (!answer) throw providerFailure(GEMINI, url, { status: 200, unreadable: true });
  const citations: ProviderHit[] = [];
  for (const chunk of webChunks(grounding)) {
    if (!chunk) continue;
    citations.push({
      title: chunk.title || chunk.uri,
      url: chunk.uri,
      snippet: "",
      source: GEMINI,
    });
  }
  return {
    answer,
    citations: citations.slice(0, maxResults),
    provider_data: boundedData({
      model: body.modelVersion ?? model,
      search_queries: grounding.webSearchQueries,
    }),
  };
}

/** Interaction ids are opaque tokens; anything else is refused before it reaches a URL. */
const INTERACTION_ID = /^[A-Za-z0-9_.-]{1,200}$/;

/** Interaction statuses after which polling stops. */
const TERMINAL = new Set(["completed", "failed", "cancelled", "requires_action"]);

function isInteraction(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value.id === "string" && typeof value.status === "string";
}

async function deepResearchAnswer(
  req: AnswerRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderAnswer> {
  const s = settings(env.config);
  const dr = deepResearchSettings(env.config);
  const headers = { "x-goog-api-key": providerKey(env.config, GEMINI) ?? "" };
  const get = (id: string) =>
    callJson(env, {
      provider: GEMINI,
      url: `${s.baseUrl}/v1beta/interactions/${encodeURIComponent(id)}`,
      headers,
      timeoutMs: s.timeoutMs,
    }, isInteraction);
  let interaction: Record<string, unknown> & { id: string; status: string };
  if (req.interaction_id !== undefined) {
    if (!INTERACTION_ID.test(req.interaction_id)) {
      throw new GleanerError(
        "invalid_arguments",
        "interaction_id: must be the id an earlier in_progress answer returned",
        { details: { field: "interaction_id", provider: GEMINI } },
      );
    }
    interaction = await get(req.interaction_id) as typeof interaction;
  } else {
    interaction = await callJson(env, {
      provider: GEMINI,
      url: `${s.baseUrl}/v1beta/interactions`,
      method: "POST",
      headers,
      json: { input: req.query, agent: dr.agent, background: true },
      timeoutMs: s.timeoutMs,
    }, isInteraction) as typeof interaction;
  }
  const deadline = Date.now() + dr.waitMs;
  while (!TERMINAL.has(interaction.status)) {
    if (env.signal?.aborted || Date.now() + dr.pollMs > deadline) {
      return {
        answer: "",
        citations: [],
        status: "in_progress",
        interaction_id: interaction.id,
        provider_data: boundedData({ agent: interaction.agent ?? dr.agent }),
      };
    }
    await delay(dr.pollMs, env.signal);
    interaction = await get(interaction.id) as typeof interaction;
  }
  const where = `${s.baseUrl}/v1beta/interactions`;
  if (interaction.status !== "completed") throw runFailure(interaction, where);
  const { text, citations } = reportOf(interaction);
  if (!text) throw providerFailure(GEMINI, where, { status: 200, unreadable: true });
  return {
    answer: text,
    citations: citations.slice(0, s.maxResults),
    status: "completed",
    interaction_id: interaction.id,
    provider_data: boundedData({ agent: interaction.agent ?? dr.agent, usage: interaction.usage }),
  };
}

/** The report of a completed interaction: its last output text and that text's citations. */
function reportOf(interaction: Record<string, unknown>) {
  // Current schema: steps[] (the user_input step first on GET), each with content[] blocks.
  const blocks: Record<string, unknown>[][] = records(interaction.steps)
    .filter((step) => step.type !== "user_input")
    .map((step) => records(step.content).filter((c) => typeof c.text === "string"));
  // Legacy schema: a flat outputs[] of content blocks.
  if (blocks.length === 0) {
    blocks.push(records(interaction.outputs).filter((c) => typeof c.text === "string"));
  }
  const last = blocks.filter((b) => b.length > 0).at(-1) ?? [];
  const text = last.map((c) => str(c.text)).join("").trim();
  const citations: ProviderHit[] = [];
  const seen = new Set<string>();
  for (const block of last) {
    for (const note of records(block.annotations)) {
      const inner = isRecord(note.url_citation) ? note.url_citation : note;
      if (!isWebUrl(inner.url) || seen.has(str(inner.url).trim())) continue;
      const url = str(inner.url).trim();
      seen.add(url);
      citations.push({ title: str(inner.title) || url, url, snippet: "", source: GEMINI });
    }
  }
  return { text, citations };
}

/**
 * The names of `google.rpc.Code` values
 * (https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto).
 */
const RPC_CODES: Readonly<Record<number, string>> = {
  1: "CANCELLED",
  2: "UNKNOWN",
  3: "INVALID_ARGUMENT",
  4: "DEADLINE_EXCEEDED",
  5: "NOT_FOUND",
  7: "PERMISSION_DENIED",
  8: "RESOURCE_EXHAUSTED",
  9: "FAILED_PRECONDITION",
  13: "INTERNAL",
  14: "UNAVAILABLE",
  16: "UNAUTHENTICATED",
};

/**
 * A run that ended without a report, classified as Google errors are: its
 * `error` (`google.rpc.Status`) carries the documented codes; without one it
 * is `provider_unavailable`.
 */
function runFailure(interaction: Record<string, unknown>, where: string): SearchFailure {
  const error = isRecord(interaction.error) ? { ...interaction.error } : {};
  // A google.rpc.Status may carry only the numeric code: name it as Google's error responses do.
  if (typeof error.status !== "string" && typeof error.code === "number") {
    const name = RPC_CODES[error.code];
    if (name) error.status = name;
  }
  const body = JSON.stringify({ error });
  // A documented Google code in the run's error decides (judged as an error response would
  // be); without one the run is an outage of the agent, never the caller's fault.
  const coded = providerFailure(GEMINI, where, { status: 400, body });
  const documented = typeof coded.details?.upstream_code === "string";
  const chosen = documented ? coded : providerFailure(GEMINI, where, { status: 503 });
  return new SearchFailure(
    chosen.outcome,
    `${GEMINI}: the Deep Research run ${interaction.id} ended ${str(interaction.status)}${
      documented ? ` (${coded.details?.upstream_code})` : ""
    }`,
    {
      backend: GEMINI,
      code: chosen.code,
      details: {
        provider: GEMINI,
        interaction_id: interaction.id,
        run_status: interaction.status,
        ...(documented ? { upstream_code: coded.details?.upstream_code } : {}),
      },
    },
  );
}

const GeminiInput = z.strictObject({
  query: z.string().min(1).max(4000).describe("The question"),
  depth: z.enum(["quick", "deep"]).default("quick").describe(
    "`quick`: the fast model; `deep`: the stronger model, or the Deep Research agent when enabled",
  ),
  interaction_id: z.string().min(1).max(RUN_REF_MAX_CHARS).optional().describe(
    "Resumes a Deep Research run an earlier answer left `in_progress`",
  ),
});

const GeminiSearchInput = z.strictObject({
  query: z.string().min(1).max(4000).describe("What to search for"),
  max_results: z.number().int().min(1).max(20).default(10).describe("Results (1-20)"),
});

/** The name of Gemini Deep Research as a provider of its own. */
const GEMINI_DEEP_RESEARCH = "gemini_deep_research";

const DeepResearchInput = z.strictObject({
  query: z.string().min(1).max(4000).optional().describe("The research question"),
  interaction_id: z.string().min(1).max(RUN_REF_MAX_CHARS).optional().describe(
    "Resumes a run an earlier call left `in_progress` (query is then not needed)",
  ),
});

/** Deep Research as a provider: on with Gemini's key and either switch, off when told. */
function deepResearchConfigured(config: Slice): boolean {
  const own = config.search.providers[GEMINI_DEEP_RESEARCH] ?? {};
  if (!providerKey(config, GEMINI) || settings(config).enabled === false) return false;
  return own.enabled === true ||
    (own.enabled !== false && deepResearchSettings(config).enabled);
}

/**
 * Gemini Deep Research as an answer provider of its own (TinySearch's `gemini_deep_research`):
 * Gemini's key and endpoint, the Deep Research agent of `search.providers.gemini.deep_research_*`,
 * deep answers only. On with `search.providers.gemini_deep_research.enabled: true` or
 * `search.providers.gemini.deep_research: true`; it can be ordered (`search.answer_order`) and
 * pinned (`provider: "gemini_deep_research"`) apart from grounded Gemini.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { geminiDeepResearchProvider } from "./gemini.ts";
 * const on = { gemini_api_key: "k", providers: { gemini_deep_research: { enabled: true } } };
 * console.assert(geminiDeepResearchProvider.isConfigured(parseConfig({ search: on })));
 * console.assert(!geminiDeepResearchProvider.isConfigured(parseConfig({ search: { gemini_api_key: "k" } })));
 * ```
 */
export const geminiDeepResearchProvider: Provider = defineProvider({
  // It runs on Gemini's key and settings, and reads its own entry's `enabled`.
  settings: { providers: [GEMINI, GEMINI_DEEP_RESEARCH] },
  name: GEMINI_DEEP_RESEARCH,
  scope: "shared",
  title: "Gemini Deep Research",
  roles: ["answer"],
  configHint: "search.providers.gemini.api_key and search.providers.gemini_deep_research.enabled",
  isConfigured: deepResearchConfigured,
  resumesAnswers: true,
  deepAnswersOnly: true,
  answer: (req, env) => deepResearchAnswer(req, env),
  tools: [{
    name: GEMINI_DEEP_RESEARCH,
    title: "Gemini Deep Research",
    description:
      "Researches a question with Google's Deep Research agent: a long report with citations. A run still going comes back in_progress with an interaction_id: call again with it to resume.",
    kind: "answer",
    input: DeepResearchInput,
    run: (input: z.output<typeof DeepResearchInput>, env: ProviderEnv<Slice>) => {
      if (input.interaction_id === undefined && input.query === undefined) {
        throw new GleanerError(
          "invalid_arguments",
          "query: needed unless interaction_id resumes a run",
          {
            details: { field: "query", provider: GEMINI_DEEP_RESEARCH },
          },
        );
      }
      return deepResearchAnswer({
        query: input.query ?? "",
        depth: "deep",
        ...(input.interaction_id !== undefined ? { interaction_id: input.interaction_id } : {}),
      }, env);
    },
  }],
});

/**
 * Proves the key with `models.get` of the quick model (free; documented at
 * https://ai.google.dev/api/models#method:-models.get): a refused key answers
 * 400 `API_KEY_INVALID`, a retired model 404 `NOT_FOUND`.
 */
async function geminiProbe(env: ProviderEnv<Slice>): Promise<string> {
  const s = settings(env.config);
  const model = modelFor(env.config, "quick");
  const body = await callJson(env, {
    provider: GEMINI,
    url: `${s.baseUrl}/v1beta/models/${encodeURIComponent(model)}`,
    headers: { "x-goog-api-key": providerKey(env.config, GEMINI) ?? "" },
    timeoutMs: s.timeoutMs,
  }, isRecord);
  return `key accepted; model ${str(body.name) || model} available`;
}

/**
 * The Gemini provider (`search.providers.gemini.api_key`, env `GEMINI_API_KEY`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { geminiProvider } from "./gemini.ts";
 * console.assert(geminiProvider.roles.join() === "search,answer");
 * console.assert(geminiProvider.isConfigured(parseConfig({ search: { gemini_api_key: "k" } })));
 * ```
 */
export const geminiProvider: Provider = defineProvider({
  settings: { search: [] },
  name: GEMINI,
  scope: "shared",
  title: "Gemini",
  roles: ["search", "answer"],
  configHint: "search.providers.gemini.api_key",
  isConfigured: (config) =>
    Boolean(providerKey(config, GEMINI)) && settings(config).enabled !== false,
  resumesAnswers: true,
  search: geminiSearch,
  answer: geminiAnswer,
  probe: geminiProbe,
  tools: [{
    name: "gemini_grounded_answer",
    title: "Gemini grounded answer",
    description:
      "Answers a question with Gemini grounded in Google Search, citing the pages it used. A deep answer from the Deep Research agent may come back in_progress with an interaction_id: call again with it to resume.",
    kind: "answer",
    input: GeminiInput,
    run: (input: z.output<typeof GeminiInput>, env: ProviderEnv<Slice>) => geminiAnswer(input, env),
  }, {
    name: "gemini_grounded_search",
    title: "Gemini grounded search",
    description:
      "Searches Google through Gemini's grounding: the pages the model used, each with the answer sentences it supports. URLs are Google's grounding redirects.",
    kind: "search",
    input: GeminiSearchInput,
    run: async (input: z.output<typeof GeminiSearchInput>, env: ProviderEnv<Slice>) => ({
      results: await geminiSearch({ query: input.query, max_results: input.max_results }, env),
    }),
  }],
});
