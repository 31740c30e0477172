/**
 * Keenable: web search and page fetch, keyless by default. Without a key the
 * public endpoints are used (`POST <base>/v1/search/public`,
 * `GET <base>/v1/fetch/public?url=`, with the `X-Keenable-Title` header
 * naming the client); with one (`X-API-Key: <key>`) the keyed endpoints
 * `POST <base>/v1/search` and `GET <base>/v1/fetch?url=`.
 *
 * Keyless use is limited to 1,000 requests an hour and at most 10 a second;
 * a key removes the hourly limit (https://docs.keenable.ai/authentication).
 * The router holds every request to that: at most 10 a second, and keyless
 * at most 1,000 in any hour — past it, Keenable is not asked (a local
 * `rate_limited`) until the hour frees a slot, and the next provider answers.
 * `search.providers.keenable.requests_per_second` replaces both.
 *
 * A page Keenable has not indexed answers 404 on fetch (422 when it could not
 * extract it); it is asked once more with `live=true` (fetched from the
 * origin), and a second miss is `not_found`, which lets the router ask the
 * next contents provider.
 *
 * Search request body (Keenable's own SDK,
 * https://github.com/keenableai/keenable-sdk `typescript/src/filters.ts`):
 * `query`; `site` (one domain) for a single `domains` entry; `published_after`
 * (`YYYY-MM-DD`, today minus 1, 7, 31 or 366 days) for `time_range`. What it
 * has no parameter for is not sent and the answer's `notices` say so: more
 * than one domain and `exclude_domains` (the router still keeps only the hits
 * inside the domains, so fewer may come back), `language`, `topic: "news"`.
 * Fields read: search `results[]` with `title`, `url`, `snippet` (else
 * `description`), `published_at`; fetch `url`, `title`, `content`,
 * `description`, `author`, `published_at`.
 *
 * @module
 */
import { z } from "zod";
import type { RateLimit } from "../../async/rate_gate.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import { timeRangeStart } from "../time_range.ts";
import { toIsoDate } from "../upstream.ts";
import { boundedData, isWebUrl, plainText, providerSettings } from "./http.ts";
import { callJson, hasArray, isRecord, records, str } from "../../net/json_call.ts";
import type {
  ContentsRequest,
  Provider,
  ProviderContents,
  ProviderEnv,
  ProviderHit,
  ProviderPage,
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";
import { loadPages } from "./pages_lazy.ts";
import { defineProvider, providerKey } from "./define.ts";

/** The settings it reads (`define.ts`): its `search.providers` entry and `search.timeout_ms`. */
type Slice = ProviderSlice;

/** The provider's name. */
const KEENABLE = "keenable";

/** The client name sent to the keyless endpoints. */
const CLIENT_TITLE = "Gleaner";

/**
 * Keenable's documented rate (https://docs.keenable.ai/authentication): at most
 * 10 requests a second; keyless, also at most 1,000 an hour.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { keenableProvider } from "./keenable.ts";
 * console.assert(keenableProvider.rateLimit?.(parseConfig({}))?.budget?.count === 1000);
 * console.assert(keenableProvider.rateLimit?.(parseConfig({ search: { keenable_api_key: "k" } }))?.budget === undefined);
 * ```
 */
function keenableRateLimit(config: Slice): RateLimit {
  return providerKey(config, KEENABLE)
    ? { perSecond: 10 }
    : { perSecond: 10, budget: { count: 1_000, ms: 3_600_000 } };
}

function settings(config: Slice) {
  return providerSettings(config, KEENABLE, {
    baseUrl: "https://api.keenable.ai",
    maxResults: 20,
  });
}

function access(config: Slice): { suffix: string; headers: Record<string, string> } {
  const key = providerKey(config, KEENABLE);
  return key
    ? { suffix: "", headers: { "X-API-Key": key } }
    : { suffix: "/public", headers: { "X-Keenable-Title": CLIENT_TITLE } };
}

async function keenableSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  const { suffix, headers } = access(env.config);
  const json: Record<string, unknown> = { query: req.query };
  const unsent: string[] = [];
  const domains = req.domains ?? [];
  if (domains.length === 1) json.site = domains[0];
  else if (domains.length > 1) unsent.push(`${domains.length} domains (it filters one site)`);
  if (req.exclude_domains?.length) unsent.push("exclude_domains");
  if (req.time_range) json.published_after = timeRangeStart(req.time_range);
  if (req.language) unsent.push(`language ${JSON.stringify(req.language.slice(0, 20))}`);
  if (req.topic === "news") unsent.push('topic "news"');
  if (unsent.length > 0) {
    env.notice?.(
      `${KEENABLE}: ${unsent.join(", ")} not sent: Keenable's search has no such parameter${
        domains.length > 1 || req.exclude_domains?.length
          ? " (hits outside the domains are dropped, so fewer may come back)"
          : ""
      }`,
    );
  }
  const body = await callJson(env, {
    provider: KEENABLE,
    url: `${s.baseUrl}/v1/search${suffix}`,
    method: "POST",
    headers,
    json,
    timeoutMs: s.timeoutMs,
  }, hasArray("results"));
  const hits: ProviderHit[] = [];
  for (const r of records(body.results)) {
    if (!isWebUrl(r.url)) continue;
    const published = toIsoDate(r.published_at);
    hits.push({
      title: plainText(r.title) || str(r.url),
      url: str(r.url).trim(),
      snippet: plainText(r.snippet) || plainText(r.description),
      ...(published ? { published } : {}),
      source: KEENABLE,
    });
  }
  return hits.slice(0, Math.min(req.max_results, s.maxResults));
}

async function keenableFetch(url: string, env: ProviderEnv<Slice>): Promise<ProviderPage> {
  const s = settings(env.config);
  const { suffix, headers } = access(env.config);
  const fetchOnce = (live: boolean) => {
    const target = new URL(`${s.baseUrl}/v1/fetch${suffix}`);
    target.searchParams.set("url", url);
    if (live) target.searchParams.set("live", "true");
    return callJson(
      env,
      { provider: KEENABLE, url: target, headers, timeoutMs: s.timeoutMs },
      isRecord,
    );
  };
  // Keenable answers 404 for a page it has not indexed and 422 for one it could
  // not extract; the documented next step is one live fetch (`live=true`).
  const missing = (error: unknown) =>
    error instanceof SearchFailure && (error.details?.status === 404 ||
      error.details?.status === 422);
  let body: Record<string, unknown>;
  try {
    body = await fetchOnce(false);
  } catch (error) {
    if (!missing(error)) throw error;
    try {
      body = await fetchOnce(true);
    } catch (again) {
      if (!missing(again)) throw again;
      // The page, not the request nor the account: the next contents provider may have it.
      throw new SearchFailure(
        "unavailable",
        `${KEENABLE}: ${url} is not in its index and could not be fetched live`,
        {
          backend: KEENABLE,
          code: "not_found",
          details: { provider: KEENABLE, status: (again as SearchFailure).details?.status },
        },
      );
    }
  }
  const content = str(body.content);
  (await loadPages()).requireContent(KEENABLE, url, content);
  const published = toIsoDate(body.published_at);
  return {
    url,
    title: plainText(body.title),
    content,
    ...(published ? { published } : {}),
    provider_data: boundedData({ description: body.description, author: body.author }),
  };
}

async function keenableContents(
  req: ContentsRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderContents> {
  const { readEach } = await loadPages();
  const read = await readEach(req.urls, env.config, (url) => keenableFetch(url, env));
  // How many pages failed, as TinySearch's keenable_fetch reports it.
  const failed_count = read.pages.filter((page) => page.error).length;
  return { ...read, provider_data: { failed_count } };
}

const KeenableSearchInput = z.strictObject({
  query: z.string().min(1).max(400).describe("What to search for"),
  max_results: z.number().int().min(1).max(20).default(10).describe("Results (1-20)"),
});

const KeenableFetchInput = z.strictObject({
  urls: z.array(z.string().url()).min(1).max(10).describe("One to ten URLs"),
});

/**
 * The Keenable provider: enabled by `search.providers.keenable.api_key` (env
 * `KEENABLE_API_KEY`) or, keyless, by `search.providers.keenable.enabled`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { keenableProvider } from "./keenable.ts";
 * console.assert(!keenableProvider.isConfigured(parseConfig({})));
 * console.assert(keenableProvider.isConfigured(parseConfig({ search: { providers: { keenable: { enabled: true } } } })));
 * ```
 */
export const keenableProvider: Provider = defineProvider({
  settings: { search: [] },
  name: KEENABLE,
  scope: "shared",
  title: "Keenable",
  roles: ["search", "contents"],
  nativeDomains: true,
  configHint: "search.providers.keenable.api_key or search.providers.keenable.enabled",
  isConfigured: (config) => {
    const enabled = settings(config).enabled;
    return enabled === true || (Boolean(providerKey(config, KEENABLE)) && enabled !== false);
  },
  search: keenableSearch,
  contents: keenableContents,
  rateLimit: keenableRateLimit,
  tools: [
    {
      name: "keenable_search",
      title: "Keenable search",
      description: "Searches the web with Keenable: titles, URLs, snippets and dates.",
      kind: "search",
      input: KeenableSearchInput,
      run: async (input: z.output<typeof KeenableSearchInput>, env: ProviderEnv<Slice>) => ({
        results: await keenableSearch(input, env),
      }),
    },
    {
      name: "keenable_fetch",
      title: "Keenable fetch",
      description: "Reads one to ten pages as Markdown with Keenable.",
      kind: "contents",
      input: KeenableFetchInput,
      run: (input: z.output<typeof KeenableFetchInput>, env: ProviderEnv<Slice>) =>
        keenableContents(input, env),
    },
  ],
});
