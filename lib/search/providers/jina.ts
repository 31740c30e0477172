/**
 * Jina: the reader (`GET https://r.jina.ai/<url>`) for contents and search
 * (`GET https://s.jina.ai/?q=<query>`). The key is optional for the reader
 * (`Authorization: Bearer <key>` raises its limits); without a key the
 * provider is used only when enabled (`search.providers.jina.enabled`), and
 * then as a reader only: Jina's search refuses requests without a key
 * (https://jina.ai/api-dashboard/rate-limit lists `s.jina.ai` as blocked
 * without a key; https://github.com/jina-ai/reader `src/api/searcher.ts`
 * answers `AuthenticationRequiredError`), so keyless Jina is never asked to
 * search ({@link Provider.missingSetting}). A `base_url` override serves both:
 * `<base>/<url>` and `<base>/?q=`.
 *
 * Documented limits kept (https://jina.ai/api-dashboard/rate-limit, the "Rate
 * limit" table of https://jina.ai/reader/): the reader takes 20 requests a
 * minute without a key and 500 with one; search 100 a minute with a key. The
 * router paces every request to them (`search.providers.jina.requests_per_second`
 * replaces them, for a premium key's higher limits). The reader averages 7.9 s
 * a page (same table) and waits up to 15 s for a page to load
 * (`src/services/puppeteer.ts`), so a read may take 30 s unless
 * `search.providers.jina.timeout_ms` says otherwise; a search takes
 * `search.timeout_ms`.
 *
 * Requests send `Accept: application/json`; search also sends
 * `X-Respond-With: no-content` (titles, URLs and descriptions only).
 *
 * A reader 422 (the page could not be loaded) is that page's
 * `provider_unavailable`, so the router may ask the next contents provider;
 * so is a 451 (`SecurityCompromiseError`: a domain Jina blocks, for keyless
 * reads, after abuse was found on it), which `lib/net/classify.ts` takes as a
 * refusal of that page that leaves Jina's health untouched.
 *
 * Fields read: reader `data.title`, `data.url`, `data.content`,
 * `data.description`, `data.publishedTime`, `data.usage.tokens`; search
 * `data[]` with `title`, `url`, `description`, `date`.
 *
 * @module
 */
import { z } from "zod";
import type { RateLimit } from "../../async/rate_gate.ts";
import { GleanerError } from "../../errors.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import { toIsoDate } from "../upstream.ts";
import { boundedData, isWebUrl, plainText, providerSettings } from "./http.ts";
import { callJson, isRecord, records, str } from "../../net/json_call.ts";
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
const JINA = "jina";

/** Default timeout of one reader request (ms): the reader's 15 s page load and its conversion. */
const JINA_READ_TIMEOUT_MS = 30_000;

/** The setting Jina's search needs. */
const KEY_SETTING = "search.providers.jina.api_key";

/** Reader requests a minute without a key and with one (https://jina.ai/api-dashboard/rate-limit). */
const READER_RPM = { keyless: 20, keyed: 500 } as const;

function settings(config: Slice) {
  return providerSettings(config, JINA, { baseUrl: "", maxResults: 10 });
}

/** The reader's settings: its own default timeout. */
function readSettings(config: Slice) {
  return providerSettings(config, JINA, {
    baseUrl: "",
    maxResults: 10,
    timeoutMs: JINA_READ_TIMEOUT_MS,
  });
}

/**
 * Jina's documented rate under a configuration: the reader's 20 requests a
 * minute without a key, 500 with one (search, keyed only, allows 100: the
 * router keeps one rate per provider, and a keyed search call is one request).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { jinaProvider } from "./jina.ts";
 * console.assert(jinaProvider.rateLimit?.(parseConfig({}))?.budget?.count === 20);
 * console.assert(jinaProvider.rateLimit?.(parseConfig({ search: { jina_api_key: "k" } }))?.budget?.count === 500);
 * ```
 */
function jinaRateLimit(config: Slice): RateLimit {
  const count = providerKey(config, JINA) ? READER_RPM.keyed : READER_RPM.keyless;
  return { budget: { count, ms: 60_000 } };
}

function endpoints(config: Slice): { reader: string; search: string } {
  const base = settings(config).baseUrl;
  return base
    ? { reader: base, search: base }
    : { reader: "https://r.jina.ai", search: "https://s.jina.ai" };
}

function auth(config: Slice): Record<string, string> {
  const key = providerKey(config, JINA);
  return key ? { Authorization: `Bearer ${key}` } : {};
}

async function jinaRead(url: string, env: ProviderEnv<Slice>): Promise<ProviderPage> {
  const s = readSettings(env.config);
  let body: Record<string, unknown>;
  try {
    body = await callJson(env, {
      provider: JINA,
      url: `${endpoints(env.config).reader}/${url}`,
      headers: auth(env.config),
      timeoutMs: s.timeoutMs,
    }, (value): value is Record<string, unknown> => isRecord(value) && isRecord(value.data));
  } catch (error) {
    // The reader's 422 (`AssertionFailureError`, "Failed to goto …") is about the
    // page, which another reader may still load: not the caller's request.
    if (error instanceof SearchFailure && error.details?.status === 422) {
      throw new SearchFailure("unavailable", `${JINA}: the reader could not load ${url}`, {
        backend: JINA,
        code: "provider_unavailable",
        details: { provider: JINA, status: 422 },
      });
    }
    throw error;
  }
  const data = body.data as Record<string, unknown>;
  const content = str(data.content);
  (await loadPages()).requireContent(JINA, url, content);
  const published = toIsoDate(data.publishedTime);
  const usage = isRecord(data.usage) ? data.usage.tokens : undefined;
  return {
    url,
    title: plainText(data.title),
    content,
    ...(published ? { published } : {}),
    provider_data: boundedData({ description: data.description, tokens: usage }),
  };
}

async function jinaContents(
  req: ContentsRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderContents> {
  const { readEach } = await loadPages();
  return readEach(req.urls, env.config, (url) => jinaRead(url, env));
}

async function jinaSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  if (!providerKey(env.config, JINA)) {
    // Jina's search refuses every request without a key: none is sent.
    throw new GleanerError(
      "invalid_arguments",
      `${JINA}: search needs ${KEY_SETTING} (Jina's search refuses requests without a key)`,
      { details: { field: KEY_SETTING, provider: JINA } },
    );
  }
  const s = settings(env.config);
  const url = new URL(`${endpoints(env.config).search}/`);
  url.searchParams.set("q", req.query);
  const body = await callJson(env, {
    provider: JINA,
    url,
    headers: { ...auth(env.config), "X-Respond-With": "no-content" },
    timeoutMs: s.timeoutMs,
  }, (value): value is Record<string, unknown> => isRecord(value) && Array.isArray(value.data));
  const hits: ProviderHit[] = [];
  for (const r of records(body.data)) {
    if (!isWebUrl(r.url)) continue;
    const published = toIsoDate(r.date);
    hits.push({
      title: plainText(r.title) || str(r.url),
      url: str(r.url).trim(),
      snippet: plainText(r.description),
      ...(published ? { published } : {}),
      source: JINA,
    });
  }
  return hits.slice(0, Math.min(req.max_results, s.maxResults));
}

const JinaReadInput = z.strictObject({
  urls: z.array(z.string().url()).min(1).max(10).describe("One to ten URLs"),
});

const JinaSearchInput = z.strictObject({
  query: z.string().min(1).max(400).describe("What to search for"),
  max_results: z.number().int().min(1).max(10).default(5).describe("Results (1-10)"),
});

/**
 * The Jina provider (`search.providers.jina.api_key`, env `JINA_API_KEY`; or keyless,
 * reader only, with `search.providers.jina.enabled: true`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { jinaProvider } from "./jina.ts";
 * console.assert(!jinaProvider.isConfigured(parseConfig({})));
 * const keyless = parseConfig({ search: { providers: { jina: { enabled: true } } } });
 * console.assert(jinaProvider.isConfigured(keyless));
 * console.assert(jinaProvider.missingSetting!("search", keyless) === "search.providers.jina.api_key");
 * ```
 */
export const jinaProvider: Provider = defineProvider({
  settings: { search: [] },
  name: JINA,
  scope: "shared",
  title: "Jina",
  roles: ["search", "contents"],
  configHint: "search.providers.jina.api_key or search.providers.jina.enabled",
  isConfigured: (config) => {
    const enabled = settings(config).enabled;
    return enabled === true || (Boolean(providerKey(config, JINA)) && enabled !== false);
  },
  search: jinaSearch,
  contents: jinaContents,
  missingSetting: (role, config) =>
    role === "search" && !providerKey(config, JINA) ? KEY_SETTING : undefined,
  rateLimit: jinaRateLimit,
  tools: [
    {
      name: "jina_read",
      title: "Jina reader",
      description: "Reads one to ten pages as Markdown with the Jina reader.",
      kind: "contents",
      input: JinaReadInput,
      run: (input: z.output<typeof JinaReadInput>, env: ProviderEnv<Slice>) =>
        jinaContents(input, env),
    },
    {
      name: "jina_search",
      title: "Jina search",
      description: "Searches the web with Jina: titles, URLs and descriptions.",
      kind: "search",
      input: JinaSearchInput,
      run: async (input: z.output<typeof JinaSearchInput>, env: ProviderEnv<Slice>) => ({
        results: await jinaSearch(input, env),
      }),
    },
  ],
});
