/**
 * A Gleaner instance: the shared state every tool call uses — configuration,
 * guarded fetcher, search router, page reader, store, embedder and browser.
 *
 * @module
 */
import { type Config, type ConfigInput, loadConfig, parseConfig } from "./config/config.ts";
import { getGleanerLogger } from "./log.ts";
import { createFetcher } from "./net/fetch.ts";
import type { Fetcher } from "./net/types.ts";
import { createSearchRouter, type SearchRouter } from "./search/router.ts";
import { createRoleRouter, type RoleRouter } from "./search/roles.ts";
import { createReader, type Reader } from "./read/cascade.ts";
import { defaultTiers } from "./read/tiers.ts";
import { createTierRules } from "./read/tier_rules.ts";
import { openStore, type Store } from "./store/mod.ts";
import { createEmbedder } from "./embed/mod.ts";
import type { Embedder } from "./embed/types.ts";
import { expanderOptions, loadQueryExpander, type QueryExpander } from "./rank/expand.ts";
import type { MemoryService } from "./memory/service.ts";
import { MemoryStores } from "./memory/stores.ts";
import { initTelemetry } from "./telemetry/mod.ts";
import { traceSearch, traceTier } from "./telemetry/stages.ts";

const log = getGleanerLogger();

/** Shared state of one Gleaner: create once, use for many calls, close at the end. */
export interface Gleaner {
  /** The validated configuration. */
  readonly config: Config;
  /** The guarded fetcher every request goes through. */
  readonly fetcher: Fetcher;
  /** Web search (the `search` role in the foundation's shape). */
  readonly search: SearchRouter;
  /** The provider layer: `search`, `answer` and `contents` over the configured providers. */
  readonly roles: RoleRouter;
  /** Page reading through the tier cascade. */
  readonly reader: Reader;
  /** The embedded store (cache, domain memory, embeddings). */
  readonly store: Store;
  /** The embedder, loaded on first use; `undefined` when none is configured or it cannot load. */
  embedder(): Promise<Embedder | undefined>;
  /**
   * The BM25 query expander (`rank.expand_terms`), loaded on first use from the static model;
   * `undefined` when turned off or it cannot load.
   */
  expander(): Promise<QueryExpander | undefined>;
  /**
   * The memory store the memory tools use: the local one, or in hosted mode
   * the store of the user this view was made for ({@link Gleaner.forUser});
   * a hosted Gleaner without a user answers `unauthorized`.
   */
  memories(): Promise<MemoryService>;
  /**
   * A view of this Gleaner whose memory tools use `user`'s own store (hosted
   * mode, `user` verified by the trusted proxy). Everything else is shared;
   * closing the view closes nothing.
   */
  forUser(user: string): Gleaner;
  /**
   * Starts ahead of time what the first reads need (the extraction threads,
   * compiled token counting and chunking), so that a server does not pay for
   * it while answering. Servers call it
   * once they are up; a library caller need not.
   */
  warm(): void;
  /** Releases the browser, embedder and store. */
  close(): Promise<void>;
}

/** Options of {@link createGleaner}. */
export interface CreateGleanerOptions {
  /** Read the config file and `GLEANER_*` environment below the given config (default: false for the library). */
  fromEnvironment?: boolean;
}

/**
 * Creates a Gleaner from a (partial) configuration. Loads OpenTelemetry first
 * when an `OTEL_*` variable asks for it (see `telemetry.ts`).
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * const gleaner = await createGleaner({ store: { path: ":memory:" } });
 * const { results } = await gleaner.search.search({ query: "deno sqlite", max_results: 5 });
 * await gleaner.close();
 * ```
 */
export async function createGleaner(
  input: ConfigInput | Config = {},
  options: CreateGleanerOptions = {},
): Promise<Gleaner> {
  const config = options.fromEnvironment
    ? await loadConfig({ overrides: input })
    : parseConfig(input);
  await initTelemetry();
  return createGleanerFromConfig(config);
}

/** Creates a Gleaner from an already validated configuration. */
export function createGleanerFromConfig(config: Config): Gleaner {
  if (config.network.allow_private !== false) {
    log.warn(
      "network.allow_private is on ({value}): private and loopback addresses can be reached",
      {
        value: JSON.stringify(config.network.allow_private),
      },
    );
  }
  const fetcher = createFetcher(config.network);
  const store = openStore(config.store);
  fetcher.robots.observe((origin, state) => {
    store.domains.setRobots(origin, state).catch((error) =>
      log.debug("robots.txt state not stored: {error}", { error })
    );
  });
  const tiers = defaultTiers(config, { fetcher, domains: store.domains });
  const reader = createReader({
    config,
    fetcher,
    tiers: tiers.tiers.map(traceTier),
    extract: tiers.extract,
    extractBody: tiers.extractBody,
    cache: store.cache,
    domains: store.domains,
    tierRule: config.read.tier_rules_path
      ? createTierRules(config.read.tier_rules_path)
      : undefined,
  });
  const roles = createRoleRouter({
    config,
    fetcher,
    cache: store.cache,
    readPage: async (url, signal) => {
      const page = await reader.read({ url, signal });
      return { title: page.title, markdown: page.markdown, published: page.published };
    },
  });
  let embedderPromise: Promise<Embedder | undefined> | undefined;
  let expanderPromise: Promise<QueryExpander | undefined> | undefined;
  const memoryStores = new MemoryStores(config.memory, { embedder: () => gleaner.embedder() });
  const gleaner: Gleaner = {
    config,
    fetcher,
    search: traceSearch(createSearchRouter(config, fetcher, roles)),
    roles,
    reader,
    store,
    embedder() {
      embedderPromise ??= createEmbedder(config.embed, { fetcher, cache: store.embeddings }).then(
        (embedder) => embedder ?? undefined,
        (error) => {
          log.warn("no embedder available, ranking falls back to BM25: {error}", { error });
          return undefined;
        },
      );
      return embedderPromise;
    },
    expander() {
      if (config.rank.expand_terms === 0) return Promise.resolve(undefined);
      expanderPromise ??= loadQueryExpander(expanderOptions(config.rank)).catch((error) => {
        log.warn("no query expansion: {error}", { error });
        return undefined;
      });
      return expanderPromise;
    },
    memories() {
      return memoryStores.forUser();
    },
    warm() {
      tiers.warm();
      import("./rank/warm.ts").then((m) => m.warmRanking()).catch((error) => {
        log.debug("ranking warm-up failed: {error}", { error });
      });
    },
    forUser(user: string): Gleaner {
      return {
        ...gleaner,
        memories: () => memoryStores.forUser(user),
        forUser: (other: string) => gleaner.forUser(other),
        close: () => Promise.resolve(),
      };
    },
    async close() {
      await memoryStores.close();
      await tiers.close();
      const embedder = await embedderPromise?.catch(() => undefined);
      await embedder?.close?.();
      await store.close();
    },
  };
  return gleaner;
}
