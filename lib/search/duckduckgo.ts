/**
 * DuckDuckGo without a key: the HTML page (`html.duckduckgo.com/html/`), with
 * the lite page as fallback. Result links are unwrapped from DuckDuckGo's
 * `/l/?uddg=` redirect, ads are dropped, and the bot challenge is reported as
 * `blocked` rather than as zero results.
 *
 * @module
 */
import type { Config } from "../config/config.ts";
import { getGleanerLogger } from "../log.ts";
import type { Fetcher } from "../net/types.ts";
import {
  type SearchBackend,
  SearchFailure,
  type SearchHit,
  type SearchRequest,
  type TimeRange,
} from "./types.ts";
import { fetchUpstream, safeEndpoint } from "./upstream.ts";
import { DUCKDUCKGO } from "./duckduckgo_page.ts";

export { DUCKDUCKGO, type DuckDuckGoPage, unwrapDuckDuckGoUrl } from "./duckduckgo_page.ts";

const log = getGleanerLogger("search", "duckduckgo");

/** DuckDuckGo's `df` value for each time range. */
export const DUCKDUCKGO_TIME_RANGE: Readonly<Record<TimeRange, string>> = {
  day: "d",
  week: "w",
  month: "m",
  year: "y",
};

/** Country DuckDuckGo pairs with a bare language code in `kl` (`<country>-<lang>`). */
const LANGUAGE_COUNTRY: Readonly<Record<string, string>> = {
  en: "us",
  de: "de",
  fr: "fr",
  es: "es",
  it: "it",
  pt: "pt",
  nl: "nl",
  ru: "ru",
  pl: "pl",
  sv: "se",
  da: "dk",
  fi: "fi",
  no: "no",
  nb: "no",
  cs: "cz",
  el: "gr",
  hu: "hu",
  ro: "ro",
  sk: "sk",
  tr: "tr",
  uk: "ua",
  he: "il",
  ar: "xa",
  ja: "jp",
  ko: "kr",
  zh: "cn",
  id: "id",
  vi: "vn",
  th: "th",
};

/** DuckDuckGo's spelling of some countries and languages in `kl`. */
const KL_COUNTRY: Readonly<Record<string, string>> = { gb: "uk" };
const KL_LANGUAGE: Readonly<Record<string, string>> = { ja: "jp", ko: "kr", nb: "no" };

/**
 * The DuckDuckGo region (`kl`) for a language: `de` → `de-de`, `en-GB` →
 * `uk-en`, `pt-BR` → `br-pt`; `all` → `wt-wt` (no region); no language → the
 * configured default.
 *
 * @example
 * ```ts
 * import { duckduckgoRegion } from "./duckduckgo.ts";
 * console.assert(duckduckgoRegion("en-GB", "us-en") === "uk-en");
 * console.assert(duckduckgoRegion(undefined, "us-en") === "us-en");
 * ```
 */
export function duckduckgoRegion(language: string | undefined, fallback: string): string {
  if (!language || !language.trim()) return fallback;
  const code = language.trim().toLowerCase().replace("_", "-");
  if (code === "all" || code === "auto") return "wt-wt";
  const [lang, country] = code.split("-");
  const klLang = KL_LANGUAGE[lang] ?? lang;
  if (country && /^[a-z]{2}$/.test(country)) return `${KL_COUNTRY[country] ?? country}-${klLang}`;
  const defaultCountry = LANGUAGE_COUNTRY[lang];
  return defaultCountry ? `${defaultCountry}-${klLang}` : fallback;
}

/** Settings the DuckDuckGo backend reads. */
export type DuckDuckGoSettings = Pick<
  Config["search"],
  "duckduckgo_html_url" | "duckduckgo_lite_url" | "region" | "timeout_ms"
>;

/**
 * Creates the DuckDuckGo backend: POSTs the HTML form (`q`, `b`, `kl`, `df`),
 * falls back to the lite page when the HTML page fails (except on 429).
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createFetcher } from "../net/fetch.ts";
 * import { createDuckDuckGoBackend } from "./duckduckgo.ts";
 * const config = parseConfig();
 * const ddg = createDuckDuckGoBackend(config.search);
 * const hits = await ddg.search({ query: "deno permissions", max_results: 5 }, createFetcher(config.network));
 * ```
 */
export function createDuckDuckGoBackend(settings: DuckDuckGoSettings): SearchBackend {
  const pages = [
    { kind: "html" as const, url: settings.duckduckgo_html_url },
    { kind: "lite" as const, url: settings.duckduckgo_lite_url },
  ];

  async function askPage(
    page: typeof pages[number],
    req: SearchRequest,
    fetcher: Fetcher,
  ): Promise<SearchHit[]> {
    const form = new URLSearchParams({
      q: req.query,
      b: "",
      kl: duckduckgoRegion(req.language, settings.region),
      df: req.time_range ? DUCKDUCKGO_TIME_RANGE[req.time_range] : "",
    });
    const headers: Record<string, string> = {
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
      Referer: page.url,
    };
    if (req.language) headers["Accept-Language"] = req.language;
    const where = `${DUCKDUCKGO} ${page.kind} page ${safeEndpoint(page.url)}`;
    const res = await fetchUpstream(fetcher, DUCKDUCKGO, page.url, {
      method: "POST",
      body: form,
      headers,
      signal: req.signal,
      timeoutMs: settings.timeout_ms,
    }, `search.duckduckgo_${page.kind}_url`);
    const details = { status: res.status, page: page.kind };
    if (res.status === 429) {
      throw new SearchFailure("rate_limited", `${where} answered 429 (rate limited)`, {
        backend: DUCKDUCKGO,
        details,
      });
    }
    if (res.status === 202 || res.status === 403) {
      throw new SearchFailure(
        "blocked",
        `${where} answered ${res.status} with its bot challenge (blocked, not zero results)`,
        { backend: DUCKDUCKGO, details },
      );
    }
    if (res.status < 200 || res.status > 299) {
      throw new SearchFailure("unavailable", `${where} answered HTTP ${res.status}`, {
        backend: DUCKDUCKGO,
        details,
      });
    }
    // The HTML parser loads with the first answer, not with the server.
    const { parseDuckDuckGoHtml, parseDuckDuckGoLite } = await import("./duckduckgo_parse.ts");
    const html = res.text();
    const parsed = page.kind === "html" ? parseDuckDuckGoHtml(html) : parseDuckDuckGoLite(html);
    switch (parsed.kind) {
      case "results":
        return parsed.hits;
      case "empty":
        return [];
      case "blocked":
        throw new SearchFailure(
          "blocked",
          `${where} answered with its bot challenge (blocked, not zero results)`,
          { backend: DUCKDUCKGO, details },
        );
      case "unrecognised":
        throw new SearchFailure("invalid", `${where} answered a page whose layout is unknown`, {
          backend: DUCKDUCKGO,
          details,
        });
    }
  }

  return {
    name: DUCKDUCKGO,
    async search(req: SearchRequest, fetcher: Fetcher): Promise<SearchHit[]> {
      let first: SearchFailure;
      try {
        return await askPage(pages[0], req, fetcher);
      } catch (error) {
        if (!(error instanceof SearchFailure)) throw error;
        if (error.outcome === "rate_limited" || req.signal?.aborted) throw error;
        first = error;
      }
      log.info("HTML page failed ({outcome}); trying the lite page", { outcome: first.outcome });
      try {
        return await askPage(pages[1], req, fetcher);
      } catch (error) {
        if (!(error instanceof SearchFailure)) throw error;
        const both = [first, error];
        throw both.find((e) => e.outcome === "blocked") ??
          both.find((e) => e.outcome === "rate_limited") ?? error;
      }
    },
  };
}
