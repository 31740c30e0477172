/**
 * Keenable: web search and page fetch, keyless by default. Without a key the
 * public endpoints are used (`POST <base>/v1/search/public`,
 * `GET <base>/v1/fetch/public?url=`, with the `X-Keenable-Title` header
 * naming the client); with one (`X-API-Key: <key>`) the keyed endpoints
 * `POST <base>/v1/search` and `GET <base>/v1/fetch?url=`. Keyless use is
 * limited per IP (10 requests/s), so the provider sends at most 10 calls a
 * second unless `search.providers.keenable.requests_per_second` says otherwise.
 *
 * A page Keenable has not indexed answers 404 on fetch (422 when it could not
 * extract it); it is asked once more with `live=true` (fetched from the
 * origin), and a second miss is `not_found`, which lets the router ask the
 * next contents provider.
 *
 * Request body of search: `{ query }`. Fields read: search `results[]` with
 * `title`, `url`, `snippet` (else `description`), `published_at`; fetch
 * `url`, `title`, `content`, `description`, `author`, `published_at`.
 *
 * @module
 */
import { z } from "zod";
import { type Config, providerApiKey } from "../../config/config.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
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
} from "./types.ts";
import { loadPages } from "./pages_lazy.ts";

/** The provider's name. */
export const KEENABLE = "keenable";

/** The client name sent to the keyless endpoints. */
const CLIENT_TITLE = "Gleaner";

function settings(config: Config) {
  return providerSettings(config, KEENABLE, {
    baseUrl: "https://api.keenable.ai",
    maxResults: 20,
  });
}

function access(config: Config): { suffix: string; headers: Record<string, string> } {
  const key = providerApiKey(config, KEENABLE);
  return key
    ? { suffix: "", headers: { "X-API-Key": key } }
    : { suffix: "/public", headers: { "X-Keenable-Title": CLIENT_TITLE } };
}

async function keenableSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  const { suffix, headers } = access(env.config);
  const body = await callJson(env, {
    provider: KEENABLE,
    url: `${s.baseUrl}/v1/search${suffix}`,
    method: "POST",
    headers,
    json: { query: req.query },
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

async function keenableFetch(url: string, env: ProviderEnv): Promise<ProviderPage> {
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
  env: ProviderEnv,
): Promise<ProviderContents> {
  const { readEach } = await loadPages();
  return readEach(req.urls, env.config, (url) => keenableFetch(url, env));
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
 * import { parseConfig } from "../../config/config.ts";
 * import { keenableProvider } from "./keenable.ts";
 * console.assert(!keenableProvider.isConfigured(parseConfig({})));
 * console.assert(keenableProvider.isConfigured(parseConfig({ search: { providers: { keenable: { enabled: true } } } })));
 * ```
 */
export const keenableProvider: Provider = {
  name: KEENABLE,
  title: "Keenable",
  roles: ["search", "contents"],
  defaultRequestsPerSecond: 10,
  configHint: "search.providers.keenable.api_key or search.providers.keenable.enabled",
  isConfigured: (config) => {
    const enabled = settings(config).enabled;
    return enabled === true || (Boolean(providerApiKey(config, KEENABLE)) && enabled !== false);
  },
  search: keenableSearch,
  contents: keenableContents,
  tools: [
    {
      name: "keenable_search",
      title: "Keenable search",
      description: "Searches the web with Keenable: titles, URLs, snippets and dates.",
      kind: "search",
      input: KeenableSearchInput,
      run: async (input: z.output<typeof KeenableSearchInput>, env: ProviderEnv) => ({
        results: await keenableSearch(input, env),
      }),
    },
    {
      name: "keenable_fetch",
      title: "Keenable fetch",
      description: "Reads one to ten pages as Markdown with Keenable.",
      kind: "contents",
      input: KeenableFetchInput,
      run: (input: z.output<typeof KeenableFetchInput>, env: ProviderEnv) =>
        keenableContents(input, env),
    },
  ],
};
