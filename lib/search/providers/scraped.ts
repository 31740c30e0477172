/**
 * The keyless web engines read from their HTML result pages (Mojeek, Brave's
 * HTML page, Yahoo, Yandex; DuckDuckGo keeps its own call in
 * `duckduckgo_call.ts`): what each engine module supplies
 * ({@link ScrapedEngine}: the request, its bot-wall signs, its parser) and
 * the one search call they share ({@link searchScraped}).
 *
 * A bot wall is `blocked`, never zero results, so the breaker opens and the
 * keyless pool asks another engine. The signs follow the `ddgs` metasearch
 * library (https://github.com/deedy5/ddgs: `duckduckgo_search` answered 202,
 * 301, 400, 403 and 418 with its `RatelimitException`, and `ddgs` keeps only
 * HTTP 200 pages): those statuses are `blocked`; 429 is `rate_limited` with
 * its `Retry-After` (classified by `../../net/classify.ts`, as every other
 * status); a redirect to a captcha page, an engine's own captcha header, and
 * a page without results that asks to prove one is human are `blocked` too.
 * A page the parser recognises neither as results nor as an empty answer is
 * `provider_unavailable` (`invalid`): the engine changed its layout.
 *
 * Parsers (linkedom) load with the first answer, so listing the tools never
 * loads them.
 *
 * @module
 */
import { responseFailure } from "../../net/classify.ts";
import type { FetchedResponse } from "../../net/types.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import { parseLanguageTag } from "../language_tag.ts";
import type { TimeRange } from "../time_range.ts";
import type { SearchHit } from "../types.ts";
import { fetchUpstream, safeEndpoint } from "../upstream.ts";
import { keylessProvider, keylessSettings } from "./keyless.ts";
import type {
  Provider,
  ProviderEnv,
  ProviderHit,
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";

/** The settings it reads: its `search.providers` entry, region, safesearch. */
type ScrapedSlice = ProviderSlice<"region" | "safesearch">;

/** What one result page turned out to be. */
export type EnginePage =
  | { kind: "results"; hits: SearchHit[] }
  | { kind: "empty" }
  | { kind: "blocked"; sign: string }
  | { kind: "unrecognised" };

/** Parses one result page of an engine. */
export type EngineParser = (html: string) => EnginePage;

/** One request to an engine. */
export interface EngineRequest {
  /** The result page's URL, query string included. */
  url: URL;
  /** Extra request headers (the engine's preference cookies). */
  headers?: Record<string, string>;
}

/** The language and country a search asks for, in lower case. */
export interface SearchLocale {
  /** Primary language (`de`), when known. */
  language?: string;
  /** Two-letter country (`de`), when known. */
  country?: string;
}

/**
 * The language and country of a search: the request's `language`
 * (`pt-BR` → `pt`, `br`), else `search.region` (`us-en` → `en`, `us`;
 * `wt-wt` → neither).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { searchLocale } from "./scraped.ts";
 * const config = parseConfig({});
 * console.assert(searchLocale({ query: "q", max_results: 1, language: "pt-BR" }, config).country === "br");
 * console.assert(searchLocale({ query: "q", max_results: 1 }, config).language === "en");
 * ```
 */
export function searchLocale(
  req: ProviderSearchRequest,
  config: ProviderSlice<"region">,
): SearchLocale {
  if (req.language && req.language.trim()) {
    const tag = parseLanguageTag(req.language);
    return {
      ...(/^[a-z]{2,3}$/.test(tag.language) ? { language: tag.language } : {}),
      ...(tag.region ? { country: tag.region.toLowerCase() } : {}),
    };
  }
  const [country, language] = config.search.region.toLowerCase().split("-");
  return {
    ...(language && /^[a-z]{2,3}$/.test(language) ? { language } : {}),
    ...(country && /^[a-z]{2}$/.test(country) && country !== "wt" ? { country } : {}),
  };
}

/** A keyless web engine read from its HTML result page. */
export interface ScrapedEngine {
  /** Stable provider name (`mojeek`). */
  name: string;
  /** Human name. */
  title: string;
  /** Where results are asked unless `search.providers.<name>.base_url` says otherwise. */
  defaultBaseUrl: string;
  /** The time ranges it can honour; absent: every range. */
  timeRanges?: readonly TimeRange[];
  /** Its polite pace in calls per second (documented beside each engine). */
  requestsPerSecond: number;
  /** The request for one search, against `base` (no trailing slash). */
  request(base: string, req: ProviderSearchRequest, config: ScrapedSlice): EngineRequest;
  /**
   * The engine's own bot-wall signs in a response (a captcha header, a
   * redirect to its captcha page), named; `undefined` when there are none.
   */
  wall?(res: FetchedResponse): string | undefined;
  /** Loads the parser (with the first answer). */
  parser(): Promise<EngineParser>;
}

/** Statuses `ddgs` reads as a block or a rate limit (see the module doc); 429 is classified. */
const WALL_STATUSES: ReadonlySet<number> = new Set([202, 400, 403, 418]);

/** A final URL that is a captcha page (`/showcaptcha`, `/sp/captcha`, `/search/captcha`). */
const CAPTCHA_PATH = /captcha/i;

/**
 * One search on a scraped engine: the request, the bot-wall checks, the
 * parser; at most `max_results` hits. Zero results resolve to `[]`; every
 * failure throws a {@link SearchFailure}.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createFetcher } from "../../net/fetch.ts";
 * import { MOJEEK } from "./mojeek.ts";
 * import { searchScraped } from "./scraped.ts";
 * const config = parseConfig();
 * const hits = await searchScraped(MOJEEK, { query: "deno kv", max_results: 5 }, {
 *   config, fetcher: createFetcher(config.network),
 * });
 * ```
 *
 * @internal exported for tests only
 */
export async function searchScraped(
  engine: ScrapedEngine,
  req: ProviderSearchRequest,
  env: ProviderEnv<ScrapedSlice>,
): Promise<ProviderHit[]> {
  const settings = keylessSettings(env.config, engine.name);
  const base = settings.baseUrl ?? engine.defaultBaseUrl;
  const setting = `search.providers.${engine.name}.base_url`;
  const { url, headers } = engine.request(base, req, env.config);
  const res = await fetchUpstream(env.fetcher, engine.name, url, {
    method: "GET",
    headers: { Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8", ...headers },
    signal: env.signal,
    timeoutMs: settings.timeoutMs,
  }, setting);
  const where = `${engine.name} ${safeEndpoint(url)}`;
  const walled = (sign: string) =>
    new SearchFailure(
      "blocked",
      `${where} answered with a bot wall (${sign}): blocked, not zero results`,
      {
        backend: engine.name,
        details: { status: res.status, sign },
      },
    );
  const own = engine.wall?.(res);
  if (own) throw walled(own);
  if (CAPTCHA_PATH.test(new URL(res.url).pathname)) throw walled("redirected to a captcha page");
  if (WALL_STATUSES.has(res.status)) throw walled(`HTTP ${res.status}`);
  if (res.status < 200 || res.status > 299) throw responseFailure(engine.name, url, res, setting);
  const parse = await engine.parser();
  const page = parse(res.text());
  switch (page.kind) {
    case "results":
      return page.hits.slice(0, req.max_results);
    case "empty":
      return [];
    case "blocked":
      throw walled(page.sign);
    case "unrecognised":
      throw new SearchFailure("invalid", `${where} answered a page whose layout is unknown`, {
        backend: engine.name,
        details: { status: res.status },
      });
  }
}

/**
 * The provider of a scraped engine: keyless, on unless
 * `search.providers.<name>.enabled` is `false`, a member of the keyless pool.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { scrapedProvider } from "./scraped.ts";
 * const provider = scrapedProvider({
 *   name: "example", title: "Example", defaultBaseUrl: "https://search.example",
 *   requestsPerSecond: 1, request: (base, req) => ({ url: new URL(`${base}/?q=${req.query}`) }),
 *   parser: () => Promise.resolve(() => ({ kind: "empty" as const })),
 * });
 * console.assert(provider.keylessEngine && provider.isConfigured(parseConfig({})));
 * ```
 */
export function scrapedProvider(engine: ScrapedEngine): Provider {
  return keylessProvider({
    name: engine.name,
    title: engine.title,
    configHint: `search.providers.${engine.name}.enabled`,
    configured: () => true,
    settings: ["region", "safesearch"],
    search: (req, env) => searchScraped(engine, req, env),
    engine: true,
    ...(engine.timeRanges ? { timeRanges: engine.timeRanges } : {}),
    defaultRequestsPerSecond: engine.requestsPerSecond,
  });
}

/** A `Cookie` header from name-value pairs (values already safe: engine vocabulary only). */
export function cookieHeader(pairs: Record<string, string | undefined>): Record<string, string> {
  const cookie = Object.entries(pairs)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== "")
    .map(([name, value]) => `${name}=${value}`)
    .join("; ");
  return cookie ? { Cookie: cookie } : {};
}
