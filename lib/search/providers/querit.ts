/**
 * Querit: live web search for AI agents (https://www.querit.ai).
 *
 * Request: `POST <base>/v1/search`, `Authorization: Bearer <key>`, a JSON body
 * `{ query, count, filters? }`. Facts and where each comes from:
 *
 * Official (Querit's API reference https://www.querit.ai/en/docs/reference/post,
 * as its own clients implement it: the Python SDK
 * https://github.com/querit-ai/querit-python — `querit/client.py`,
 * `querit/models/request.py`, `querit/models/response.py`,
 * `querit/utils/enums.py`, `querit/utils/http.py` — and the plugins in
 * https://github.com/querit-ai/querit-plugins — `zapier-querit/lib/querit.js`,
 * `zapier-querit/searches/web-search.js` and its tests):
 * - the endpoint, the Bearer header and the body fields `query`, `count`,
 *   `filters.languages.include[]`, `filters.geo.countries.include[]`,
 *   `filters.sites.include[]` / `exclude[]`, `filters.timeRange.date`
 *   (`d<n>`, `w<n>`, `m<n>`, `y<n>`: Gleaner sends `d1`, `w1`, `m1`, `y1`);
 * - the language vocabulary (english, japanese, korean, german, french,
 *   spanish, portuguese) and the country vocabulary (17 names, see
 *   {@link queritLocale}): {@link queritLocale} maps a BCP 47 tag onto them,
 *   and what they cannot express is dropped, which the answer's `notices` say;
 * - `count` 1–20 and `query` at most 1,000 characters (the limits Querit's
 *   Zapier app enforces before sending): a longer query is cut at a word
 *   boundary and the answer says so;
 * - the answer: `error_code` (200 on success; otherwise the HTTP status it
 *   stands for, also inside an HTTP 200 answer, e.g.
 *   `{"error_code":"429","error_msg":"Search quota exceeded."}`), `error_msg`,
 *   `search_id`, `took`, `query_context.query`, and the hits under
 *   `results.result[]` with `url`, `title`, `snippet`, `page_age`,
 *   `site_name` (also `page_time`, `language`, `site_icon`, `sentence[]`, not read);
 * - HTTP statuses 400 (bad request), 401 (key), 403 (forbidden), 429 (rate
 *   limit, with `Retry-After`), 5xx (server).
 *
 * Not relied on: the free plan's 1,000 calls a month (Querit's OpenCode plugin
 * README, https://github.com/querit-ai/querit-plugins/blob/main/opencode-querit/README.md)
 * and 1 request per second (third-party notes only); set
 * `search.providers.querit.requests_per_second` to pace calls to a plan's rate.
 *
 * An `error_code` other than 200 is classified as the status it names
 * (`../../net/classify.ts`): a spent quota ("quota exceeded") is `insufficient_balance`,
 * a rate limit `rate_limited`, a refused key `unauthorized`; each lets the
 * router ask the next provider.
 *
 * @module
 */
import { z } from "zod";
import { type TimeRange, timeRangeSchema } from "../time_range.ts";
import { parseLanguageTag } from "../language_tag.ts";
import { toIsoDate } from "../upstream.ts";
import { providerFailure } from "../../net/classify.ts";
import { boundedData, fitQuery, isWebUrl, plainText, providerSettings } from "./http.ts";
import { callProvider, isRecord, records, str } from "../../net/json_call.ts";
import type {
  Provider,
  ProviderEnv,
  ProviderHit,
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";
import { defineProvider, providerKey } from "./define.ts";

/** The settings it reads (`define.ts`): its `search.providers` entry and `search.timeout_ms`. */
type Slice = ProviderSlice;

/** The provider's name. */
const QUERIT = "querit";

/** Querit's documented limits: `query` characters and `count`. */
const QUERIT_MAX_CHARS = 1000;
const QUERIT_MAX_COUNT = 20;

const TIME_RANGE: Readonly<Record<TimeRange, string>> = {
  day: "d1",
  week: "w1",
  month: "m1",
  year: "y1",
};

/** Querit's `filters.languages` vocabulary, by ISO 639-1 code. */
const LANGUAGES: Readonly<Record<string, string>> = {
  en: "english",
  ja: "japanese",
  ko: "korean",
  de: "german",
  fr: "french",
  es: "spanish",
  pt: "portuguese",
};

/** Querit's `filters.geo.countries` vocabulary, by ISO 3166-1 code. */
const COUNTRIES: Readonly<Record<string, string>> = {
  AR: "argentina",
  AU: "australia",
  BR: "brazil",
  CA: "canada",
  CO: "colombia",
  FR: "france",
  DE: "germany",
  IN: "india",
  ID: "indonesia",
  JP: "japan",
  MX: "mexico",
  NG: "nigeria",
  PH: "philippines",
  KR: "south korea",
  ES: "spain",
  GB: "united kingdom",
  US: "united states",
};

/** How a BCP 47 tag reads in Querit's vocabularies. */
export interface QueritLocale {
  /** The `filters.languages.include` value, when Querit has the language. */
  language?: string;
  /** The `filters.geo.countries.include` value, when the tag names a country Querit has. */
  country?: string;
  /** What could not be expressed, for the answer's `notices`. */
  dropped: string[];
}

/**
 * Maps a BCP 47 language tag onto Querit's language and country names.
 *
 * @example
 * ```ts
 * import { queritLocale } from "./querit.ts";
 * console.assert(queritLocale("ja-JP").language === "japanese" && queritLocale("ja-JP").country === "japan");
 * console.assert(queritLocale("pt-BR").country === "brazil");
 * console.assert(queritLocale("en_GB").country === "united kingdom");
 * console.assert(queritLocale("zh-TW").language === undefined && queritLocale("zh-TW").dropped.length === 2);
 * ```
 *
 * @internal exported for tests only
 */
export function queritLocale(tag: string): QueritLocale {
  const { language: code, region } = parseLanguageTag(tag);
  const language = Object.hasOwn(LANGUAGES, code) ? LANGUAGES[code] : undefined;
  const dropped: string[] = [];
  if (!language) dropped.push(`language ${JSON.stringify(tag.slice(0, 20))}`);
  let country: string | undefined;
  if (region) {
    if (Object.hasOwn(COUNTRIES, region)) country = COUNTRIES[region];
    else dropped.push(`region ${region}`);
  }
  return { ...(language ? { language } : {}), ...(country ? { country } : {}), dropped };
}

function settings(config: Slice) {
  return providerSettings(config, QUERIT, { baseUrl: "https://api.querit.ai", maxResults: 20 });
}

/**
 * Turns Querit's `results.result[]` into hits (entries without an http(s) URL dropped).
 *
 * @example
 * ```ts
 * import { queritHits } from "./querit.ts";
 * const [hit] = queritHits([{ url: "https://a.example/", title: "A", snippet: "s", page_age: "2026-01-01", site_name: "A site" }]);
 * console.assert(hit.published === "2026-01-01T00:00:00.000Z" && hit.provider_data?.site_name === "A site");
 * console.assert(queritHits([{ url: "javascript:x" }]).length === 0);
 * ```
 *
 * @internal exported for tests only
 */
export function queritHits(result: unknown): ProviderHit[] {
  const hits: ProviderHit[] = [];
  for (const r of records(result)) {
    if (!isWebUrl(r.url)) continue;
    const url = str(r.url).trim();
    // `page_age` is a date for most pages and a relative age ("1 day ago") for some: only a date is kept.
    const published = toIsoDate(r.page_age);
    hits.push({
      title: plainText(r.title) || plainText(r.site_name) || url,
      url,
      snippet: plainText(r.snippet),
      ...(published ? { published } : {}),
      source: QUERIT,
      provider_data: boundedData({ site_name: r.site_name, page_age: r.page_age }),
    });
  }
  return hits;
}

async function queritSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  const fitted = fitQuery(req.query.trim(), {
    provider: QUERIT,
    maxChars: QUERIT_MAX_CHARS,
    keep: req.site_hint,
  });
  if (fitted.notice) env.notice?.(fitted.notice);
  const count = Math.max(1, Math.min(req.max_results, s.maxResults, QUERIT_MAX_COUNT));
  const filters: Record<string, unknown> = {};
  if (req.domains?.length || req.exclude_domains?.length) {
    filters.sites = {
      ...(req.domains?.length ? { include: req.domains } : {}),
      ...(req.exclude_domains?.length ? { exclude: req.exclude_domains } : {}),
    };
  }
  if (req.time_range) filters.timeRange = { date: TIME_RANGE[req.time_range] };
  if (req.language) {
    const locale = queritLocale(req.language);
    if (locale.language) filters.languages = { include: [locale.language] };
    if (locale.country) filters.geo = { countries: { include: [locale.country] } };
    if (locale.dropped.length > 0) {
      env.notice?.(
        `${QUERIT}: ${locale.dropped.join(" and ")} not in Querit's vocabulary, so not sent`,
      );
    }
  }
  const url = `${s.baseUrl}/v1/search`;
  const res = await callProvider(env, {
    provider: QUERIT,
    url,
    method: "POST",
    headers: { Authorization: `Bearer ${providerKey(env.config, QUERIT) ?? ""}` },
    json: {
      query: fitted.query,
      count,
      ...(Object.keys(filters).length > 0 ? { filters } : {}),
    },
    timeoutMs: s.timeoutMs,
  });
  const text = res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw providerFailure(QUERIT, url, { status: res.status, unreadable: true, error });
  }
  if (!isRecord(body)) throw providerFailure(QUERIT, url, { status: res.status, unreadable: true });
  // Querit reports errors inside an HTTP 200 answer: `error_code` other than 200.
  const code = body.error_code;
  if (code !== undefined && code !== null && String(code).trim() !== "200") {
    throw providerFailure(QUERIT, url, {
      status: res.status,
      headers: res.headers,
      body: text,
      bodyStatus: typeof code === "number" || typeof code === "string" ? Number(code) : NaN,
    });
  }
  const results = body.results;
  if (!isRecord(results) || !Array.isArray(results.result)) {
    throw providerFailure(QUERIT, url, { status: res.status, unreadable: true });
  }
  return queritHits(results.result).slice(0, count);
}

const QueritSearchInput = z.strictObject({
  query: z.string().min(1).max(QUERIT_MAX_CHARS).describe("What to search for"),
  max_results: z.number().int().min(1).max(QUERIT_MAX_COUNT).default(10).describe(
    "Results (1-20)",
  ),
  language: z.string().min(2).max(10).optional().describe(
    "Language code, e.g. en or pt-BR (Querit has en, ja, ko, de, fr, es, pt)",
  ),
  domains: z.array(z.string()).max(20).optional().describe("Only these domains"),
  exclude_domains: z.array(z.string()).max(20).optional().describe("Never these domains"),
  time_range: timeRangeSchema().optional().describe("Only results this recent"),
});

/**
 * The Querit provider (`search.providers.querit.api_key`, env `QUERIT_API_KEY`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { queritProvider } from "./querit.ts";
 * console.assert(!queritProvider.isConfigured(parseConfig({})));
 * console.assert(queritProvider.isConfigured(parseConfig({ search: { querit_api_key: "k" } })));
 * ```
 */
export const queritProvider: Provider = defineProvider({
  settings: { search: [] },
  name: QUERIT,
  scope: "shared",
  title: "Querit",
  roles: ["search"],
  configHint: "search.providers.querit.api_key",
  nativeDomains: true,
  isConfigured: (config) =>
    Boolean(providerKey(config, QUERIT)) && settings(config).enabled !== false,
  search: queritSearch,
  tools: [
    {
      name: "querit_search",
      title: "Querit search",
      description:
        "Searches the live web with Querit: titles, URLs, snippets, site names and dates, up to 20 results.",
      kind: "search",
      input: QueritSearchInput,
      run: async (input: z.output<typeof QueritSearchInput>, env: ProviderEnv<Slice>) => ({
        results: await queritSearch(input, env),
      }),
    },
  ],
});
