/**
 * Parallel: web search with LLM-ready excerpts (`x-api-key: <key>`,
 * `POST <base>/v1/search`).
 *
 * Request fields sent: `objective` (the query as asked), `search_queries`
 * (the query), `mode` (`basic`, or `advanced` for deep searches),
 * `advanced_settings.max_results` and `advanced_settings.source_policy`
 * (`include_domains`, `exclude_domains`, and `after_date` — today minus 1, 7,
 * 31 or 366 days — for `time_range`; Parallel's SDK,
 * https://github.com/parallel-web/parallel-sdk-python `types/shared_params/source_policy.py`:
 * at most 200 domains in both lists together). The documented modes are
 * `turbo`, `basic` and `advanced`; the legacy `fast` is gone
 * (https://docs.parallel.ai/search/migrate-to-parallel). Parallel's search has
 * no language or topic parameter: a `language` or `topic: "news"` is not sent
 * and the answer's `notices` say so.
 *
 * Parallel's documented limits are respected before sending
 * (https://docs.parallel.ai/api-reference/search-beta/search): at most 5
 * `search_queries` of at most 200 characters each, at least one of them
 * (`search_queries` is required, `types/client_search_params.py`); a longer
 * routed query is cut at a word boundary for `search_queries` (the
 * `objective` keeps it whole) and the answer says so. `parallel_search`
 * without `search_queries` sends its objective cut the same way as the one
 * query, never the whole objective.
 *
 * Fields read: `search_id` (kept in `provider_data`), `results[]` with `url`,
 * `title`, `publish_date`, `excerpts[]` (joined into the snippet).
 *
 * Contents (`POST <base>/v1/extract`, https://docs.parallel.ai/api-reference/extract/extract):
 * sent `urls` (at most 20; Gleaner sends at most 10), `objective` (the
 * reader's query, when given), `advanced_settings.full_content: true`; read
 * `extract_id`, `results[]` (`url`, `title`, `publish_date`, `full_content`,
 * else `excerpts[]`) and `errors[]` (`url`, `error_type`, `http_status_code`):
 * a URL in `errors` fails alone (`not_found` for a 404, else
 * `provider_unavailable`). URLs pass Gleaner's network policy first.
 *
 * Answers (`POST <base>/chat/completions`, `Authorization: Bearer <key>`,
 * OpenAI-compatible; https://docs.parallel.ai/chat-api/chat-quickstart):
 * sent `model: "speed"` (the low-latency model; Parallel answers at quick
 * depth only, a deep request is answered at quick depth and says so),
 * `messages`, `stream: false`; read `choices[0].message.content`, `model`,
 * `id`, and `basis[].citations[]` (`url`, `title`) when the model gives them.
 *
 * Research, enrichment and datasets (the Task API, Task Groups and FindAll)
 * are the run tools of `parallel_runs.ts`: `parallel_research`,
 * `parallel_enrich`, `parallel_dataset` and their `*_status` tools.
 *
 * @module
 */
import { z } from "zod";
import { GleanerError } from "../../errors.ts";
import { timeRangeStart } from "../time_range.ts";
import { toIsoDate } from "../upstream.ts";
import { providerFailure } from "../../net/classify.ts";
import { boundedData, fitQuery, isWebUrl, plainText, providerSettings } from "./http.ts";
import { callJson, hasArray, isRecord, records, str } from "../../net/json_call.ts";
import { PARALLEL_RUN_TOOLS } from "./parallel_runs.ts";
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
import { loadPages } from "./pages_lazy.ts";
import { defineProvider, providerKey } from "./define.ts";

/** The settings it reads (`define.ts`): its `search.providers` entry and `search.timeout_ms`. */
type Slice = ProviderSlice;

/** The provider's name. */
export const PARALLEL = "parallel";

/** Longest entry of `search_queries`. */
const QUERY_MAX_CHARS = 200;

/** Most domains in `include_domains` and `exclude_domains` together. */
const POLICY_MAX_DOMAINS = 200;

function settings(config: Slice) {
  return providerSettings(config, PARALLEL, { baseUrl: "https://api.parallel.ai", maxResults: 20 });
}

/** Turns Parallel results into hits. */
function parallelHits(results: unknown, searchId?: unknown): ProviderHit[] {
  const hits: ProviderHit[] = [];
  for (const r of records(results)) {
    if (!isWebUrl(r.url)) continue;
    const excerpts = Array.isArray(r.excerpts) ? r.excerpts.map(plainText).filter(Boolean) : [];
    const snippet = excerpts.join(" … ");
    const published = toIsoDate(r.publish_date);
    hits.push({
      title: plainText(r.title) || str(r.url),
      url: str(r.url).trim(),
      snippet: snippet.length > 600 ? `${snippet.slice(0, 600)}…` : snippet,
      ...(published ? { published } : {}),
      source: PARALLEL,
      provider_data: boundedData({ search_id: searchId, excerpts: excerpts.length }),
    });
  }
  return hits;
}

async function parallelSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  const fitted = fitQuery(req.query, {
    provider: PARALLEL,
    maxChars: QUERY_MAX_CHARS,
    keep: req.site_hint,
  });
  if (fitted.notice) env.notice?.(fitted.notice);
  const unsent = [
    ...(req.language ? [`language ${JSON.stringify(req.language.slice(0, 20))}`] : []),
    ...(req.topic === "news" ? ['topic "news"'] : []),
  ];
  if (unsent.length > 0) {
    env.notice?.(
      `${PARALLEL}: ${unsent.join(", ")} not sent: Parallel's search has no such parameter`,
    );
  }
  const policy = sourcePolicy(req);
  const body = await callJson(env, {
    provider: PARALLEL,
    url: `${s.baseUrl}/v1/search`,
    method: "POST",
    headers: { "x-api-key": providerKey(env.config, PARALLEL) ?? "" },
    json: {
      objective: req.query,
      search_queries: [fitted.query],
      mode: req.depth === "deep" ? "advanced" : "basic",
      advanced_settings: {
        max_results: Math.min(req.max_results, s.maxResults),
        ...(policy ? { source_policy: policy } : {}),
      },
    },
    timeoutMs: s.timeoutMs,
  }, hasArray("results"));
  return parallelHits(body.results, body.search_id);
}

/**
 * Parallel's `source_policy` for a search's domains and time range, or
 * `undefined` when there is nothing to filter.
 *
 * @throws {GleanerError} `invalid_arguments` (field `domains`) over Parallel's 200 domains.
 */
function sourcePolicy(req: ProviderSearchRequest): Record<string, unknown> | undefined {
  const include = req.domains ?? [];
  const exclude = req.exclude_domains ?? [];
  if (include.length + exclude.length > POLICY_MAX_DOMAINS) {
    throw new GleanerError(
      "invalid_arguments",
      `domains: Parallel filters at most ${POLICY_MAX_DOMAINS} domains (included and excluded together)`,
      { details: { field: "domains", provider: PARALLEL } },
    );
  }
  const policy: Record<string, unknown> = {
    ...(include.length ? { include_domains: include } : {}),
    ...(exclude.length ? { exclude_domains: exclude } : {}),
    ...(req.time_range ? { after_date: timeRangeStart(req.time_range) } : {}),
  };
  return Object.keys(policy).length > 0 ? policy : undefined;
}

/** Parallel's low-latency chat model (the research models are tasks, not quick answers). */
const PARALLEL_CHAT_MODEL = "speed";

async function parallelAnswer(
  req: { query: string; depth: "quick" | "deep" },
  env: ProviderEnv<Slice>,
): Promise<ProviderAnswer> {
  if (req.depth === "deep") env.notice?.("parallel answers at quick depth (model speed)");
  return await parallelChat(PARALLEL_CHAT_MODEL, [{ role: "user", content: req.query }], env);
}

/** One message of a Parallel chat. */
interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** One chat completion: the last message's answer with the sources Parallel's `basis` cites. */
async function parallelChat(
  model: string,
  messages: ChatMessage[],
  env: ProviderEnv<Slice>,
): Promise<ProviderAnswer> {
  const s = settings(env.config);
  const url = `${s.baseUrl}/chat/completions`;
  const body = await callJson(env, {
    provider: PARALLEL,
    url,
    method: "POST",
    headers: { authorization: `Bearer ${providerKey(env.config, PARALLEL) ?? ""}` },
    json: { model, messages, stream: false },
    timeoutMs: s.timeoutMs,
  }, hasArray("choices"));
  const choice = records(body.choices)[0] ?? {};
  const message = isRecord(choice.message) ? choice.message : {};
  const answer = str(message.content).trim();
  if (!answer) throw providerFailure(PARALLEL, url, { status: 200, unreadable: true });
  const citations: ProviderHit[] = [];
  const seen = new Set<string>();
  for (const basis of records(body.basis)) {
    for (const c of records(basis.citations)) {
      if (!isWebUrl(c.url) || seen.has(str(c.url))) continue;
      seen.add(str(c.url));
      citations.push({
        title: plainText(c.title) || str(c.url),
        url: str(c.url),
        snippet: "",
        source: PARALLEL,
      });
    }
  }
  return {
    answer,
    citations: citations.slice(0, s.maxResults),
    provider_data: boundedData({ model: body.model ?? model, id: body.id }),
  };
}

async function parallelContents(
  req: ContentsRequest & { fullContent?: boolean },
  env: ProviderEnv<Slice>,
): Promise<ProviderContents> {
  const { failedPage, readScreened } = await loadPages();
  return readScreened(req.urls, env.config, async (urls) => {
    const s = settings(env.config);
    const body = await callJson(env, {
      provider: PARALLEL,
      url: `${s.baseUrl}/v1/extract`,
      method: "POST",
      headers: { "x-api-key": providerKey(env.config, PARALLEL) ?? "" },
      json: {
        urls,
        ...(req.query ? { objective: req.query } : {}),
        advanced_settings: { full_content: req.fullContent ?? true },
      },
      timeoutMs: s.timeoutMs,
    }, hasArray("results"));
    const results = records(body.results);
    const errors = records(body.errors);
    const pages = urls.map((url): ProviderPage => {
      const found = results.find((r) => r.url === url);
      if (found) {
        const excerpts = Array.isArray(found.excerpts) ? found.excerpts.map(str) : [];
        const published = toIsoDate(found.publish_date);
        return {
          url,
          title: plainText(found.title),
          content: str(found.full_content) || excerpts.filter(Boolean).join("\n\n"),
          ...(published ? { published } : {}),
          provider_data: boundedData({ extract_id: body.extract_id }),
        };
      }
      const error = errors.find((e) => e.url === url) ?? {};
      const status = typeof error.http_status_code === "number"
        ? error.http_status_code
        : undefined;
      const kind = str(error.error_type);
      return failedPage(
        url,
        new GleanerError(
          status === 404 ? "not_found" : "provider_unavailable",
          `parallel could not read ${url}${
            kind || status
              ? ` (${[kind, status ? `HTTP ${status}` : ""].filter(Boolean).join(", ")})`
              : ""
          }`,
        ),
      );
    });
    return { pages };
  });
}

const ParallelInput = z.strictObject({
  objective: z.string().min(1).max(2000).describe("What you are looking for, in plain words"),
  search_queries: z.array(z.string().min(1).max(200)).min(1).max(5).optional().describe(
    "Keyword queries, 3-6 words each (default: the objective, cut to 200 characters)",
  ),
  mode: z.enum(["turbo", "basic", "advanced"]).default("basic").describe(
    "`turbo` is fastest, `advanced` searches more thoroughly",
  ),
  max_results: z.number().int().min(1).max(20).default(10).describe("Results (1-20)"),
});

// https://docs.parallel.ai/api-reference/extract/extract: up to 20 URLs, an optional objective,
// `full_content` for the whole page.
const ParallelExtractInput = z.strictObject({
  urls: z.array(z.string().url()).min(1).max(20).describe("One to twenty URLs"),
  objective: z.string().min(1).max(2000).optional().describe("What you are looking for in them"),
  full_content: z.boolean().default(true).describe("The whole page (else the excerpts)"),
});

// https://docs.parallel.ai/chat-api/chat-quickstart: OpenAI-compatible messages; `speed` for
// quick answers, `lite`, `base`, `core` research with `basis`.
const ParallelChatInput = z.strictObject({
  model: z.enum(["speed", "lite", "base", "core"]).default("speed").describe(
    "`speed` answers fast; lite, base, core research longer",
  ),
  messages: z.array(z.strictObject({
    role: z.enum(["system", "user", "assistant"]),
    content: z.string().min(1).max(20_000),
  })).min(1).max(50).describe("The conversation, last message the question"),
});

async function parallelTool(input: z.output<typeof ParallelInput>, env: ProviderEnv<Slice>) {
  const s = settings(env.config);
  let queries = input.search_queries;
  if (!queries) {
    // `search_queries` is required and each entry at most 200 characters: the objective
    // stands in for them, cut to fit.
    const fitted = fitQuery(input.objective.trim(), {
      provider: PARALLEL,
      maxChars: QUERY_MAX_CHARS,
    });
    if (fitted.notice) {
      env.notice?.(
        `${fitted.notice} (the objective as the search query; it is sent whole as the objective)`,
      );
    }
    queries = [fitted.query];
  }
  const body = await callJson(env, {
    provider: PARALLEL,
    url: `${s.baseUrl}/v1/search`,
    method: "POST",
    headers: { "x-api-key": providerKey(env.config, PARALLEL) ?? "" },
    json: {
      objective: input.objective,
      search_queries: queries,
      mode: input.mode,
      advanced_settings: { max_results: Math.min(input.max_results, s.maxResults) },
    },
    timeoutMs: s.timeoutMs,
  }, hasArray("results"));
  return { results: parallelHits(body.results, body.search_id) };
}

/**
 * The Parallel provider (`search.providers.parallel.api_key`, env `PARALLEL_API_KEY`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { parallelProvider } from "./parallel.ts";
 * console.assert(parallelProvider.isConfigured(parseConfig({ search: { parallel_api_key: "k" } })));
 * ```
 */
export const parallelProvider: Provider = defineProvider({
  settings: { search: [] },
  name: PARALLEL,
  scope: "shared",
  title: "Parallel",
  roles: ["search", "answer", "contents"],
  configHint: "search.providers.parallel.api_key",
  nativeDomains: true,
  isConfigured: (config) =>
    Boolean(providerKey(config, PARALLEL)) && settings(config).enabled !== false,
  search: parallelSearch,
  quickAnswersOnly: true,
  answer: parallelAnswer,
  contents: parallelContents,
  tools: [{
    name: "parallel_search",
    title: "Parallel search",
    description:
      "Searches the web with Parallel from an objective and keyword queries; returns ranked excerpts.",
    kind: "search",
    input: ParallelInput,
    run: parallelTool,
  }, {
    name: "parallel_extract",
    title: "Parallel extract",
    description:
      "Reads one to twenty pages with Parallel: the whole page (full_content, default) or the excerpts that serve the objective.",
    kind: "contents",
    input: ParallelExtractInput,
    run: (input: z.output<typeof ParallelExtractInput>, env: ProviderEnv<Slice>) =>
      parallelContents({
        urls: input.urls,
        ...(input.objective ? { query: input.objective } : {}),
        fullContent: input.full_content,
      }, env),
  }, {
    name: "parallel_chat",
    title: "Parallel chat",
    description:
      "Asks Parallel's web-grounded chat (models speed, lite, base, core) a conversation; answers with the sources it cites.",
    kind: "answer",
    input: ParallelChatInput,
    run: (input: z.output<typeof ParallelChatInput>, env: ProviderEnv<Slice>) =>
      parallelChat(input.model, input.messages, env),
  }, ...PARALLEL_RUN_TOOLS],
});
