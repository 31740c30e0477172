/**
 * The role router: answers `search`, `answer` and `contents` from the
 * configured providers in order. The first usable provider answers; when it
 * fails because of its own state (credentials, credit, plan, rate limit,
 * outage, a page or model it does not have, a page or domain it refuses) or
 * one of its own documented limits (`too_large`: a question longer than it
 * takes) the next is tried; a request the provider calls invalid, one a
 * provider refuses before sending as the caller's (`invalid_arguments`), or
 * an unclassified failure, stops the call, so Gleaner never silently switches
 * when the request itself is wrong. A `provider` argument pins the call to
 * that provider alone. A provider serves a role only when the configuration
 * lets it (`Provider.missingSetting`: keyless Jina reads but does not
 * search). A keyless search provider (DuckDuckGo, SearXNG) that answers zero
 * results hands over to the keyed providers after it
 * (`search.fallback_on_empty`, on by default); its empty answer stands when
 * none of them answers.
 *
 * Every failure of a provider counts in its breaker (only the caller's own
 * mistakes, refused before sending, Gleaner's own pacing, and the provider's
 * documented refusals of one request or page, `details.refusal`, do not); a
 * provider that keeps failing is skipped for a cool-down ({@link Breaker});
 * a provider's rate (`requests_per_second`, else its documented
 * `Provider.rateLimit`) is respected before every upstream request (the rate
 * gate of `lib/async/rate_gate.ts`). Every answer names its `role`, the
 * `provider` that served it and `fallback_from` (the providers that failed
 * first, with their codes). Search answers are cached (1 hour by default)
 * unless `no_cache` is set.
 *
 * @module
 */
import { type ErrorCode, GleanerError, permissionError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import type { Fetcher } from "../net/types.ts";
import type { Cache } from "../store/types.ts";
import { type Breaker, createBreaker, type ProviderHealth } from "./breaker.ts";
import { createRateGate, type RateGate, type RateLimit } from "../async/rate_gate.ts";
import { normalizeDomain, resultKey, siteHint, urlInDomains } from "./domains.ts";
import { mergeHits, poolOrder, poolRuns } from "./keyless_pool.ts";
import { FALLBACK_CODES, providerFailure } from "../net/classify.ts";
import { providerSettings } from "./providers/http.ts";
import { createReaderProvider, GLEANER_READER, type ReadPage } from "./providers/reader.ts";
import {
  configuredProviders,
  providerByName,
  roleOrder,
  servesRole,
} from "./providers/registry.ts";
import type {
  Provider,
  ProviderAnswer,
  ProviderConfig,
  ProviderContents,
  ProviderEnv,
  ProviderHit,
  ProviderPage,
  ProviderSearchRequest,
  Role,
} from "./providers/types.ts";
import { type Attempt, type AttemptOutcome, SearchFailure } from "../net/upstream_failure.ts";
import { isTimeRange, TIME_RANGE_LIST, type TimeRange } from "./time_range.ts";
import { OPEN_RUN_REFS, type RunRefs, sealAnswer, sealFailure } from "./run_refs.ts";
import { boundHits, boundOutput } from "./bounds.ts";
import { assertSearchEnabled } from "./switch.ts";

const log = getGleanerLogger("search", "roles");

/** Page failures of a contents provider that another provider may not share. */
const PAGE_RETRY_CODES: ReadonlySet<string> = new Set([
  "not_found",
  "provider_unavailable",
  "unsupported_content",
  "timeout",
  "rate_limited",
  "insufficient_balance",
  "unauthorized",
]);

/** Largest `max_results` one search may ask for. */
const ROLE_MAX_RESULTS = 100;

/** A provider that failed (or was skipped) before the one that answered. */
export interface FallbackEntry {
  /** Provider name. */
  provider: string;
  /**
   * The failure's code, or `empty` for a keyless provider whose zero results
   * fell through to a keyed one (`search.fallback_on_empty`).
   */
  code: string;
  /** True when it was not asked because it is cooling down after failures. */
  skipped?: boolean;
}

/** What every role answer carries. */
export interface RoleMeta {
  /** The role served. */
  role: Role;
  /** The provider that answered (keyless engines asked together: their names joined by `+`). */
  provider: string;
  /** Providers that failed first, in order, with their codes. */
  fallback_from: FallbackEntry[];
  /** Every provider call made, with outcome and duration. */
  attempts: Attempt[];
  /**
   * What the answering provider changed in the request to fit its documented
   * limits (a query trimmed, a language it cannot express dropped), when anything.
   */
  notices?: string[];
}

/** A search for the `search` role. */
export interface RoleSearchRequest {
  /** What to search for. */
  query: string;
  /** Most results (1–100). */
  max_results: number;
  /** Only results this recent. */
  time_range?: TimeRange;
  /** Preferred language. */
  language?: string;
  /** Only these domains. */
  domains?: string[];
  /** Never these domains. */
  exclude_domains?: string[];
  /** `news` asks providers' news indexes. */
  topic?: "general" | "news";
  /** `deep` asks for providers' more thorough search. */
  depth?: "quick" | "deep";
  /** Pin one provider (no fallback). */
  provider?: string;
  /** SearXNG categories for this search (`general`, `news`, `it`, `science`). */
  categories?: string[];
  /** SearXNG engines for this search. */
  engines?: string[];
  /** Skip the cache (the fresh answer is still stored). */
  no_cache?: boolean;
  /** Cancels the call. */
  signal?: AbortSignal;
}

/** The answer of the `search` role. */
export interface RoleSearchResponse extends RoleMeta {
  /** Deduplicated hits inside the domain filters, at most `max_results`. */
  results: ProviderHit[];
  /** True when answered from the cache. */
  cached: boolean;
  /** Age of the cached answer (seconds), when cached. */
  age_s?: number;
}

/** A question for the `answer` role. */
export interface RoleAnswerRequest {
  /** The question. */
  query: string;
  /** `quick` or `deep`. */
  depth?: "quick" | "deep";
  /** Pin one provider. */
  provider?: string;
  /**
   * Resumes an answer an earlier call left `in_progress` (its `interaction_id`):
   * asked of the pinned provider, else of the first usable provider that resumes answers.
   */
  interaction_id?: string;
  /** Cancels the call. */
  signal?: AbortSignal;
}

/** The answer of the `answer` role. */
export interface RoleAnswerResponse extends RoleMeta, ProviderAnswer {
  /** The depth asked. */
  depth: "quick" | "deep";
}

/** Pages for the `contents` role. */
export interface RoleContentsRequest {
  /** One to ten URLs. */
  urls: string[];
  /** What the reader is looking for. */
  query?: string;
  /** Pin one provider. */
  provider?: string;
  /** Keep only the element this CSS selector matches (Gleaner's reader only). */
  targetSelector?: string;
  /** Render in the browser and wait for this CSS selector (Gleaner's reader only). */
  waitForSelector?: string;
  /** Cancels the call. */
  signal?: AbortSignal;
}

/** The answer of the `contents` role. */
export interface RoleContentsResponse extends RoleMeta, ProviderContents {}

/** Routes role calls over the configured providers. */
export interface RoleRouter {
  /** The provider names usable for a role now, in order. */
  providers(role: Role): string[];
  /** Every configured provider (Gleaner's reader excluded). */
  configured(): Provider[];
  /** Runs a search. */
  search(req: RoleSearchRequest): Promise<RoleSearchResponse>;
  /** Answers a question. */
  answer(req: RoleAnswerRequest): Promise<RoleAnswerResponse>;
  /** Reads pages. */
  contents(req: RoleContentsRequest): Promise<RoleContentsResponse>;
  /**
   * Runs one call of one provider (its own tools) under the same pacing,
   * breaker and classification as routed calls; no fallback.
   */
  invoke<T>(
    provider: string,
    call: (env: ProviderEnv, runId?: string) => Promise<T>,
    signal?: AbortSignal,
    /** Receives what the provider changed in the request to fit its documented limits. */
    notices?: string[],
    /** For a call that starts or resumes a long-running run: see {@link RunCall}. */
    run?: RunCall,
  ): Promise<T>;
  /** What the breaker knows of each provider. */
  health(): ProviderHealth[];
  /**
   * How this router's caller names long-running runs (see `run_refs.ts`):
   * in hosted mode a tenant is handed references bound to it and may resume
   * only those; `answer` applies it to `interaction_id`, a provider's own
   * tool that starts or resumes a run applies it to its id.
   */
  readonly runs: RunRefs;
  /**
   * The same router (providers, breaker, pacing: upstream limits are shared)
   * over another search cache and page reader, and another caller's run
   * references: in hosted mode, a user's own.
   */
  withStore(view: { cache?: Cache; readPage?: ReadPage; runs?: RunRefs }): RoleRouter;
  /**
   * The same router (breaker, pacing, cache, reader, runs) with the host's own providers
   * joining the built-in ones ({@link RoleRouterOptions.providers}): they take part in each
   * role's fallback, breaker and cache like any other.
   */
  withProviders(providers: readonly Provider[]): RoleRouter;
}

/**
 * A provider call that starts or resumes a long-running run
 * ({@link RoleRouter.invoke}): the run id its answer (or failure) carries is
 * handed back as the caller's reference ({@link RoleRouter.runs}), and a
 * reference the caller gives is opened first: `call` receives the upstream
 * id, and a run the caller may not name is `not_found` before anything is sent.
 */
export interface RunCall {
  /** The caller's reference to a run started earlier, when the call resumes one. */
  ref?: string;
  /** The input field that carried `ref`, named in a refusal (default `run_id`). */
  field?: string;
}

/** Options of {@link createRoleRouter}. */
export interface RoleRouterOptions {
  /** The configuration. */
  config: ProviderConfig;
  /** The guarded fetcher. */
  fetcher: Fetcher;
  /** Where search answers are cached (namespace `search`). */
  cache?: Cache;
  /** Gleaner's page reader: the `contents` role's last resort. */
  readPage?: ReadPage;
  /** Clock of the breaker (benchmarks and tests). */
  now?: () => number;
  /** How the caller names long-running runs; default: by their upstream ids ({@link OPEN_RUN_REFS}). */
  runs?: RunRefs;
  /**
   * The host's own providers, beside the built-in ones: each serves the roles it declares
   * when `isConfigured` says so, and comes first in those roles' default order (a host that
   * supplies a provider wants it asked); `search.<role>_order` may name them like any other.
   * They share the router's fallback, breaker, pacing and search cache. A name that is
   * already a provider's is refused (`invalid_arguments`).
   */
  providers?: readonly Provider[];
}

/** The outcome recorded for a failure code. */
function outcomeOf(failure: GleanerError): AttemptOutcome {
  if (failure instanceof SearchFailure) return failure.outcome;
  return failure.code === "rate_limited" ? "rate_limited" : "unavailable";
}

function invalid(field: string, message: string): GleanerError {
  return new GleanerError("invalid_arguments", `${field}: ${message}`, { details: { field } });
}

/** What {@link route} returns: the value and the record of how it was obtained. */
interface Routed<T> {
  value: T;
  provider: string;
  fallback_from: FallbackEntry[];
  attempts: Attempt[];
  notices: string[];
}

/** The `notices` field of an answer: present only when there is something to say. */
function noticesOf(notices: string[]): { notices?: string[] } {
  return notices.length > 0 ? { notices } : {};
}

/**
 * Creates the role router.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "../config/parse.ts";
 * import { createFetcher } from "../net/fetch.ts";
 * import { createRoleRouter } from "./roles.ts";
 * const config = parseConfig({ search: { exa_api_key: Deno.env.get("EXA_API_KEY") } });
 * const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
 * const { answer, citations, provider, fallback_from } = await roles.answer({ query: "what is WAL mode in SQLite" });
 * ```
 */
export function createRoleRouter(options: RoleRouterOptions): RoleRouter {
  const breaker: Breaker = createBreaker({
    failures: options.config.search.breaker_failures,
    cooldownMs: options.config.search.breaker_cooldown_ms,
    now: options.now,
  });
  return routerOver(options, breaker, createRateGate(), { turn: 0 });
}

/** Where the keyless pool's rotation stands (shared by a router and its `withStore` views). */
interface PoolTurns {
  /** The turn of the next search (see `keyless_pool.ts`). */
  turn: number;
}

/** How a role call spreads over a run of keyless engines (search only). */
interface PoolSpec<T> {
  /** Engines asked at once (`search.keyless_engines_per_query`). */
  perQuery: number;
  /** True when the engine can honour this request (its time ranges). */
  serves(engine: Provider): boolean;
  /** True for an answer without results. */
  isEmpty(value: T): boolean;
  /** One answer from the answers with results, in the order the engines were asked. */
  merge(values: T[]): T;
}

/**
 * The error of a route every provider failed: each provider tried (or skipped
 * while cooling down), the addresses the operator must fix, and the last cause.
 */
function everyProviderFailed(
  role: Role,
  last: GleanerError | undefined,
  unresolved: ReadonlySet<string>,
  attempts: Attempt[],
  fallback_from: FallbackEntry[],
): GleanerError {
  const tried = fallback_from.map((f) => `${f.provider} (${f.skipped ? "cooling down" : f.code})`);
  const codes = new Set(fallback_from.filter((f) => !f.skipped).map((f) => f.code));
  const code: ErrorCode = codes.size === 1 ? [...codes][0] as ErrorCode : "provider_unavailable";
  const cause = last ? innermostMessage(last) : undefined;
  return withRecord(
    last ?? new GleanerError("provider_unavailable", "no provider answered"),
    `${role}: every provider failed: ${tried.join(", ")}` +
      (unresolved.size > 0 ? `; ${[...unresolved].join("; ")}` : "") +
      (cause && ![...unresolved].some((u) => u.includes(cause)) ? `; last cause: ${cause}` : ""),
    code,
    attempts,
    fallback_from,
  );
}

/** The answer of a search found in the cache. */
function cachedSearchResponse(hit: CachedSearch): RoleSearchResponse {
  return {
    role: "search",
    provider: hit.provider,
    fallback_from: [],
    attempts: [{ backend: "cache", outcome: "ok", ms: 0 }],
    results: hit.results,
    cached: true,
    age_s: Math.max(0, Math.round((Date.now() - hit.saved_at) / 1000)),
    ...noticesOf(Array.isArray(hit.notices) ? hit.notices : []),
  };
}

/**
 * The request one search provider is asked: a provider without native domain
 * filters gets the `site:` hint in its query.
 */
function upstreamSearch(
  req: RoleSearchRequest,
  provider: Provider,
  hint: string,
  domains: string[],
  exclude: string[],
): ProviderSearchRequest {
  const hinted = !provider.nativeDomains && hint !== "";
  return {
    query: hinted ? `${req.query.trim()} ${hint}` : req.query.trim(),
    ...(hinted ? { site_hint: hint } : {}),
    max_results: req.max_results,
    time_range: req.time_range,
    language: req.language,
    domains,
    exclude_domains: exclude,
    topic: req.topic,
    depth: req.depth,
    ...(req.categories?.length ? { categories: req.categories } : {}),
    ...(req.engines?.length ? { engines: req.engines } : {}),
  };
}

/**
 * How the answer providers are arranged for a question of `depth`: a deep-only
 * provider (Gemini Deep Research) never takes a quick question, and a deep one
 * asks it first unless `search.answer_order` orders the providers itself.
 */
function answerArrangement(
  depth: "quick" | "deep",
  explicitOrder: boolean,
): (list: Provider[]) => Provider[] {
  return (list) =>
    depth === "quick"
      ? list.filter((p) => !p.deepAnswersOnly)
      : explicitOrder
      ? list
      : [...list.filter((p) => p.deepAnswersOnly), ...list.filter((p) => !p.deepAnswersOnly)];
}

/**
 * Books a failure in the breaker unless the provider was never asked (our
 * own pacing), refused the caller's request before sending it, or refused
 * this request or page as its documentation says (`details.refusal`: a
 * query over its length, a domain it will not read), which says nothing
 * of its health.
 */
function recordFailure(breaker: Breaker, name: string, failure: SearchFailure): void {
  const d = failure.details;
  if (d?.local === true || d?.request === true || d?.refusal === true) return;
  const retry = failure.details?.retry_after_s;
  breaker.failure(
    name,
    failure.code,
    typeof retry === "number" ? retry : undefined,
    failure.outcome === "blocked",
  );
}

/** A role router over `options`' cache and reader, with a breaker and rate gate it may share. */
function routerOver(
  options: RoleRouterOptions,
  breaker: Breaker,
  gate: RateGate,
  turns: PoolTurns,
): RoleRouter {
  const { config, fetcher, cache } = options;
  const runs = options.runs ?? OPEN_RUN_REFS;
  const hostProviders = checkedHostProviders(options.providers ?? []);
  const readerProvider = options.readPage ? createReaderProvider(options.readPage) : undefined;
  const extra: Provider[] = [...hostProviders, ...(readerProvider ? [readerProvider] : [])];
  // Orders are validated once, up front: a misspelt provider is a config error. The host's
  // providers come first in a role's default order.
  const orderOf = (role: Role): string[] => {
    const order = roleOrder(config, role, extra);
    if (config.search[`${role}_order`].length > 0) return order;
    const hosts = hostProviders.filter((p) => p.roles.includes(role)).map((p) => p.name);
    return [...hosts, ...order];
  };
  const orders: Record<Role, string[]> = {
    search: orderOf("search"),
    answer: orderOf("answer"),
    contents: orderOf("contents"),
  };

  const usable = (role: Role): Provider[] => {
    const list: Provider[] = [];
    for (const name of orders[role]) {
      const provider = providerByName(name, extra);
      if (provider && servesRole(provider, role, config)) list.push(provider);
    }
    // The user always has a way to read a URL.
    if (role === "contents" && readerProvider && list.length === 0) list.push(readerProvider);
    return list;
  };

  const pinned = (role: Role, name: string): Provider => {
    const provider = providerByName(name, extra);
    if (!provider) throw invalid("provider", `${name} is not a provider Gleaner knows`);
    if (!provider.roles.includes(role)) {
      throw invalid("provider", `${name} does not serve ${role}`);
    }
    if (!provider.isConfigured(config)) {
      throw invalid("provider", `${name} is not configured (set ${provider.configHint})`);
    }
    const needs = provider.missingSetting?.(role, config);
    if (needs !== undefined) throw invalid("provider", `${name} serves ${role} only with ${needs}`);
    return provider;
  };

  /** The provider's rate: its setting, else its documented limit under this configuration. */
  const rateOf = (provider: Provider): number | RateLimit | undefined =>
    config.search.providers[provider.name]?.requests_per_second ??
      provider.rateLimit?.(config) ?? provider.defaultRequestsPerSecond;

  const localLimit = (provider: Provider) =>
    new SearchFailure("rate_limited", `${provider.name}: local rate limit reached`, {
      backend: provider.name,
      details: { provider: provider.name, local: true },
    });

  /**
   * One provider call under pacing and breaker bookkeeping. The call's slot
   * is its first upstream request; every further request it makes through
   * `callJson` (a page each, a poll) waits for its own slot (`env.pace`).
   */
  const callOne = async <T>(
    provider: Provider,
    call: (env: ProviderEnv) => Promise<T>,
    signal: AbortSignal | undefined,
    notices?: string[],
  ): Promise<T> => {
    const settings = providerSettings(config, provider.name, { baseUrl: "", maxResults: 0 });
    const rate = rateOf(provider);
    if (!await gate.wait(provider.name, rate, settings.timeoutMs, signal)) {
      throw localLimit(provider);
    }
    let slotTaken = false;
    const pace = async (timeoutMs: number) => {
      if (!slotTaken) {
        slotTaken = true;
        return;
      }
      if (!await gate.wait(provider.name, rate, timeoutMs, signal)) throw localLimit(provider);
    };
    const notice = notices ? (text: string) => void notices.push(text) : undefined;
    return await call({ config, fetcher, signal, pace, ...(notice ? { notice } : {}) });
  };

  const record = (name: string, failure: SearchFailure) => recordFailure(breaker, name, failure);

  /** Tries providers in order; see the module description. */
  const route = async <T>(
    role: Role,
    pin: string | undefined,
    signal: AbortSignal | undefined,
    call: (provider: Provider, env: ProviderEnv) => Promise<T>,
    isEmpty?: (value: T) => boolean,
    pool?: PoolSpec<T>,
    arrange?: (providers: Provider[]) => Provider[],
  ): Promise<Routed<T>> => {
    const listed = pin ? [pinned(role, pin)] : usable(role);
    const candidates = arrange && !pin ? arrange(listed) : listed;
    if (candidates.length === 0) {
      const hints = orders[role].map((name) => providerByName(name, extra)?.configHint)
        .filter(Boolean);
      throw new GleanerError(
        "invalid_arguments",
        `${role}: no provider is configured for this role (set ${hints.join(" or ")})`,
        { details: { role } },
      );
    }
    const attempts: Attempt[] = [];
    const fallback_from: FallbackEntry[] = [];
    let last: GleanerError | undefined;
    // Host names that could not be resolved, named in the final message.
    const unresolved = new Set<string>();
    const open = candidates.filter((p) => !pin && breaker.isOpen(p.name));
    // When every candidate is cooling down, try them anyway rather than fail unasked.
    const skipping = open.length < candidates.length;
    // A keyless provider's empty answer, kept while keyed ones after it are asked.
    let empty: { value: T; provider: string; notices: string[] } | undefined;
    const emptyAnswer = (): Routed<T> | undefined =>
      empty && {
        value: empty.value,
        provider: empty.provider,
        fallback_from: fallback_from.filter((f) => f.provider !== empty!.provider),
        attempts,
        notices: empty.notices,
      };
    /** Books a failed call: attempt, fallback entry, breaker, log; true when the route goes on. */
    const failed = (provider: Provider, error: unknown, ms: number): boolean => {
      if (signal?.aborted) {
        throw new GleanerError("timeout", `${role}: the call was cancelled`, { cause: error });
      }
      const failure = asFailure(error, provider.name);
      last = failure;
      // A configured address that cannot be used (its name does not resolve, the network
      // policy refuses it) is the operator's to fix: its message, with the setting, is kept.
      if (
        failure.cause instanceof GleanerError &&
        (typeof failure.cause.details?.host === "string" ||
          failure.cause.details?.setting === "network.allow_private")
      ) {
        unresolved.add(failure.message);
      }
      attempts.push({ backend: provider.name, outcome: outcomeOf(failure), ms });
      fallback_from.push({ provider: provider.name, code: failure.code });
      const fallsBack = failure.details?.request !== true && FALLBACK_CODES.has(failure.code);
      record(provider.name, failure);
      log.warn("{role}: {provider} failed ({code}): {message}", {
        role,
        provider: provider.name,
        code: failure.code,
        message: failure.message,
      });
      if (pin || !fallsBack) {
        // A keyless provider already answered (with nothing): that answer stands.
        if (emptyAnswer()) return false;
        throw withRecord(failure, failure.message, failure.code, attempts, fallback_from);
      }
      return true;
    };
    /** One call, settled: the value and what the provider changed, or what it threw. */
    type Settled =
      | { ok: true; provider: Provider; value: T; notices: string[]; ms: number }
      | { ok: false; provider: Provider; error: unknown; ms: number };
    const settle = async (provider: Provider): Promise<Settled> => {
      const started = performance.now();
      const notices: string[] = [];
      try {
        const value = await callOne(provider, (env) => call(provider, env), signal, notices);
        return { ok: true, provider, value, notices, ms: Math.round(performance.now() - started) };
      } catch (error) {
        return { ok: false, provider, error, ms: Math.round(performance.now() - started) };
      }
    };
    const steps = pin || !pool ? candidates.map((p) => [p]) : poolRuns(candidates);
    for (const [index, step] of steps.entries()) {
      const later = steps.slice(index + 1).flat();
      if (step.length > 1 && pool) {
        // A run of keyless engines: a few at once, each failure replaced by the next. The
        // rotation runs over the engines not cooling down, so their load stays even.
        const fit = step.filter((engine) => pool.serves(engine));
        const cooling = (engine: Provider) => skipping && open.includes(engine);
        for (const engine of (fit.length > 0 ? fit : step).filter(cooling)) {
          fallback_from.push({
            provider: engine.name,
            code: "provider_unavailable",
            skipped: true,
          });
        }
        const queue = poolOrder(
          (fit.length > 0 ? fit : step).filter((engine) => !cooling(engine)),
          turns.turn,
          (engine) => gate.delayOf(engine.name, rateOf(engine)),
        );
        turns.turn += pool.perQuery;
        const answers: { provider: string; value: T; notices: string[] }[] = [];
        const empties: { provider: string; value: T; notices: string[] }[] = [];
        while (answers.length < pool.perQuery && queue.length > 0) {
          const batch = queue.splice(0, pool.perQuery - answers.length);
          for (const got of await Promise.all(batch.map(settle))) {
            const name = got.provider.name;
            if (!got.ok) {
              if (!failed(got.provider, got.error, got.ms)) return emptyAnswer()!;
              continue;
            }
            breaker.success(name);
            const value = got.value;
            const outcome = pool.isEmpty(value) ? "empty" : "ok";
            attempts.push({ backend: name, outcome, ms: got.ms });
            (outcome === "ok" ? answers : empties).push({
              provider: name,
              value,
              notices: got.notices,
            });
          }
        }
        if (answers.length > 0) {
          for (const none of empties) {
            fallback_from.push({ provider: none.provider, code: "empty" });
          }
          return {
            value: pool.merge(answers.map((a) => a.value)),
            provider: answers.map((a) => a.provider).join("+"),
            fallback_from,
            attempts,
            notices: answers.flatMap((a) => a.notices),
          };
        }
        if (empties.length > 0) {
          if (isEmpty !== undefined && later.some((next) => !next.keyless)) {
            for (const none of empties) {
              fallback_from.push({ provider: none.provider, code: "empty" });
            }
            empty ??= empties[0];
            continue;
          }
          return { ...empties[0], fallback_from, attempts };
        }
        continue;
      }
      const provider = step[0];
      if (skipping && open.includes(provider)) {
        fallback_from.push({
          provider: provider.name,
          code: "provider_unavailable",
          skipped: true,
        });
        continue;
      }
      const got = await settle(provider);
      if (!got.ok) {
        if (!failed(provider, got.error, got.ms)) return emptyAnswer()!;
        continue;
      }
      const { value, notices, ms } = got;
      breaker.success(provider.name);
      const fallsThrough = isEmpty !== undefined && isEmpty(value) &&
        provider.keyless === true && later.some((next) => !next.keyless);
      if (fallsThrough) {
        attempts.push({ backend: provider.name, outcome: "empty", ms });
        fallback_from.push({ provider: provider.name, code: "empty" });
        empty ??= { value, provider: provider.name, notices };
        continue;
      }
      attempts.push({ backend: provider.name, outcome: "ok", ms });
      // A provider skipped for a configured address the operator must fix is said even when
      // the next one answered: otherwise the configured one is silently never used.
      return {
        value,
        provider: provider.name,
        fallback_from,
        attempts,
        notices: [...unresolved, ...notices],
      };
    }
    const answered = emptyAnswer();
    if (answered) return answered;
    throw everyProviderFailed(role, last, unresolved, attempts, fallback_from);
  };

  /**
   * Pages the answering contents provider could not read for reasons of its
   * own (not in its index, could not load them, out of credit, …) are asked
   * of the next contents providers in order, those pages only; a page one of
   * them reads says so in `provider`. Pages refused as the caller's (a
   * blocked or invalid URL) are not asked again.
   */
  const refill = async (
    pages: ProviderPage[],
    answered: string,
    attempts: Attempt[],
    req: RoleContentsRequest,
  ): Promise<ProviderPage[]> => {
    const out = pages.slice();
    const order = usable("contents");
    const next = order.slice(order.findIndex((p) => p.name === answered) + 1);
    for (const provider of next) {
      const wanted = out.flatMap((page, i) =>
        page.error && PAGE_RETRY_CODES.has(page.error.code) && i < req.urls.length ? [i] : []
      );
      if (wanted.length === 0) break;
      if (breaker.isOpen(provider.name)) continue;
      const started = performance.now();
      try {
        const got = await callOne(
          provider,
          (env) =>
            provider.contents!({ urls: wanted.map((i) => req.urls[i]), query: req.query }, env),
          req.signal,
        );
        breaker.success(provider.name);
        attempts.push({
          backend: provider.name,
          outcome: "ok",
          ms: Math.round(performance.now() - started),
        });
        got.pages.forEach((page, j) => {
          if (j < wanted.length && !page.error) {
            out[wanted[j]] = { ...page, url: req.urls[wanted[j]], provider: provider.name };
          }
        });
      } catch (error) {
        if (req.signal?.aborted) {
          throw new GleanerError("timeout", "contents: the call was cancelled", { cause: error });
        }
        const failure = asFailure(error, provider.name);
        record(provider.name, failure);
        attempts.push({
          backend: provider.name,
          outcome: outcomeOf(failure),
          ms: Math.round(performance.now() - started),
        });
      }
    }
    return out;
  };

  const searchOnce = async (req: RoleSearchRequest): Promise<RoleSearchResponse> => {
    const domains = validateSearch(req);
    const exclude = [
      ...new Set((req.exclude_domains ?? []).map((d) => normalizeDomain(d, "exclude_domains"))),
    ];
    const hint = siteHint(domains);
    const routed = await route(
      "search",
      req.provider,
      req.signal,
      async (provider, env) => {
        const upstream = upstreamSearch(req, provider, hint, domains, exclude);
        const hits = await provider.search!(upstream, env);
        return boundHits(refine(hits, domains, exclude, req.max_results));
      },
      config.search.fallback_on_empty ? (hits) => hits.length === 0 : undefined,
      {
        perQuery: config.search.keyless_engines_per_query,
        serves: (engine) =>
          !req.time_range || !engine.timeRanges || engine.timeRanges.includes(req.time_range),
        isEmpty: (hits) => hits.length === 0,
        merge: (lists) => mergeHits(lists, req.max_results),
      },
    );
    const last = routed.attempts[routed.attempts.length - 1];
    if (routed.value.length === 0 && last.backend === routed.provider && last.outcome === "ok") {
      last.outcome = "empty";
    }
    return {
      role: "search",
      provider: routed.provider,
      fallback_from: routed.fallback_from,
      attempts: routed.attempts,
      results: routed.value,
      cached: false,
      ...noticesOf(routed.notices),
    };
  };

  return {
    providers: (role) => usable(role).map((p) => p.name),
    configured: () => [
      ...configuredProviders(config),
      ...hostProviders.filter((p) => p.isConfigured(config)),
    ],
    async search(req) {
      assertSearchEnabled(config, "search");
      const key = cache ? searchKey(req, orders.search) : undefined;
      if (cache && key && !req.no_cache) {
        const hit = await cache.get<CachedSearch>("search", key).catch((error) => {
          log.debug("search cache unavailable: {error}", { error });
          return undefined;
        });
        if (hit && Array.isArray(hit.results)) return cachedSearchResponse(hit);
      }
      const answer = await searchOnce(req);
      if (cache && key && answer.results.length > 0) {
        const entry: CachedSearch = {
          provider: answer.provider,
          results: answer.results,
          saved_at: Date.now(),
          ...(answer.notices ? { notices: answer.notices } : {}),
        };
        await cache.set("search", key, entry).catch((error) => {
          log.debug("search answer not cached: {error}", { error });
        });
      }
      return answer;
    },
    async answer(req) {
      assertSearchEnabled(config, "answer");
      if (typeof req.query !== "string" || req.query.trim() === "") {
        throw invalid("query", "must be a non-empty string");
      }
      const resume = req.interaction_id;
      // Only deep answers run long enough to be resumed.
      const depth = resume !== undefined ? "deep" : req.depth ?? "quick";
      let pin = req.provider;
      let resumed: string | undefined;
      if (resume !== undefined) {
        if (typeof resume !== "string" || resume.trim() === "") {
          throw invalid("interaction_id", "must be a non-empty string");
        }
        // Only the provider that started a run can resume it: never fall back to another.
        const resumer = pin
          ? pinned("answer", pin)
          : usable("answer").find((p) => p.resumesAnswers);
        if (!resumer?.resumesAnswers) {
          throw invalid(
            "interaction_id",
            pin
              ? `${pin} does not resume answers`
              : "no configured answer provider resumes answers",
          );
        }
        pin = resumer.name;
        // A run this caller was not handed is not found, its provider never asked.
        resumed = runs.open(resumer.name, resume, "interaction_id");
      } else if (pin !== undefined && depth === "deep" && pinned("answer", pin).quickAnswersOnly) {
        throw invalid("depth", `${pin} answers at quick depth only: ask it with depth "quick"`);
      } else if (pin !== undefined && depth === "quick" && pinned("answer", pin).deepAnswersOnly) {
        throw invalid("depth", `${pin} answers at deep depth only: ask it with depth "deep"`);
      }
      const arrange = resumed !== undefined
        ? undefined
        : answerArrangement(depth, config.search.answer_order.length > 0);
      // With a deep-only provider in the chain, the others answer grounded, not the same research.
      const grounded = resumed === undefined && pin === undefined &&
        usable("answer").some((p) => p.deepAnswersOnly);
      let routed: Routed<ProviderAnswer>;
      try {
        routed = await route(
          "answer",
          pin,
          req.signal,
          (provider, env) =>
            provider.answer!({
              query: req.query.trim(),
              depth,
              ...(resumed !== undefined ? { interaction_id: resumed } : {}),
              ...(grounded && !provider.deepAnswersOnly ? { grounded: true } : {}),
            }, env),
          undefined,
          undefined,
          arrange,
        );
      } catch (error) {
        // A run the failure names is named by the caller's reference.
        const provider = pin ?? (error instanceof SearchFailure ? error.backend : undefined);
        throw provider !== undefined
          ? sealFailure(runs, provider, error, resumed !== undefined ? [resumed] : [])
          : error;
      }
      return {
        role: "answer",
        provider: routed.provider,
        fallback_from: routed.fallback_from,
        attempts: routed.attempts,
        ...noticesOf(routed.notices),
        depth,
        ...sealAnswer(runs, routed.provider, boundOutput(routed.value)),
      };
    },
    async contents(req) {
      if (!Array.isArray(req.urls) || req.urls.length < 1 || req.urls.length > 10) {
        throw invalid("urls", "must list one to ten URLs");
      }
      if (req.urls.some((url) => typeof url !== "string")) {
        throw invalid("urls", "every entry must be a string");
      }
      const selectors = {
        ...(req.targetSelector !== undefined ? { targetSelector: req.targetSelector } : {}),
        ...(req.waitForSelector !== undefined ? { waitForSelector: req.waitForSelector } : {}),
      };
      // Selectors need a DOM: only Gleaner's own reader has one, so they pin it.
      const withSelectors = Object.keys(selectors).length > 0;
      if (withSelectors && req.provider !== undefined && req.provider !== GLEANER_READER) {
        const field = req.targetSelector !== undefined ? "target_selector" : "wait_for_selector";
        throw invalid(
          field,
          `only the ${GLEANER_READER} provider reads with CSS selectors, not ${req.provider}`,
        );
      }
      const pin = withSelectors ? GLEANER_READER : req.provider;
      // Each URL is checked against the network policy by the provider that
      // reads it (see providers/pages.ts): a refused URL fails alone.
      const routed = await route(
        "contents",
        pin,
        req.signal,
        (provider, env) =>
          provider.contents!({ urls: req.urls, query: req.query, ...selectors }, env),
      );
      const pages = pin
        ? routed.value.pages
        : await refill(routed.value.pages, routed.provider, routed.attempts, req);
      return {
        role: "contents",
        provider: routed.provider,
        fallback_from: routed.fallback_from,
        attempts: routed.attempts,
        ...noticesOf(routed.notices),
        pages,
        ...(routed.value.provider_data ? { provider_data: routed.value.provider_data } : {}),
      };
    },
    async invoke(name, call, signal, notices, run) {
      const provider = providerByName(name, extra);
      if (!provider || !provider.isConfigured(config)) {
        throw invalid("provider", `${name} is not configured`);
      }
      // A run this caller was not handed is not found, its provider never asked.
      const id = run?.ref !== undefined
        ? runs.open(name, run.ref, run.field ?? "run_id")
        : undefined;
      try {
        const value = boundOutput(
          await callOne(provider, (env) => call(env, id), signal, notices),
        );
        breaker.success(name);
        return run ? sealAnswer(runs, name, value) : value;
      } catch (error) {
        if (signal?.aborted) throw new GleanerError("timeout", `${name}: the call was cancelled`);
        const failure = asFailure(error, name);
        record(name, failure);
        throw run ? sealFailure(runs, name, failure, id !== undefined ? [id] : []) : failure;
      }
    },
    health: () => breaker.health(),
    runs,
    withStore: (view) =>
      routerOver(
        { ...options, cache: view.cache, readPage: view.readPage, runs: view.runs },
        breaker,
        gate,
        turns,
      ),
    withProviders: (providers) =>
      routerOver(
        { ...options, providers: [...hostProviders, ...providers] },
        breaker,
        gate,
        turns,
      ),
  };
}

/** The host's providers, refused when a name is taken (by a built-in provider or another). */
function checkedHostProviders(providers: readonly Provider[]): readonly Provider[] {
  const seen = new Set<string>();
  for (const provider of providers) {
    if (
      typeof provider?.name !== "string" || !/^[a-z][a-z0-9_]{0,63}$/.test(provider.name) ||
      provider.name === GLEANER_READER || providerByName(provider.name) || seen.has(provider.name)
    ) {
      throw new GleanerError(
        "invalid_arguments",
        `providers: ${
          String(provider?.name)
        } is not a free provider name (lower case, digits and _; not a built-in provider's)`,
        { details: { field: "providers" } },
      );
    }
    seen.add(provider.name);
  }
  return providers;
}

/** What the cache keeps of a search answer. */
interface CachedSearch {
  provider: string;
  results: ProviderHit[];
  saved_at: number;
  notices?: string[];
}

/**
 * The cache key of a search: the normalized query and every parameter that
 * changes the answer, the pinned provider or the provider order included.
 *
 * @example
 * ```ts
 * import { searchKey } from "./roles.ts";
 * const a = searchKey({ query: "Deno  KV", max_results: 5 }, ["exa"]);
 * const b = searchKey({ query: "deno kv", max_results: 5 }, ["exa"]);
 * console.assert(a === b && a !== searchKey({ query: "deno kv", max_results: 6 }, ["exa"]));
 * ```
 *
 * @internal exported for tests only
 */
export function searchKey(req: RoleSearchRequest, order: readonly string[]): string {
  const sorted = (list?: string[]) => [...(list ?? [])].map((d) => d.trim().toLowerCase()).sort();
  return JSON.stringify([
    "role-search",
    req.query.trim().toLowerCase().replace(/\s+/g, " "),
    sorted(req.domains),
    sorted(req.exclude_domains),
    req.time_range ?? "",
    req.language ?? "",
    req.max_results,
    req.topic ?? "general",
    req.depth ?? "quick",
    req.provider ?? order.join(","),
    sorted(req.categories),
    sorted(req.engines),
  ]);
}

/** Validates a search; returns its normalised domains. */
function validateSearch(req: RoleSearchRequest): string[] {
  if (typeof req.query !== "string" || req.query.trim() === "") {
    throw invalid("query", "must be a non-empty string");
  }
  if (
    !Number.isInteger(req.max_results) || req.max_results < 1 ||
    req.max_results > ROLE_MAX_RESULTS
  ) {
    throw invalid("max_results", `must be an integer from 1 to ${ROLE_MAX_RESULTS}`);
  }
  if (
    req.time_range !== undefined && !isTimeRange(req.time_range)
  ) {
    throw invalid("time_range", `must be ${TIME_RANGE_LIST}`);
  }
  return [...new Set((req.domains ?? []).map((d) => normalizeDomain(d, "domains")))];
}

/** Keeps http(s) hits inside the domains and outside the exclusions, dedupes, caps. */
function refine(
  hits: ProviderHit[],
  domains: string[],
  exclude: string[],
  max: number,
): ProviderHit[] {
  const seen = new Set<string>();
  const out: ProviderHit[] = [];
  for (const hit of hits) {
    const key = resultKey(hit.url);
    if (!key || seen.has(key)) continue;
    if (domains.length > 0 && !urlInDomains(hit.url, domains)) continue;
    if (exclude.length > 0 && urlInDomains(hit.url, exclude)) continue;
    seen.add(key);
    out.push(hit);
    if (out.length >= max) break;
  }
  return out;
}

/**
 * A provider's failure as a {@link SearchFailure}. An `invalid_arguments` or
 * `blocked_url` the provider threw itself, before sending, is the caller's
 * request (`details.request`): it stops the call and is not the provider's
 * failure. Anything that is not a Gleaner error nor a timeout is a bug, not
 * an outage: `internal`, which stops the call instead of hiding behind a
 * fallback.
 */
function asFailure(error: unknown, provider: string): SearchFailure {
  // A missing Deno permission fails every provider alike: stop and name the flag.
  const permission = missingPermission(error, provider);
  if (permission) {
    return new SearchFailure("invalid", `${provider}: ${permission.message}`, {
      backend: provider,
      code: "internal",
      cause: error,
      details: { permission: permission.details?.permission, flag: permission.details?.flag },
    });
  }
  if (error instanceof SearchFailure) return error;
  if (
    error instanceof GleanerError &&
    (error.code === "invalid_arguments" || error.code === "blocked_url")
  ) {
    return new SearchFailure("invalid", error.message, {
      backend: provider,
      code: error.code,
      cause: error,
      details: { ...error.details, provider, request: true },
    });
  }
  if (error instanceof GleanerError || error instanceof DOMException) {
    return providerFailure(provider, undefined, { error });
  }
  log.error("{provider} failed unexpectedly: {error}", { provider, error });
  return new SearchFailure("invalid", `${provider}: failed unexpectedly`, {
    backend: provider,
    code: "internal",
    cause: error,
  });
}

/** The missing-permission error anywhere in a failure's cause chain, if any. */
function missingPermission(error: unknown, provider: string): GleanerError | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 6; depth++) {
    if (e instanceof GleanerError) {
      if (e.details?.permission !== undefined) return e;
    } else {
      const named = permissionError(e, provider);
      if (named) return named;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The message of the innermost Gleaner error behind a failure (what the log
 * shows: a TLS or DNS failure, a missing permission), when it says more than
 * the failure itself. Gleaner's messages name origins, never upstream bodies or keys.
 */
function innermostMessage(failure: GleanerError): string | undefined {
  let inner: GleanerError = failure;
  for (let e: unknown = failure.cause, depth = 0; e && depth < 5; depth++) {
    if (e instanceof GleanerError) inner = e;
    e = (e as { cause?: unknown }).cause;
  }
  return inner === failure ? undefined : inner.message;
}

/** The error thrown to callers: the failure's code, plus the record of the route. */
function withRecord(
  failure: GleanerError,
  message: string,
  code: ErrorCode,
  attempts: Attempt[],
  fallback_from: FallbackEntry[],
): SearchFailure {
  const outcome = failure instanceof SearchFailure ? failure.outcome : "unavailable";
  return new SearchFailure(outcome, message, {
    backend: failure instanceof SearchFailure ? failure.backend : undefined,
    code,
    cause: failure,
    attempts,
    details: { ...failure.details, fallback_from },
  });
}

export { GLEANER_READER };
