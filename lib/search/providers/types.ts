/**
 * The contract of a search provider: the roles it serves (`search`, `answer`,
 * `contents`), its own tools, and the normalized shapes it answers in.
 *
 * @module
 */
import type { z } from "zod";
import type { RateLimit } from "../../async/rate_gate.ts";
import type { NetworkSection, SearchSection } from "../../config/sections.ts";
import type { Fetcher } from "../../net/types.ts";
import type { SearchHit } from "../types.ts";
import type { TimeRange } from "../time_range.ts";
import type { TenancyScope } from "../../config/tenancy.ts";

/** A capability a provider can serve. */
export type Role = "search" | "answer" | "contents";

/** Every role, in the order tools are declared. */
export const ROLES: readonly Role[] = ["search", "answer", "contents"];

/**
 * Longest run id a tool takes (`run_id`, `interaction_id`): an upstream id of
 * up to 200 characters (every provider's own limit), plus, in hosted mode,
 * the 23 characters that bind it to the tenant it was handed to
 * (`../run_refs.ts`).
 */
export const RUN_REF_MAX_CHARS = 223;

/**
 * The settings a provider reads: the `search` section (its own
 * `search.providers.<name>` entry, its key, the routing settings) and the
 * `network` section (the policy its screened reads go through). The
 * composition root hands this slice down; a provider never sees the whole
 * configuration.
 */
export interface ProviderConfig {
  /** Search settings (providers' entries and keys, routing). */
  search: SearchSection;
  /** The guarded network layer's settings. */
  network: NetworkSection;
}

/** One provider's `search.providers.<name>` entry. */
export type ProviderEntry = SearchSection["providers"][string];

/**
 * The slice of settings a provider defined with `defineProvider` (`define.ts`)
 * receives: the `search.providers.<name>` entries it declared (its own by
 * default; each key folded into `api_key` whichever way it was spelled), the
 * shared `search` settings it declared (`K`) and `search.timeout_ms`, and the
 * `network` section (the policy its screened reads go through). Never the
 * whole `search` section: a setting it did not declare is a type error.
 */
export interface ProviderSlice<K extends keyof SearchSection = never> {
  /** The declared `search` settings, and the declared providers' entries. */
  search: Readonly<Pick<SearchSection, K | "timeout_ms">> & {
    /** The declared providers' `search.providers.<name>` entries, keys folded in. */
    readonly providers: Readonly<Record<string, ProviderEntry | undefined>>;
  };
  /** The guarded network layer's settings. */
  network: NetworkSection;
}

/**
 * What a provider call receives besides its request. `C` is the settings it
 * sees: the router's {@link ProviderConfig}, or the {@link ProviderSlice} a
 * provider defined with `defineProvider` declared.
 */
export interface ProviderEnv<C = ProviderConfig> {
  /** The provider's settings (keys, `search.providers.<name>` settings, the network policy). */
  config: C;
  /** The guarded fetcher every upstream call goes through. */
  fetcher: Fetcher;
  /** Cancels the call. */
  signal?: AbortSignal;
  /**
   * Tells the caller what the provider changed in the request to fit its
   * documented limits (shown as the answer's `notices`); absent when nobody listens.
   */
  notice?: (text: string) => void;
  /**
   * Holds each upstream request to the provider's rate (`Provider.rateLimit`):
   * the JSON call (`callJson`) waits on it before every request, so a call that
   * reads ten pages one request each is paced per request. Absent when the
   * provider is called outside the router.
   */
  pace?: (timeoutMs: number) => Promise<void>;
}

/** A search as a provider receives it (validated by the router). */
export interface ProviderSearchRequest {
  /** The query (with a `site:` hint added for providers without native domain filters). */
  query: string;
  /**
   * The `site:` hint the router appended to `query`, when it did: a provider
   * that must shorten the query keeps it whole.
   */
  site_hint?: string;
  /** Most results wanted. */
  max_results: number;
  /** Only results this recent. */
  time_range?: TimeRange;
  /** Preferred language. */
  language?: string;
  /** Only these domains (normalised); providers with native filters use them. */
  domains?: string[];
  /** Never these domains (normalised). */
  exclude_domains?: string[];
  /** `news` asks a provider's news index where it has one. */
  topic?: "general" | "news";
  /** `deep` asks for the provider's more thorough (slower, dearer) search where it has one. */
  depth?: "quick" | "deep";
  /** SearXNG categories for this search (`general`, `news`, `it`, `science`); others ignore it. */
  categories?: string[];
  /** SearXNG engines for this search; others ignore it. */
  engines?: string[];
}

/** One search result in Gleaner's shape, plus a bounded copy of provider-specific fields. */
export interface ProviderHit extends SearchHit {
  /** A few provider-specific fields (score, author, …), bounded in size. */
  provider_data?: Record<string, unknown>;
}

/** A question for the `answer` role. */
export interface AnswerRequest {
  /** The question. */
  query: string;
  /** `quick` (one fast call) or `deep` (more sources, slower). */
  depth: "quick" | "deep";
  /**
   * Resumes a long-running answer an earlier call left `in_progress` (providers
   * with {@link Provider.resumesAnswers} only).
   */
  interaction_id?: string;
  /**
   * Answer with the provider's grounded model even at `deep` depth: the role router sets it
   * when a deep-only provider (Gemini Deep Research, {@link Provider.deepAnswersOnly}) is in
   * the chain of its own, so a fallback from it is a grounded answer, not the same research.
   */
  grounded?: boolean;
}

/** A provider's answer with the sources it cites. */
export interface ProviderAnswer {
  /** The answer text as the provider wrote it. */
  answer: string;
  /** Cited sources. */
  citations: ProviderHit[];
  /** A few provider-specific fields, bounded in size. */
  provider_data?: Record<string, unknown>;
  /**
   * `in_progress` when a long-running answer was not finished within the
   * bounded wait: `answer` is empty and `interaction_id` resumes it; absent
   * (or `completed`) for a finished answer.
   */
  status?: "completed" | "in_progress";
  /** The upstream run's id, for a long-running answer. */
  interaction_id?: string;
}

/** Pages wanted from the `contents` role. */
export interface ContentsRequest {
  /** One to ten URLs. */
  urls: string[];
  /** What the reader is looking for (providers that focus extraction use it). */
  query?: string;
  /** Keep only the element this CSS selector matches (Gleaner's reader only). */
  targetSelector?: string;
  /** Render in the browser and wait for this CSS selector (Gleaner's reader only). */
  waitForSelector?: string;
}

/** One page of a `contents` answer; a page that failed carries `error` and no content. */
export interface ProviderPage {
  /** The URL asked for. */
  url: string;
  /** Page title, when the provider gives one (left out rather than empty). */
  title?: string;
  /** Main content (Markdown or plain text). */
  content: string;
  /** Publication date (ISO 8601) when known. */
  published?: string;
  /** Why this page could not be read. */
  error?: { code: string; message: string };
  /** The provider that read this page, when it is not the one that answered the call. */
  provider?: string;
  /** A few provider-specific fields, bounded in size. */
  provider_data?: Record<string, unknown>;
}

/** A `contents` answer: one entry per URL asked, in order. */
export interface ProviderContents {
  /** The pages. */
  pages: ProviderPage[];
  /** A few provider-specific fields of the whole call (Keenable's `failed_count`), bounded. */
  provider_data?: Record<string, unknown>;
}

/** The normalized output of each role. */
export interface RoleOutputs {
  /** Search hits. */
  search: { results: ProviderHit[] };
  /** An answer with citations. */
  answer: ProviderAnswer;
  /** Page contents. */
  contents: ProviderContents;
}

/** A cited source of one field of a long-running run's output. */
export interface RunCitation {
  /** Source URL. */
  url: string;
  /** Source title, when given. */
  title?: string;
  /** Supporting excerpts, when the provider gives them (bounded). */
  excerpts?: string[];
}

/** Why one field of a run's output says what it says (the provider's basis). */
export interface RunBasis {
  /** The output field. */
  field: string;
  /** The provider's reasoning (bounded). */
  reasoning: string;
  /** The provider's confidence, when given (`low`, `medium`, `high`). */
  confidence?: string;
  /** The sources of the field. */
  citations: RunCitation[];
}

/** One item of a batch run (a row enriched, an entity found); a failed item carries `error`. */
export interface RunItem {
  /** What the item was asked with (an enriched row's input). */
  input?: unknown;
  /** The item's name (an entity found). */
  name?: string;
  /** The item's URL (an entity found). */
  url?: string;
  /** The upstream status of the item (`completed`, `failed`, `matched`, …). */
  status: string;
  /** The item's output (text or a JSON object). */
  content?: unknown;
  /** Why the output says what it says. */
  basis?: RunBasis[];
  /** Why this item has no output. */
  error?: { code: string; message: string };
}

/**
 * A long-running provider run (research, enrichment, a dataset): finished
 * within the bounded wait, or `in_progress` with the `run_id` its status tool
 * takes.
 */
export interface ProviderRun {
  /** `completed`: the output is here; `in_progress`: ask the status tool with `run_id`. */
  status: "completed" | "in_progress";
  /** The upstream run's id. */
  run_id: string;
  /** The upstream's own status word (`queued`, `running`, `completed`, …). */
  run_status: string;
  /** The output of a single run (a report's text, or a JSON object). */
  content?: unknown;
  /** The items of a batch run. */
  items?: RunItem[];
  /** Why the output of a single run says what it says. */
  basis?: RunBasis[];
  /** Every source cited, once each. */
  citations: ProviderHit[];
  /** A few provider-specific fields, bounded in size. */
  provider_data?: Record<string, unknown>;
}

/** What a provider's own tool answers in: a role's shape, or a long-running run. */
export type ProviderToolKind = Role | "run";

/** The output of each kind of provider tool. */
export interface ProviderToolOutputs extends RoleOutputs {
  /** A long-running run. */
  run: ProviderRun;
}

/**
 * One of a provider's own tools (`exa_find_similar`, `tavily_extract`, …): its
 * own strict input, answering in the normalized shape of one role, or as a
 * long-running run (`kind`).
 */
export interface ProviderTool<
  I extends z.ZodObject = z.ZodObject,
  R extends ProviderToolKind = ProviderToolKind,
  C = ProviderConfig,
> {
  /** Tool name (`<provider>_<verb>`). */
  name: string;
  /** Short human title. */
  title: string;
  /** What it does, for a model. */
  description: string;
  /** The role whose output shape it answers in, or `run` for a long-running run. */
  kind: R;
  /** Strict input schema. */
  input: I;
  /**
   * False for a tool that may change things outside Gleaner (an agent that
   * clicks and submits forms); default true.
   */
  readOnly?: boolean;
  /**
   * The input field that resumes an answer the tool left `in_progress`
   * (default `interaction_id`), named in the text a model reads.
   */
  resumeWith?: string;
  /** Runs it (the router wraps the call in rate limit, breaker and classification). */
  run(input: z.output<I>, env: ProviderEnv<C>): Promise<ProviderToolOutputs[R]>;
}

/** A provider tool with its types erased (for lists). */
// deno-lint-ignore no-explicit-any
export type AnyProviderTool = ProviderTool<any, ProviderToolKind>;

/** A search provider Gleaner can route to. */
export interface Provider {
  /** Stable name (`exa`, `tavily`, …). */
  readonly name: string;
  /** Human name. */
  readonly title: string;
  /**
   * Who it belongs to when several users share one server (hosted mode):
   * `shared` for a search engine of the public web, keyed or not (a keyed one
   * spends the operator's quota, but what it answers is the same for everyone
   * and reveals nothing private); `tenant` for one that answers from a
   * tenant's own data (Gleaner's reader: that tenant's cascade and cache);
   * `operator` for one that would read the operator's private data, never
   * routed for a tenant.
   */
  readonly scope: TenancyScope;
  /** Roles it can serve. */
  readonly roles: readonly Role[];
  /** The setting that makes it usable, named in messages (`search.providers.exa.api_key`). */
  readonly configHint: string;
  /** True when configured (key present, or keyless and enabled) and not turned off. */
  isConfigured(config: ProviderConfig): boolean;
  /** True when the upstream filters domains itself (no `site:` hint needed). */
  readonly nativeDomains?: boolean;
  /**
   * True for a keyless provider (DuckDuckGo, SearXNG): its empty answer may
   * fall through to a keyed one (`search.fallback_on_empty`).
   */
  readonly keyless?: boolean;
  /**
   * True for a keyless web engine (DuckDuckGo, Mojeek, Brave's HTML page, Yahoo, Yandex,
   * Wikipedia): neighbours in the search order are asked together, a few per search in a
   * rotating order, and their results merged (`lib/search/keyless_pool.ts`).
   */
  readonly keylessEngine?: boolean;
  /**
   * The time ranges its search can honour; absent: every range. A keyless engine that cannot
   * honour a search's `time_range` is left out of the keyless pool for that search.
   */
  readonly timeRanges?: readonly TimeRange[];
  /** Calls per second sent at most unless `search.providers.<name>.requests_per_second` says otherwise. */
  readonly defaultRequestsPerSecond?: number;
  /**
   * The provider's documented rate under this configuration (keyless and
   * keyed limits differ: Jina's reader 20 requests a minute without a key,
   * Keenable 1,000 an hour), applied to every upstream request; wins over
   * {@link Provider.defaultRequestsPerSecond}. `search.providers.<name>.requests_per_second`
   * replaces it.
   */
  rateLimit?(config: ProviderConfig): RateLimit | undefined;
  /**
   * For a role in `roles` that this configuration does not let the provider
   * serve (Jina searches only with a key), the setting it needs; `undefined`
   * when it serves the role. Absent: a configured provider serves all its roles.
   */
  missingSetting?(role: Role, config: ProviderConfig): string | undefined;
  /** Serves the `search` role. */
  search?(req: ProviderSearchRequest, env: ProviderEnv): Promise<ProviderHit[]>;
  /** True when its answers may come back `in_progress` and an `interaction_id` resumes them. */
  readonly resumesAnswers?: boolean;
  /**
   * Answers at quick depth only: pinned with `depth: "deep"` it is
   * `invalid_arguments`; in a chain it answers a deep question at quick depth
   * and says so.
   */
  readonly quickAnswersOnly?: boolean;
  /**
   * Answers at deep depth only (Gemini Deep Research): a quick question never reaches it
   * (pinned with `depth: "quick"` it is `invalid_arguments`), and a deep one asks it before
   * the other answer providers unless `search.answer_order` says otherwise.
   */
  readonly deepAnswersOnly?: boolean;
  /** Serves the `answer` role. */
  answer?(req: AnswerRequest, env: ProviderEnv): Promise<ProviderAnswer>;
  /** Serves the `contents` role. */
  contents?(req: ContentsRequest, env: ProviderEnv): Promise<ProviderContents>;
  /** Its own tools, for the `all_tools` and `one_provider` presentations. */
  readonly tools: readonly AnyProviderTool[];
  /**
   * One cheap documented call that proves the key (`gleaner doctor --online`),
   * resolving to what it found; absent: the probe runs a one-result search.
   */
  probe?(env: ProviderEnv): Promise<string>;
}
