/**
 * Brave Search's HTML result page as a keyless web engine (`brave_html`;
 * Brave's keyed API is the `brave` provider). The request follows the `ddgs`
 * library's Brave engine (https://github.com/deedy5/ddgs,
 * `ddgs/engines/brave.py` at a97a4fcbad658fe488bcd84d42fb32a7ba54b45a):
 * `GET /search?q=…&source=web`, the time range as `tf` (`pd`, `pw`, `pm`,
 * `py`), the country, `useLocation=0` and the safe-search level as cookies.
 * The parser is `brave_html_parse.ts`; bot walls and failures are decided by
 * `scraped.ts`. Pace: one call a second.
 *
 * @module
 */
import type { TimeRange } from "../time_range.ts";
import { cookieHeader, type ScrapedEngine, scrapedProvider, searchLocale } from "./scraped.ts";
import type { Provider } from "./types.ts";

/** The provider name. */
const BRAVE_HTML = "brave_html";

/** Brave's `tf` value of each time range. */
const BRAVE_TIME_RANGE: Readonly<Record<TimeRange, string>> = {
  day: "pd",
  week: "pw",
  month: "pm",
  year: "py",
};

/** Brave's safe-search cookie of each `search.safesearch` level. */
const BRAVE_SAFESEARCH = ["off", "moderate", "strict"] as const;

/**
 * Brave's HTML page: request and parser.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { BRAVE_HTML_ENGINE } from "./brave_html.ts";
 * const { url, headers } = BRAVE_HTML_ENGINE.request("https://search.brave.com", { query: "deno", max_results: 5, time_range: "week" }, parseConfig({}));
 * console.assert(url.searchParams.get("tf") === "pw" && url.searchParams.get("source") === "web");
 * console.assert(headers?.Cookie === "country=us; useLocation=0; safesearch=moderate");
 * ```
 *
 * @internal exported for tests only
 */
export const BRAVE_HTML_ENGINE: ScrapedEngine = {
  name: BRAVE_HTML,
  title: "Brave Search (HTML page)",
  defaultBaseUrl: "https://search.brave.com",
  requestsPerSecond: 1,
  request(base, req, config) {
    const url = new URL(`${base}/search`);
    url.searchParams.set("q", req.query);
    url.searchParams.set("source", "web");
    if (req.time_range) url.searchParams.set("tf", BRAVE_TIME_RANGE[req.time_range]);
    const locale = searchLocale(req, config);
    return {
      url,
      headers: cookieHeader({
        country: locale.country,
        useLocation: "0",
        safesearch: BRAVE_SAFESEARCH[config.search.safesearch],
      }),
    };
  },
  parser: () => import("./brave_html_parse.ts").then((m) => m.parseBraveHtml),
};

/**
 * Brave's HTML page as a provider (keyless, on by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { braveHtmlProvider } from "./brave_html.ts";
 * console.assert(braveHtmlProvider.isConfigured(parseConfig({})));
 * console.assert(braveHtmlProvider.tools[0].name === "brave_html_search");
 * ```
 */
export const braveHtmlProvider: Provider = scrapedProvider(BRAVE_HTML_ENGINE);
