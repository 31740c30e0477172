/**
 * The whole configuration: {@link ConfigSchema} (one section schema per file in `schema/`),
 * the parsed {@link Config} and the partial {@link ConfigInput}.
 *
 * JSR wants an explicit type on every exported schema: each section's type is written once, on
 * its schema in `schema/<section>.ts`, and {@link ConfigSchema}'s type names those schemas (so
 * each of them is exported from `mod.ts` too: a public type may name public types only).
 *
 * @module
 */
import { z } from "zod";
import { ServerSchema } from "./schema/server.ts";
import { NetworkSchema } from "./schema/network.ts";
import { SearchSchema } from "./schema/search.ts";
import { ReadSchema } from "./schema/read.ts";
import { RankSchema } from "./schema/rank.ts";
import { EmbedSchema } from "./schema/embed.ts";
import { StoreSchema } from "./schema/store.ts";
import { MemorySchema } from "./schema/memory.ts";
import { CrawlSchema } from "./schema/crawl.ts";
import { LlmSchema } from "./schema/llm.ts";
import { EventsSchema } from "./schema/events.ts";
import { LogSchema } from "./schema/log.ts";

/** The whole configuration. */
export const ConfigSchema: z.ZodObject<{
  server: z.ZodDefault<typeof ServerSchema>;
  network: z.ZodDefault<typeof NetworkSchema>;
  search: z.ZodDefault<typeof SearchSchema>;
  read: z.ZodDefault<typeof ReadSchema>;
  rank: z.ZodDefault<typeof RankSchema>;
  embed: z.ZodDefault<typeof EmbedSchema>;
  store: z.ZodDefault<typeof StoreSchema>;
  memory: z.ZodDefault<typeof MemorySchema>;
  crawl: z.ZodDefault<typeof CrawlSchema>;
  llm: z.ZodDefault<typeof LlmSchema>;
  events: z.ZodDefault<typeof EventsSchema>;
  log: z.ZodDefault<typeof LogSchema>;
}, z.core.$strip> = z.object({
  server: ServerSchema.default(ServerSchema.parse({})),
  network: NetworkSchema.default(NetworkSchema.parse({})),
  search: SearchSchema.default(SearchSchema.parse({})),
  read: ReadSchema.default(ReadSchema.parse({})),
  rank: RankSchema.default(RankSchema.parse({})),
  embed: EmbedSchema.default(EmbedSchema.parse({})),
  store: StoreSchema.default(StoreSchema.parse({})),
  memory: MemorySchema.default(MemorySchema.parse({})),
  crawl: CrawlSchema.default(CrawlSchema.parse({})),
  llm: LlmSchema.default(LlmSchema.parse({})),
  events: EventsSchema.default(EventsSchema.parse({})),
  log: LogSchema.default(LogSchema.parse({})),
});

/** A complete, validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;

/** A partial configuration, as written in a file or passed to `createGleaner`. */
export type ConfigInput = {
  [S in keyof Config]?: Partial<Config[S]>;
};
