/**
 * A Gleaner instance: the shared state every tool call uses — configuration,
 * guarded fetcher, search router, page reader, store, embedder and browser.
 *
 * @module
 */
import { type Config, type ConfigInput, loadConfig, parseConfig } from "./config/config.ts";
import { readHostEnv } from "./config/env.ts";
import { getGleanerLogger } from "./log.ts";
import { createFetcher } from "./net/fetch.ts";
import type { Fetcher } from "./net/types.ts";
import { createSearchRouter, type SearchRouter } from "./search/router.ts";
import { createRoleRouter, type RoleRouter } from "./search/roles.ts";
import { OPERATOR_RUN_REFS, type RunRefs, tenantRunRefs } from "./search/run_refs.ts";
import type { ReadPage } from "./search/providers/reader.ts";
import type { Provider } from "./search/providers/types.ts";
import {
  type ComponentHealth,
  createHealth,
  type HealthChecks,
  type HealthReport,
} from "./health.ts";
import { createReader, type Reader } from "./read/cascade.ts";
import { ALL_OPERATOR_TIERS, defaultTiers, type OperatorTierGrants } from "./read/tiers.ts";
import type { Tier } from "./read/types.ts";
import { createTierRules } from "./read/tier_rules.ts";
import { notingRobots } from "./read/robots_note.ts";
import { loadValkeyDriver, openStore, type Store } from "./store/mod.ts";
import type { DomainStats } from "./store/types.ts";
import { operatorWebTenant, webTenant } from "./store/tenant.ts";
import { GleanerError, toGleanerError } from "./errors.ts";
import { LruCache } from "./cache/lru_cache.ts";
import { createEmbedder } from "./embed/mod.ts";
import type { Embedder } from "./embed/types.ts";
import { expanderOptions, loadQueryExpander, type QueryExpander } from "./rank/expand.ts";
import type { MemoryService } from "./memory/service.ts";
import { MemoryStores } from "./memory/stores.ts";
import { initTelemetry } from "./telemetry/mod.ts";
import { createEvents, type Events } from "./telemetry/events.ts";
import { traceCache, traceSearch, traceTier } from "./trace_stages.ts";

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
   * mode, `user` verified by the trusted proxy). In hosted mode the web side
   * is the user's own too: `store.cache` (searches, pages, crawls) and
   * `store.domains` (domain memory) hold that user's entries only, and
   * `search`, `roles` and `reader` use them, so nothing one user reads
   * changes or reveals what another gets. A provider's long-running run
   * (Parallel, TinyFish, Gemini Deep Research) started through the view is
   * handed back under an id bound to the user, and only such ids resume a
   * run (`search/run_refs.ts`). The user's reader has none of the
   * operator's own tiers (scope `operator`: the Hister history, GitHub with
   * `read.github_token`) unless the operator lists the user
   * (`read.hister_users`, `read.github_token_users`): GitHub is read
   * anonymously and no URL of theirs reaches Hister. Upstream limits (breaker, pacing,
   * per-host politeness), the browser, robots.txt and the extraction threads
   * stay shared; closing the view closes nothing.
   */
  forUser(user: string): Gleaner;
  /**
   * Empties the cache (`search`, `pages`, `crawl` or all) and/or forgets
   * the domain memory (`domains`, or all). In hosted mode only an operator
   * view ({@link Gleaner.asOperator}) may, and it clears every user's;
   * any other view answers `unauthorized`.
   */
  clearCache(target: ClearTarget): Promise<ClearCacheResult>;
  /**
   * This view with the operator's rights: `clearCache` in hosted mode, and,
   * for a user's view ({@link Gleaner.forUser}), reads with every tier, the
   * operator's own included (Hister, the GitHub token), under a web-side
   * tenant of the operator's own (what they bring back never lands in the
   * user's cache), and may resume any user's provider run. The HTTP server
   * hands it out only to requests that carry
   * the operator's admin key (`memory.hosted_admin_key`).
   */
  asOperator(): Gleaner;
  /**
   * Starts ahead of time what the first reads need (the extraction threads,
   * compiled token counting and chunking, the static embedding model, the
   * query expander and the cascade's reranker when `rank.rerank` names one), so that a server
   * does not pay for it while answering. Servers call it
   * once they are up; a library caller need not.
   */
  warm(): void;
  /**
   * The health of the store, cache, browser and memory store, checked at
   * most every few seconds (see `health.ts`): cheap to call on every probe.
   */
  health(): Promise<HealthReport>;
  /**
   * Operational events (tool calls, tiers put off), published to NATS when
   * `events.nats_url` is set; absent or off otherwise.
   */
  readonly events?: Events;
  /**
   * A view of this Gleaner whose role router (`roles`, and `search` over it) also routes
   * over the host's own `providers`: they join each role's fallback, breaker, pacing and
   * search cache like the built-in ones (see `RoleRouterOptions.providers`). Closing the view
   * closes nothing. For every view a server hands out (hosted users too), pass them to
   * {@link createGleaner} as `providers` instead.
   */
  withProviders(providers: readonly Provider[]): Gleaner;
  /** Releases the browser, embedder and store. */
  close(): Promise<void>;
}

/** What {@link Gleaner.clearCache} clears: a cache namespace, the domain memory, or all. */
export type ClearTarget = "search" | "pages" | "crawl" | "domains" | "all";

/** What {@link Gleaner.clearCache} removed. */
export interface ClearCacheResult {
  /** Cache entries removed. */
  removed: number;
  /** Origins whose domain memory was forgotten. */
  origins_forgotten: number;
}

/** Users whose web-side view (reader, search router over their tenant) is kept built at once. */
const MAX_WEB_VIEWS = 256;

/** Options of {@link createGleaner}. */
export interface CreateGleanerOptions {
  /** Read the config file and `GLEANER_*` environment below the given config (default: false for the library). */
  fromEnvironment?: boolean;
  /**
   * The environment the defaults come from (data directory, temporary
   * directory, extra CA files, `OTEL_*`, Chromium's environment); default: a
   * snapshot of the process environment ({@link readHostEnv}).
   */
  env?: Record<string, string | undefined>;
  /** The host's own search providers (see {@link CreateGleanerFromConfigOptions.providers}). */
  providers?: readonly Provider[];
}

/** Options of {@link createGleanerFromConfig}. */
export interface CreateGleanerFromConfigOptions {
  /**
   * The environment snapshot the defaults come from: the data directory
   * (`XDG_DATA_HOME`, `HOME`) of the store, memory and models, the browser
   * tier's profiles (`TMPDIR`) and Chromium's environment, the extra CA files
   * (`NODE_EXTRA_CA_CERTS`, `DENO_CERT`). Default: {@link readHostEnv}, read
   * once here; no module below reads the environment itself.
   */
  env?: Record<string, string | undefined>;
  /**
   * The host's own search providers (`Provider` objects): they join the built-in ones in
   * every role they serve, first in its default order, with the same fallback, breaker,
   * pacing and search cache (`RoleRouterOptions.providers`).
   */
  providers?: readonly Provider[];
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
  const env = options.env ?? readHostEnv();
  await initTelemetry(env);
  if (config.store.cache_url) await loadValkeyDriver();
  return createGleanerFromConfig(config, {
    env,
    ...(options.providers ? { providers: options.providers } : {}),
  });
}

/** A provider's page reads through `through` (the reading cascade of the caller's view). */
function readPageWith(through: Reader): ReadPage {
  return async (url, signal, selectors) => {
    const page = await through.read({ url, signal, ...selectors });
    return { title: page.title, markdown: page.markdown, published: page.published };
  };
}

/**
 * The reader with the specification's events (`fetch.requested`, `fetch.completed`, `cache.hit`
 * or `cache.miss` for the page cache, `error`): hosts, tiers, sizes and times; the URL and
 * title only with `events.include_query`. Without events, the reader itself.
 */
function readEvents(events: Events, reader: Reader): Reader {
  if (!events.enabled) return reader;
  return {
    async read(request) {
      const started = performance.now();
      let host = "";
      try {
        host = new URL(request.url).hostname;
      } catch {
        // The reader refuses it below.
      }
      const where = { host, ...(events.includeQuery ? { url: request.url } : {}) };
      events.publish("fetch.requested", where);
      try {
        const page = await reader.read(request);
        if (page.tier === "cache") events.publish("cache.hit", { namespace: "pages", ...where });
        else if (!request.noCache) events.publish("cache.miss", { namespace: "pages", ...where });
        events.publish("fetch.completed", {
          ...where,
          tier_served: page.tier,
          text_len: page.markdown.length,
          latency_ms: Math.round(performance.now() - started),
          ...(events.includeQuery ? { title: page.title } : {}),
        });
        return page;
      } catch (error) {
        const failure = toGleanerError(error, "fetch");
        events.publish("error", { stage: "fetch", ...where, error_type: failure.code });
        throw error;
      }
    },
  };
}

/**
 * The router with the specification's events (`search.requested`, `cache.hit` or `cache.miss`
 * for the search cache, `search.completed`, `error`); the query only with
 * `events.include_query`. Without events, the router itself.
 */
function searchEvents(events: Events, router: SearchRouter): SearchRouter {
  if (!events.enabled) return router;
  return {
    get backends() {
      return router.backends;
    },
    async search(request) {
      const started = performance.now();
      events.publish("search.requested", {
        num_results: request.max_results ?? null,
        ...(request.time_range ? { time_range: request.time_range } : {}),
        ...(request.domain_profile ? { profile: request.domain_profile } : {}),
        ...(request.expand !== undefined ? { expand: request.expand } : {}),
        ...(events.includeQuery ? { query: request.query } : {}),
      });
      try {
        const response = await router.search(request);
        events.publish(response.cached ? "cache.hit" : "cache.miss", {
          namespace: "search",
          ...(response.age_s !== undefined ? { age_seconds: response.age_s } : {}),
        });
        events.publish("search.completed", {
          result_count: response.results.length,
          latency_ms: Math.round(performance.now() - started),
          sources: [...new Set(response.results.map((r) => r.source))],
          rerank_applied: response.reranked === true,
        });
        return response;
      } catch (error) {
        const failure = toGleanerError(error, "search");
        events.publish("error", { stage: "search", error_type: failure.code });
        throw error;
      }
    },
  };
}

/**
 * The router with the origins of every answer's results counted in domain memory
 * (`seen_in_search`), after the answer is handed back and never waited for: a search is
 * never slowed, and a failing store only logs.
 */
function noteSeen(router: SearchRouter, domains: DomainStats): SearchRouter {
  return {
    get backends() {
      return router.backends;
    },
    async search(request) {
      const response = await router.search(request);
      const origins: string[] = [];
      for (const result of response.results) {
        try {
          const url = new URL(result.url);
          if (url.protocol === "http:" || url.protocol === "https:") origins.push(url.origin);
        } catch {
          // Not a URL: nothing to count.
        }
      }
      if (origins.length > 0) {
        setTimeout(() => {
          domains.noteSeenInSearch(origins).catch((error) =>
            log.debug("search results not noted in domain memory: {error}", { error })
          );
        }, 0);
      }
      return response;
    },
  };
}

/**
 * The health checks of the components: the SQLite store, the cache server, the browser
 * (running, or a Chromium to start) and the memory backends.
 */
function healthChecks(
  config: Config,
  store: Store,
  tiers: ReturnType<typeof defaultTiers>,
  memoryStores: MemoryStores,
): HealthChecks {
  return {
    store() {
      try {
        store.db.prepare("SELECT 1").get();
        return Promise.resolve({ status: "ok", backend: "sqlite" });
      } catch (error) {
        log.warn("health: the SQLite store does not answer: {error}", { error });
        return Promise.resolve({
          status: "degraded",
          backend: "sqlite",
          reason: "the SQLite file does not answer (store.path)",
        });
      }
    },
    async cache() {
      if (store.backend === "sqlite") {
        return { status: "ok", backend: "sqlite", detail: "in the store" };
      }
      try {
        await store.ready();
        return { status: "ok", backend: "valkey" };
      } catch {
        return {
          status: "degraded",
          backend: "valkey",
          reason: "the cache server does not answer (store.cache_url); reads go on uncached",
        };
      }
    },
    async browser(): Promise<ComponentHealth> {
      if (config.read.render === "never") {
        return { status: "off", reason: "read.render is never" };
      }
      const stats = tiers.browserStats();
      const detail = stats?.running
        ? `running, ${stats.busy} pages busy, ${stats.idle} idle, ${stats.waiting} waiting`
        : "not started";
      if (config.read.browser_cdp_url) return { status: "ok", backend: "cdp", detail };
      try {
        // Loaded on the first check only: puppeteer is heavy.
        const { findChromium } = await import("./read/browser/launch.ts");
        await findChromium(config);
        return { status: "ok", backend: "chromium", detail };
      } catch {
        return {
          status: "degraded",
          backend: "chromium",
          reason: "no Chromium found (read.chrome_path): pages that need JavaScript read thin",
        };
      }
    },
    memory: () => Promise.resolve(memoryStores.status()),
  };
}

/**
 * Creates a Gleaner from an already validated configuration; the defaults
 * that come from the environment come from `options.env` (see
 * {@link CreateGleanerFromConfigOptions}).
 */
export function createGleanerFromConfig(
  config: Config,
  options: CreateGleanerFromConfigOptions = {},
): Gleaner {
  const env = options.env ?? readHostEnv();
  if (config.network.allow_private !== false) {
    log.warn(
      "network.allow_private is on ({value}): private and loopback addresses can be reached",
      {
        value: JSON.stringify(config.network.allow_private),
      },
    );
  }
  const fetcher = createFetcher(config.network, { env });
  const events = createEvents(config.events);
  const seen = (r: SearchRouter, d: DomainStats) => searchEvents(events, noteSeen(r, d));
  const store = openStore(config.store, { env });
  const hosted = config.memory.hosted;
  // The robots.txt cache is shared by every user: in hosted mode, when it was
  // fetched would tell one user what another read, so each user's reader
  // notes the state it went by instead (see notingRobots).
  if (!hosted) {
    fetcher.robots.observe((origin, state) => {
      store.domains.setRobots(origin, state).catch((error) =>
        log.debug("robots.txt state not stored: {error}", { error })
      );
    });
  }
  // The llms.txt tier notes what it finds in the reading reader's domain memory.
  const tiers = defaultTiers(config, { fetcher, env });
  // One traced cascade per set of grants of the operator's own tiers (at most four).
  const cascades = new Map<string, Tier[]>();
  const cascadeFor = (grants: OperatorTierGrants): Tier[] => {
    const key = `${grants.hister}/${grants.githubToken}`;
    let traced = cascades.get(key);
    if (!traced) {
      traced = tiers.tiersFor(grants).map(traceTier);
      cascades.set(key, traced);
    }
    return traced;
  };
  /**
   * What of the operator's own tiers a hosted user's reads may use: only what
   * the operator mapped to that user (`read.hister_users`, `read.github_token_users`).
   */
  const grantsOf = (user: string): OperatorTierGrants => ({
    hister: config.read.hister_users.includes(user),
    githubToken: config.read.github_token_users.includes(user),
  });
  const tierRule = config.read.tier_rules_path
    ? createTierRules(config.read.tier_rules_path)
    : undefined;
  const readerOver = (web: Pick<Store, "cache" | "domains">, cascade: Tier[]): Reader =>
    readEvents(
      events,
      createReader({
        config,
        fetcher,
        tiers: cascade,
        extract: tiers.extract,
        extractBody: tiers.extractBody,
        cache: traceCache(web.cache),
        domains: web.domains,
        tierRule,
        events,
      }),
    );
  // The operator's own reader (a library caller, a server that is not hosted): every tier.
  const reader = readerOver(store, cascadeFor(ALL_OPERATOR_TIERS));
  const roles = createRoleRouter({
    config,
    fetcher,
    cache: traceCache(store.cache),
    readPage: readPageWith(reader),
    // In hosted mode the Gleaner itself is the operator's: it may name any tenant's run.
    ...(hosted ? { runs: OPERATOR_RUN_REFS } : {}),
    ...(options.providers ? { providers: options.providers } : {}),
  });
  /**
   * The web side of one hosted tenant: their tenant of the store, and what reads through it,
   * with the operator's own tiers they were granted, and the provider runs they may name.
   */
  type WebView = Pick<Gleaner, "store" | "reader" | "roles" | "search">;
  const webViews = new LruCache<string, WebView>(MAX_WEB_VIEWS);
  const webView = (tenant: string, grants: OperatorTierGrants, runs: RunRefs): WebView => {
    const cached = webViews.get(tenant);
    if (cached) return cached;
    const own = store.forTenant(tenant);
    const userReader = notingRobots(readerOver(own, cascadeFor(grants)), {
      robots: fetcher.robots,
      domains: own.domains,
    });
    const userRoles = roles.withStore({
      cache: traceCache(own.cache),
      readPage: readPageWith(userReader),
      runs,
    });
    const view: WebView = {
      store: { ...store, cache: own.cache, domains: own.domains },
      reader: userReader,
      roles: userRoles,
      search: seen(traceSearch(createSearchRouter(config, fetcher, userRoles)), own.domains),
    };
    webViews.set(tenant, view);
    return view;
  };
  const hmacSecret = config.memory.hosted_hmac_secret ?? "";
  // A tenant is handed its provider runs' ids bound to it, and may resume only those.
  const webFor = (user: string): WebView => {
    const tenant = webTenant(hmacSecret, user);
    return webView(tenant, grantsOf(user), tenantRunRefs(hmacSecret, tenant));
  };
  // The operator's requests (admin key) read with every tier under a tenant of their own, so
  // what the operator's history or token brings back never lands in a user's cache; they may
  // name any tenant's provider run.
  const operatorWeb = (): WebView =>
    webView(operatorWebTenant(hmacSecret), ALL_OPERATOR_TIERS, OPERATOR_RUN_REFS);
  const clear = async (target: ClearTarget, operator: boolean): Promise<ClearCacheResult> => {
    if (hosted && !operator) {
      throw new GleanerError(
        "unauthorized",
        "clear_cache: in hosted mode only the operator may clear the cache (it is every user's); " +
          "the request must carry the operator's admin key (memory.hosted_admin_key) in the " +
          "x-gleaner-admin-key header",
      );
    }
    const removed = target === "domains" ? 0 : (await store.cache.clear(target)).removed;
    const forgotten = target === "domains" || target === "all" ? await store.domains.clear() : 0;
    return { removed, origins_forgotten: forgotten };
  };
  const operatorOf = (view: Gleaner, web?: WebView): Gleaner => {
    const elevated: Gleaner = {
      ...view,
      ...web,
      clearCache: (target) => clear(target, true),
      asOperator: () => elevated,
    };
    return elevated;
  };
  let embedderPromise: Promise<Embedder | undefined> | undefined;
  let expanderPromise: Promise<QueryExpander | undefined> | undefined;
  const memoryStores = new MemoryStores(config.memory, {
    embedder: () => gleaner.embedder(),
    env,
  });
  const health = createHealth(healthChecks(config, store, tiers, memoryStores), {
    ttlMs: config.server.health_ttl_ms,
  });
  const gleaner: Gleaner = {
    config,
    fetcher,
    events,
    search: seen(traceSearch(createSearchRouter(config, fetcher, roles)), store.domains),
    roles,
    reader,
    store,
    embedder() {
      embedderPromise ??= createEmbedder(config.embed, { fetcher, cache: store.embeddings, env })
        .then(
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
      expanderPromise ??= loadQueryExpander({ ...expanderOptions(config.rank), env }).catch(
        (error) => {
          log.warn("no query expansion: {error}", { error });
          return undefined;
        },
      );
      return expanderPromise;
    },
    memories() {
      return memoryStores.forUser();
    },
    warm() {
      tiers.warm();
      import("./rank/warm.ts").then((m) => m.warmRanking()).then(async () => {
        // The static model is parsed in one piece (about 200 ms of main thread): parse it now,
        // while the server is idle, not under the first ranked query (`deno task bench health`).
        // Other embedders load on first use (a transformers model is large; a remote one costs
        // nothing to create).
        if (config.embed.provider === "static") await gleaner.embedder();
        if (config.rank.expand_terms > 0) await gleaner.expander();
        // The cascade's reranker loads in its own thread (TF.js and the weights, about a second
        // of that thread): started last, so the first reranked question does not wait for it.
        if (config.rank.rerank !== "none") {
          await import("./embed/reranker.ts").then((m) => m.sharedReranker(config.rank));
        }
      }).catch((error) => {
        log.debug("ranking warm-up failed: {error}", { error });
      });
    },
    forUser(user: string): Gleaner {
      const view: Gleaner = {
        ...gleaner,
        ...(hosted ? webFor(user) : {}),
        memories: () => memoryStores.forUser(user),
        forUser: (other: string) => gleaner.forUser(other),
        clearCache: (target) => clear(target, false),
        asOperator: () => operatorOf(view, hosted ? operatorWeb() : undefined),
        close: () => Promise.resolve(),
      };
      return view;
    },
    clearCache: (target) => clear(target, false),
    asOperator: () => operatorOf(gleaner),
    health: () => health.report(),
    withProviders(providers) {
      const hostRoles = roles.withProviders(providers);
      return {
        ...gleaner,
        roles: hostRoles,
        search: traceSearch(createSearchRouter(config, fetcher, hostRoles)),
        close: () => Promise.resolve(),
      };
    },
    async close() {
      await memoryStores.close();
      await tiers.close();
      const embedder = await embedderPromise?.catch(() => undefined);
      await embedder?.close?.();
      await store.close();
      await events.close();
    },
  };
  return gleaner;
}
