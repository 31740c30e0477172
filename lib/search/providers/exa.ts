/**
 * Exa: search, find-similar, contents and answer (`x-api-key: <key>`, JSON
 * POSTs to `<base>/search`, `/contents`, `/answer`; find-similar is a
 * `/contents` read then a `/search`, since `/findSimilar` is deprecated).
 *
 * Request fields sent: `/search` `query`, `numResults`, `type` (`auto`, or
 * `deep` for deep searches), `includeDomains`, `excludeDomains`,
 * `startPublishedDate`, `category: "news"` for news, `contents.highlights`;
 * find-similar: `/contents` `urls`, `text.maxCharacters`, then `/search`
 * `query`, `numResults`, `type`, `excludeDomains`, `contents.highlights`;
 * `/contents` `urls`, `text`; `/answer` `query`,
 * `text`.
 *
 * Fields read: `results[]` with `url`, `title`, `publishedDate`, `author`,
 * `score`, `id`, `highlights[]`, `text`, `summary`; `/contents` also
 * `statuses[]` (`id`, `status`, `error.tag`, `error.httpStatusCode`);
 * `/answer` `answer` and `citations[]` (`url`, `title`, `publishedDate`,
 * `author`, `text`), plus `costDollars.total` and `requestId` kept in
 * `provider_data`.
 *
 * @module
 */
import { z } from "zod";
import { type TimeRange, timeRangeSchema } from "../time_range.ts";
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
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";
import { loadPages, loadScreen } from "./pages_lazy.ts";
import { defineProvider, providerKey } from "./define.ts";

/** The settings it reads (`define.ts`): its `search.providers` entry and `search.timeout_ms`. */
type Slice = ProviderSlice;

/** The provider's name. */
const EXA = "exa";

/** Exa's documented ceiling of `numResults` (https://exa.ai/docs/reference/search). */
const EXA_MAX_RESULTS = 100;

const RANGE_DAYS: Readonly<Record<TimeRange, number>> = { day: 1, week: 7, month: 31, year: 366 };

function settings(config: Slice) {
  return providerSettings(config, EXA, { baseUrl: "https://api.exa.ai", maxResults: 25 });
}

function headers(config: Slice): Record<string, string> {
  return { "x-api-key": providerKey(config, EXA) ?? "" };
}

/** The snippet of an Exa result: its highlights, else the start of its text or summary. */
function exaSnippet(r: Record<string, unknown>): string {
  const highlights = Array.isArray(r.highlights) ? r.highlights.map(plainText).join(" … ") : "";
  const text = highlights || plainText(r.summary) || plainText(r.text);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/**
 * Turns Exa result objects into hits.
 *
 * @internal exported for tests only
 */
export function exaHits(results: unknown): ProviderHit[] {
  const hits: ProviderHit[] = [];
  for (const r of records(results)) {
    if (!isWebUrl(r.url)) continue;
    const published = toIsoDate(r.publishedDate);
    hits.push({
      title: plainText(r.title) || str(r.url),
      url: str(r.url).trim(),
      snippet: exaSnippet(r),
      ...(published ? { published } : {}),
      source: EXA,
      provider_data: boundedData({ score: r.score, author: r.author, id: r.id }),
    });
  }
  return hits;
}

async function post(env: ProviderEnv<Slice>, path: string, json: unknown, field = "results") {
  const s = settings(env.config);
  return await callJson(env, {
    provider: EXA,
    url: `${s.baseUrl}${path}`,
    method: "POST",
    headers: headers(env.config),
    json,
    timeoutMs: s.timeoutMs,
  }, hasArray(field));
}

async function exaSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  const body: Record<string, unknown> = {
    query: req.query,
    numResults: Math.min(req.max_results, s.maxResults, EXA_MAX_RESULTS),
    type: req.depth === "deep" ? "deep" : "auto",
    contents: { highlights: true },
  };
  if (req.domains?.length) body.includeDomains = req.domains;
  if (req.exclude_domains?.length) body.excludeDomains = req.exclude_domains;
  if (req.topic === "news") body.category = "news";
  if (req.time_range) {
    body.startPublishedDate = new Date(Date.now() - RANGE_DAYS[req.time_range] * 86_400_000)
      .toISOString();
  }
  return exaHits((await post(env, "/search", body)).results);
}

/** Longest descriptive query built for find-similar (title and the start of the page). */
const SIMILAR_QUERY_CHARS = 400;

/**
 * Pages like `input.url`, the way Exa documents since `/findSimilar` was
 * deprecated (https://exa.ai/docs/reference/deprecations: "Use /search with a
 * descriptive query based on the source page. Fetch the page with /contents
 * first if you need its text"): `/contents` reads the page, its title and
 * opening words become the query of a `/search` that leaves out the page's
 * own domain when asked (`excludeDomains`) and never returns the page itself.
 */
async function exaFindSimilar(
  input: { url: string; max_results: number; exclude_source_domain: boolean },
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  // The page is the caller's URL: it passes the network policy before Exa sees it.
  const url = (await loadScreen()).screenUrl(input.url, env.config.network);
  const read = await post(env, "/contents", { urls: [url], text: { maxCharacters: 2000 } });
  const page = records(read.results)[0] ?? {};
  const described = `${plainText(page.title)} ${plainText(page.text)}`.replace(/\s+/g, " ").trim();
  const parsed = new URL(url);
  let path = parsed.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape (`%E0%A4%A`): the words around it still describe the page.
  }
  const query = (described || `${parsed.hostname} ${path}`.replace(/[/_\-.%]+/g, " ").trim())
    .slice(0, SIMILAR_QUERY_CHARS).trim();
  const body: Record<string, unknown> = {
    query,
    numResults: Math.min(input.max_results + 1, s.maxResults, EXA_MAX_RESULTS),
    type: "auto",
    contents: { highlights: true },
  };
  if (input.exclude_source_domain) body.excludeDomains = [parsed.hostname];
  const hits = exaHits((await post(env, "/search", body)).results);
  const same = (u: string) => u.replace(/\/+$/, "") === url.replace(/\/+$/, "");
  return hits.filter((hit) => !same(hit.url)).slice(0, input.max_results);
}

async function exaContents(
  req: ContentsRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderContents> {
  const { readScreened } = await loadPages();
  return readScreened(req.urls, env.config, (urls) => exaContentsBatch({ ...req, urls }, env));
}

/** What `exa_get_contents` asks of `/contents` besides the text. */
interface ExaContentsExtras {
  /** Also Exa's summary of each page (`summary: { query }`). */
  summary?: boolean;
  /** Also Exa's highlights of each page (`highlights: { query }`). */
  highlights?: boolean;
}

async function exaContentsBatch(
  req: ContentsRequest,
  env: ProviderEnv<Slice>,
  extras: ExaContentsExtras = {},
): Promise<ProviderContents> {
  // https://exa.ai/docs/reference/get-contents: `summary` and `highlights` take an optional
  // `query` that focuses them.
  const focus = req.query ? { query: req.query } : {};
  const body = await post(env, "/contents", {
    urls: req.urls,
    text: true,
    ...(extras.summary ? { summary: focus } : {}),
    ...(extras.highlights ? { highlights: focus } : {}),
  });
  const results = records(body.results);
  const statuses = records(body.statuses);
  const pages = req.urls.map((url) => {
    const found = results.find((r) => r.url === url || r.id === url);
    if (found) {
      const published = toIsoDate(found.publishedDate);
      return {
        url,
        title: plainText(found.title),
        content: str(found.text),
        ...(published ? { published } : {}),
        provider_data: boundedData({
          author: found.author,
          id: found.id,
          ...(extras.summary ? { summary: found.summary } : {}),
          ...(extras.highlights ? { highlights: found.highlights } : {}),
        }),
      };
    }
    const status = statuses.find((st) => st.id === url);
    const error = isRecord(status?.error) ? status.error : {};
    const httpStatus = typeof error.httpStatusCode === "number" ? error.httpStatusCode : undefined;
    return {
      url,
      title: "",
      content: "",
      error: {
        code: httpStatus === 404 ? "not_found" : "provider_unavailable",
        message: `exa could not read ${url}${httpStatus ? ` (HTTP ${httpStatus})` : ""}`,
      },
    };
  });
  return { pages };
}

async function exaAnswer(
  req: { query: string; depth: "quick" | "deep" },
  env: ProviderEnv<Slice>,
): Promise<ProviderAnswer> {
  const body = await post(
    env,
    "/answer",
    { query: req.query, text: req.depth === "deep" },
    "citations",
  );
  const answer = typeof body.answer === "string" ? body.answer : JSON.stringify(body.answer ?? "");
  const cost = isRecord(body.costDollars) ? body.costDollars.total : undefined;
  return {
    answer,
    citations: exaHits(body.citations),
    provider_data: boundedData({ request_id: body.requestId, cost_dollars: cost }),
  };
}

const ExaSearchInput = z.strictObject({
  query: z.string().min(1).max(2000).describe("What to search for (natural language works well)"),
  max_results: z.number().int().min(1).max(25).default(10).describe("Results (1-25)"),
  domains: z.array(z.string()).max(20).optional().describe("Only these domains"),
  exclude_domains: z.array(z.string()).max(20).optional().describe("Never these domains"),
  time_range: timeRangeSchema().optional().describe(
    "Only results published this recently",
  ),
  topic: z.enum(["general", "news"]).optional().describe("`news` searches news articles"),
  depth: z.enum(["quick", "deep"]).optional().describe("`deep` runs Exa's deeper search"),
});

const ExaSimilarInput = z.strictObject({
  url: z.string().url().describe("A page; results are pages like it"),
  max_results: z.number().int().min(1).max(25).default(10).describe("Results (1-25)"),
  exclude_source_domain: z.boolean().default(true).describe("Leave out the page's own site"),
});

const ExaContentsInput = z.strictObject({
  urls: z.array(z.string().url()).min(1).max(20).describe("One to twenty URLs"),
  query: z.string().min(1).max(2000).optional().describe("Focuses the summary and highlights"),
  include_summary: z.boolean().optional().describe("Also Exa's summary of each page"),
  include_highlights: z.boolean().optional().describe("Also Exa's highlights of each page"),
});

const ExaAnswerInput = z.strictObject({
  query: z.string().min(1).max(2000).describe("The question"),
  depth: z.enum(["quick", "deep"]).default("quick").describe(
    "`deep` also returns the text of each citation",
  ),
});

/**
 * The Exa provider (`search.providers.exa.api_key`, env `EXA_API_KEY`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { exaProvider } from "./exa.ts";
 * console.assert(exaProvider.roles.includes("answer"));
 * console.assert(!exaProvider.isConfigured(parseConfig({})));
 * ```
 */
export const exaProvider: Provider = defineProvider({
  settings: { search: [] },
  name: EXA,
  scope: "shared",
  title: "Exa",
  roles: ["search", "answer", "contents"],
  configHint: "search.providers.exa.api_key",
  nativeDomains: true,
  isConfigured: (config) => Boolean(providerKey(config, EXA)) && settings(config).enabled !== false,
  search: exaSearch,
  answer: exaAnswer,
  contents: exaContents,
  tools: [
    {
      name: "exa_search",
      title: "Exa search",
      description:
        "Searches the web with Exa's neural index: titles, URLs, highlight snippets, dates. Good for natural-language queries.",
      kind: "search",
      input: ExaSearchInput,
      run: async (input: z.output<typeof ExaSearchInput>, env: ProviderEnv<Slice>) => ({
        results: await exaSearch(input, env),
      }),
    },
    {
      name: "exa_find_similar",
      title: "Exa find similar",
      description: "Finds pages similar to a given URL with Exa.",
      kind: "search",
      input: ExaSimilarInput,
      run: async (input: z.output<typeof ExaSimilarInput>, env: ProviderEnv<Slice>) => ({
        results: await exaFindSimilar(input, env),
      }),
    },
    {
      name: "exa_get_contents",
      title: "Exa get contents",
      description:
        "Returns the clean text of one to twenty pages, read by Exa; optionally its summary and highlights of each (provider_data).",
      kind: "contents",
      input: ExaContentsInput,
      run: async (input: z.output<typeof ExaContentsInput>, env: ProviderEnv<Slice>) => {
        const { readScreened } = await loadPages();
        const extras = { summary: input.include_summary, highlights: input.include_highlights };
        return readScreened(
          input.urls,
          env.config,
          (urls) => exaContentsBatch({ urls, query: input.query }, env, extras),
        );
      },
    },
    {
      name: "exa_answer",
      title: "Exa answer",
      description: "Answers a question from a web search, with the sources it cites.",
      kind: "answer",
      input: ExaAnswerInput,
      run: (input: z.output<typeof ExaAnswerInput>, env: ProviderEnv<Slice>) =>
        exaAnswer(input, env),
    },
  ],
});
