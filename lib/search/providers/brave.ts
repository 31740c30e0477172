/**
 * Brave Search API: web and news search.
 *
 * Requests (`X-Subscription-Token: <key>`, `Accept: application/json`):
 * - `GET <base>/res/v1/web/search?q=&count=&freshness=&search_lang=`
 * - `GET <base>/res/v1/news/search?q=&count=&freshness=&search_lang=`
 *
 * Brave's documented limits are respected before sending
 * (https://api-dashboard.search.brave.com/api-reference/web/search/get): `q`
 * at most 400 characters and 50 words (a longer query is cut at a word
 * boundary, the router's `site:` hint kept, and the answer says so);
 * `search_lang` and `country` from Brave's own vocabularies
 * ({@link braveLocale} maps a BCP 47 tag: `ja` → `jp`, `pt-BR` → `pt-br` and
 * country `BR`, `zh-TW` → `zh-hant` and `TW`, `no`/`nb` → `nb`, `en-GB` →
 * `en-gb` and `GB`; what Brave cannot express is dropped, and the answer says
 * so); `count` at most 20; `freshness` `pd|pw|pm|py`. Fields read from the
 * answers: web `web.results[]`, news `results[]`, each with `title`, `url`,
 * `description` (may hold `<strong>` tags), `page_age` (ISO date) or `age`,
 * and `extra_snippets`, `language`, `meta_url.hostname` kept in
 * `provider_data`.
 *
 * @module
 */
import { z } from "zod";
import { type Config, providerApiKey } from "../../config/config.ts";
import { type TimeRange, timeRangeSchema } from "../time_range.ts";
import { toIsoDate } from "../upstream.ts";
import {
  boundedData,
  callJson,
  fitQuery,
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

/** Brave's `q` limits. */
const BRAVE_MAX_CHARS = 400;
const BRAVE_MAX_WORDS = 50;

/** Brave's `search_lang` vocabulary. */
const SEARCH_LANGS: ReadonlySet<string> = new Set([
  "ar",
  "eu",
  "bn",
  "bg",
  "ca",
  "zh-hans",
  "zh-hant",
  "hr",
  "cs",
  "da",
  "nl",
  "en",
  "en-gb",
  "et",
  "fi",
  "fr",
  "gl",
  "de",
  "gu",
  "he",
  "hi",
  "hu",
  "is",
  "it",
  "jp",
  "kn",
  "ko",
  "lv",
  "lt",
  "ms",
  "ml",
  "mr",
  "nb",
  "pl",
  "pt-br",
  "pt-pt",
  "pa",
  "ro",
  "ru",
  "sr",
  "sk",
  "sl",
  "es",
  "sv",
  "ta",
  "te",
  "th",
  "tr",
  "uk",
  "vi",
]);

/** Brave's `country` vocabulary (two-letter codes; `ALL` for worldwide). */
const COUNTRIES: ReadonlySet<string> = new Set([
  "AR",
  "AU",
  "AT",
  "BE",
  "BR",
  "CA",
  "CL",
  "DK",
  "FI",
  "FR",
  "DE",
  "HK",
  "IN",
  "ID",
  "IT",
  "JP",
  "KR",
  "MY",
  "MX",
  "NL",
  "NZ",
  "NO",
  "CN",
  "PL",
  "PT",
  "PH",
  "RU",
  "SA",
  "ZA",
  "ES",
  "SE",
  "CH",
  "TW",
  "TR",
  "GB",
  "US",
]);

/** How a BCP 47 tag reads in Brave's vocabularies. */
export interface BraveLocale {
  /** `search_lang`, when Brave has the language. */
  search_lang?: string;
  /** `country`, when the tag names a region Brave has. */
  country?: string;
  /** What could not be expressed, for the answer's `notices`. */
  dropped: string[];
}

/**
 * Maps a BCP 47 language tag onto Brave's `search_lang` and `country`.
 *
 * @example
 * ```ts
 * import { braveLocale } from "./brave.ts";
 * console.assert(braveLocale("ja").search_lang === "jp");
 * console.assert(braveLocale("zh-TW").search_lang === "zh-hant" && braveLocale("zh-TW").country === "TW");
 * console.assert(braveLocale("pt-BR").search_lang === "pt-br");
 * console.assert(braveLocale("en-GB").search_lang === "en-gb");
 * console.assert(braveLocale("xx").search_lang === undefined && braveLocale("xx").dropped.length === 1);
 * ```
 */
export function braveLocale(tag: string): BraveLocale {
  const parts = tag.trim().replace(/_/g, "-").toLowerCase().split("-").filter(Boolean);
  const language = parts[0] ?? "";
  const rest = parts.slice(1);
  const script = rest.find((p) => /^[a-z]{4}$/.test(p));
  const region = rest.find((p) => /^[a-z]{2}$/.test(p))?.toUpperCase();
  let lang: string | undefined;
  switch (language) {
    case "ja":
      lang = "jp";
      break;
    case "zh":
      lang = script === "hant" || (!script && ["TW", "HK", "MO"].includes(region ?? ""))
        ? "zh-hant"
        : "zh-hans";
      break;
    case "pt":
      lang = region === "PT" ? "pt-pt" : "pt-br";
      break;
    case "en":
      lang = region === "GB" ? "en-gb" : "en";
      break;
    case "no":
    case "nb":
      lang = "nb";
      break;
    case "iw":
      lang = "he";
      break;
    default:
      lang = SEARCH_LANGS.has(language) ? language : undefined;
  }
  const dropped: string[] = [];
  if (!lang) dropped.push(`language ${JSON.stringify(tag.slice(0, 20))}`);
  let country: string | undefined;
  if (region) {
    if (COUNTRIES.has(region)) country = region;
    else dropped.push(`region ${region}`);
  }
  return { ...(lang ? { search_lang: lang } : {}), ...(country ? { country } : {}), dropped };
}

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
  const fitted = fitQuery(req.query.trim(), {
    provider: BRAVE,
    maxChars: BRAVE_MAX_CHARS,
    maxWords: BRAVE_MAX_WORDS,
    keep: req.site_hint,
  });
  if (fitted.notice) env.notice?.(fitted.notice);
  url.searchParams.set("q", fitted.query);
  url.searchParams.set("count", String(Math.max(1, Math.min(req.max_results, s.maxResults, 20))));
  if (req.time_range) url.searchParams.set("freshness", FRESHNESS[req.time_range]);
  if (req.language) {
    const locale = braveLocale(req.language);
    if (locale.search_lang) url.searchParams.set("search_lang", locale.search_lang);
    if (locale.country) url.searchParams.set("country", locale.country);
    if (locale.dropped.length > 0) {
      env.notice?.(
        `${BRAVE}: ${locale.dropped.join(" and ")} not in Brave's vocabulary, so not sent`,
      );
    }
  }
  const body = await callJson(env, {
    provider: BRAVE,
    url,
    headers: { "X-Subscription-Token": providerApiKey(env.config, BRAVE) ?? "" },
    timeoutMs: s.timeoutMs,
  }, isRecord);
  if (news) return braveHits(body.results);
  return braveHits(isRecord(body.web) ? body.web.results : []);
}

const BraveInput = z.strictObject({
  query: z.string().min(1).max(400).describe("What to search for"),
  max_results: z.number().int().min(1).max(20).default(10).describe("Results (1-20)"),
  time_range: timeRangeSchema().optional().describe(
    "Only results this recent",
  ),
  language: z.string().min(2).max(10).optional().describe("Language code, e.g. en"),
});

/**
 * The Brave provider (`search.providers.brave.api_key`, env `BRAVE_API_KEY`, or
 * `BRAVE_SEARCH_API_KEY`; `BRAVE_API_KEY` wins when both are set).
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
  configHint: "search.providers.brave.api_key",
  isConfigured: (config) =>
    Boolean(providerApiKey(config, BRAVE)) && settings(config).enabled !== false,
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
