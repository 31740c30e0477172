/**
 * Seltz: a web search API for AI agents, with its own crawler and index
 * (https://docs.seltz.ai; https://aws.amazon.com/marketplace/seller-profile?id=seller-nmgcsv7bvcoyq).
 *
 * Request: `POST <base>/v1/search` with the key in `x-api-key` and a JSON
 * body. The public REST surface is Seltz's OpenAPI document, version 1.3.0
 * (https://docs.seltz.ai/api-reference/openapi-spec, page
 * https://docs.seltz.ai/api-reference/search; read here from its verbatim copy in
 * https://github.com/api-evangelist/seltz, `openapi/_original/seltz-openapi-original.json`,
 * since docs.seltz.ai itself could not be fetched). Its Python SDK's first
 * versions spoke gRPC (`grpc.seltz.ai`, https://pypi.org/project/seltz/0.1.4/);
 * the REST endpoint is what this module follows, as the issue summarised it.
 *
 * Fields sent (each from the OpenAPI `SearchRequest`):
 * - `query`: the search ("keep it as short as possible"; no length limit is
 *   documented, so none is enforced here);
 * - `max_results`: integer ≥ 0, default 10, no documented ceiling; Gleaner
 *   asks at most `search.providers.seltz.max_results` (default 20);
 * - `include_domains` / `exclude_domains`: domain lists (Seltz filters
 *   domains itself, so the router adds no `site:` hint);
 * - `from_date`: ISO 8601 date, for `time_range` (today minus 1, 7, 31 or 366 days);
 * - `scope`: `"news"` (the one documented option) for `topic: "news"`.
 *
 * Seltz has no language or region parameter: a `language` is never sent,
 * and the answer's `notices` say so. Fields read from the answer
 * (`SearchResponse`): `documents[]` with `url`, `content` and
 * `published_date` (ISO 8601); `documents` may be absent when empty (its
 * documented default is `[]`). Documents carry no title: the title is the
 * Markdown heading `content` opens with, when it opens with one (the snippet
 * is then the text after it), else the URL.
 *
 * Failures (OpenAPI responses, bodies are plain descriptions without a
 * schema): 400 missing or malformed fields, 401 invalid or missing key, 404
 * endpoint not found, 429 rate limit ("wait before retrying"), 500 server
 * error. No separate status for a spent quota is documented.
 *
 * @module
 */
import { z } from "zod";
import { timeRangeSchema, timeRangeStart } from "../time_range.ts";
import { toIsoDate } from "../upstream.ts";
import { boundedData, isWebUrl, plainText, providerSettings } from "./http.ts";
import { callJson, isRecord, records, str } from "../../net/json_call.ts";
import type {
  Provider,
  ProviderEnv,
  ProviderHit,
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";
import { defineProvider, providerKey } from "./define.ts";

/** The settings it reads (`define.ts`): its `search.providers` entry and `search.timeout_ms`. */
type Slice = ProviderSlice;

/** The provider's name. */
const SELTZ = "seltz";

/** Longest snippet kept from a document's content (characters). */
const SNIPPET_CHARS = 500;

function settings(config: Slice) {
  return providerSettings(config, SELTZ, { baseUrl: "https://api.seltz.ai", maxResults: 20 });
}

/** A Seltz answer: an object whose `documents`, when present, is an array. */
function isSearchResponse(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && (value.documents === undefined || Array.isArray(value.documents));
}

/** A document's title and the text after it: its opening Markdown heading, else its URL and all its text. */
function titled(content: string, url: string): { title: string; text: string } {
  const trimmed = content.trimStart();
  const end = trimmed.indexOf("\n");
  const first = end === -1 ? trimmed : trimmed.slice(0, end);
  const heading = /^#{1,6}\s+(.+)$/.exec(first.trim());
  const title = heading ? plainText(heading[1]).slice(0, 300) : "";
  return title
    ? { title, text: plainText(end === -1 ? "" : trimmed.slice(end + 1)) }
    : { title: url, text: plainText(content) };
}

/**
 * Turns Seltz documents into hits (documents without an http(s) URL dropped).
 *
 * @example
 * ```ts
 * import { seltzHits } from "./seltz.ts";
 * const [hit] = seltzHits([{ url: "https://a.example/", content: "# A page\n\nText.", published_date: "2024-03-15T00:00:00Z" }]);
 * console.assert(hit.title === "A page" && hit.published === "2024-03-15T00:00:00.000Z");
 * console.assert(seltzHits([{ url: "ftp://x" }, null]).length === 0);
 * ```
 *
 * @internal exported for tests only
 */
export function seltzHits(documents: unknown): ProviderHit[] {
  const hits: ProviderHit[] = [];
  for (const d of records(documents)) {
    if (!isWebUrl(d.url)) continue;
    const url = str(d.url).trim();
    const content = str(d.content);
    const { title, text } = titled(content, url);
    const published = toIsoDate(d.published_date);
    hits.push({
      title,
      url,
      snippet: text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text,
      ...(published ? { published } : {}),
      source: SELTZ,
      provider_data: boundedData({ content_chars: content.length || undefined }),
    });
  }
  return hits;
}

async function seltzSearch(
  req: ProviderSearchRequest,
  env: ProviderEnv<Slice>,
): Promise<ProviderHit[]> {
  const s = settings(env.config);
  const count = Math.max(1, Math.min(req.max_results, s.maxResults));
  const body: Record<string, unknown> = { query: req.query.trim(), max_results: count };
  if (req.domains?.length) body.include_domains = req.domains;
  if (req.exclude_domains?.length) body.exclude_domains = req.exclude_domains;
  if (req.topic === "news") body.scope = "news";
  if (req.time_range) body.from_date = timeRangeStart(req.time_range);
  if (req.language) {
    env.notice?.(
      `${SELTZ}: language ${
        JSON.stringify(req.language.slice(0, 20))
      } not sent: Seltz's search has no language or region parameter`,
    );
  }
  const answer = await callJson(env, {
    provider: SELTZ,
    url: `${s.baseUrl}/v1/search`,
    method: "POST",
    headers: { "x-api-key": providerKey(env.config, SELTZ) ?? "" },
    json: body,
    timeoutMs: s.timeoutMs,
  }, isSearchResponse);
  return seltzHits(answer.documents).slice(0, count);
}

const SeltzSearchInput = z.strictObject({
  query: z.string().min(1).max(2000).describe("What to search for (short queries work best)"),
  max_results: z.number().int().min(1).max(20).default(10).describe("Results (1-20)"),
  domains: z.array(z.string()).max(20).optional().describe("Only these domains"),
  exclude_domains: z.array(z.string()).max(20).optional().describe("Never these domains"),
  time_range: timeRangeSchema().optional().describe("Only results published this recently"),
  topic: z.enum(["general", "news"]).optional().describe("`news` searches Seltz's news scope"),
});

/**
 * The Seltz provider (`search.providers.seltz.api_key`, env `SELTZ_API_KEY`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { seltzProvider } from "./seltz.ts";
 * console.assert(!seltzProvider.isConfigured(parseConfig({})));
 * console.assert(seltzProvider.isConfigured(parseConfig({ search: { seltz_api_key: "k" } })));
 * ```
 */
export const seltzProvider: Provider = defineProvider({
  settings: { search: [] },
  name: SELTZ,
  scope: "shared",
  title: "Seltz",
  roles: ["search"],
  configHint: "search.providers.seltz.api_key",
  nativeDomains: true,
  isConfigured: (config) =>
    Boolean(providerKey(config, SELTZ)) && settings(config).enabled !== false,
  search: seltzSearch,
  tools: [
    {
      name: "seltz_search",
      title: "Seltz search",
      description:
        "Searches the web with Seltz: URLs, page text excerpts and publication dates, up to 20 results.",
      kind: "search",
      input: SeltzSearchInput,
      run: async (input: z.output<typeof SeltzSearchInput>, env: ProviderEnv<Slice>) => ({
        results: await seltzSearch(input, env),
      }),
    },
  ],
});
