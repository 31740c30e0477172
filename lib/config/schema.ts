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

/**
 * Parse options for a schema parsed once or rarely (the configuration: at start, by
 * `gleaner doctor`, on `PUT /config`): no compiled fast path. zod compiles an object's parser
 * (`new Function`) on its first parse, which pays off only for a schema parsed many times;
 * for the configuration's objects it cost about 25 ms of every start.
 *
 * @example
 * ```ts
 * import { ConfigSchema, PARSED_RARELY } from "./schema.ts";
 * const config = ConfigSchema.parse({}, PARSED_RARELY);
 * console.assert(config.server.port === 8787);
 * ```
 */
export const PARSED_RARELY: { readonly jitless: true } = { jitless: true };

/** `schema` with its own defaults as the value of a missing section. */
function defaulted<T extends z.ZodObject>(schema: T): z.ZodDefault<T> {
  return schema.default(schema.parse({}, PARSED_RARELY) as z.util.NoUndefined<z.output<T>>);
}

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
  server: defaulted(ServerSchema),
  network: defaulted(NetworkSchema),
  search: defaulted(SearchSchema),
  read: defaulted(ReadSchema),
  rank: defaulted(RankSchema),
  embed: defaulted(EmbedSchema),
  store: defaulted(StoreSchema),
  memory: defaulted(MemorySchema),
  crawl: defaulted(CrawlSchema),
  llm: defaulted(LlmSchema),
  events: defaulted(EventsSchema),
  log: defaulted(LogSchema),
});

/** A complete, validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;

/** A partial configuration, as written in a file or passed to `createGleaner`. */
export type ConfigInput = {
  [S in keyof Config]?: Partial<Config[S]>;
};
