/**
 * Search providers' API keys in one place. A key is
 * `search.providers.<name>.api_key`; the older `search.<name>_api_key` (and
 * its environment names, `GLEANER_SEARCH_<NAME>_API_KEY` and the short ones
 * such as `EXA_API_KEY`, which stay) is still read. Every provider reads its
 * key through {@link providerApiKey}, so a provider added later is covered
 * without code here.
 *
 * @example
 * ```ts
 * import { parseConfig } from "./parse.ts";
 * import { providerApiKey } from "./provider_keys.ts";
 * const config = parseConfig({ search: { providers: { exa: { api_key: "k" } } } });
 * console.assert(providerApiKey(config, "exa") === "k");
 * console.assert(providerApiKey(parseConfig({ search: { exa_api_key: "o" } }), "exa") === "o");
 * ```
 *
 * @module
 */
import type { Config, ConfigInput } from "./schema.ts";

/** `search.*_api_key` settings that belong to no provider (the reranker's key). */
const NOT_PROVIDER_KEYS: ReadonlySet<string> = new Set(["rerank_api_key"]);

/** The provider a `search` key names when it is an old-style `<name>_api_key`, else undefined. */
function providerOfKey(key: string): string | undefined {
  const match = /^([a-z0-9_]+)_api_key$/.exec(key);
  return match && !NOT_PROVIDER_KEYS.has(key) ? match[1] : undefined;
}

/**
 * The API key of a search provider: `search.providers.<name>.api_key`, else
 * the older `search.<name>_api_key`; undefined when neither is set.
 */
export function providerApiKey(config: Pick<Config, "search">, name: string): string | undefined {
  const own = config.search.providers[name]?.api_key;
  if (own !== undefined) return own;
  const old = (config.search as Record<string, unknown>)[`${name}_api_key`];
  return typeof old === "string" ? old : undefined;
}

/**
 * The providers whose key a partial configuration sets, in either spelling:
 * `old` lists those set as `search.<name>_api_key`, `own` those set as
 * `search.providers.<name>.api_key`.
 *
 * @internal exported for tests only
 */
export function providerKeysSet(layer: ConfigInput | undefined): { old: string[]; own: string[] } {
  const search = layer?.search as Record<string, unknown> | undefined;
  if (!search || typeof search !== "object") return { old: [], own: [] };
  const old = Object.keys(search).filter((key) => search[key] !== undefined)
    .map(providerOfKey).filter((name): name is string => name !== undefined);
  const providers = search.providers;
  const own = providers && typeof providers === "object" && !Array.isArray(providers)
    ? Object.entries(providers as Record<string, unknown>)
      .filter(([, value]) =>
        value !== null && typeof value === "object" &&
        (value as Record<string, unknown>).api_key !== undefined
      )
      .map(([name]) => name)
    : [];
  return { old, own };
}

/**
 * Drops from `merged` (the layers below) every provider key that `layer` sets
 * in the other spelling, so that the higher layer's key wins whichever way
 * either of them spells it (`EXA_API_KEY` in the environment over
 * `search.providers.exa.api_key` in the config file, and the other way round
 * for settings given in code).
 */
export function dropShadowedProviderKeys(
  merged: Record<string, Record<string, unknown>>,
  layer: ConfigInput,
): void {
  const below = merged.search;
  if (!below) return;
  const { old, own } = providerKeysSet(layer);
  for (const name of own) delete below[`${name}_api_key`];
  const providers = below.providers as Record<string, Record<string, unknown>> | undefined;
  if (!providers || typeof providers !== "object") return;
  for (const name of old) {
    const settings = providers[name];
    if (settings && typeof settings === "object" && "api_key" in settings) {
      const { api_key: _, ...rest } = settings;
      below.providers = { ...(below.providers as Record<string, unknown>), [name]: rest };
    }
  }
}

/**
 * Deprecation warnings for the old `search.<name>_api_key` spelling in a
 * config file, `--set` or settings given in code (not for the environment,
 * whose names stay), each naming the new key.
 */
export function oldProviderKeyWarnings(layer: ConfigInput | undefined, where: string): string[] {
  return providerKeysSet(layer).old.map((name) =>
    `${where}: search.${name}_api_key is deprecated; write search.providers.${name}.api_key instead`
  );
}
