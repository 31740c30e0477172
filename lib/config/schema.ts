/**
 * The whole configuration: {@link ConfigSchema} (one section schema per file in `schema/`),
 * the parsed {@link Config} and the partial {@link ConfigInput}.
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
  server: z.ZodDefault<
    z.ZodObject<{
      host: z.ZodDefault<z.ZodString>;
      port: z.ZodDefault<z.ZodNumber>;
      allowed_hosts: z.ZodDefault<z.ZodArray<z.ZodString>>;
      api_key: z.ZodOptional<z.ZodString>;
      health_ttl_ms: z.ZodDefault<z.ZodNumber>;
      allow_config_write: z.ZodDefault<z.ZodBoolean>;
    }, z.core.$strip>
  >;
  network: z.ZodDefault<
    z.ZodObject<{
      allow_private: z.ZodDefault<z.ZodUnion<readonly [z.ZodBoolean, z.ZodArray<z.ZodString>]>>;
      allowed_ports: z.ZodDefault<z.ZodArray<z.ZodNumber>>;
      connect_timeout_ms: z.ZodDefault<z.ZodNumber>;
      timeout_ms: z.ZodDefault<z.ZodNumber>;
      max_bytes: z.ZodDefault<z.ZodNumber>;
      max_decompressed_bytes: z.ZodDefault<z.ZodNumber>;
      max_redirects: z.ZodDefault<z.ZodNumber>;
      user_agent: z.ZodDefault<z.ZodString>;
      respect_robots: z.ZodDefault<z.ZodBoolean>;
      per_host_concurrency: z.ZodDefault<z.ZodNumber>;
      proxy_url: z.ZodOptional<z.ZodString>;
      no_proxy: z.ZodDefault<z.ZodArray<z.ZodString>>;
    }, z.core.$strip>
  >;
  search: z.ZodDefault<typeof SearchSchema>;
  read: z.ZodDefault<
    z.ZodObject<{
      render: z.ZodDefault<
        z.ZodEnum<{
          never: "never";
          auto: "auto";
          always: "always";
        }>
      >;
      chrome_path: z.ZodOptional<z.ZodString>;
      browser_cdp_url: z.ZodOptional<z.ZodString>;
      browser_pages: z.ZodDefault<z.ZodNumber>;
      browser_timeout_ms: z.ZodDefault<z.ZodNumber>;
      browser_idle_ms: z.ZodDefault<z.ZodNumber>;
      concurrency: z.ZodDefault<z.ZodNumber>;
      github_token: z.ZodOptional<z.ZodString>;
      github_api_url: z.ZodDefault<z.ZodString>;
      github_raw_url: z.ZodDefault<z.ZodString>;
      wayback: z.ZodDefault<z.ZodBoolean>;
      wayback_url: z.ZodDefault<z.ZodString>;
      youtube_url: z.ZodDefault<z.ZodString>;
      youtube_languages: z.ZodDefault<z.ZodArray<z.ZodString>>;
      youtube_timestamps: z.ZodDefault<z.ZodBoolean>;
      reddit_url: z.ZodDefault<z.ZodString>;
      hister_url: z.ZodOptional<z.ZodString>;
      hister_token: z.ZodOptional<z.ZodString>;
      kiwix_url: z.ZodOptional<z.ZodString>;
      kiwix_books: z.ZodDefault<z.ZodRecord<z.ZodString, z.ZodString>>;
      llms_txt_domains: z.ZodDefault<z.ZodArray<z.ZodString>>;
      llms_txt_extra_domains: z.ZodDefault<z.ZodArray<z.ZodString>>;
      tier_rules_path: z.ZodOptional<z.ZodString>;
      extract_workers: z.ZodDefault<z.ZodNumber>;
      extract_timeout_ms: z.ZodDefault<z.ZodNumber>;
      max_html_chars: z.ZodDefault<z.ZodNumber>;
      max_links: z.ZodDefault<z.ZodNumber>;
      firecrawl_url: z.ZodOptional<z.ZodString>;
      firecrawl_api_key: z.ZodOptional<z.ZodString>;
      crawl4ai_url: z.ZodOptional<z.ZodString>;
      crawl4ai_token: z.ZodOptional<z.ZodString>;
      service_timeout_ms: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  rank: z.ZodDefault<
    z.ZodObject<{
      max_tokens: z.ZodDefault<z.ZodNumber>;
      per_source_share: z.ZodDefault<z.ZodNumber>;
      share_slack: z.ZodDefault<z.ZodNumber>;
      dense_weight: z.ZodDefault<z.ZodNumber>;
      unit_min_words: z.ZodDefault<z.ZodNumber>;
      unit_max_words: z.ZodDefault<z.ZodNumber>;
      rerank: z.ZodDefault<
        z.ZodEnum<{
          none: "none";
          "use-lite": "use-lite";
        }>
      >;
      rerank_top_k: z.ZodDefault<z.ZodNumber>;
      rerank_weight: z.ZodDefault<z.ZodNumber>;
      rerank_max_words: z.ZodDefault<z.ZodNumber>;
      expand_terms: z.ZodDefault<z.ZodNumber>;
      expand_min_similarity: z.ZodDefault<z.ZodNumber>;
      rrf_k: z.ZodDefault<z.ZodNumber>;
      dedupe_jaccard: z.ZodDefault<z.ZodNumber>;
      dedupe_cosine: z.ZodDefault<z.ZodNumber>;
      oversample: z.ZodDefault<z.ZodNumber>;
      links_max_tokens: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  embed: z.ZodDefault<
    z.ZodObject<{
      provider: z.ZodDefault<
        z.ZodEnum<{
          none: "none";
          static: "static";
          transformers: "transformers";
          openai: "openai";
        }>
      >;
      model: z.ZodDefault<z.ZodString>;
      models_dir: z.ZodOptional<z.ZodString>;
      allow_remote: z.ZodDefault<z.ZodBoolean>;
      dtype: z.ZodDefault<
        z.ZodEnum<{
          fp32: "fp32";
          fp16: "fp16";
          q8: "q8";
          int8: "int8";
          uint8: "uint8";
          q4: "q4";
          q4f16: "q4f16";
          bnb4: "bnb4";
        }>
      >;
      api_url: z.ZodOptional<z.ZodString>;
      api_model: z.ZodOptional<z.ZodString>;
      api_key: z.ZodOptional<z.ZodString>;
      api_dimensions: z.ZodOptional<z.ZodNumber>;
      batch_size: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  store: z.ZodDefault<
    z.ZodObject<{
      path: z.ZodOptional<z.ZodString>;
      cache_url: z.ZodOptional<z.ZodString>;
      search_ttl_s: z.ZodDefault<z.ZodNumber>;
      page_ttl_s: z.ZodDefault<z.ZodNumber>;
      crawl_ttl_s: z.ZodDefault<z.ZodNumber>;
      cache_max_bytes: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  memory: z.ZodDefault<
    z.ZodObject<{
      enabled: z.ZodDefault<z.ZodBoolean>;
      backend: z.ZodDefault<
        z.ZodEnum<{
          sqlite: "sqlite";
          postgres: "postgres";
        }>
      >;
      postgres_url: z.ZodOptional<z.ZodString>;
      path: z.ZodOptional<z.ZodString>;
      profile_max_tokens: z.ZodDefault<z.ZodNumber>;
      dense_weight: z.ZodDefault<z.ZodNumber>;
      dense_min_similarity: z.ZodOptional<z.ZodNumber>;
      min_score: z.ZodDefault<z.ZodNumber>;
      duplicate_similarity: z.ZodDefault<z.ZodNumber>;
      review_similarity: z.ZodDefault<z.ZodNumber>;
      split_tokens: z.ZodDefault<z.ZodNumber>;
      rrf_k: z.ZodDefault<z.ZodNumber>;
      recall_budget: z.ZodDefault<z.ZodNumber>;
      access_weight: z.ZodDefault<z.ZodNumber>;
      hosted: z.ZodDefault<z.ZodBoolean>;
      hosted_user_header: z.ZodDefault<z.ZodString>;
      hosted_token_header: z.ZodDefault<z.ZodString>;
      hosted_proxy_token: z.ZodOptional<z.ZodString>;
      hosted_trusted_proxies: z.ZodDefault<z.ZodArray<z.ZodString>>;
      hosted_hmac_secret: z.ZodOptional<z.ZodString>;
      hosted_dir: z.ZodOptional<z.ZodString>;
      hosted_max_open: z.ZodDefault<z.ZodNumber>;
      hosted_admin_key: z.ZodOptional<z.ZodString>;
      deep_research: z.ZodDefault<z.ZodBoolean>;
    }, z.core.$strip>
  >;
  crawl: z.ZodDefault<
    z.ZodObject<{
      engine: z.ZodDefault<
        z.ZodEnum<{
          builtin: "builtin";
          firecrawl: "firecrawl";
        }>
      >;
      poll_interval_ms: z.ZodDefault<z.ZodNumber>;
      max_wait_ms: z.ZodDefault<z.ZodNumber>;
      max_bytes: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  llm: z.ZodDefault<typeof LlmSchema>;
  events: z.ZodDefault<
    z.ZodObject<{
      nats_url: z.ZodOptional<z.ZodString>;
      subject_prefix: z.ZodDefault<z.ZodString>;
      nats_user: z.ZodOptional<z.ZodString>;
      nats_password: z.ZodOptional<z.ZodString>;
      nats_token: z.ZodOptional<z.ZodString>;
      include_query: z.ZodDefault<z.ZodBoolean>;
      queue_max: z.ZodDefault<z.ZodNumber>;
    }, z.core.$strip>
  >;
  log: z.ZodDefault<
    z.ZodObject<{
      level: z.ZodDefault<
        z.ZodEnum<{
          error: "error";
          trace: "trace";
          debug: "debug";
          info: "info";
          warning: "warning";
          fatal: "fatal";
        }>
      >;
    }, z.core.$strip>
  >;
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
