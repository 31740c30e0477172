/**
 * SearXNG's search call, for the keyless provider in `providers/searxng.ts`:
 * `GET <searxng_url>/search?format=json`
 * (https://docs.searxng.org/dev/search_api.html). The instance must list
 * `json` under `search.formats` in its settings.yml; a 403 says it does not,
 * and the error names that setting. Every other failure is classified by
 * `../../net/classify.ts`, as for every provider.
 *
 * @module
 */
import { z } from "zod";
import type { SearchSection } from "../../config/sections.ts";
import { getGleanerLogger } from "../../log.ts";
import { providerFailure, responseFailure } from "../../net/classify.ts";
import { keylessSettings } from "./keyless.ts";
import type { ProviderEnv, ProviderHit, ProviderSearchRequest, ProviderSlice } from "./types.ts";
import type { SearchHit } from "../types.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import { cleanText, fetchUpstream, safeEndpoint, toIsoDate } from "../upstream.ts";

/** The settings it reads: its `search.providers` entry, searxng_url, searxng_categories, searxng_engines, safesearch. */
type SearxngSlice = ProviderSlice<
  "searxng_url" | "searxng_categories" | "searxng_engines" | "safesearch"
>;

const log = getGleanerLogger("search", "searxng");

/** The backend name SearXNG reports under. */
export const SEARXNG = "searxng";

/** Pages of SearXNG results fetched at most for one search (enough for {@link SEARXNG_MAX_RESULTS}). */
const MAX_PAGES = 5;

/** Most results one SearXNG search returns unless `search.providers.searxng.max_results` says otherwise. */
export const SEARXNG_MAX_RESULTS = 50;

/** One result of SearXNG's JSON answer (fields Gleaner reads; others pass through). */
export interface SearxngResult {
  /** Target URL. */
  url?: string | null;
  /** Title. */
  title?: string | null;
  /** Snippet. */
  content?: string | null;
  /** Publication date, when the engine knows it. */
  publishedDate?: string | null;
  /** The engine that ranked it first. */
  engine?: string | null;
  /** Every engine that found it. */
  engines?: string[] | null;
  /** SearXNG's merged score. */
  score?: number | null;
  /** Fields Gleaner does not read. */
  [field: string]: unknown;
}

/** SearXNG's JSON answer, as far as Gleaner reads it. */
export interface SearxngResponse {
  /** The query as SearXNG understood it. */
  query?: string;
  /** SearXNG's estimate of the total. */
  number_of_results?: number;
  /** The results of this page. */
  results: SearxngResult[];
  /** `[engine, reason]` pairs of engines that failed. */
  unresponsive_engines: unknown[][];
  /** Fields Gleaner does not read. */
  [field: string]: unknown;
}

/** Validates a SearXNG JSON answer (lenient: unknown fields pass through). */
const SearxngResponseSchema: z.ZodType<SearxngResponse> = z.object({
  query: z.string().optional(),
  number_of_results: z.number().optional(),
  results: z.array(
    z.object({
      url: z.string().nullish(),
      title: z.string().nullish(),
      content: z.string().nullish(),
      publishedDate: z.string().nullish(),
      engine: z.string().nullish(),
      engines: z.array(z.string()).nullish(),
      score: z.number().nullish(),
    }).passthrough(),
  ),
  unresponsive_engines: z.array(z.array(z.unknown())).optional().default([]),
}).passthrough() as unknown as z.ZodType<SearxngResponse>;

/**
 * Parses and validates a SearXNG JSON body; throws on anything else.
 *
 * @example
 * ```ts
 * import { parseSearxngJson } from "./searxng_call.ts";
 * const res = parseSearxngJson('{"results":[{"url":"https://deno.com/","title":"Deno"}]}');
 * console.assert(res.results.length === 1 && res.unresponsive_engines.length === 0);
 * ```
 *
 * @internal exported for tests only
 */
export function parseSearxngJson(text: string): SearxngResponse {
  return SearxngResponseSchema.parse(JSON.parse(text));
}

/** The settings of the SearXNG query string. */
export type SearxngQuerySettings = Pick<
  SearchSection,
  "searxng_categories" | "searxng_engines" | "safesearch"
>;

/**
 * The SearXNG instance a configuration names: `search.providers.searxng.base_url`,
 * else `search.searxng_url`; `undefined` when neither is set.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { searxngUrl } from "./searxng_call.ts";
 * console.assert(searxngUrl(parseConfig({})) === undefined);
 * ```
 */
export function searxngUrl(config: SearxngSlice): string | undefined {
  return config.search.providers[SEARXNG]?.base_url ?? config.search.searxng_url;
}

/**
 * The search URL for one page: `<searxng_url>/search?q=…&format=json&…`.
 *
 * @example
 * ```ts
 * import { searxngSearchUrl } from "./searxng_call.ts";
 * const url = searxngSearchUrl("http://127.0.0.1:8888/searx", { query: "deno", max_results: 5, time_range: "week" }, {
 *   searxng_categories: ["general"], searxng_engines: [], safesearch: 1,
 * }, 1);
 * console.assert(url.pathname === "/searx/search" && url.searchParams.get("time_range") === "week");
 * ```
 *
 * @internal exported for tests only
 */
export function searxngSearchUrl(
  base: string,
  req: Pick<
    ProviderSearchRequest,
    "query" | "language" | "time_range" | "max_results" | "categories" | "engines"
  >,
  settings: SearxngQuerySettings,
  pageno: number,
): URL {
  const root = new URL(base);
  root.search = "";
  root.hash = "";
  if (!root.pathname.endsWith("/")) root.pathname += "/";
  const url = new URL("search", root);
  url.searchParams.set("q", req.query);
  url.searchParams.set("format", "json");
  url.searchParams.set("pageno", String(pageno));
  // The call's own categories and engines win over the configured ones.
  const categories = req.categories?.length ? req.categories : settings.searxng_categories;
  const engines = req.engines?.length ? req.engines : settings.searxng_engines;
  if (categories.length > 0) url.searchParams.set("categories", categories.join(","));
  if (engines.length > 0) url.searchParams.set("engines", engines.join(","));
  if (req.language) url.searchParams.set("language", req.language);
  if (req.time_range) url.searchParams.set("time_range", req.time_range);
  url.searchParams.set("safesearch", String(settings.safesearch));
  return url;
}

/**
 * Turns SearXNG results into hits: http(s) URLs only, plain-text snippets,
 * ISO publication dates.
 */
function searxngHits(response: SearxngResponse): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const result of response.results) {
    const url = result.url?.trim();
    if (!url || !/^https?:\/\//i.test(url)) continue;
    const published = toIsoDate(result.publishedDate);
    hits.push({
      title: cleanText(result.title) || url,
      url,
      snippet: cleanText(result.content),
      ...(published ? { published } : {}),
      source: SEARXNG,
    });
  }
  return hits;
}

async function askPage(
  req: ProviderSearchRequest,
  env: ProviderEnv<SearxngSlice>,
  pageno: number,
): Promise<{ hits: SearchHit[]; unresponsive: string[] }> {
  const base = searxngUrl(env.config);
  if (!base) {
    throw new SearchFailure("invalid", "searxng: search.searxng_url is not set", {
      backend: SEARXNG,
      code: "invalid_arguments",
      details: { field: "search.searxng_url" },
    });
  }
  // The provider's own language when the search names none.
  const language = req.language ?? env.config.search.providers[SEARXNG]?.default_language;
  const url = searxngSearchUrl(base, { ...req, language }, env.config.search, pageno);
  const where = `${SEARXNG} ${safeEndpoint(url)}`;
  const setting = "search.searxng_url";
  const res = await fetchUpstream(env.fetcher, SEARXNG, url, {
    method: "GET",
    headers: { Accept: "application/json" },
    signal: env.signal,
    timeoutMs: keylessSettings(env.config, SEARXNG).timeoutMs,
  }, setting);
  // SearXNG's own meaning of a 403: the instance does not serve `format=json`.
  if (res.status === 403) {
    throw new SearchFailure(
      "invalid",
      `${where} answered 403: JSON output is disabled on this instance; enable it with ` +
        "`search.formats: json` (next to html) in the instance's settings.yml",
      { backend: SEARXNG, details: { status: res.status, field: setting } },
    );
  }
  if (res.status < 200 || res.status > 299) throw responseFailure(SEARXNG, url, res, setting);
  let parsed: SearxngResponse;
  try {
    parsed = parseSearxngJson(res.text());
  } catch (error) {
    throw providerFailure(SEARXNG, url, { status: res.status, unreadable: true, error }, setting);
  }
  const unresponsive = parsed.unresponsive_engines
    .map((entry) => (typeof entry[0] === "string" ? entry[0] : ""))
    .filter(Boolean);
  return { hits: searxngHits(parsed), unresponsive };
}

/**
 * One SearXNG search: fetches up to three result pages while fewer than
 * `max_results` hits have arrived. Zero results resolve to `[]`; every
 * failure throws a {@link SearchFailure}.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createFetcher } from "../../net/fetch.ts";
 * import { searchSearxng } from "./searxng_call.ts";
 * const config = parseConfig({ search: { searxng_url: "https://searx.example.org" } });
 * const hits = await searchSearxng(
 *   { query: "deno kv", max_results: 10 },
 *   { config, fetcher: createFetcher(config.network) },
 * );
 * ```
 */
export async function searchSearxng(
  req: ProviderSearchRequest,
  env: ProviderEnv<SearxngSlice>,
): Promise<ProviderHit[]> {
  const first = await askPage(req, env, 1);
  if (first.hits.length === 0 && first.unresponsive.length > 0) {
    throw new SearchFailure(
      "unavailable",
      `${SEARXNG}: no results, and these engines failed: ${first.unresponsive.join(", ")}`,
      { backend: SEARXNG, details: { unresponsive_engines: first.unresponsive } },
    );
  }
  if (first.unresponsive.length > 0) {
    log.debug("unresponsive engines: {engines}", { engines: first.unresponsive });
  }
  const hits = [...first.hits];
  const seen = new Set(hits.map((hit) => hit.url));
  for (let pageno = 2; pageno <= MAX_PAGES && hits.length < req.max_results; pageno++) {
    let page: { hits: SearchHit[] };
    try {
      page = await askPage(req, env, pageno);
    } catch (error) {
      log.debug("page {pageno} failed; keeping earlier pages", { pageno, error });
      break;
    }
    const fresh = page.hits.filter((hit) => !seen.has(hit.url));
    if (fresh.length === 0) break;
    for (const hit of fresh) seen.add(hit.url);
    hits.push(...fresh);
  }
  return hits;
}
