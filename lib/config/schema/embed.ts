/**
 * The `embed` section: embeddings.
 *
 * @module
 */
import { z } from "zod";
import { operatorOnly, shared } from "../setting.ts";
import { secret } from "./secret.ts";

/** Settings of embeddings. */
export const EmbedSchema: z.ZodObject<{
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
  dense_query_prefix: z.ZodOptional<z.ZodString>;
  dense_document_prefix: z.ZodOptional<z.ZodString>;
}, z.core.$strip> = z.object({
  /** Embedder: none, the shipped static model, a transformers.js model, or an OpenAI-compatible API. */
  provider: shared(z.enum(["none", "static", "transformers", "openai"]).default("static")),
  /** transformers.js preset or local model directory. */
  model: operatorOnly(z.string().default("balanced")),
  /** Directory of local models. */
  models_dir: operatorOnly(z.string().optional()),
  /** Download a missing transformers.js model from the Hugging Face hub (into `models_dir`). */
  allow_remote: operatorOnly(z.boolean().default(false)),
  /** transformers.js weight variant (`onnx/model_quantized.onnx` for q8). */
  dtype: shared(
    z.enum(["fp32", "fp16", "q8", "int8", "uint8", "q4", "q4f16", "bnb4"]).default("q8"),
  ),
  /** OpenAI-compatible base URL (`…/v1`). */
  api_url: operatorOnly(z.string().url().optional()),
  /** OpenAI-compatible model name. */
  api_model: shared(z.string().optional()),
  /** OpenAI-compatible API key. */
  api_key: secret(),
  /** Vector length asked of the OpenAI-compatible API (`dimensions`); the model's own when unset. */
  api_dimensions: shared(z.number().int().positive().optional()),
  /** Texts per embedding batch. */
  batch_size: shared(z.number().int().positive().default(64)),
  /**
   * Text put before every query embedded (`transformers` and `openai`), for models trained with
   * one (`query: ` for E5, `search_query: ` for Nomic); unset keeps the preset's own. Part of the
   * embedding space with the model, so the operator's.
   */
  dense_query_prefix: operatorOnly(z.string().max(200).optional()),
  /**
   * Text put before every passage and memory embedded (`passage: `, `search_document: `); unset
   * keeps the preset's own. A different one gives the embedder another id, so cached vectors and
   * stored memories are re-embedded.
   */
  dense_document_prefix: operatorOnly(z.string().max(200).optional()),
});
