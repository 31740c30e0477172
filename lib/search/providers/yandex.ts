/**
 * Yandex as a keyless web engine, read from the HTML result page of its site
 * search. The request follows the `ddgs` library's Yandex engine
 * (https://github.com/deedy5/ddgs, `ddgs/engines/yandex.py` at
 * a97a4fcbad658fe488bcd84d42fb32a7ba54b45a): `GET /search/site/?text=…&web=1`
 * with a random seven-digit `searchid`; `lang` for the languages Yandex
 * offers (as SearXNG's Yandex engine sends it). It has no time filter, so a
 * search with a time range leaves Yandex out. Its captcha is the
 * `x-yandex-captcha: captcha` header (SearXNG's `catch_bad_response`) or a
 * redirect to `/showcaptcha`. The parser is `yandex_parse.ts`; failures are
 * decided by `scraped.ts`. Pace: one call a second.
 *
 * @module
 */
import { type ScrapedEngine, scrapedProvider, searchLocale } from "./scraped.ts";
import type { Provider } from "./types.ts";

/** The languages Yandex's site search offers (`lang`). */
const YANDEX_LANGUAGES: ReadonlySet<string> = new Set([
  "ru",
  "en",
  "be",
  "fr",
  "de",
  "id",
  "kk",
  "tt",
  "tr",
  "uk",
]);

/**
 * Yandex's request, captcha sign and parser.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { YANDEX } from "./yandex.ts";
 * const { url } = YANDEX.request("https://yandex.com", { query: "deno", max_results: 5, language: "de" }, parseConfig({}));
 * console.assert(url.pathname === "/search/site/" && url.searchParams.get("lang") === "de");
 * console.assert(/^\d{7}$/.test(url.searchParams.get("searchid")!));
 * ```
 *
 * @internal exported for tests only
 */
export const YANDEX: ScrapedEngine = {
  name: "yandex",
  title: "Yandex",
  defaultBaseUrl: "https://yandex.com",
  timeRanges: [],
  requestsPerSecond: 1,
  request(base, req, config) {
    const url = new URL(`${base}/search/site/`);
    url.searchParams.set("text", req.query);
    url.searchParams.set("web", "1");
    url.searchParams.set("searchid", String(1_000_000 + Math.floor(Math.random() * 9_000_000)));
    const { language } = searchLocale(req, config);
    if (language && YANDEX_LANGUAGES.has(language)) url.searchParams.set("lang", language);
    return { url };
  },
  wall: (res) =>
    res.headers.get("x-yandex-captcha")?.toLowerCase() === "captcha"
      ? "x-yandex-captcha header"
      : undefined,
  parser: () => import("./yandex_parse.ts").then((m) => m.parseYandex),
};

/**
 * Yandex as a provider (keyless, on by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { yandexProvider } from "./yandex.ts";
 * console.assert(yandexProvider.isConfigured(parseConfig({})));
 * ```
 */
export const yandexProvider: Provider = scrapedProvider(YANDEX);
