/**
 * Wikipedia as a keyless web engine: the full-text search of the MediaWiki
 * Action API (https://www.mediawiki.org/wiki/API:Search):
 * `GET <wiki>/w/api.php?action=query&list=search&srsearch=…&srlimit=…&format=json&formatversion=2`,
 * answered with `query.search[]` (`title`, `pageid`, `snippet` with
 * `<span class="searchmatch">` highlights, `wordcount`, `timestamp` of the
 * last edit). The wiki is `https://<language>.wikipedia.org` for the search's
 * language (else `search.region`'s, else English), or
 * `search.providers.wikipedia.base_url`; article links are
 * `<wiki>/wiki/<Title_with_underscores>`. The `ddgs` library asks Wikipedia
 * too (`ddgs/engines/wikipedia.py`, through `action=opensearch`, one title);
 * the search API gives several articles with a snippet in one call.
 *
 * Failures: an API error in the body (https://www.mediawiki.org/wiki/API:Errors_and_warnings)
 * `ratelimited` is `rate_limited`, `maxlag` and `readonly` are
 * `provider_unavailable` (with `Retry-After`, https://www.mediawiki.org/wiki/Manual:Maxlag_parameter),
 * any other code an unusable answer; HTTP statuses are classified by
 * `../../net/classify.ts`. Articles have no publication date (the timestamp
 * is the last edit, kept in `provider_data.last_edited`), so a search with a
 * time range leaves Wikipedia out. CirrusSearch takes at most 300 characters
 * (`$wgCirrusSearchMaxFullTextQueryLength`): a longer query is cut at a word
 * boundary and the answer says so. Pace: two calls a second
 * (https://www.mediawiki.org/wiki/API:Etiquette asks for requests in series).
 *
 * @module
 */
import { isRecord, records, str } from "../../net/json_call.ts";
import { parseRetryAfter, providerFailure } from "../../net/classify.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import { fetchUpstream, safeEndpoint } from "../upstream.ts";
import { boundedData, fitQuery, plainText } from "./http.ts";
import { keylessProvider, keylessSettings } from "./keyless.ts";
import { searchLocale } from "./scraped.ts";
import type {
  Provider,
  ProviderEnv,
  ProviderHit,
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";

/** The settings it reads: its `search.providers` entry, region. */
type WikipediaSlice = ProviderSlice<"region">;

/** The provider name. */
const WIKIPEDIA = "wikipedia";

/** Longest query CirrusSearch accepts (characters). */
const MAX_QUERY_CHARS = 300;

/** Most results one `list=search` call returns (`srlimit`'s maximum for most clients). */
const MAX_LIMIT = 50;

/**
 * The wiki a search asks: `search.providers.wikipedia.base_url`, else
 * `https://<language>.wikipedia.org`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { wikipediaBase } from "./wikipedia.ts";
 * console.assert(wikipediaBase({ query: "q", max_results: 3, language: "de-AT" }, parseConfig({})) === "https://de.wikipedia.org");
 * ```
 *
 * @internal exported for tests only
 */
export function wikipediaBase(req: ProviderSearchRequest, config: WikipediaSlice): string {
  const configured = keylessSettings(config, WIKIPEDIA).baseUrl;
  if (configured) return configured;
  return `https://${searchLocale(req, config).language ?? "en"}.wikipedia.org`;
}

/**
 * An article's address as MediaWiki writes it: spaces as underscores, and
 * the characters its `wfUrlencode` keeps (`:/(),;@$!*~`) left as they are.
 *
 * @example
 * ```ts
 * import { articleUrl } from "./wikipedia.ts";
 * console.assert(articleUrl("https://en.wikipedia.org", "AC/DC (band)") === "https://en.wikipedia.org/wiki/AC/DC_(band)");
 * console.assert(articleUrl("https://en.wikipedia.org", "C++") === "https://en.wikipedia.org/wiki/C%2B%2B");
 * ```
 *
 * @internal exported for tests only
 */
export function articleUrl(base: string, title: string): string {
  const path = encodeURIComponent(title.replaceAll(" ", "_"))
    .replace(/%(3B|40|24|21|2A|28|29|2C|2F|7E|3A)/gi, (escaped) => decodeURIComponent(escaped));
  return `${base}/wiki/${path}`;
}

/** The API error codes that mean Wikipedia is busy, not that the request is wrong. */
const BUSY_CODES: ReadonlySet<string> = new Set(["maxlag", "readonly"]);

/**
 * One Wikipedia search. Zero results resolve to `[]`; every failure throws a
 * {@link SearchFailure}.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createFetcher } from "../../net/fetch.ts";
 * import { searchWikipedia } from "./wikipedia.ts";
 * const config = parseConfig();
 * const hits = await searchWikipedia({ query: "write-ahead log", max_results: 5 }, {
 *   config, fetcher: createFetcher(config.network),
 * });
 * ```
 *
 * @internal exported for tests only
 */
export async function searchWikipedia(
  req: ProviderSearchRequest,
  env: ProviderEnv<WikipediaSlice>,
): Promise<ProviderHit[]> {
  const base = wikipediaBase(req, env.config);
  const fitted = fitQuery(req.query, {
    provider: WIKIPEDIA,
    maxChars: MAX_QUERY_CHARS,
    keep: req.site_hint,
  });
  if (fitted.notice) env.notice?.(fitted.notice);
  const url = new URL(`${base}/w/api.php`);
  url.searchParams.set("action", "query");
  url.searchParams.set("list", "search");
  url.searchParams.set("srsearch", fitted.query);
  url.searchParams.set("srlimit", String(Math.min(req.max_results, MAX_LIMIT)));
  url.searchParams.set("srprop", "snippet|timestamp|wordcount");
  url.searchParams.set("format", "json");
  url.searchParams.set("formatversion", "2");
  const setting = `search.providers.${WIKIPEDIA}.base_url`;
  const res = await fetchUpstream(env.fetcher, WIKIPEDIA, url, {
    method: "GET",
    headers: { Accept: "application/json" },
    signal: env.signal,
    timeoutMs: keylessSettings(env.config, WIKIPEDIA).timeoutMs,
  }, setting);
  const evidence = { status: res.status, headers: res.headers };
  if (res.status < 200 || res.status > 299) {
    let body = "";
    try {
      body = res.text();
    } catch {
      // An undecodable body is no evidence.
    }
    throw providerFailure(WIKIPEDIA, url, { ...evidence, body }, setting);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(res.text());
  } catch (error) {
    throw providerFailure(WIKIPEDIA, url, { ...evidence, unreadable: true, error }, setting);
  }
  if (!isRecord(answer)) {
    throw providerFailure(WIKIPEDIA, url, { ...evidence, unreadable: true }, setting);
  }
  const where = `${WIKIPEDIA} ${safeEndpoint(url)}`;
  if (isRecord(answer.error)) {
    const code = str(answer.error.code);
    const retry = parseRetryAfter(res.headers.get("retry-after"));
    const details = {
      status: res.status,
      upstream_code: code,
      ...(retry !== undefined ? { retry_after_s: retry } : {}),
    };
    if (code === "ratelimited") {
      throw new SearchFailure("rate_limited", `${where} is rate limiting (ratelimited)`, {
        backend: WIKIPEDIA,
        details,
      });
    }
    throw new SearchFailure(
      BUSY_CODES.has(code) ? "unavailable" : "invalid",
      `${where} answered the API error ${code || "(no code)"}`,
      { backend: WIKIPEDIA, details },
    );
  }
  if (!isRecord(answer.query) || !Array.isArray(answer.query.search)) {
    throw providerFailure(WIKIPEDIA, url, { ...evidence, unreadable: true }, setting);
  }
  const hits: ProviderHit[] = [];
  for (const article of records(answer.query.search)) {
    const title = str(article.title).trim();
    if (!title) continue;
    const data = boundedData({
      pageid: article.pageid,
      wordcount: article.wordcount,
      last_edited: article.timestamp,
    });
    hits.push({
      title,
      url: articleUrl(base, title),
      snippet: plainText(article.snippet),
      source: WIKIPEDIA,
      ...(data ? { provider_data: data } : {}),
    });
  }
  return hits.slice(0, req.max_results);
}

/**
 * Wikipedia as a provider (keyless, on by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { wikipediaProvider } from "./wikipedia.ts";
 * console.assert(wikipediaProvider.isConfigured(parseConfig({})) && wikipediaProvider.keylessEngine);
 * ```
 */
export const wikipediaProvider: Provider = keylessProvider({
  name: WIKIPEDIA,
  title: "Wikipedia",
  configHint: `search.providers.${WIKIPEDIA}.enabled`,
  configured: () => true,
  settings: ["region"],
  search: searchWikipedia,
  engine: true,
  timeRanges: [],
  defaultRequestsPerSecond: 2,
});
