/**
 * TinyFish: web search, page fetch and the web agent, all with
 * `X-API-Key: <key>` (https://docs.tinyfish.ai/authentication). Search and
 * Fetch use no credits (https://docs.tinyfish.ai/search-api,
 * https://docs.tinyfish.ai/fetch-api); agent runs do.
 *
 * Endpoints (a `base_url` override serves all three under their `/v1` paths:
 * `<base>/v1/search`, `<base>/v1/fetch`, `<base>/v1/automation/run-async`,
 * `<base>/v1/runs/<id>`):
 * - search: `GET https://api.search.tinyfish.ai?query=…`
 *   (https://docs.tinyfish.ai/search-api/reference). Parameters sent: `query`,
 *   `language` (the primary subtag of the caller's language) and `location`
 *   (its region subtag, when it has one), `recency_minutes` for a time range
 *   (the documented 1–5256000), `domain_type=news` for news. Fields read:
 *   `results[]` with `title`, `url`, `snippet`, `position`, `site_name`, and a
 *   news result's `publisher` and `date`. One page holds ten results, so at
 *   most ten are returned.
 * - fetch (the `contents` role): `POST https://api.fetch.tinyfish.ai` with
 *   `{ urls, format: "markdown" }` (https://docs.tinyfish.ai/fetch-api/reference,
 *   https://docs.tinyfish.ai/api-reference/fetch-and-extract-content-from-urls).
 *   At most ten URLs a request (documented): more are sent in requests of ten,
 *   and a notice says so. Every URL passes Gleaner's network policy first
 *   (`readScreened`). Fields read: `results[]` (`url`, `final_url`, `title`,
 *   `text`, `description`, `author`, `published_date`, `language`) and
 *   `errors[]` (`url`, `error`, `status`): a URL in `errors` fails alone,
 *   `not_found` for a 404 or 410 of the page, else `provider_unavailable`.
 *   A fetch renders pages in a browser and takes 1–20 s, for which TinyFish
 *   suggests a 150 s timeout (https://docs.tinyfish.ai/for-coding-agents);
 *   Gleaner waits 120 s for one fetch request unless
 *   `search.providers.tinyfish.timeout_ms` says otherwise (search and the
 *   agent's calls keep `search.timeout_ms`, TinyFish's suggested 10 s for search).
 * - agent run (the `tinyfish_run` tool): `POST https://agent.tinyfish.ai/v1/automation/run-async`
 *   with `{ url, goal, browser_profile? }` answers `{ run_id, error }`, then
 *   `GET https://agent.tinyfish.ai/v1/runs/<run_id>` every `run_poll_ms`
 *   (default 2000) until the run's `status` is `COMPLETED`, `FAILED` or
 *   `CANCELLED` or `run_timeout_ms` is over (default 45000, under the 60 s an
 *   MCP client waits by default, so the caller always gets the `run_id` back;
 *   TinyFish's own pattern polls a run for five minutes at 2 s intervals,
 *   https://docs.tinyfish.ai/common-patterns: resuming covers that)
 *   (https://docs.tinyfish.ai/key-concepts/endpoints, https://docs.tinyfish.ai/key-concepts/runs).
 *   A run still `PENDING` or `RUNNING` then answers `status: "in_progress"`
 *   with its `run_id` (as `interaction_id`); a call with `run_id` resumes
 *   polling it, no new run is started. A `FAILED` run ("infrastructure error")
 *   or a `CANCELLED` one is a provider error (`provider_unavailable`); a poll
 *   that fails keeps its own class and names the `run_id` that resumes the run.
 *   "COMPLETED means the infrastructure worked, not that your goal succeeded":
 *   a completed run whose `result` is `{ status: "failure", reason }` is
 *   answered as a goal that was not achieved (`provider_data.goal_status`).
 *
 * Failures (https://docs.tinyfish.ai/error-codes): errors are
 * `{ error: { code, message, details? } }`; `MISSING_API_KEY`,
 * `INVALID_API_KEY`, `UNAUTHORIZED` (401) are `unauthorized`; 402 (payment
 * required), 403 (API not enabled for the account), 429 and 5xx fall back
 * as their statuses say; `INVALID_INPUT` (400) is the caller's request,
 * `invalid_arguments` naming the field its `details[].path` names.
 *
 * @module
 */
import { z } from "zod";
import { delay } from "../../async/delay.ts";
import { GleanerError } from "../../errors.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import type { TimeRange } from "../time_range.ts";
import { parseLanguageTag } from "../language_tag.ts";
import { toIsoDate } from "../upstream.ts";
import { boundedData, isWebUrl, plainText, providerSettings } from "./http.ts";
import { callJson, hasArray, isRecord, records, str } from "../../net/json_call.ts";
import type {
  ContentsRequest,
  Provider,
  ProviderAnswer,
  ProviderContents,
  ProviderEnv,
  ProviderHit,
  ProviderPage,
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";
import { RUN_REF_MAX_CHARS } from "./types.ts";
import { loadPages, loadScreen } from "./pages_lazy.ts";
import { defineProvider, providerKey } from "./define.ts";

/** The settings it reads (`define.ts`): its `search.providers` entry and `search.timeout_ms`. */
type Slice = ProviderSlice;

/** The provider's name. */
const TINYFISH = "tinyfish";

/** Most URLs one fetch request takes (https://docs.tinyfish.ai/fetch-api/reference). */
const TINYFISH_FETCH_MAX_URLS = 10;

/** Default timeout of one fetch request (ms), within TinyFish's suggested 150 s. */
const TINYFISH_FETCH_TIMEOUT_MS = 120_000;

/** Results on one search page (the documented response holds `total_results: 10`). */
const SEARCH_PAGE_RESULTS = 10;

/**
 * Default wait of one `tinyfish_run` call (ms): under the 60 s an MCP client
 * waits by default, so a long run answers `in_progress` with its `run_id`
 * instead of being lost to the client's timeout (still billed, its id unknown).
 */
const TINYFISH_RUN_TIMEOUT_MS = 45_000;

/**
 * Longest wait a `tinyfish_run` call may ask for (`wait_s`, seconds): the 300 s TinyFish's own
 * pattern polls a run for, for a client that waits that long.
 */
const TINYFISH_RUN_MAX_WAIT_S = 300;

/** Default pause between two polls of a run (ms), as https://docs.tinyfish.ai/common-patterns polls. */
const TINYFISH_RUN_POLL_MS = 2_000;

/** Largest answer text made of a run's result (characters). */
const RUN_RESULT_MAX_CHARS = 50_000;

/** `recency_minutes` of each time range (the documented range is 1 to 5256000). */
const RANGE_MINUTES: Readonly<Record<TimeRange, number>> = {
  day: 1_440,
  week: 10_080,
  month: 44_640,
  year: 527_040,
};

function settings(config: Slice) {
  return providerSettings(config, TINYFISH, { baseUrl: "", maxResults: SEARCH_PAGE_RESULTS });
}

function endpoints(config: Slice): { search: string; fetch: string; agent: string } {
  const base = settings(config).baseUrl;
  return base ? { search: `${base}/v1/search`, fetch: `${base}/v1/fetch`, agent: `${base}/v1` } : {
    search: "https://api.search.tinyfish.ai",
    fetch: "https://api.fetch.tinyfish.ai",
    agent: "https://agent.tinyfish.ai/v1",
  };
}

function headers(config: Slice): Record<string, string> {
  return { "X-API-Key": providerKey(config, TINYFISH) ?? "" };
}

/** `language` and `location` from a BCP 47 tag (`pt-BR` → `pt`, `BR`). */
function localeOf(language: string | undefined): { language?: string; location?: string } {
  if (!language) return {};
  const tag = parseLanguageTag(language);
  return {
    ...(/^[a-z]{2}$/.test(tag.language) ? { language: tag.language } : {}),
    ...(tag.region ? { location: tag.region } : {}),
  };
}

async function tinyfishSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  const target = new URL(endpoints(env.config).search);
  target.searchParams.set("query", req.query);
  const locale = localeOf(req.language);
  if (locale.language) target.searchParams.set("language", locale.language);
  if (locale.location) target.searchParams.set("location", locale.location);
  if (req.time_range) {
    target.searchParams.set("recency_minutes", String(RANGE_MINUTES[req.time_range]));
  }
  if (req.topic === "news") target.searchParams.set("domain_type", "news");
  const body = await callJson(env, {
    provider: TINYFISH,
    url: target,
    headers: headers(env.config),
    timeoutMs: s.timeoutMs,
  }, hasArray("results"));
  const hits: ProviderHit[] = [];
  for (const r of records(body.results)) {
    if (!isWebUrl(r.url)) continue;
    const published = toIsoDate(r.date) ?? toIsoDate(r.published_date);
    hits.push({
      title: plainText(r.title) || str(r.url),
      url: str(r.url).trim(),
      snippet: plainText(r.snippet),
      ...(published ? { published } : {}),
      source: TINYFISH,
      provider_data: boundedData({
        position: r.position,
        site_name: r.site_name,
        publisher: r.publisher,
      }),
    });
  }
  return hits.slice(0, Math.min(req.max_results, s.maxResults, SEARCH_PAGE_RESULTS));
}

async function tinyfishContents(
  req: ContentsRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderContents> {
  const { readScreened } = await loadPages();
  return readScreened(req.urls, env.config, async (urls) => {
    const batches: string[][] = [];
    for (let i = 0; i < urls.length; i += TINYFISH_FETCH_MAX_URLS) {
      batches.push(urls.slice(i, i + TINYFISH_FETCH_MAX_URLS));
    }
    if (batches.length > 1) {
      env.notice?.(
        `${TINYFISH}: fetch takes at most ${TINYFISH_FETCH_MAX_URLS} URLs a request; the ${urls.length} URLs were sent in ${batches.length} requests`,
      );
    }
    const pages: ProviderPage[] = [];
    for (const batch of batches) pages.push(...await fetchBatch(batch, env));
    return { pages };
  });
}

async function fetchBatch(urls: string[], env: ProviderEnv<Slice>): Promise<ProviderPage[]> {
  const s = providerSettings(env.config, TINYFISH, {
    baseUrl: "",
    maxResults: SEARCH_PAGE_RESULTS,
    timeoutMs: TINYFISH_FETCH_TIMEOUT_MS,
  });
  const { failedPage } = await loadPages();
  const body = await callJson(env, {
    provider: TINYFISH,
    url: endpoints(env.config).fetch,
    method: "POST",
    headers: headers(env.config),
    json: { urls, format: "markdown" },
    timeoutMs: s.timeoutMs,
  }, hasArray("results"));
  const results = records(body.results);
  const errors = records(body.errors);
  return urls.map((url): ProviderPage => {
    const found = results.find((r) => r.url === url) ??
      results.find((r) => r.final_url === url);
    if (found) {
      const text = str(found.text);
      if (text.trim() === "") {
        return failedPage(
          url,
          new GleanerError("unsupported_content", `${TINYFISH}: no text for ${url}`),
        );
      }
      const published = toIsoDate(found.published_date);
      return {
        url,
        title: plainText(found.title),
        content: text,
        ...(published ? { published } : {}),
        provider_data: boundedData({
          final_url: found.final_url !== url ? found.final_url : undefined,
          description: found.description,
          author: found.author,
          language: found.language,
        }),
      };
    }
    const error = errors.find((e) => e.url === url) ?? {};
    const status = typeof error.status === "number" ? error.status : undefined;
    const kind = /^[a-z_]{1,60}$/.test(str(error.error)) ? str(error.error) : "";
    const why = [kind, status ? `HTTP ${status}` : ""].filter(Boolean).join(", ");
    return failedPage(
      url,
      new GleanerError(
        status === 404 || status === 410 ? "not_found" : "provider_unavailable",
        `${TINYFISH} could not read ${url}${why ? ` (${why})` : ""}`,
      ),
    );
  });
}

/** Run ids are opaque tokens; anything else is refused before it reaches a URL. */
const RUN_ID = /^[A-Za-z0-9_.-]{1,200}$/;

/** Run statuses after which polling stops (https://docs.tinyfish.ai/key-concepts/runs). */
const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELLED"]);

/** What `tinyfish_run` takes. */
export interface TinyfishRunInput {
  /** What the agent should do, in plain language. */
  goal?: string;
  /** The page it starts on. */
  url?: string;
  /** `lite` (default) or `stealth` (anti-detection browser). */
  browser_profile?: "lite" | "stealth";
  /** Resumes a run an earlier call left `in_progress`. */
  run_id?: string;
  /** How long this call polls the run (seconds, at most 300); default `run_timeout_ms`. */
  wait_s?: number;
}

function isRun(
  value: unknown,
): value is Record<string, unknown> & { run_id: string; status: string } {
  return isRecord(value) && typeof value.run_id === "string" && typeof value.status === "string";
}

function refuse(field: string, message: string): GleanerError {
  return new GleanerError("invalid_arguments", `${field}: ${message}`, {
    details: { field, provider: TINYFISH },
  });
}

/**
 * Starts (or resumes) an agent run and polls it within `run_timeout_ms`;
 * see the module description.
 */
async function tinyfishRun(
  input: TinyfishRunInput,
  env: ProviderEnv<Slice>,
): Promise<ProviderAnswer> {
  const s = settings(env.config);
  const own = env.config.search.providers[TINYFISH] ?? {};
  const waitMs = input.wait_s !== undefined
    ? Math.min(input.wait_s, TINYFISH_RUN_MAX_WAIT_S) * 1000
    : own.run_timeout_ms ?? TINYFISH_RUN_TIMEOUT_MS;
  const pollMs = own.run_poll_ms ?? TINYFISH_RUN_POLL_MS;
  const agent = endpoints(env.config).agent;
  const get = (id: string) =>
    callJson(env, {
      provider: TINYFISH,
      url: `${agent}/runs/${encodeURIComponent(id)}`,
      headers: headers(env.config),
      timeoutMs: s.timeoutMs,
    }, isRun);
  let run: Record<string, unknown> & { run_id: string; status: string };
  if (input.run_id !== undefined) {
    if (!RUN_ID.test(input.run_id)) {
      throw refuse("run_id", "must be the run_id an earlier in_progress answer returned");
    }
    run = await get(input.run_id);
  } else {
    if (!input.goal?.trim()) throw refuse("goal", "say what the agent should do (or give run_id)");
    if (!input.url) throw refuse("url", "give the page the agent starts on (or give run_id)");
    // The start page is the caller's URL: it passes the network policy before TinyFish sees it.
    const url = (await loadScreen()).screenUrl(input.url, env.config.network);
    const where = `${agent}/automation/run-async`;
    const started = await callJson(env, {
      provider: TINYFISH,
      url: where,
      method: "POST",
      headers: headers(env.config),
      json: {
        url,
        goal: input.goal,
        ...(input.browser_profile ? { browser_profile: input.browser_profile } : {}),
      },
      timeoutMs: s.timeoutMs,
    }, isRecord);
    // The documented answer is `{ run_id, error }`: an error (or no id) means no run was created.
    if (typeof started.run_id !== "string" || !RUN_ID.test(started.run_id) || started.error) {
      throw new SearchFailure("unavailable", `${TINYFISH}: ${where} did not start a run`, {
        backend: TINYFISH,
        code: "provider_unavailable",
        details: { provider: TINYFISH },
      });
    }
    run = { run_id: started.run_id, status: "PENDING" };
  }
  const deadline = Date.now() + waitMs;
  while (!TERMINAL.has(run.status)) {
    if (env.signal?.aborted || Date.now() + pollMs > deadline) {
      return {
        answer: "",
        citations: [],
        status: "in_progress",
        interaction_id: run.run_id,
        provider_data: boundedData({ run_id: run.run_id, run_status: run.status }),
      };
    }
    await delay(pollMs, env.signal);
    if (env.signal?.aborted) continue;
    try {
      run = await get(run.run_id);
    } catch (error) {
      throw pollFailure(error, run.run_id);
    }
  }
  if (run.status !== "COMPLETED") throw runFailure(run);
  return completedRun(run);
}

/**
 * A poll that failed while the run may still be going: the same failure,
 * its message and details naming the `run_id` that resumes the run.
 */
function pollFailure(error: unknown, runId: string): unknown {
  if (!(error instanceof SearchFailure)) return error;
  return new SearchFailure(
    error.outcome,
    `${error.message}; the agent run ${runId} may still be going: call again with run_id ${runId}`,
    {
      backend: TINYFISH,
      code: error.code,
      cause: error,
      details: { ...error.details, run_id: runId },
    },
  );
}

/** A run that ended FAILED or CANCELLED: a provider error, never the caller's request. */
function runFailure(run: Record<string, unknown> & { run_id: string; status: string }) {
  const error = isRecord(run.error) ? run.error : {};
  const code = /^[A-Z][A-Z0-9_]{1,59}$/.test(str(error.code)) ? str(error.code) : undefined;
  return new SearchFailure(
    "unavailable",
    `${TINYFISH}: the agent run ${run.run_id} ended ${run.status}${code ? ` (${code})` : ""}`,
    {
      backend: TINYFISH,
      code: "provider_unavailable",
      details: {
        provider: TINYFISH,
        run_id: run.run_id,
        run_status: run.status,
        ...(code ? { upstream_code: code } : {}),
      },
    },
  );
}

/** The answer of a COMPLETED run: its result, or the goal it says it could not achieve. */
function completedRun(run: Record<string, unknown> & { run_id: string }): ProviderAnswer {
  const result = run.result;
  const failed = isRecord(result) && typeof result.status === "string" &&
    /^fail(ure|ed)?$/i.test(result.status.trim());
  const data = { run_id: run.run_id, run_status: "COMPLETED", steps: run.num_of_steps };
  if (failed) {
    const reason = plainText(result.reason) || plainText(result.message) || "no reason given";
    return {
      answer: `The agent finished but did not achieve the goal: ${reason}`,
      citations: [],
      status: "completed",
      interaction_id: run.run_id,
      provider_data: boundedData({ ...data, goal_status: "failure", reason }),
    };
  }
  let text = result === undefined || result === null
    ? ""
    : typeof result === "string"
    ? result
    : JSON.stringify(result, null, 2);
  if (text.length > RUN_RESULT_MAX_CHARS) {
    text = `${
      text.slice(0, RUN_RESULT_MAX_CHARS)
    }\n… (result cut at ${RUN_RESULT_MAX_CHARS} characters)`;
  }
  return {
    answer: text || "The agent finished without returning a result.",
    citations: [],
    status: "completed",
    interaction_id: run.run_id,
    provider_data: boundedData({ ...data, goal_status: text ? "success" : "no_result" }),
  };
}

const TinyfishSearchInput = z.strictObject({
  query: z.string().min(1).max(2000).describe(
    "What to search for (site: and -site: operators work inside the query)",
  ),
  max_results: z.number().int().min(1).max(10).default(10).describe("Results (1-10)"),
});

const TinyfishFetchInput = z.strictObject({
  urls: z.array(z.string().url()).min(1).max(10).describe("One to ten URLs"),
});

const TinyfishRunSchema = z.strictObject({
  goal: z.string().min(1).max(4000).optional().describe(
    "What the agent should do or extract, in plain language (say the output format you want)",
  ),
  url: z.string().url().optional().describe("The page the agent starts on"),
  browser_profile: z.enum(["lite", "stealth"]).optional().describe(
    "`lite` (default) or `stealth` (anti-detection browser)",
  ),
  run_id: z.string().min(1).max(RUN_REF_MAX_CHARS).optional().describe(
    "Resumes a run an earlier call left in_progress (goal and url are then not needed)",
  ),
  wait_s: z.number().int().min(1).max(TINYFISH_RUN_MAX_WAIT_S).optional().describe(
    "Seconds this call waits for the run (up to 300; default 45): only if your client waits that long",
  ),
});

/**
 * The TinyFish provider (`search.providers.tinyfish.api_key`, env `TINYFISH_API_KEY`):
 * `search` and `contents` roles, and the `tinyfish_run` web agent.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { tinyfishProvider } from "./tinyfish.ts";
 * console.assert(tinyfishProvider.roles.join() === "search,contents");
 * console.assert(!tinyfishProvider.isConfigured(parseConfig({})));
 * console.assert(tinyfishProvider.isConfigured(parseConfig({ search: { tinyfish_api_key: "k" } })));
 * ```
 */
export const tinyfishProvider: Provider = defineProvider({
  settings: { search: [] },
  name: TINYFISH,
  scope: "shared",
  title: "TinyFish",
  roles: ["search", "contents"],
  configHint: "search.providers.tinyfish.api_key",
  // Search is limited to 30 queries a minute per key (https://docs.tinyfish.ai/search-api/reference
  // "Rate Limits": per key, in queries per minute).
  defaultRequestsPerSecond: 0.5,
  isConfigured: (config) =>
    Boolean(providerKey(config, TINYFISH)) && settings(config).enabled !== false,
  search: tinyfishSearch,
  contents: tinyfishContents,
  tools: [
    {
      name: "tinyfish_search",
      title: "TinyFish search",
      description: "Searches the web with TinyFish: titles, URLs and snippets (up to ten).",
      kind: "search",
      input: TinyfishSearchInput,
      run: async (input: z.output<typeof TinyfishSearchInput>, env: ProviderEnv<Slice>) => ({
        results: await tinyfishSearch(input, env),
      }),
    },
    {
      name: "tinyfish_fetch",
      title: "TinyFish fetch",
      description:
        "Reads one to ten pages as Markdown with TinyFish (JavaScript-heavy pages rendered).",
      kind: "contents",
      input: TinyfishFetchInput,
      run: (input: z.output<typeof TinyfishFetchInput>, env: ProviderEnv<Slice>) =>
        tinyfishContents(input, env),
    },
    {
      name: "tinyfish_run",
      title: "TinyFish web agent",
      description:
        "Runs the TinyFish web agent: a browser starts on `url` and works towards `goal` (clicks, forms, extraction), answering with the agent's result. Spends TinyFish credits. A run still going when the wait is over comes back in_progress with a run_id: call again with that run_id to resume.",
      kind: "answer",
      input: TinyfishRunSchema,
      readOnly: false,
      resumeWith: "run_id",
      run: (input: z.output<typeof TinyfishRunSchema>, env: ProviderEnv<Slice>) =>
        tinyfishRun(input, env),
    },
  ],
});
