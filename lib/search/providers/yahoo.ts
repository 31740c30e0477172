/**
 * Yahoo as a keyless web engine, read from its HTML result page. The request
 * follows the `ddgs` library's Yahoo engine (https://github.com/deedy5/ddgs,
 * `ddgs/engines/yahoo.py` at a97a4fcbad658fe488bcd84d42fb32a7ba54b45a):
 * `GET /search?p=…`, the time range as `btf` (`d`, `w`, `m`: Yahoo offers no
 * past year, so a year-long range leaves Yahoo out); the language and
 * safe-search level go in Yahoo's `sB` preference cookie (`vl=lang_<xx>`,
 * `vm=p|i|r`), as SearXNG's Yahoo engine sends them. The parser is
 * `yahoo_parse.ts`; bot walls and failures are decided by `scraped.ts`. Pace:
 * one call a second.
 *
 * @module
 */
import type { TimeRange } from "../time_range.ts";
import { cookieHeader, type ScrapedEngine, scrapedProvider, searchLocale } from "./scraped.ts";
import type { Provider } from "./types.ts";

/** Yahoo's `btf` value of each time range it offers. */
const YAHOO_TIME_RANGE: Readonly<Partial<Record<TimeRange, string>>> = {
  day: "d",
  week: "w",
  month: "m",
};

/** Yahoo's `vm` (safe search) of each `search.safesearch` level. */
const YAHOO_SAFESEARCH = ["p", "i", "r"] as const;

/**
 * Yahoo's request and parser.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { YAHOO } from "./yahoo.ts";
 * const { url, headers } = YAHOO.request("https://search.yahoo.com", { query: "deno", max_results: 5, time_range: "day" }, parseConfig({}));
 * console.assert(url.searchParams.get("p") === "deno" && url.searchParams.get("btf") === "d");
 * console.assert(headers?.Cookie === "sB=v=1&vm=i&fl=1&vl=lang_en");
 * ```
 *
 * @internal exported for tests only
 */
export const YAHOO: ScrapedEngine = {
  name: "yahoo",
  title: "Yahoo",
  defaultBaseUrl: "https://search.yahoo.com",
  timeRanges: ["day", "week", "month"],
  requestsPerSecond: 1,
  request(base, req, config) {
    const url = new URL(`${base}/search`);
    url.searchParams.set("p", req.query);
    const btf = req.time_range ? YAHOO_TIME_RANGE[req.time_range] : undefined;
    if (btf) url.searchParams.set("btf", btf);
    const { language } = searchLocale(req, config);
    const preferences = [
      "v=1",
      `vm=${YAHOO_SAFESEARCH[config.search.safesearch]}`,
      "fl=1",
      ...(language ? [`vl=lang_${language}`] : []),
    ].join("&");
    return { url, headers: cookieHeader({ sB: preferences }) };
  },
  parser: () => import("./yahoo_parse.ts").then((m) => m.parseYahoo),
};

/**
 * Yahoo as a provider (keyless, on by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { yahooProvider } from "./yahoo.ts";
 * console.assert(yahooProvider.isConfigured(parseConfig({})));
 * ```
 */
export const yahooProvider: Provider = scrapedProvider(YAHOO);
