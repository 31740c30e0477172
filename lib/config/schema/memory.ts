/**
 * The `memory` section: the memory store.
 *
 * @module
 */
import { z } from "zod";
import { longSecret } from "./secret.ts";
import { operatorOnly, shared } from "../setting.ts";

/** Settings of the memory store (`save_memories`, `recall_memories`, …). */
export const MemorySchema: z.ZodObject<{
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
  context_max_tokens: z.ZodDefault<z.ZodNumber>;
  context_before: z.ZodDefault<z.ZodNumber>;
  context_after: z.ZodDefault<z.ZodNumber>;
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
}, z.core.$strip> = z.object({
  /** Serve the six memory tools. */
  enabled: shared(z.boolean().default(true)),
  /** Engine of the memory store: embedded SQLite, or PostgreSQL + pgvector shared by many instances. */
  backend: operatorOnly(z.enum(["sqlite", "postgres"]).default("sqlite")),
  /** `postgres://user:password@host:5432/db` of the shared store (a secret; `backend: "postgres"`). */
  postgres_url: operatorOnly(z.string().min(1).optional(), { secret: true }),
  /** SQLite file; default `$XDG_DATA_HOME/gleaner/memory.db`. `:memory:` keeps nothing. */
  path: operatorOnly(z.string().optional()),
  /** Token budget of the profile pool attached to every recall. */
  profile_max_tokens: shared(z.number().int().min(0).default(500)),
  /** Weight of the dense (vector) ranking in reciprocal rank fusion; BM25 gets the rest. */
  dense_weight: shared(z.number().min(0).max(1).default(0.5)),
  /**
   * Vector candidates below this cosine similarity are not candidates. Unset: 0.4 for the static
   * model (chosen on the tune half of the confusable set of `bench/memory.ts`), 0.2 for other
   * embedders.
   */
  dense_min_similarity: shared(z.number().min(-1).max(1).optional()),
  /** Fused scores below this are dropped (0: keep every candidate). */
  min_score: shared(z.number().min(0).max(1).default(0)),
  /**
   * Cosine at or above which a saved memory's `similar_to` notice calls it a near-duplicate
   * (`near_duplicate: true`: very likely the same fact; update that one instead). It is still
   * saved: only the same text is ever skipped. At least `review_similarity`.
   */
  duplicate_similarity: shared(z.number().min(0).max(1).default(0.95)),
  /**
   * Cosine at or above which a saved (or updated) memory gets a `similar_to` notice naming its
   * nearest memory, for review. At most `duplicate_similarity`.
   */
  review_similarity: shared(z.number().min(0).max(1).default(0.8)),
  /** Content over this many tokens is saved with a `consider_splitting` notice. */
  split_tokens: shared(z.number().int().positive().default(800)),
  /** RRF constant of recall's fusion (larger: flatter credit down each ranking). */
  rrf_k: shared(z.number().int().positive().default(60)),
  /** Token budget of a recall when the call gives no `max_tokens`. */
  recall_budget: shared(z.number().int().positive().max(100_000).default(2_000)),
  /**
   * Share of recall frequency in recall's ranking: the matches of a query are ordered by
   * `(1 - access_weight) × fused score + access_weight × recall count / highest recall count
   * among them`. 0: by the query alone (scores and labels always stay the query's).
   */
  access_weight: shared(z.number().min(0).max(1).default(0)),
  /**
   * Tokens a recall may spend on context: the turns said around its recalled conversation turns
   * (memories saved with an `author` and a session), best turn first, within the recall's budget.
   * 0 attaches none.
   */
  context_max_tokens: shared(z.number().int().min(0).max(100_000).default(230)),
  /** Turns said just before a recalled conversation turn that may come with it as context. */
  context_before: shared(z.number().int().min(0).max(10).default(2)),
  /** Turns said just after a recalled conversation turn that may come with it as context. */
  context_after: shared(z.number().int().min(0).max(10).default(2)),
  /**
   * Hosted mode: behind a trusted reverse proxy, each user gets their own memory file.
   * Requests must come from `hosted_trusted_proxies` with `hosted_proxy_token` and a user id.
   */
  hosted: operatorOnly(z.boolean().default(false)),
  /** Header carrying the proxy-verified user id. */
  hosted_user_header: operatorOnly(z.string().min(1).default("x-gleaner-user")),
  /** Header carrying the shared proxy token. */
  hosted_token_header: operatorOnly(z.string().min(1).default("x-gleaner-proxy-token")),
  /** Shared proxy token (at least 32 bytes), compared in constant time. */
  hosted_proxy_token: longSecret(),
  /** Source addresses (IPs or CIDR ranges) the proxy connects from. */
  hosted_trusted_proxies: operatorOnly(z.array(z.string()).default(["127.0.0.1", "::1"])),
  /** Key (at least 32 bytes) of the HMAC that names each user's file. */
  hosted_hmac_secret: longSecret(),
  /** Folder of the per-user files; default: `users/` beside `path`. */
  hosted_dir: operatorOnly(z.string().optional()),
  /** Per-user stores kept open at once (least recently used ones are closed). */
  hosted_max_open: operatorOnly(z.number().int().positive().default(64)),
  /**
   * The operator's key in hosted mode (at least 32 bytes, environment only:
   * `GLEANER_MEMORY_HOSTED_ADMIN_KEY`), sent in the `x-gleaner-admin-key` header: only a
   * request carrying it may run `clear_cache` (which then clears every user's cache) or read
   * and change the configuration (`GET /config`, `PUT /config`).
   */
  hosted_admin_key: longSecret({ envOnly: true }),
  /**
   * Let Deep Research clients (`/mcp/deep-research`, third parties such as ChatGPT connectors)
   * see stored memories: up to three lead `search` results and `fetch("memory:<ref>")` reads
   * one. Off by default; in hosted mode only the calling user's own memories.
   */
  deep_research: shared(z.boolean().default(false), { writable: false }),
}).refine((m) => m.review_similarity <= m.duplicate_similarity, {
  message: "must not exceed memory.duplicate_similarity",
  path: ["review_similarity"],
});
