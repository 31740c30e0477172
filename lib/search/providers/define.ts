/**
 * How a provider module is defined with the settings it reads, and only
 * those: {@link defineProvider} takes the provider's declaration
 * (`settings`: whose `search.providers.<name>` entries, which shared
 * `search.*` settings) and its calls written against that
 * {@link ProviderSlice}, and gives the router's {@link Provider}. The slice is
 * cut from the router's {@link ProviderConfig} once per configuration (kept
 * beside the configuration's sections), so a provider module never sees the
 * whole `search` section, another provider's key or the `Config`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { defineProvider, providerKey } from "./define.ts";
 * const provider = defineProvider({
 *   name: "example", title: "Example", scope: "shared", roles: ["search"],
 *   configHint: "search.providers.example.api_key",
 *   settings: { search: ["region"] },
 *   isConfigured: (s) => Boolean(providerKey(s, "example")) && s.search.region !== "",
 *   tools: [],
 * });
 * console.assert(provider.isConfigured(parseConfig({ search: { providers: { example: { api_key: "k" } } } })));
 * console.assert(!provider.isConfigured(parseConfig({})));
 * ```
 *
 * @module
 */
import type { SearchSection } from "../../config/sections.ts";
import { providerApiKey } from "../../config/provider_keys.ts";
import { GleanerError } from "../../errors.ts";
import { memoizeByPair } from "../../cache/pair_memo.ts";
import type {
  AnswerRequest,
  ContentsRequest,
  Provider,
  ProviderAnswer,
  ProviderConfig,
  ProviderContents,
  ProviderEntry,
  ProviderEnv,
  ProviderHit,
  ProviderSearchRequest,
  ProviderSlice,
  ProviderTool,
  ProviderToolKind,
  Role,
} from "./types.ts";
import type { RateLimit } from "../../async/rate_gate.ts";

/** The settings a provider declares it reads. */
export interface SettingsDeclaration<K extends keyof SearchSection> {
  /**
   * The providers whose `search.providers.<name>` entry (and key) it reads;
   * default: its own name only.
   */
  readonly providers?: readonly string[];
  /** The shared `search.*` settings it reads besides `timeout_ms` (always given). */
  readonly search?: readonly K[];
}

/** A provider's own tool written against its settings slice. */
export type SliceTool<K extends keyof SearchSection> = ProviderTool<
  // deno-lint-ignore no-explicit-any
  any,
  ProviderToolKind,
  ProviderSlice<K>
>;

/** What a provider module supplies to {@link defineProvider}. */
export interface ProviderDefinition<K extends keyof SearchSection = never> extends
  Omit<
    Provider,
    | "isConfigured"
    | "rateLimit"
    | "missingSetting"
    | "search"
    | "answer"
    | "contents"
    | "tools"
    | "probe"
  > {
  /** The settings it reads: its slice. */
  readonly settings: SettingsDeclaration<K>;
  /** True when configured (key present, or keyless and enabled) and not turned off. */
  isConfigured(settings: ProviderSlice<K>): boolean;
  /** {@link Provider.rateLimit}, under its slice. */
  rateLimit?(settings: ProviderSlice<K>): RateLimit | undefined;
  /** {@link Provider.missingSetting}, under its slice. */
  missingSetting?(role: Role, settings: ProviderSlice<K>): string | undefined;
  /** Serves the `search` role. */
  search?(req: ProviderSearchRequest, env: ProviderEnv<ProviderSlice<K>>): Promise<ProviderHit[]>;
  /** Serves the `answer` role. */
  answer?(req: AnswerRequest, env: ProviderEnv<ProviderSlice<K>>): Promise<ProviderAnswer>;
  /** Serves the `contents` role. */
  contents?(req: ContentsRequest, env: ProviderEnv<ProviderSlice<K>>): Promise<ProviderContents>;
  /** Its own tools. */
  readonly tools: readonly SliceTool<K>[];
  /** {@link Provider.probe}, under its slice. */
  probe?(env: ProviderEnv<ProviderSlice<K>>): Promise<string>;
}

/** The declaration of each provider made by {@link defineProvider}. */
const DECLARED = new WeakMap<Provider, SettingsDeclaration<keyof SearchSection>>();

/**
 * The settings `provider` declared when it was defined with
 * {@link defineProvider}; undefined for a provider written against the whole
 * {@link ProviderConfig} (a host's own provider).
 *
 * @internal exported for tests only
 */
export function declaredSettings(
  provider: Provider,
): SettingsDeclaration<keyof SearchSection> | undefined {
  return DECLARED.get(provider);
}

/**
 * The key of provider `name` in a slice that declared it: its
 * `search.providers.<name>.api_key`, or the older `search.<name>_api_key`
 * (folded in when the slice was cut); undefined when unset.
 */
export function providerKey(
  settings: {
    readonly search: { readonly providers: Readonly<Record<string, ProviderEntry | undefined>> };
  },
  name: string,
): string | undefined {
  return settings.search.providers[name]?.api_key;
}

/**
 * Cuts the slice a declaration names out of the router's settings: the
 * declared providers' entries with their keys folded in, the declared
 * `search` settings and `search.timeout_ms`, and the `network` section.
 * Reading the entry of a provider it did not declare is an `internal` error
 * (the types cannot see provider names; this makes the mistake loud in the
 * provider's own test rather than a silently missing setting).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { cutSlice } from "./define.ts";
 * const slice = cutSlice(parseConfig({ search: { exa_api_key: "k" } }), ["exa"], ["region"]);
 * console.assert(slice.search.providers.exa?.api_key === "k" && slice.search.region === "us-en");
 * console.assert(!("safesearch" in slice.search));
 * let refused = false;
 * try { slice.search.providers.tavily; } catch { refused = true; }
 * console.assert(refused);
 * ```
 *
 * @internal exported for tests only
 */
export function cutSlice<K extends keyof SearchSection>(
  config: ProviderConfig,
  names: readonly string[],
  keys: readonly K[],
): ProviderSlice<K> {
  const providers: Record<string, ProviderEntry> = {};
  for (const name of names) {
    const entry = config.search.providers[name];
    const key = providerApiKey(config, name);
    if (entry === undefined && key === undefined) continue;
    providers[name] = { ...entry, ...(key === undefined ? {} : { api_key: key }) };
  }
  const guarded = new Proxy(providers, {
    get(target, prop, receiver) {
      if (
        typeof prop === "string" && !names.includes(prop) && !(prop in Object.prototype) &&
        prop !== "toJSON" && prop !== "then"
      ) {
        throw new GleanerError(
          "internal",
          `provider settings: search.providers.${prop} was not declared (declared: ${
            names.join(", ")
          })`,
        );
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  const search: Record<string, unknown> = {
    providers: guarded,
    timeout_ms: config.search.timeout_ms,
  };
  for (const key of keys) search[key] = config.search[key];
  return { search: search as ProviderSlice<K>["search"], network: config.network };
}

/**
 * The router's {@link Provider} of a definition written against its slice:
 * every call receives the slice its declaration names, cut once per
 * configuration (the same `search` and `network` section objects give the
 * same slice).
 */
export function defineProvider<K extends keyof SearchSection = never>(
  def: ProviderDefinition<K>,
): Provider {
  const names = def.settings.providers ?? [def.name];
  const keys = def.settings.search ?? [];
  const cut = memoizeByPair((search: SearchSection, network: ProviderConfig["network"]) =>
    cutSlice({ search, network }, names, keys)
  );
  const slice = (config: ProviderConfig): ProviderSlice<K> => cut(config.search, config.network);
  const env = (outer: ProviderEnv): ProviderEnv<ProviderSlice<K>> => ({
    ...outer,
    config: slice(outer.config),
  });
  const { settings: _, isConfigured, rateLimit, missingSetting, search, answer, contents, probe } =
    def;
  const provider: Provider = {
    ...def,
    isConfigured: (config) => isConfigured(slice(config)),
    rateLimit: rateLimit && ((config) => rateLimit(slice(config))),
    missingSetting: missingSetting && ((role, config) => missingSetting(role, slice(config))),
    search: search && ((req, outer) => search(req, env(outer))),
    answer: answer && ((req, outer) => answer(req, env(outer))),
    contents: contents && ((req, outer) => contents(req, env(outer))),
    probe: probe && ((outer) => probe(env(outer))),
    tools: def.tools.map((tool) => ({
      ...tool,
      run: (input, outer) => tool.run(input, env(outer)),
    })),
  };
  for (
    const field of ["rateLimit", "missingSetting", "search", "answer", "contents", "probe"] as const
  ) {
    if (provider[field] === undefined) delete provider[field];
  }
  delete (provider as { settings?: unknown }).settings;
  DECLARED.set(provider, { providers: names, search: keys });
  return provider;
}
