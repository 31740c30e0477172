/**
 * What the keyless providers (DuckDuckGo in `duckduckgo_call.ts`, SearXNG in
 * `searxng_call.ts`, and the keyless web engines of `scraped.ts` and
 * `wikipedia.ts`) share: their settings, their one tool's input, and the
 * {@link Provider} built around their search call.
 *
 * @module
 */
import { z } from "zod";
import { SearchFailure } from "../../net/upstream_failure.ts";
import type { SearchSection } from "../../config/sections.ts";
import { type TimeRange, timeRangeSchema } from "../time_range.ts";
import { defineProvider } from "./define.ts";
import type {
  Provider,
  ProviderEnv,
  ProviderHit,
  ProviderSearchRequest,
  ProviderSlice,
} from "./types.ts";

/** The settings one keyless search call reads. */
export interface KeylessSettings {
  /** `search.providers.<name>.base_url`, trailing slashes removed, when set. */
  baseUrl?: string;
  /** Timeout of one upstream call (ms). */
  timeoutMs: number;
  /** Most results one search asks for. */
  maxResults: number;
}

/**
 * The settings of the keyless provider `name`: its own
 * `search.providers.<name>` entry, else the `search.*` defaults.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { keylessSettings } from "./keyless.ts";
 * const config = parseConfig({ search: { providers: { duckduckgo: { base_url: "http://127.0.0.1:9/" } } } });
 * console.assert(keylessSettings(config, "duckduckgo").baseUrl === "http://127.0.0.1:9");
 * ```
 */
export function keylessSettings(config: ProviderSlice, name: string): KeylessSettings {
  const own = config.search.providers[name];
  return {
    baseUrl: own?.base_url?.replace(/\/+$/, ""),
    timeoutMs: own?.timeout_ms ?? config.search.timeout_ms,
    maxResults: own?.max_results ?? KEYLESS_MAX_RESULTS,
  };
}

/** Most results a keyless provider returns unless `search.providers.<name>.max_results` says otherwise. */
const KEYLESS_MAX_RESULTS = 30;

/** What a keyless provider module supplies; `K`: the shared `search` settings it reads. */
export interface KeylessSpec<K extends keyof SearchSection = never> {
  /** Stable name (`duckduckgo`, `searxng`). */
  name: string;
  /** Human name. */
  title: string;
  /** The setting that makes it usable, named in messages. */
  configHint: string;
  /** True when the configuration makes it usable (before `enabled: false` is applied). */
  configured(settings: ProviderSlice<K>): boolean;
  /** The shared `search.*` settings it reads (its slice: `define.ts`). */
  settings?: readonly K[];
  /**
   * One search (`max_results` already capped by {@link keylessSettings}).
   * Zero results resolve to `[]`; every failure throws a {@link SearchFailure}.
   */
  search(req: ProviderSearchRequest, env: ProviderEnv<ProviderSlice<K>>): Promise<ProviderHit[]>;
  /** A keyless web engine the router spreads searches over ({@link Provider.keylessEngine}). */
  engine?: boolean;
  /** The time ranges it can honour; absent: every range ({@link Provider.timeRanges}). */
  timeRanges?: readonly TimeRange[];
  /** Its polite pace: calls per second unless `search.providers.<name>.requests_per_second`. */
  defaultRequestsPerSecond?: number;
  /**
   * Most results one search returns unless `search.providers.<name>.max_results` says
   * otherwise (default {@link KEYLESS_MAX_RESULTS}); also the most its own tool offers (at least 20).
   */
  maxResults?: number;
  /** Fields its own tool takes besides the common ones, passed to `search` as they are. */
  toolFields?: z.ZodRawShape;
}

/** The input of a keyless provider's own tool: up to `max` results, plus its own fields. */
function keylessInput(max: number, fields: z.ZodRawShape = {}) {
  return z.strictObject({
    query: z.string().min(1).max(2000).describe("What to search for"),
    max_results: z.number().int().min(1).max(max).default(10).describe(`Results (1-${max})`),
    time_range: timeRangeSchema().optional().describe(
      "Only results this recent",
    ),
    language: z.string().min(2).max(10).optional().describe("Language or region code"),
    ...fields,
  });
}

/**
 * The keyless provider of a spec: the `search` role and its `<name>_search`
 * tool. A timeout is reported as `provider_unavailable` (an outage like any
 * other), unless the caller cancelled.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { keylessProvider } from "./keyless.ts";
 * const provider = keylessProvider({
 *   name: "example", title: "Example", configHint: "search.providers.example.enabled",
 *   configured: () => true, search: () => Promise.resolve([]),
 * });
 * console.assert(provider.keyless && provider.tools[0].name === "example_search");
 * console.assert(provider.isConfigured(parseConfig({})));
 * ```
 */
export function keylessProvider<K extends keyof SearchSection = never>(
  spec: KeylessSpec<K>,
): Provider {
  const { name, title } = spec;
  const toolMax = Math.max(20, spec.maxResults ?? 20);
  const input = keylessInput(toolMax, spec.toolFields);
  async function search(
    req: ProviderSearchRequest,
    env: ProviderEnv<ProviderSlice<K>>,
  ): Promise<ProviderHit[]> {
    const max = env.config.search.providers[name]?.max_results ?? spec.maxResults ??
      KEYLESS_MAX_RESULTS;
    let ask: ProviderSearchRequest = { ...req, max_results: Math.min(req.max_results, max) };
    if (ask.time_range && spec.timeRanges && !spec.timeRanges.includes(ask.time_range)) {
      env.notice?.(
        `${name}: cannot limit results to the past ${ask.time_range}; time_range was not applied`,
      );
      ask = { ...ask, time_range: undefined };
    }
    try {
      return await spec.search(ask, env);
    } catch (error) {
      if (error instanceof SearchFailure && error.code === "timeout" && !env.signal?.aborted) {
        throw new SearchFailure(error.outcome, error.message, {
          backend: name,
          code: "provider_unavailable",
          cause: error,
          details: error.details,
        });
      }
      throw error;
    }
  }
  return defineProvider<K>({
    name,
    title,
    settings: { search: spec.settings ?? [] },
    // A public search engine (or the operator's SearXNG over it): the same answers for everyone.
    scope: "shared",
    roles: ["search"],
    keyless: true,
    ...(spec.engine ? { keylessEngine: true } : {}),
    ...(spec.timeRanges ? { timeRanges: spec.timeRanges } : {}),
    ...(spec.defaultRequestsPerSecond
      ? { defaultRequestsPerSecond: spec.defaultRequestsPerSecond }
      : {}),
    configHint: spec.configHint,
    isConfigured: (config) =>
      spec.configured(config) && config.search.providers[name]?.enabled !== false,
    search,
    tools: [{
      name: `${name}_search`,
      title: `${title} search`,
      description: `Searches the web with ${title} (keyless): titles, URLs and snippets.`,
      kind: "search",
      input,
      run: async (args: z.output<typeof input>, env: ProviderEnv<ProviderSlice<K>>) => ({
        results: await search(args as ProviderSearchRequest, env),
      }),
    }],
  });
}
