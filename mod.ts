/**
 * Gleaner: web research and memory for AI agents. Search the web, read the
 * pages worth reading, and get back only the original passages that answer a
 * question, each with its source URL, inside a token budget.
 *
 * @example
 * ```ts ignore
 * import { createGleaner, scrapeUrls, search } from "@gleaner/gleaner";
 *
 * const gleaner = await createGleaner({ store: { path: ":memory:" } });
 * const found = await search(gleaner, { items: [{ query: "deno permissions" }] });
 * const read = await scrapeUrls(gleaner, {
 *   items: [{ url: found.items[0].results[0].url, query: "how do I allow network access" }],
 *   max_tokens: 800,
 * });
 * for (const chunk of read.evidence) console.log(chunk.url, chunk.text);
 * await gleaner.close();
 * ```
 *
 * @module
 */
export {
  bindTool,
  type CallOptions,
  callTool,
  deleteMemory,
  getMemory,
  listMemories,
  recallMemories,
  research,
  saveMemories,
  scrapeUrls,
  search,
  type ToolFunction,
  updateMemory,
} from "./lib/api.ts";
export {
  type ClearCacheResult,
  type ClearTarget,
  createGleaner,
  createGleanerFromConfig,
  type CreateGleanerFromConfigOptions,
  type CreateGleanerOptions,
  type Gleaner,
} from "./lib/gleaner.ts";
export type {
  ComponentHealth,
  ComponentName,
  ComponentStatus,
  HealthReport,
} from "./lib/health.ts";
export {
  type Config,
  type ConfigInput,
  ConfigSchema,
  CrawlSchema,
  DomainProfileSchema,
  EmbedSchema,
  EventsSchema,
  LlmSchema,
  loadConfig,
  LogSchema,
  // `MemorySchema` is the memory tools' record (lib/tools); the `memory` settings take another name.
  MemorySchema as MemorySettingsSchema,
  NetworkSchema,
  parseConfig,
  ProviderSettingsSchema,
  RankSchema,
  ReadSchema,
  redactConfig,
  SearchSchema,
  ServerSchema,
  StoreSchema,
  TENANCY_SCOPES,
  type TenancyScope,
} from "./lib/config/config.ts";
export type {
  CrawlSection,
  EmbedSection,
  EventsSection,
  LlmSection,
  LogSection,
  MemorySection,
  NetworkSection,
  RankSection,
  ReadSection,
  SearchSection,
  ServerSection,
  StoreSection,
} from "./lib/config/sections.ts";
export { ERROR_CODES, type ErrorCode, GleanerError } from "./lib/errors.ts";
export * from "./lib/tools/mod.ts";
export type { SearchResponse, SearchRouter } from "./lib/search/router.ts";
export {
  type FallbackEntry,
  type RoleAnswerRequest,
  type RoleAnswerResponse,
  type RoleContentsRequest,
  type RoleContentsResponse,
  type RoleMeta,
  type RoleRouter,
  type RoleSearchRequest,
  type RoleSearchResponse,
  type RunCall,
} from "./lib/search/roles.ts";
export type { RunRefs } from "./lib/search/run_refs.ts";
export type {
  AnswerRequest,
  AnyProviderTool,
  ContentsRequest,
  Provider,
  ProviderAnswer,
  ProviderConfig,
  ProviderContents,
  ProviderEnv,
  ProviderHit,
  ProviderPage,
  ProviderRun,
  ProviderSearchRequest,
  ProviderTool,
  ProviderToolKind,
  ProviderToolOutputs,
  Role,
  RoleOutputs,
  RunBasis,
  RunCitation,
  RunItem,
} from "./lib/search/providers/types.ts";
export type { ProviderHealth } from "./lib/search/breaker.ts";
export type { RateLimit } from "./lib/async/rate_gate.ts";
export type { ReadPage } from "./lib/search/providers/reader.ts";
export { PROVIDERS } from "./lib/search/providers/registry.ts";
export {
  type Classification,
  classifyFailure,
  type FailureClass,
  type FailureEvidence,
} from "./lib/net/classify.ts";
export { toolsFor } from "./lib/tools/presentations.ts";
export { roleToolName } from "./lib/tools/role_tools.ts";
export type { SearchHit, SearchRequest } from "./lib/search/types.ts";
export type { Attempt, AttemptOutcome } from "./lib/net/upstream_failure.ts";
export { TIME_RANGES, type TimeRange, type TimeRangeSchema } from "./lib/search/time_range.ts";
export type { Reader } from "./lib/read/cascade.ts";
export type { Cache, DomainStats, Store, TenantStore } from "./lib/store/mod.ts";
export { CACHE_NAMESPACES } from "./lib/store/types.ts";
export type {
  CacheClearResult,
  CacheGetOptions,
  CacheNamespace,
  CacheStats,
  DomainRecord,
  DomainSummary,
  RobotsState,
  TierCounts,
  TierState,
  VerdictScope,
} from "./lib/store/types.ts";
export type { DomainSnapshot, DomainSnapshotEntry } from "./lib/store/domain_snapshot.ts";
export { CAPABILITY_FIELDS, CAPABILITY_SAMPLE_PAGES } from "./lib/store/capabilities.ts";
export type {
  CapabilityFacts,
  CapabilityField,
  CapabilityFields,
  DomainCapabilities,
  SampledShare,
} from "./lib/store/capabilities.ts";
export type { Events, SpecEventKind, TierSkipEvent, ToolEvent } from "./lib/telemetry/events.ts";
export type { NatsStats } from "./lib/telemetry/nats.ts";
export type { Relevance } from "./lib/rank/fusion.ts";
export type {
  DeleteMemoryResult,
  GetMemoryResult,
  InsertedMemory,
  ListedMemory,
  ListMemoriesInput,
  ListMemoriesResult,
  Memory,
  MemoryBackend,
  MemoryCandidate,
  MemoryCounts,
  MemoryEmbedding,
  MemoryKey,
  MemoryKind,
  MemoryListPage,
  MemoryListQuery,
  MemoryNotice,
  MemoryNoticeCode,
  MemoryRelevance,
  MemoryScope,
  MemorySort,
  MemoryUpdate,
  MemoryUpdateResult,
  NewMemoryRow,
  PendingEmbedding,
  ProfileMemory,
  RecalledContext,
  RecalledMemory,
  RecallMemoriesInput,
  RecallMemoriesResult,
  SaveMemoriesInput,
  SaveMemoriesResult,
  SaveMemoryInput,
  SaveMemoryItemResult,
  SessionNeighbours,
  UpdateMemoryInput,
  UpdateMemoryResult,
} from "./lib/memory/types.ts";
export {
  MemoryService,
  type RecallOptions,
  type ReembedStatus,
  type SaveOptions,
} from "./lib/memory/service.ts";
export type { FetchedResponse, Fetcher, FetchOptions } from "./lib/net/types.ts";
export type { Page, PageLink, ReadRequest, TierName } from "./lib/read/types.ts";
export type { PageSignals } from "./lib/extract/metadata.ts";
export { TIER_NAMES } from "./lib/read/types.ts";
export { BROWSER_CALL_FACTOR, ReadCall } from "./lib/read/call.ts";
export type { QueryExpander } from "./lib/rank/expand.ts";
export type { ArchiveProvenance, EvidenceItem } from "./lib/rank/evidence_item.ts";
export { type PromptEvidence, toPrompt } from "./lib/evidence/prompt.ts";
export type { Embedder, EmbeddingCache, EmbeddingUsage } from "./lib/embed/types.ts";
export { VERSION } from "./lib/version.ts";
