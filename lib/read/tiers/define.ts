/**
 * How a read tier is defined with the settings it reads, and only those:
 * {@link defineTier} takes the tier's declaration (`settings.read`: which
 * `read.*` settings) and its `read` written against that {@link TierSlice},
 * and gives the cascade's {@link Tier}. The slice is cut from the reader's
 * {@link ReadConfig} once per configuration (kept beside its sections), so a
 * tier module never sees the whole `read` section or the `Config`; the
 * `network` section (the guarded network's policy every tier reads through)
 * comes whole, as it does to a search provider.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { createFetcher } from "../../net/fetch.ts";
 * import { defineTier } from "./define.ts";
 * const tier = defineTier({
 *   name: "wayback", scope: "shared",
 *   settings: { read: ["wayback_url"] },
 *   canHandle: () => true,
 *   read: (_url, _request, context) => {
 *     console.assert(Object.keys(context.config.read).join() === "wayback_url");
 *     return Promise.resolve(undefined);
 *   },
 * });
 * const config = parseConfig({});
 * await tier.read(new URL("https://example.com/"), { url: "https://example.com/" }, {
 *   config, fetcher: createFetcher(config.network),
 * });
 * ```
 *
 * @module
 */
import type { NetworkSection, ReadSection } from "../../config/sections.ts";
import type { Page, ReadConfig, ReadContext, ReadRequest, Tier } from "../types.ts";
import { memoizeByPair } from "../../cache/pair_memo.ts";

/** The settings a tier reads: the `read` settings it declared, and the `network` section. */
export interface TierSlice<K extends keyof ReadSection = never> {
  /** The declared `read.*` settings, nothing else. */
  readonly read: Pick<ReadSection, K>;
  /** The guarded network layer's settings (the SSRF policy, limits, robots). */
  readonly network: NetworkSection;
}

/** What a tier's read receives: the cascade's context, with its slice for settings. */
export interface TierContext<S = TierSlice> extends Omit<ReadContext, "config"> {
  /** The tier's settings slice. */
  readonly config: S;
}

/** The settings a tier declares it reads. */
export interface TierSettingsDeclaration<K extends keyof ReadSection> {
  /** The `read.*` settings it reads. */
  readonly read: readonly K[];
}

/** What a tier module supplies to {@link defineTier}. */
export interface TierDefinition<K extends keyof ReadSection = never> extends Omit<Tier, "read"> {
  /** The settings it reads: its slice. */
  readonly settings: TierSettingsDeclaration<K>;
  /** {@link Tier.read}, under its slice. */
  read(
    url: URL,
    request: ReadRequest,
    context: TierContext<TierSlice<K>>,
  ): Promise<Page | undefined>;
}

/** The declaration of each tier made by {@link defineTier}. */
const DECLARED = new WeakMap<Tier, TierSettingsDeclaration<keyof ReadSection>>();

/**
 * The settings `tier` declared when it was defined with {@link defineTier};
 * undefined for a tier written against the whole {@link ReadConfig} (a
 * host's own tier, or the browser tier, built with its settings by the
 * composition root).
 *
 * @internal exported for tests only
 */
export function declaredTierSettings(
  tier: Tier,
): TierSettingsDeclaration<keyof ReadSection> | undefined {
  return DECLARED.get(tier);
}

/**
 * Cuts the slice a declaration names out of the reader's settings: the
 * declared `read` settings and the `network` section.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { cutTierSlice } from "./define.ts";
 * const config = parseConfig({});
 * const slice = cutTierSlice(config, ["max_links"]);
 * console.assert(Object.keys(slice.read).join() === "max_links" && slice.network === config.network);
 * ```
 *
 * @internal exported for tests only
 */
export function cutTierSlice<K extends keyof ReadSection>(
  config: ReadConfig,
  keys: readonly K[],
): TierSlice<K> {
  const read: Partial<Pick<ReadSection, K>> = {};
  for (const key of keys) read[key] = config.read[key];
  return { read: read as Pick<ReadSection, K>, network: config.network };
}

/**
 * The cascade's {@link Tier} of a definition written against its slice:
 * every read receives the slice its declaration names, cut once per
 * configuration (the same `read` and `network` section objects give the same
 * slice). The tier returned is a new object; a module that adds its own
 * methods (`clear`) adds them to it (`Object.assign`), keeping its declaration.
 */
export function defineTier<K extends keyof ReadSection = never>(def: TierDefinition<K>): Tier {
  const keys = def.settings.read;
  const cut = memoizeByPair((read: ReadSection, network: NetworkSection) =>
    cutTierSlice({ read, network }, keys)
  );
  const slice = (config: ReadConfig): TierSlice<K> => cut(config.read, config.network);
  const { settings: _, read, ...rest } = def;
  const tier: Tier = {
    ...rest,
    read: (url, request, context) =>
      read(url, request, { ...context, config: slice(context.config) }),
  };
  DECLARED.set(tier, { read: keys });
  return tier;
}
