/**
 * Every provider Gleaner knows, the default order of each role, and which
 * providers a configuration makes usable.
 *
 * Default orders (keyed providers first, since a user who holds a key wants it
 * used; then a self-hosted SearXNG; then keyless public services):
 * - search: brave, exa, tavily, parallel, seltz, querit, tinyfish, searxng, keenable, jina,
 *   then the keyless web engines duckduckgo, mojeek, brave_html, yahoo, yandex, wikipedia
 *   (asked a few at a time in a rotating order, results merged: `../keyless_pool.ts`)
 *   (gemini serves search too, but each search is a model call: only an explicit
 *   `search.search_order` asks it). Seltz and Querit document a general web search over their
 *   own index, keyed and paid per call like the four before them, so they join the paid ones;
 *   they come after those because their answers say less (Seltz's documents have no title,
 *   Querit knows seven languages and seventeen countries).
 * - answer: exa, tavily, gemini, gemini_deep_research, parallel (a deep question asks Gemini
 *   Deep Research first when it is configured; a quick one never asks it)
 * - contents: exa, tavily, parallel, tinyfish, jina, keenable, then Gleaner's own reader
 *
 * TinyFish is in the default search and contents orders because its Search and
 * Fetch use no credits (https://docs.tinyfish.ai/search-api, https://docs.tinyfish.ai/fetch-api:
 * "Search does not use credits", "Fetch does not use credits") and need a key the
 * operator set on purpose; its agent runs, which spend credits, are only its own
 * `tinyfish_run` tool.
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";
import { braveProvider } from "./brave.ts";
import { exaProvider } from "./exa.ts";
import { geminiDeepResearchProvider, geminiProvider } from "./gemini.ts";
import { parallelProvider } from "./parallel.ts";
import { queritProvider } from "./querit.ts";
import { seltzProvider } from "./seltz.ts";
import { jinaProvider } from "./jina.ts";
import { keenableProvider } from "./keenable.ts";
import { duckduckgoProvider } from "./duckduckgo.ts";
import { braveHtmlProvider } from "./brave_html.ts";
import { mojeekProvider } from "./mojeek.ts";
import { wikipediaProvider } from "./wikipedia.ts";
import { yahooProvider } from "./yahoo.ts";
import { yandexProvider } from "./yandex.ts";
import { searxngProvider } from "./searxng.ts";
import { GLEANER_READER } from "./reader.ts";
import { tavilyProvider } from "./tavily.ts";
import { tinyfishProvider } from "./tinyfish.ts";
import type { Provider, ProviderConfig, Role } from "./types.ts";

/** Every provider module, by name. */
export const PROVIDERS: readonly Provider[] = [
  braveProvider,
  exaProvider,
  tavilyProvider,
  parallelProvider,
  seltzProvider,
  queritProvider,
  geminiProvider,
  geminiDeepResearchProvider,
  jinaProvider,
  keenableProvider,
  tinyfishProvider,
  searxngProvider,
  duckduckgoProvider,
  mojeekProvider,
  braveHtmlProvider,
  yahooProvider,
  yandexProvider,
  wikipediaProvider,
];

/**
 * The keyless web engines, in their default order.
 *
 * @internal exported for tests only
 */
export const KEYLESS_ENGINES: readonly string[] = [
  "duckduckgo",
  "mojeek",
  "brave_html",
  "yahoo",
  "yandex",
  "wikipedia",
];

/** The order each role tries providers in when its `search.<role>_order` is empty. */
const DEFAULT_ORDER: Readonly<Record<Role, readonly string[]>> = {
  search: [
    "brave",
    "exa",
    "tavily",
    "parallel",
    "seltz",
    "querit",
    "tinyfish",
    "searxng",
    "keenable",
    "jina",
    ...KEYLESS_ENGINES,
  ],
  answer: ["exa", "tavily", "gemini", "gemini_deep_research", "parallel"],
  contents: ["exa", "tavily", "parallel", "tinyfish", "jina", "keenable", GLEANER_READER],
};

/** The provider called `name`, if Gleaner has one. */
export function providerByName(
  name: string,
  extra: readonly Provider[] = [],
): Provider | undefined {
  return [...PROVIDERS, ...extra].find((p) => p.name === name);
}

/**
 * The provider names a role tries, in order: `search.<role>_order`, else (for
 * `search`) the legacy `search.backend` when it names one backend (`searxng`
 * then DuckDuckGo, unless `search.pin_backend`), else the default order.
 * Unknown names are refused.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { roleOrder } from "./registry.ts";
 * console.assert(roleOrder(parseConfig({}), "answer").join() === "exa,tavily,gemini,gemini_deep_research,parallel");
 * console.assert(roleOrder(parseConfig({ search: { backend: "searxng" } }), "search").join() === "searxng");
 * const searxng = { backend: "searxng", searxng_url: "https://searx.example" } as const;
 * console.assert(roleOrder(parseConfig({ search: searxng }), "search").join() === "searxng,duckduckgo");
 * console.assert(roleOrder(parseConfig({ search: { ...searxng, pin_backend: true } }), "search").join() === "searxng");
 * ```
 */
export function roleOrder(
  config: ProviderConfig,
  role: Role,
  extra: readonly Provider[] = [],
): string[] {
  const field = `${role}_order` as const;
  const explicit = config.search[field];
  if (explicit.length > 0) {
    for (const name of explicit) {
      const roles: readonly Role[] | undefined = name === GLEANER_READER
        ? ["contents"]
        : providerByName(name, extra)?.roles;
      if (!roles || !roles.includes(role)) {
        throw new GleanerError(
          "invalid_arguments",
          `config: search.${field}: ${name} is not a provider that serves ${role}`,
          { details: { field: `search.${field}` } },
        );
      }
    }
    return [...new Set(explicit)];
  }
  if (role === "search" && config.search.backend !== "auto") {
    // An unpinned SearXNG backend that is configured falls back to DuckDuckGo; a SearXNG
    // backend without an instance URL stays alone, so the missing setting is named.
    const fallback = config.search.backend === "searxng" && !config.search.pin_backend &&
      searxngProvider.isConfigured(config);
    return fallback ? [config.search.backend, duckduckgoProvider.name] : [config.search.backend];
  }
  return [...DEFAULT_ORDER[role]];
}

/**
 * True when `provider` serves `role` under `config`: the role is one of its
 * roles, it is configured, and the configuration lets it serve that role
 * (`Provider.missingSetting`: keyless Jina reads pages but does not search).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { jinaProvider } from "./jina.ts";
 * import { servesRole } from "./registry.ts";
 * const keyless = parseConfig({ search: { providers: { jina: { enabled: true } } } });
 * console.assert(servesRole(jinaProvider, "contents", keyless) && !servesRole(jinaProvider, "search", keyless));
 * ```
 */
export function servesRole(provider: Provider, role: Role, config: ProviderConfig): boolean {
  return provider.roles.includes(role) && provider.isConfigured(config) &&
    provider.missingSetting?.(role, config) === undefined;
}

/**
 * The providers that can serve `role` now: in the role's order, configured.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { usableProviders } from "./registry.ts";
 * const config = parseConfig({ search: { exa_api_key: "k" } });
 * const names = usableProviders(config, "search").map((p) => p.name);
 * console.assert(names.join() === "exa,duckduckgo,mojeek,brave_html,yahoo,yandex,wikipedia");
 * ```
 */
export function usableProviders(
  config: ProviderConfig,
  role: Role,
  extra: readonly Provider[] = [],
): Provider[] {
  const out: Provider[] = [];
  for (const name of roleOrder(config, role, extra)) {
    const provider = providerByName(name, extra);
    if (provider && servesRole(provider, role, config)) out.push(provider);
  }
  return out;
}

/**
 * Every configured provider (the reader excluded), in registry order.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { configuredProviders } from "./registry.ts";
 * const names = configuredProviders(parseConfig({})).map((p) => p.name);
 * console.assert(names.join() === "duckduckgo,mojeek,brave_html,yahoo,yandex,wikipedia");
 * ```
 */
export function configuredProviders(config: ProviderConfig): Provider[] {
  return PROVIDERS.filter((p) => p.isConfigured(config));
}
