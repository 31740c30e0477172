/**
 * DuckDuckGo's search call, for the keyless provider in
 * `providers/duckduckgo.ts`: the HTML page (`html.duckduckgo.com/html/`), with
 * the lite page as fallback. Result links are unwrapped from DuckDuckGo's
 * `/l/?uddg=` redirect (`duckduckgo_page.ts`), ads are dropped, and the bot
 * challenge is reported as `blocked` rather than as zero results; the pages
 * are parsed by `duckduckgo_parse.ts`. Every other failure is classified by
 * `../../net/classify.ts`, as for every provider.
 *
 * @module
 */
import { getGleanerLogger } from "../../log.ts";
import { responseFailure } from "../../net/classify.ts";
import { keylessSettings } from "./keyless.ts";
import type { ProviderEnv, ProviderHit, ProviderSearchRequest, ProviderSlice } from "./types.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import type { TimeRange } from "../time_range.ts";
import { fetchUpstream, safeEndpoint } from "../upstream.ts";
import { DUCKDUCKGO } from "./duckduckgo_page.ts";

/** The settings it reads: its `search.providers` entry, duckduckgo_html_url, duckduckgo_lite_url, region. */
type DuckDuckGoSlice = ProviderSlice<"duckduckgo_html_url" | "duckduckgo_lite_url" | "region">;

export { DUCKDUCKGO, type DuckDuckGoPage, unwrapDuckDuckGoUrl } from "./duckduckgo_page.ts";

const log = getGleanerLogger("search", "duckduckgo");

/** DuckDuckGo's `df` value for each time range. */
const DUCKDUCKGO_TIME_RANGE: Readonly<Record<TimeRange, string>> = {
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
 * import { duckduckgoRegion } from "./duckduckgo_call.ts";
 * console.assert(duckduckgoRegion("en-GB", "us-en") === "uk-en");
 * console.assert(duckduckgoRegion(undefined, "us-en") === "us-en");
 * ```
 *
 * @internal exported for tests only
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

/** The two pages DuckDuckGo is asked on, in order. */
interface DuckDuckGoPages {
  /** `search.duckduckgo_html_url`, or `<search.providers.duckduckgo.base_url>/html/`. */
  html: string;
  /** `search.duckduckgo_lite_url`, or `<search.providers.duckduckgo.base_url>/lite/`. */
  lite: string;
}

/**
 * The HTML and lite page URLs a configuration names:
 * `search.providers.duckduckgo.base_url` stands for both (`<base>/html/` and
 * `<base>/lite/`), else `search.duckduckgo_html_url` and `search.duckduckgo_lite_url`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { duckduckgoPages } from "./duckduckgo_call.ts";
 * const config = parseConfig({ search: { providers: { duckduckgo: { base_url: "http://127.0.0.1:9" } } } });
 * console.assert(duckduckgoPages(config).lite === "http://127.0.0.1:9/lite/");
 * ```
 *
 * @internal exported for tests only
 */
export function duckduckgoPages(config: DuckDuckGoSlice): DuckDuckGoPages {
  const base = keylessSettings(config, DUCKDUCKGO).baseUrl;
  return base
    ? { html: `${base}/html/`, lite: `${base}/lite/` }
    : { html: config.search.duckduckgo_html_url, lite: config.search.duckduckgo_lite_url };
}

async function askPage(
  kind: keyof DuckDuckGoPages,
  req: ProviderSearchRequest,
  env: ProviderEnv<DuckDuckGoSlice>,
): Promise<ProviderHit[]> {
  const url = duckduckgoPages(env.config)[kind];
  const form = new URLSearchParams({
    q: req.query,
    b: "",
    kl: duckduckgoRegion(req.language, env.config.search.region),
    df: req.time_range ? DUCKDUCKGO_TIME_RANGE[req.time_range] : "",
  });
  const headers: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
    Referer: url,
  };
  if (req.language) headers["Accept-Language"] = req.language;
  const where = `${DUCKDUCKGO} ${kind} page ${safeEndpoint(url)}`;
  const setting = `search.duckduckgo_${kind}_url`;
  const res = await fetchUpstream(env.fetcher, DUCKDUCKGO, url, {
    method: "POST",
    body: form,
    headers,
    signal: env.signal,
    timeoutMs: keylessSettings(env.config, DUCKDUCKGO).timeoutMs,
  }, setting);
  const details = { status: res.status, page: kind };
  // DuckDuckGo's own meaning of these statuses: its bot challenge ("anomaly" page).
  if (res.status === 202 || res.status === 403) {
    throw new SearchFailure(
      "blocked",
      `${where} answered ${res.status} with its bot challenge (blocked, not zero results)`,
      { backend: DUCKDUCKGO, details },
    );
  }
  if (res.status < 200 || res.status > 299) {
    throw responseFailure(DUCKDUCKGO, url, res, setting);
  }
  // The HTML parser loads with the first answer, not with the server.
  const { parseDuckDuckGoHtml, parseDuckDuckGoLite } = await import("./duckduckgo_parse.ts");
  const html = res.text();
  const parsed = kind === "html" ? parseDuckDuckGoHtml(html) : parseDuckDuckGoLite(html);
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

/**
 * One DuckDuckGo search: POSTs the HTML form (`q`, `b`, `kl`, `df`), and asks
 * the lite page when the HTML page fails (except on 429). Zero results
 * resolve to `[]`; every failure throws a {@link SearchFailure}.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createFetcher } from "../../net/fetch.ts";
 * import { searchDuckDuckGo } from "./duckduckgo_call.ts";
 * const config = parseConfig();
 * const hits = await searchDuckDuckGo(
 *   { query: "deno permissions", max_results: 5 },
 *   { config, fetcher: createFetcher(config.network) },
 * );
 * ```
 */
export async function searchDuckDuckGo(
  req: ProviderSearchRequest,
  env: ProviderEnv<DuckDuckGoSlice>,
): Promise<ProviderHit[]> {
  let first: SearchFailure;
  try {
    return await askPage("html", req, env);
  } catch (error) {
    if (!(error instanceof SearchFailure)) throw error;
    if (error.outcome === "rate_limited" || env.signal?.aborted) throw error;
    first = error;
  }
  log.info("HTML page failed ({outcome}); trying the lite page", { outcome: first.outcome });
  try {
    return await askPage("lite", req, env);
  } catch (error) {
    if (!(error instanceof SearchFailure)) throw error;
    const both = [first, error];
    throw both.find((e) => e.outcome === "blocked") ??
      both.find((e) => e.outcome === "rate_limited") ?? error;
  }
}
