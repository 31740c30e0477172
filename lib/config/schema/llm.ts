/**
 * The `llm` section: the optional language model.
 *
 * @module
 */
import { z } from "zod";
import { operatorOnly, shared } from "../setting.ts";
import { secret } from "./secret.ts";

/** Settings of the optional language model (Ollama-compatible `/api/generate` or `/api/chat`). */
export const LlmSchema: z.ZodObject<{
  url: z.ZodOptional<z.ZodString>;
  model: z.ZodOptional<z.ZodString>;
  api: z.ZodDefault<z.ZodEnum<{ generate: "generate"; chat: "chat" }>>;
  api_key: z.ZodOptional<z.ZodString>;
  timeout_ms: z.ZodDefault<z.ZodNumber>;
  summary_max_tokens: z.ZodDefault<z.ZodNumber>;
  rewrite_model: z.ZodOptional<z.ZodString>;
  expand_always: z.ZodDefault<z.ZodBoolean>;
}, z.core.$strip> = z.object({
  /**
   * Base URL of an Ollama-compatible server (`http://127.0.0.1:11434`). With `model` set, the
   * search tools accept `expand` (the model rewrites the query) and `search_and_summarize` is
   * listed. Evidence text (page passages) is sent to it: point it only at a server you trust.
   */
  url: operatorOnly(z.string().url().optional()),
  /** Model name sent in each request (`llama3.2`, `qwen2.5:7b`, …). */
  model: shared(z.string().min(1).optional()),
  /** `chat` (`POST /api/chat`, `messages`) or `generate` (`POST /api/generate`, `prompt`). */
  api: shared(z.enum(["generate", "chat"]).default("chat")),
  /** Bearer token, for a server behind an authenticating proxy. */
  api_key: secret(),
  /** Time one request may take. */
  timeout_ms: shared(z.number().int().positive().default(60_000)),
  /** Most tokens of a summary (`options.num_predict`). */
  summary_max_tokens: shared(z.number().int().min(16).max(4_096).default(512)),
  /**
   * Model of query rewrites (`expand`), beside `model` for summaries: a smaller one answers a
   * one-line rewrite faster. Default: `model`.
   */
  rewrite_model: shared(z.string().min(1).optional()),
  /** Rewrite every search query with the model (`expand` on by default; a call's `expand: false` wins). */
  expand_always: shared(z.boolean().default(false)),
});
