/**
 * Tavily: search (with answers) and extract (`Authorization: Bearer <key>`,
 * JSON POSTs to `<base>/search` and `<base>/extract`). Tavily answers 432/433
 * when a plan's credits are used up (classified `insufficient_balance`).
 *
 * Request fields sent: `/search` `query`, `max_results` (≤ 20),
 * `search_depth` (`basic` | `advanced`), `topic` (`general` | `news`),
 * `time_range` (`day` | `week` | `month` | `year`), `include_domains`,
 * `exclude_domains`, `include_answer` (`false`, `basic`, `advanced`);
 * `/extract` `urls`, `extract_depth`, `format: "markdown"`.
 *
 * Fields read: `/search` `answer`, `results[]` (`title`, `url`, `content`,
 * `score`, `published_date`), `response_time`; `/extract` `results[]`
 * (`url`, `raw_content`) and `failed_results[]` (`url`, `error`). Extract
 * results carry no title (https://docs.tavily.com/documentation/api-reference/endpoint/extract:
 * `url`, `raw_content`, `images`, `favicon`), so pages come back without one.
 *
 * Tavily's query is at most 400 characters
 * (https://docs.tavily.com/documentation/best-practices/best-practices-search; a longer one
 * answers 400 `{"detail":{"error":"Query is too long. Max query length is 400 characters."}}`,
 * which the classifier takes as `too_large`, so the router asks the next provider). It is
 * never exceeded: a longer search query is cut at a word boundary (the answer's `notices`
 * say so); a longer question for an answer is not sent at all — a question cut short is
 * another question — and fails with `too_large`, so the next answer provider takes it whole.
 *
 * @module
 */
import { z } from "zod";
import { SearchFailure } from "../../net/upstream_failure.ts";
import { timeRangeSchema } from "../time_range.ts";
import { toIsoDate } from "../upstream.ts";
import { boundedData, fitQuery, isWebUrl, plainText, providerSettings } from "./http.ts";
import { callJson, hasArray, records, str } from "../../net/json_call.ts";
import type {
  ContentsRequest,
  Provider,
  ProviderAnswer,
  ProviderContents,
  ProviderEnv,
  ProviderHit,
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";
import { loadPages } from "./pages_lazy.ts";
import { defineProvider, providerKey } from "./define.ts";

/** The settings it reads (`define.ts`): its `search.providers` entry and `search.timeout_ms`. */
type Slice = ProviderSlice;

/** The provider's name. */
const TAVILY = "tavily";

/** Longest query Tavily takes (characters). */
const TAVILY_MAX_QUERY_CHARS = 400;

function settings(config: Slice) {
  return providerSettings(config, TAVILY, { baseUrl: "https://api.tavily.com", maxResults: 20 });
}

/** Turns Tavily result objects into hits. */
function tavilyHits(results: unknown): ProviderHit[] {
  const hits: ProviderHit[] = [];
  for (const r of records(results)) {
    if (!isWebUrl(r.url)) continue;
    const published = toIsoDate(r.published_date);
    const snippet = plainText(r.content);
    hits.push({
      title: plainText(r.title) || str(r.url),
      url: str(r.url).trim(),
      snippet: snippet.length > 600 ? `${snippet.slice(0, 600)}…` : snippet,
      ...(published ? { published } : {}),
      source: TAVILY,
      provider_data: boundedData({ score: r.score }),
    });
  }
  return hits;
}

/** What one Tavily search call asks for. */
interface TavilySearchOptions extends ProviderSearchRequest {
  answer?: "basic" | "advanced";
}

async function tavilySearchCall(req: TavilySearchOptions, env: ProviderEnv<Slice>) {
  const s = settings(env.config);
  const body: Record<string, unknown> = {
    query: req.query,
    max_results: Math.min(req.max_results, s.maxResults, 20),
    search_depth: req.depth === "deep" ? "advanced" : "basic",
    topic: req.topic ?? "general",
    include_answer: req.answer ?? false,
  };
  if (req.time_range) body.time_range = req.time_range;
  if (req.domains?.length) body.include_domains = req.domains;
  if (req.exclude_domains?.length) body.exclude_domains = req.exclude_domains;
  return await callJson(env, {
    provider: TAVILY,
    url: `${s.baseUrl}/search`,
    method: "POST",
    headers: { Authorization: `Bearer ${providerKey(env.config, TAVILY) ?? ""}` },
    json: body,
    timeoutMs: s.timeoutMs,
  }, hasArray("results"));
}

async function tavilySearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  const fitted = fitQuery(req.query.trim(), {
    provider: TAVILY,
    maxChars: TAVILY_MAX_QUERY_CHARS,
    keep: req.site_hint,
  });
  if (fitted.notice) env.notice?.(fitted.notice);
  return tavilyHits((await tavilySearchCall({ ...req, query: fitted.query }, env)).results);
}

async function tavilyAnswer(
  req: { query: string; depth: "quick" | "deep" },
  env: ProviderEnv<Slice>,
): Promise<ProviderAnswer> {
  const length = req.query.trim().length;
  if (length > TAVILY_MAX_QUERY_CHARS) {
    // Refused before sending, as Tavily would refuse it: over Tavily's limit, not the caller's
    // mistake, so the next answer provider is asked and Tavily's health is not touched.
    throw new SearchFailure(
      "invalid",
      `${TAVILY}: the question has ${length} characters; Tavily takes at most ${TAVILY_MAX_QUERY_CHARS}`,
      {
        backend: TAVILY,
        code: "too_large",
        details: { provider: TAVILY, field: "query", limit: TAVILY_MAX_QUERY_CHARS, refusal: true },
      },
    );
  }
  const deep = req.depth === "deep";
  const body = await tavilySearchCall({
    query: req.query,
    max_results: deep ? 10 : 5,
    depth: req.depth,
    answer: deep ? "advanced" : "basic",
  }, env);
  return {
    answer: str(body.answer),
    citations: tavilyHits(body.results),
    provider_data: boundedData({ response_time: body.response_time }),
  };
}

async function tavilyExtract(
  req: ContentsRequest & { depth?: "basic" | "advanced" },
  env: ProviderEnv<Slice>,
): Promise<ProviderContents> {
  const { readScreened } = await loadPages();
  return readScreened(
    req.urls,
    env.config,
    (urls) => tavilyExtractBatch({ ...req, urls }, env),
  );
}

async function tavilyExtractBatch(
  req: ContentsRequest & { depth?: "basic" | "advanced" },
  env: ProviderEnv<Slice>,
): Promise<ProviderContents> {
  const s = settings(env.config);
  const body = await callJson(env, {
    provider: TAVILY,
    url: `${s.baseUrl}/extract`,
    method: "POST",
    headers: { Authorization: `Bearer ${providerKey(env.config, TAVILY) ?? ""}` },
    json: { urls: req.urls, extract_depth: req.depth ?? "basic", format: "markdown" },
    timeoutMs: s.timeoutMs,
  }, hasArray("results"));
  const results = records(body.results);
  const failed = records(body.failed_results);
  return {
    pages: req.urls.map((url) => {
      const found = results.find((r) => r.url === url);
      // Tavily's extract results have no title field: the page has none rather than an empty one.
      if (found) return { url, content: str(found.raw_content) };
      const miss = failed.find((r) => r.url === url);
      return {
        url,
        content: "",
        error: {
          code: "provider_unavailable",
          message: `tavily could not extract ${url}${miss ? "" : " (no result)"}`,
        },
      };
    }),
  };
}

const TavilySearchInput = z.strictObject({
  query: z.string().min(1).max(400).describe("What to search for"),
  max_results: z.number().int().min(1).max(20).default(5).describe("Results (1-20)"),
  search_depth: z.enum(["basic", "advanced"]).default("basic").describe(
    "`advanced` searches more thoroughly (costs more credits)",
  ),
  topic: z.enum(["general", "news"]).default("general").describe("`news` for current events"),
  time_range: timeRangeSchema().optional().describe(
    "Only results this recent",
  ),
  include_domains: z.array(z.string()).max(20).optional().describe("Only these domains"),
  exclude_domains: z.array(z.string()).max(20).optional().describe("Never these domains"),
});

const TavilyExtractInput = z.strictObject({
  urls: z.array(z.string().url()).min(1).max(10).describe("One to ten URLs"),
  extract_depth: z.enum(["basic", "advanced"]).default("basic").describe(
    "`advanced` also reads tables and embedded content",
  ),
});

/**
 * The Tavily provider (`search.providers.tavily.api_key`, env `TAVILY_API_KEY`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { tavilyProvider } from "./tavily.ts";
 * console.assert(tavilyProvider.isConfigured(parseConfig({ search: { tavily_api_key: "tvly-x" } })));
 * ```
 */
export const tavilyProvider: Provider = defineProvider({
  settings: { search: [] },
  name: TAVILY,
  scope: "shared",
  title: "Tavily",
  roles: ["search", "answer", "contents"],
  configHint: "search.providers.tavily.api_key",
  nativeDomains: true,
  isConfigured: (config) =>
    Boolean(providerKey(config, TAVILY)) && settings(config).enabled !== false,
  search: tavilySearch,
  answer: tavilyAnswer,
  contents: (req, env) => tavilyExtract(req, env),
  tools: [
    {
      name: "tavily_search",
      title: "Tavily search",
      description:
        "Searches the web with Tavily: depth, topic (general or news), time range and domain filters.",
      kind: "search",
      input: TavilySearchInput,
      run: async (input: z.output<typeof TavilySearchInput>, env: ProviderEnv<Slice>) => ({
        results: await tavilySearch({
          query: input.query,
          max_results: input.max_results,
          depth: input.search_depth === "advanced" ? "deep" : "quick",
          topic: input.topic,
          time_range: input.time_range,
          domains: input.include_domains,
          exclude_domains: input.exclude_domains,
        }, env),
      }),
    },
    {
      name: "tavily_extract",
      title: "Tavily extract",
      description: "Extracts the content of one to ten pages as Markdown with Tavily.",
      kind: "contents",
      input: TavilyExtractInput,
      run: (input: z.output<typeof TavilyExtractInput>, env: ProviderEnv<Slice>) =>
        tavilyExtract({ urls: input.urls, depth: input.extract_depth }, env),
    },
  ],
});
