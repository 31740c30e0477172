/**
 * Brave Search API: web, news, image and video search.
 *
 * Requests (`X-Subscription-Token: <key>`, `Accept: application/json`):
 * - `GET <base>/res/v1/web/search?q=&count=&freshness=&search_lang=`
 * - `GET <base>/res/v1/news/search?q=&count=&freshness=&search_lang=`
 * - `GET <base>/res/v1/images/search?q=&count=&search_lang=&country=&safesearch=&spellcheck=`
 *   (https://api-dashboard.search.brave.com/api-reference/images/image_search: `count`
 *   1–200, `safesearch` `off|strict` (Brave's default `strict`), no `freshness`)
 * - `GET <base>/res/v1/videos/search?q=&count=&freshness=&search_lang=&country=&safesearch=&spellcheck=`
 *   (https://api-dashboard.search.brave.com/api-reference/videos/video_search/get: `count`
 *   1–50, `safesearch` `off|moderate|strict` (Brave's default `moderate`))
 *
 * Brave's documented limits are respected before sending
 * (https://api-dashboard.search.brave.com/api-reference/web/search/get): `q`
 * at most 400 characters and 50 words (a longer query is cut at a word
 * boundary, the router's `site:` hint kept, and the answer says so);
 * `search_lang` and `country` from Brave's own vocabularies
 * ({@link braveLocale} maps a BCP 47 tag: `ja` → `jp`, `pt-BR` → `pt-br` and
 * country `BR`, `zh-TW` → `zh-hant` and `TW`, `no`/`nb` → `nb`, `en-GB` →
 * `en-gb` and `GB`; what Brave cannot express is dropped, and the answer says
 * so); `count` at most 20 for web search and 50 for news
 * (https://api-dashboard.search.brave.com/api-reference/news/news_search/get: `count`
 * default 20, maximum 50); `freshness` `pd|pw|pm|py`. Fields read from the
 * answers: web `web.results[]`, news `results[]`, each with `title`, `url`,
 * `description` (may hold `<strong>` tags), `page_age` (ISO date) or `age`,
 * and `extra_snippets`, `language`, `meta_url.hostname` kept in
 * `provider_data`. Images `results[]`: `title`, `url` (the page showing the
 * image), `source`, `thumbnail.src`, `properties.{url,width,height}` (the
 * image itself), `confidence`; videos `results[]`: `title`, `url`,
 * `description`, `age`, `page_age`, `thumbnail.src`,
 * `video.{duration,views,creator,publisher}`.
 *
 * @module
 */
import { z } from "zod";
import { GleanerError } from "../../errors.ts";
import { type TimeRange, timeRangeSchema } from "../time_range.ts";
import { parseLanguageTag } from "../language_tag.ts";
import { toIsoDate } from "../upstream.ts";
import { boundedData, fitQuery, isWebUrl, plainText, providerSettings } from "./http.ts";
import { callJson, isRecord, records, str } from "../../net/json_call.ts";
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
const BRAVE = "brave";

const FRESHNESS: Readonly<Record<TimeRange, string>> = {
  day: "pd",
  week: "pw",
  month: "pm",
  year: "py",
};

/** Brave's `q` limits. */
const BRAVE_MAX_CHARS = 400;
const BRAVE_MAX_WORDS = 50;

/** Brave's largest `count` of a web search. */
const BRAVE_MAX_WEB = 20;
/** Brave's largest `count` of a news search. */
const BRAVE_MAX_NEWS = 50;

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
 *
 * @internal exported for tests only
 */
export function braveLocale(tag: string): BraveLocale {
  const { language, script, region } = parseLanguageTag(tag);
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

function settings(config: Slice) {
  return providerSettings(config, BRAVE, {
    baseUrl: "https://api.search.brave.com",
    maxResults: 20,
  });
}

/** Turns Brave result objects into hits. */
function braveHits(results: unknown): ProviderHit[] {
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

/** Sets `search_lang` and `country` from a BCP 47 tag; what Brave cannot express becomes a notice. */
function setLocale(url: URL, language: string | undefined, env: ProviderEnv<Slice>): void {
  if (!language) return;
  const locale = braveLocale(language);
  if (locale.search_lang) url.searchParams.set("search_lang", locale.search_lang);
  if (locale.country) url.searchParams.set("country", locale.country);
  if (locale.dropped.length > 0) {
    env.notice?.(
      `${BRAVE}: ${locale.dropped.join(" and ")} not in Brave's vocabulary, so not sent`,
    );
  }
}

/**
 * Brave's `country` for a code the caller gave: a two-letter code Brave lists,
 * or `ALL` (worldwide).
 *
 * @throws {GleanerError} `invalid_arguments` (field `country`) for a code Brave does not list.
 *
 * @example
 * ```ts
 * import { braveCountry } from "./brave.ts";
 * console.assert(braveCountry("de") === "DE" && braveCountry("all") === "ALL");
 * ```
 *
 * @internal exported for tests only
 */
export function braveCountry(code: string): string {
  const upper = code.trim().toUpperCase();
  if (upper === "ALL" || COUNTRIES.has(upper)) return upper;
  throw new GleanerError(
    "invalid_arguments",
    `country: Brave has no results for ${JSON.stringify(code.slice(0, 10))}; use ALL or one of ${
      [...COUNTRIES].join(", ")
    }`,
    { details: { field: "country", provider: BRAVE } },
  );
}

async function braveSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
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
  const cap = news ? BRAVE_MAX_NEWS : BRAVE_MAX_WEB;
  const most = env.config.search.providers[BRAVE]?.max_results ?? cap;
  url.searchParams.set("count", String(Math.max(1, Math.min(req.max_results, most, cap))));
  if (req.time_range) url.searchParams.set("freshness", FRESHNESS[req.time_range]);
  setLocale(url, req.language, env);
  const body = await callJson(env, {
    provider: BRAVE,
    url,
    headers: { "X-Subscription-Token": providerKey(env.config, BRAVE) ?? "" },
    timeoutMs: s.timeoutMs,
  }, isRecord);
  if (news) return braveHits(body.results);
  return braveHits(isRecord(body.web) ? body.web.results : []);
}

/** Brave's media endpoints and their documented limits. */
const MEDIA = {
  // https://api-dashboard.search.brave.com/api-reference/images/image_search
  images: { maxCount: 200, freshness: false },
  // https://api-dashboard.search.brave.com/api-reference/videos/video_search/get
  videos: { maxCount: 50, freshness: true },
} as const;

/** Brave's largest `count` of an image search. */
const BRAVE_MAX_IMAGES = MEDIA.images.maxCount;
/** Brave's largest `count` of a video search. */
const BRAVE_MAX_VIDEOS = MEDIA.videos.maxCount;

/** An image or video search as Brave's media tools ask it. */
interface BraveMediaRequest {
  query: string;
  max_results: number;
  language?: string;
  country?: string;
  safesearch?: string;
  spellcheck?: boolean;
  time_range?: TimeRange;
}

/** A URL worth passing on whole: http(s) and short enough not to be cut. */
function link(value: unknown, max = 2_000): string | undefined {
  return isWebUrl(value) && value.trim().length <= max ? value.trim() : undefined;
}

/** A number Brave gave, else undefined. */
function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * Turns Brave image results into hits: the page showing the image is the
 * hit's `url`; the image itself (`properties.url`) opens the snippet and is
 * kept, with the thumbnail, size and source, in `provider_data`.
 *
 * @example
 * ```ts
 * import { braveImageHits } from "./brave.ts";
 * const [hit] = braveImageHits([{
 *   title: "Lighthouse", url: "https://a.example/page", source: "a.example",
 *   properties: { url: "https://a.example/l.jpg", width: 800, height: 600 },
 * }]);
 * console.assert(hit.snippet === "Image: https://a.example/l.jpg (800×600)");
 * ```
 *
 * @internal exported for tests only
 */
export function braveImageHits(results: unknown): ProviderHit[] {
  const hits: ProviderHit[] = [];
  for (const r of records(results)) {
    if (!isWebUrl(r.url)) continue;
    const props = isRecord(r.properties) ? r.properties : {};
    const thumb = isRecord(r.thumbnail) ? r.thumbnail : {};
    const meta = isRecord(r.meta_url) ? r.meta_url : {};
    const image = link(props.url);
    const width = num(props.width);
    const height = num(props.height);
    const size = width !== undefined && height !== undefined ? ` (${width}×${height})` : "";
    hits.push({
      title: plainText(r.title) || str(r.url),
      url: str(r.url).trim(),
      snippet: image ? `Image: ${image}${size}` : "",
      source: BRAVE,
      provider_data: boundedData({
        // Longer URLs would be cut by boundedData: the snippet carries the image URL whole.
        image_url: link(props.url, 300),
        thumbnail: link(thumb.src, 300),
        width,
        height,
        source: r.source,
        hostname: meta.hostname,
        confidence: r.confidence,
      }),
    });
  }
  return hits;
}

/**
 * Turns Brave video results into hits: the description, then duration,
 * creator, platform and views; those and the thumbnail also in `provider_data`.
 *
 * @example
 * ```ts
 * import { braveVideoHits } from "./brave.ts";
 * const [hit] = braveVideoHits([{
 *   title: "WAL explained", url: "https://video.example/w", description: "A talk.",
 *   page_age: "2025-02-12T00:00:00",
 *   video: { duration: "12:03", views: 1200, creator: "Ann", publisher: "VideoSite" },
 * }]);
 * console.assert(hit.snippet === "A talk. (12:03, Ann on VideoSite, 1,200 views)");
 * console.assert(hit.published === "2025-02-12T00:00:00.000Z");
 * ```
 *
 * @internal exported for tests only
 */
export function braveVideoHits(results: unknown): ProviderHit[] {
  const hits: ProviderHit[] = [];
  for (const r of records(results)) {
    if (!isWebUrl(r.url)) continue;
    const video = isRecord(r.video) ? r.video : {};
    const thumb = isRecord(r.thumbnail) ? r.thumbnail : {};
    const meta = isRecord(r.meta_url) ? r.meta_url : {};
    const published = toIsoDate(r.page_age);
    const duration = plainText(video.duration);
    const creator = plainText(video.creator);
    const publisher = plainText(video.publisher);
    const views = num(video.views);
    const facts = [
      duration,
      creator && publisher ? `${creator} on ${publisher}` : creator || publisher,
      views !== undefined ? `${views.toLocaleString("en-US")} views` : "",
    ].filter(Boolean);
    const description = plainText(r.description);
    hits.push({
      title: plainText(r.title) || str(r.url),
      url: str(r.url).trim(),
      snippet: [description, facts.length > 0 ? `(${facts.join(", ")})` : ""].filter(Boolean)
        .join(" "),
      ...(published ? { published } : {}),
      source: BRAVE,
      provider_data: boundedData({
        age: r.age,
        duration: duration || undefined,
        views,
        creator: creator || undefined,
        publisher: publisher || undefined,
        thumbnail: link(thumb.src, 300),
        hostname: meta.hostname,
      }),
    });
  }
  return hits;
}

async function braveMediaSearch(
  req: BraveMediaRequest,
  env: ProviderEnv<Slice>,
  media: keyof typeof MEDIA,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  const limits = MEDIA[media];
  const url = new URL(`${s.baseUrl}/res/v1/${media}/search`);
  const fitted = fitQuery(req.query.trim(), {
    provider: BRAVE,
    maxChars: BRAVE_MAX_CHARS,
    maxWords: BRAVE_MAX_WORDS,
  });
  if (fitted.notice) env.notice?.(fitted.notice);
  url.searchParams.set("q", fitted.query);
  url.searchParams.set("count", String(Math.max(1, Math.min(req.max_results, limits.maxCount))));
  if (limits.freshness && req.time_range) {
    url.searchParams.set("freshness", FRESHNESS[req.time_range]);
  }
  setLocale(url, req.language, env);
  // An explicit country wins over the region of the language tag.
  if (req.country) url.searchParams.set("country", braveCountry(req.country));
  if (req.safesearch) url.searchParams.set("safesearch", req.safesearch);
  if (req.spellcheck !== undefined) url.searchParams.set("spellcheck", String(req.spellcheck));
  const body = await callJson(env, {
    provider: BRAVE,
    url,
    headers: { "X-Subscription-Token": providerKey(env.config, BRAVE) ?? "" },
    timeoutMs: s.timeoutMs,
  }, isRecord);
  return media === "images" ? braveImageHits(body.results) : braveVideoHits(body.results);
}

const CountrySchema = z.string().regex(/^(?:[A-Za-z]{2}|[Aa][Ll][Ll])$/).optional().describe(
  "Where the results come from: a two-letter country code (US, DE, JP, …) or ALL",
);
const SpellcheckSchema = z.boolean().optional().describe(
  "Let Brave correct the query's spelling (Brave's default: true)",
);

const BraveImageInput = z.strictObject({
  query: z.string().min(1).max(400).describe("What to search for"),
  max_results: z.number().int().min(1).max(BRAVE_MAX_IMAGES).default(20).describe(
    `Results (1-${BRAVE_MAX_IMAGES})`,
  ),
  language: z.string().min(2).max(10).optional().describe("Language code, e.g. en, pt-BR"),
  country: CountrySchema,
  safesearch: z.enum(["off", "strict"]).optional().describe(
    "Adult content: `strict` (Brave's default for images) drops it, `off` keeps it",
  ),
  spellcheck: SpellcheckSchema,
});

const BraveVideoInput = z.strictObject({
  query: z.string().min(1).max(400).describe("What to search for"),
  max_results: z.number().int().min(1).max(BRAVE_MAX_VIDEOS).default(10).describe(
    `Results (1-${BRAVE_MAX_VIDEOS})`,
  ),
  time_range: timeRangeSchema().optional().describe("Only videos this recent"),
  language: z.string().min(2).max(10).optional().describe("Language code, e.g. en, pt-BR"),
  country: CountrySchema,
  safesearch: z.enum(["off", "moderate", "strict"]).optional().describe(
    "Adult content: `moderate` (Brave's default) filters explicit videos, `strict` drops all adult content, `off` none",
  ),
  spellcheck: SpellcheckSchema,
});

const BraveInput = z.strictObject({
  query: z.string().min(1).max(400).describe("What to search for"),
  max_results: z.number().int().min(1).max(BRAVE_MAX_WEB).default(10).describe("Results (1-20)"),
  time_range: timeRangeSchema().optional().describe(
    "Only results this recent",
  ),
  language: z.string().min(2).max(10).optional().describe("Language code, e.g. en"),
});

const BraveNewsInput = BraveInput.extend({
  max_results: z.number().int().min(1).max(BRAVE_MAX_NEWS).default(10).describe("Results (1-50)"),
});

/**
 * The Brave provider (`search.providers.brave.api_key`, env `BRAVE_API_KEY`, or
 * `BRAVE_SEARCH_API_KEY`; `BRAVE_API_KEY` wins when both are set).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { braveProvider } from "./brave.ts";
 * console.assert(!braveProvider.isConfigured(parseConfig({})));
 * console.assert(braveProvider.isConfigured(parseConfig({ search: { brave_api_key: "k" } })));
 * ```
 */
export const braveProvider: Provider = defineProvider({
  settings: { search: [] },
  name: BRAVE,
  scope: "shared",
  title: "Brave Search",
  roles: ["search"],
  configHint: "search.providers.brave.api_key",
  isConfigured: (config) =>
    Boolean(providerKey(config, BRAVE)) && settings(config).enabled !== false,
  search: (req, env) => braveSearch(req, env, req.topic === "news"),
  tools: [
    {
      name: "brave_web_search",
      title: "Brave web search",
      description:
        "Searches the web with Brave Search: titles, URLs, snippets and page dates, up to 20 results.",
      kind: "search",
      input: BraveInput,
      run: async (input: z.output<typeof BraveInput>, env: ProviderEnv<Slice>) => ({
        results: await braveSearch(input, env, false),
      }),
    },
    {
      name: "brave_news_search",
      title: "Brave news search",
      description:
        `Searches recent news articles with Brave Search, newest first, up to ${BRAVE_MAX_NEWS} results.`,
      kind: "search",
      input: BraveNewsInput,
      run: async (input: z.output<typeof BraveNewsInput>, env: ProviderEnv<Slice>) => ({
        results: await braveSearch(input, env, true),
      }),
    },
    {
      name: "brave_image_search",
      title: "Brave image search",
      description:
        `Searches images with Brave Search: for each, the page showing it, the image URL, size and thumbnail, up to ${BRAVE_MAX_IMAGES} results. Safe search is strict unless turned off.`,
      kind: "search",
      input: BraveImageInput,
      run: async (input: z.output<typeof BraveImageInput>, env: ProviderEnv<Slice>) => ({
        results: await braveMediaSearch(input, env, "images"),
      }),
    },
    {
      name: "brave_video_search",
      title: "Brave video search",
      description:
        `Searches videos with Brave Search: title, URL, description, duration, creator, platform, views and date, up to ${BRAVE_MAX_VIDEOS} results.`,
      kind: "search",
      input: BraveVideoInput,
      run: async (input: z.output<typeof BraveVideoInput>, env: ProviderEnv<Slice>) => ({
        results: await braveMediaSearch(input, env, "videos"),
      }),
    },
  ],
});
