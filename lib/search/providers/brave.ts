/**
 * Brave Search API: web and news search.
 *
 * Requests (`X-Subscription-Token: <key>`, `Accept: application/json`):
 * - `GET <base>/res/v1/web/search?q=&count=&freshness=&search_lang=`
 * - `GET <base>/res/v1/news/search?q=&count=&freshness=&search_lang=`
 *
 * `count` is at most 20; `freshness` is `pd|pw|pm|py`. Fields read from the
 * answers: web `web.results[]`, news `results[]`, each with `title`, `url`,
 * `description` (may hold `<strong>` tags), `page_age` (ISO date) or `age`,
 * and `extra_snippets`, `language`, `meta_url.hostname` kept in
 * `provider_data`.
 *
 * @module
 */
import { z } from "zod";
import type { Config } from "../../config/config.ts";
import type { TimeRange } from "../types.ts";
import { toIsoDate } from "../upstream.ts";
import {
  boundedData,
  callJson,
  isRecord,
  isWebUrl,
  plainText,
  providerSettings,
  records,
  str,
} from "./http.ts";
import type { Provider, ProviderEnv, ProviderHit, ProviderSearchRequest } from "./types.ts";

/** The provider's name. */
export const BRAVE = "brave";

const FRESHNESS: Readonly<Record<TimeRange, string>> = {
  day: "pd",
  week: "pw",
  month: "pm",
  year: "py",
};

function settings(config: Config) {
  return providerSettings(config, BRAVE, {
    baseUrl: "https://api.search.brave.com",
    maxResults: 20,
  });
}

/** Turns Brave result objects into hits. */
export function braveHits(results: unknown): ProviderHit[] {
  const hits: ProviderHit[] = [];
  for (const r of records(results)) {
    if (!isWebUrl(r.url)) continue;
    const published = toIsoDate(r.page_age);
    const meta = isRecord(r.meta_url) ? r.meta_url : {};
    hits.push({
      title: plainText(r.title) || str(r.url),
      url: str(r.url).trim(),
      snippet: plainText(r.description),
      ...(published ? { published } : {}),
      source: BRAVE,
      provider_data: boundedData({
        age: r.age,
        language: r.language,
        hostname: meta.hostname,
        extra_snippets: Array.isArray(r.extra_snippets)
          ? r.extra_snippets.map(plainText).slice(0, 3)
          : undefined,
      }),
    });
  }
  return hits;
}

async function braveSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv,
  news: boolean,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  const url = new URL(`${s.baseUrl}/res/v1/${news ? "news" : "web"}/search`);
  url.searchParams.set("q", req.query);
  url.searchParams.set("count", String(Math.min(req.max_results, s.maxResults, 20)));
  if (req.time_range) url.searchParams.set("freshness", FRESHNESS[req.time_range]);
  if (req.language) url.searchParams.set("search_lang", req.language.slice(0, 2).toLowerCase());
  const body = await callJson(env, {
    provider: BRAVE,
    url,
    headers: { "X-Subscription-Token": env.config.search.brave_api_key ?? "" },
    timeoutMs: s.timeoutMs,
  }, isRecord);
  if (news) return braveHits(body.results);
  return braveHits(isRecord(body.web) ? body.web.results : []);
}

const BraveInput = z.strictObject({
  query: z.string().min(1).max(400).describe("What to search for"),
  max_results: z.number().int().min(1).max(20).default(10).describe("Results (1-20)"),
  time_range: z.enum(["day", "week", "month", "year"]).optional().describe(
    "Only results this recent",
  ),
  language: z.string().min(2).max(10).optional().describe("Language code, e.g. en"),
});

/**
 * The Brave provider (`search.brave_api_key`, env `BRAVE_API_KEY`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/config.ts";
 * import { braveProvider } from "./brave.ts";
 * console.assert(!braveProvider.isConfigured(parseConfig({})));
 * console.assert(braveProvider.isConfigured(parseConfig({ search: { brave_api_key: "k" } })));
 * ```
 */
export const braveProvider: Provider = {
  name: BRAVE,
  title: "Brave Search",
  roles: ["search"],
  configHint: "search.brave_api_key",
  isConfigured: (config) =>
    Boolean(config.search.brave_api_key) && settings(config).enabled !== false,
  search: (req, env) => braveSearch(req, env, req.topic === "news"),
  tools: [
    {
      name: "brave_web_search",
      title: "Brave web search",
      description:
        "Searches the web with Brave Search: titles, URLs, snippets and page dates, up to 20 results.",
      kind: "search",
      input: BraveInput,
      run: async (input: z.output<typeof BraveInput>, env: ProviderEnv) => ({
        results: await braveSearch(input, env, false),
      }),
    },
    {
      name: "brave_news_search",
      title: "Brave news search",
      description: "Searches recent news articles with Brave Search, newest first.",
      kind: "search",
      input: BraveInput,
      run: async (input: z.output<typeof BraveInput>, env: ProviderEnv) => ({
        results: await braveSearch(input, env, true),
      }),
    },
  ],
};
