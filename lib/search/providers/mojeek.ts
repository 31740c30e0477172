/**
 * Mojeek as a keyless web engine: an independent index with its own crawler,
 * read from its HTML result page. The request follows the `ddgs` library's
 * Mojeek engine (https://github.com/deedy5/ddgs, `ddgs/engines/mojeek.py` at
 * a97a4fcbad658fe488bcd84d42fb32a7ba54b45a): `GET /search?q=…`, `safe=1` for
 * safe search, the region and language as the `arc` and `lb` cookies; a time
 * range is Mojeek's `since=YYYYMMDD` (as SearXNG's Mojeek engine sends it).
 * The parser is `mojeek_parse.ts`; bot walls and failures are decided by
 * `scraped.ts`. Pace: one call a second.
 *
 * @module
 */
import type { TimeRange } from "../time_range.ts";
import { cookieHeader, type ScrapedEngine, scrapedProvider, searchLocale } from "./scraped.ts";
import type { Provider } from "./types.ts";

/** Days back of each time range (Mojeek's `since` is a date). */
const RANGE_DAYS: Readonly<Record<TimeRange, number>> = { day: 1, week: 7, month: 31, year: 366 };

/** `YYYYMMDD` of a date, in UTC. */
function compactDate(date: Date): string {
  return date.toISOString().slice(0, 10).replaceAll("-", "");
}

/**
 * Mojeek's request and parser.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { MOJEEK } from "./mojeek.ts";
 * const { url, headers } = MOJEEK.request("https://www.mojeek.com", { query: "deno", max_results: 5, language: "de-AT" }, parseConfig({}));
 * console.assert(url.pathname === "/search" && url.searchParams.get("q") === "deno");
 * console.assert(headers?.Cookie === "arc=at; lb=de");
 * ```
 */
export const MOJEEK: ScrapedEngine = {
  name: "mojeek",
  title: "Mojeek",
  defaultBaseUrl: "https://www.mojeek.com",
  requestsPerSecond: 1,
  request(base, req, config) {
    const url = new URL(`${base}/search`);
    url.searchParams.set("q", req.query);
    if (config.search.safesearch >= 1) url.searchParams.set("safe", "1");
    if (req.time_range) {
      const since = new Date(Date.now() - RANGE_DAYS[req.time_range] * 86_400_000);
      url.searchParams.set("since", compactDate(since));
    }
    const locale = searchLocale(req, config);
    return { url, headers: cookieHeader({ arc: locale.country, lb: locale.language }) };
  },
  parser: () => import("./mojeek_parse.ts").then((m) => m.parseMojeek),
};

/**
 * Mojeek as a provider (keyless, on by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { mojeekProvider } from "./mojeek.ts";
 * console.assert(mojeekProvider.isConfigured(parseConfig({})) && mojeekProvider.keylessEngine);
 * ```
 */
export const mojeekProvider: Provider = scrapedProvider(MOJEEK);
