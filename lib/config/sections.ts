/**
 * The type of each section of the configuration, one per `schema/<section>.ts`
 * (types only: importing this module loads no schema). A module that reads a
 * section or two takes those (`{ network: NetworkSection }`, or a `Pick<>` of
 * the fields it reads) rather than the whole `Config`: only the composition
 * roots (`lib/gleaner.ts`, `cli.ts`, the surfaces) see every setting, and each
 * plug-in receives the slice it reads.
 *
 * @example
 * ```ts
 * import type { NetworkSection } from "./sections.ts";
 * const timeout = (network: Pick<NetworkSection, "timeout_ms">) => network.timeout_ms;
 * console.assert(timeout({ timeout_ms: 5 }) === 5);
 * ```
 *
 * @module
 */
import type { z } from "zod";
import type { ServerSchema } from "./schema/server.ts";
import type { NetworkSchema } from "./schema/network.ts";
import type { SearchSchema } from "./schema/search.ts";
import type { ReadSchema } from "./schema/read.ts";
import type { RankSchema } from "./schema/rank.ts";
import type { EmbedSchema } from "./schema/embed.ts";
import type { StoreSchema } from "./schema/store.ts";
import type { MemorySchema } from "./schema/memory.ts";
import type { CrawlSchema } from "./schema/crawl.ts";
import type { LlmSchema } from "./schema/llm.ts";
import type { EventsSchema } from "./schema/events.ts";
import type { LogSchema } from "./schema/log.ts";

/** The `server` section: the HTTP surface's address, keys and limits. */
export type ServerSection = z.output<typeof ServerSchema>;
/** The `network` section: the guarded network layer. */
export type NetworkSection = z.output<typeof NetworkSchema>;
/** The `search` section: providers, their order and keys, routing. */
export type SearchSection = z.output<typeof SearchSchema>;
/** The `read` section: the reading cascade and its tiers. */
export type ReadSection = z.output<typeof ReadSchema>;
/** The `rank` section: passage ranking and budgets. */
export type RankSection = z.output<typeof RankSchema>;
/** The `embed` section: the embedder. */
export type EmbedSection = z.output<typeof EmbedSchema>;
/** The `store` section: the SQLite file or Valkey. */
export type StoreSection = z.output<typeof StoreSchema>;
/** The `memory` section: the memory service and hosted mode. */
export type MemorySection = z.output<typeof MemorySchema>;
/** The `crawl` section: crawling. */
export type CrawlSection = z.output<typeof CrawlSchema>;
/** The `llm` section: the language model endpoint. */
export type LlmSection = z.output<typeof LlmSchema>;
/** The `events` section: telemetry events. */
export type EventsSection = z.output<typeof EventsSchema>;
/** The `log` section: logging. */
export type LogSection = z.output<typeof LogSchema>;
