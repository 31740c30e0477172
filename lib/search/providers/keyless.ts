/**
 * The shared part of the keyless providers (DuckDuckGo, SearXNG): the
 * foundation's backends behind the provider interface.
 *
 * @module
 */
import { z } from "zod";
import type { Config } from "../../config/config.ts";
import { createDuckDuckGoBackend, DUCKDUCKGO } from "../duckduckgo.ts";
import { createSearxngBackend, SEARXNG } from "../searxng.ts";
import { timeRangeSchema } from "../time_range.ts";
import { type SearchBackend, SearchFailure } from "../types.ts";
import type { Provider, ProviderEnv, ProviderHit, ProviderSearchRequest } from "./types.ts";

/** The SearXNG instance URL configured, if any. */
export function searxngUrl(config: Config): string | undefined {
  return config.search.providers[SEARXNG]?.base_url ?? config.search.searxng_url;
}

function timeoutOf(config: Config, name: string): number {
  return config.search.providers[name]?.timeout_ms ?? config.search.timeout_ms;
}

function backendFor(name: string, config: Config): SearchBackend {
  const timeout_ms = timeoutOf(config, name);
  // `search.providers.duckduckgo.base_url` stands for both pages: `<base>/html/` and `<base>/lite/`.
  const base = config.search.providers[DUCKDUCKGO]?.base_url?.replace(/\/+$/, "");
  const pages = base
    ? { duckduckgo_html_url: `${base}/html/`, duckduckgo_lite_url: `${base}/lite/` }
    : {};
  return name === DUCKDUCKGO
    ? createDuckDuckGoBackend({ ...config.search, ...pages, timeout_ms })
    : createSearxngBackend({ ...config.search, searxng_url: searxngUrl(config), timeout_ms });
}

function maxOf(config: Config, name: string): number {
  return config.search.providers[name]?.max_results ?? 30;
}

async function keylessSearch(
  name: string,
  req: ProviderSearchRequest,
  env: ProviderEnv,
): Promise<ProviderHit[]> {
  try {
    return await searchOnce(name, req, env);
  } catch (error) {
    // A timeout is an outage like any other (`provider_unavailable`), as for every provider.
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

async function searchOnce(
  name: string,
  req: ProviderSearchRequest,
  env: ProviderEnv,
): Promise<ProviderHit[]> {
  return await backendFor(name, env.config).search({
    query: req.query,
    max_results: Math.min(req.max_results, maxOf(env.config, name)),
    time_range: req.time_range,
    language: req.language,
    domains: req.domains,
    signal: env.signal,
  }, env.fetcher);
}

const KeylessInput = z.strictObject({
  query: z.string().min(1).max(2000).describe("What to search for"),
  max_results: z.number().int().min(1).max(20).default(10).describe("Results (1-20)"),
  time_range: timeRangeSchema().optional().describe(
    "Only results this recent",
  ),
  language: z.string().min(2).max(10).optional().describe("Language or region code"),
});

/** Builds a keyless provider around a foundation backend. */
export function keylessProvider(
  name: string,
  title: string,
  configured: (c: Config) => boolean,
): Provider {
  return {
    name,
    title,
    roles: ["search"],
    keyless: true,
    configHint: name === SEARXNG ? "search.searxng_url" : "search.providers.duckduckgo.enabled",
    isConfigured: (config) =>
      configured(config) && config.search.providers[name]?.enabled !== false,
    search: (req, env) => keylessSearch(name, req, env),
    tools: [{
      name: `${name}_search`,
      title: `${title} search`,
      description: `Searches the web with ${title} (keyless): titles, URLs and snippets.`,
      kind: "search",
      input: KeylessInput,
      run: async (input: z.output<typeof KeylessInput>, env: ProviderEnv) => ({
        results: await keylessSearch(name, input, env),
      }),
    }],
  };
}
