/**
 * Embedders: the shipped static model, transformers.js models, and
 * OpenAI-compatible APIs behind one {@link Embedder} interface, picked from
 * `config.embed`.
 *
 * @module
 */
import type { Config } from "../config/config.ts";
import type { Env } from "../config/env.ts";
import { GleanerError } from "../errors.ts";
import type { Fetcher } from "../net/types.ts";
import { withCache } from "./cached.ts";
import { createOpenAIEmbedder } from "./openai.ts";
import {
  createStaticEmbedder,
  STATIC_MODEL_FILES,
  staticModelCopyDir,
  staticModelDir,
} from "./static.ts";
import {
  createTransformersEmbedder,
  defaultModelsDir,
  DTYPE_FILE_SUFFIX,
  resolveTransformersModel,
  TRANSFORMERS_PRESETS,
  type TransformersDtype,
} from "./transformers.ts";
import type { Embedder, EmbeddingCache } from "./types.ts";

export type { Embedder, EmbeddingCache, EmbeddingUsage } from "./types.ts";
export { textHash, withCache } from "./cached.ts";
export { createOpenAIEmbedder, type OpenAIEmbedderOptions } from "./openai.ts";
export {
  createStaticEmbedder,
  ensureStaticModelDir,
  type EnsureStaticModelOptions,
  STATIC_MODEL_FILES,
  type StaticEmbedderOptions,
  staticModelCopyDir,
  staticModelDir,
} from "./static.ts";
export {
  createTransformersEmbedder,
  defaultModelsDir,
  isModelDir,
  type Pooling,
  type ResolvedModel,
  resolveTransformersModel,
  TRANSFORMERS_PRESETS,
  type TransformersDtype,
  type TransformersEmbedderOptions,
  type TransformersModelSpec,
  type TransformersPreset,
} from "./transformers.ts";
export { cosine, isZeroVector, toUnitVector } from "./vector.ts";
export { capWords, createUseLiteEmbedder, USE_LITE_ID, type UseLiteOptions } from "./use_lite.ts";
export { type RerankerResult, sharedReranker } from "./reranker.ts";

/** What {@link createEmbedder} may need besides the settings. */
export interface EmbedderDeps {
  /** Guarded fetcher; required by the `openai` provider. */
  fetcher?: Fetcher;
  /** Passage-vector cache; used for the `transformers` and `openai` providers. */
  cache?: EmbeddingCache;
  /**
   * The entry point's environment snapshot (`readHostEnv()` in
   * `lib/config/env.ts`): `XDG_DATA_HOME`/`HOME` give the default models
   * directory. Default: none (no default models directory).
   */
  env?: Env;
}

/**
 * Builds the configured embedder, or `null` for `provider: "none"`. The
 * static model is not wrapped in the cache (computing it is cheaper than a
 * lookup); the others are, when a cache is given.
 *
 * @example
 * ```ts
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createEmbedder } from "./mod.ts";
 * const embedder = await createEmbedder(parseConfig({ embed: { provider: "static" } }).embed);
 * console.assert(embedder !== null && embedder.dimensions === 100);
 * await embedder?.close?.();
 * ```
 */
export async function createEmbedder(
  config: Config["embed"],
  deps: EmbedderDeps = {},
): Promise<Embedder | null> {
  const cached = (embedder: Embedder) => deps.cache ? withCache(embedder, deps.cache) : embedder;
  switch (config.provider) {
    case "none":
      return null;
    case "static":
      return await createStaticEmbedder({ batchSize: config.batch_size, env: deps.env });
    case "transformers":
      return cached(
        await createTransformersEmbedder({
          model: config.model,
          modelsDir: config.models_dir,
          allowRemote: config.allow_remote,
          dtype: config.dtype,
          batchSize: config.batch_size,
          env: deps.env,
          queryPrefix: config.dense_query_prefix,
          documentPrefix: config.dense_document_prefix,
        }),
      );
    case "openai": {
      if (!config.api_url) {
        throw new GleanerError(
          "invalid_arguments",
          "embed.api_url is required for provider openai",
          {
            details: { field: "embed.api_url" },
          },
        );
      }
      if (!config.api_model) {
        throw new GleanerError(
          "invalid_arguments",
          "embed.api_model is required for provider openai",
          { details: { field: "embed.api_model" } },
        );
      }
      if (!deps.fetcher) {
        throw new GleanerError("internal", "the openai embedder needs a fetcher");
      }
      return cached(createOpenAIEmbedder({
        fetcher: deps.fetcher,
        url: config.api_url,
        model: config.api_model,
        apiKey: config.api_key,
        dimensions: config.api_dimensions,
        batchSize: config.batch_size,
        queryPrefix: config.dense_query_prefix,
        documentPrefix: config.dense_document_prefix,
      }));
    }
  }
}

/** One file checked by {@link embedderStatus}. */
export interface ModelFileStatus {
  /** Path relative to the model directory. */
  file: string;
  /** Whether it exists. */
  present: boolean;
  /** Size in bytes when present. */
  bytes?: number;
}

/** A preset's local copy, as seen by {@link embedderStatus}. */
export interface LocalModelStatus {
  /** Preset name. */
  preset: string;
  /** Hub id. */
  hub_id: string;
  /** Where it is looked for. */
  dir: string;
  /** `config.json`, `tokenizer.json` and the ONNX file of the configured dtype are all there. */
  present: boolean;
}

/** What `gleaner doctor` shows about embeddings. */
export interface EmbedderStatus {
  /** The configured provider. */
  provider: Config["embed"]["provider"];
  /** Whether the configured embedder can start now without downloading anything. */
  ready: boolean;
  /** One line for humans. */
  detail: string;
  /** The shipped static model. */
  static: { dir: string | null; present: boolean; files: ModelFileStatus[] };
  /** Directory of local transformers.js models (`null` when unknown). */
  models_dir: string | null;
  /** Local copies of the presets. */
  local_models: LocalModelStatus[];
  /** Whether transformers.js may download missing models. */
  allow_remote: boolean;
  /** `--allow-ffi` state (needed by onnxruntime-node for the transformers provider). */
  ffi: "granted" | "denied" | "prompt" | "unknown";
}

async function fileStatus(dir: string, file: string): Promise<ModelFileStatus> {
  try {
    const stat = await Deno.stat(`${dir.replace(/\/+$/, "")}/${file}`);
    return { file, present: stat.isFile, bytes: stat.size };
  } catch {
    return { file, present: false };
  }
}

async function modelFilesPresent(dir: string, dtype: TransformersDtype): Promise<boolean> {
  const files = ["config.json", "tokenizer.json", `onnx/model${DTYPE_FILE_SUFFIX[dtype]}.onnx`];
  const checks = await Promise.all(files.map((f) => fileStatus(dir, f)));
  return checks.every((c) => c.present);
}

async function ffiState(): Promise<EmbedderStatus["ffi"]> {
  try {
    const deno = (globalThis as { Deno?: typeof Deno }).Deno;
    if (!deno?.permissions) return "unknown";
    return (await deno.permissions.query({ name: "ffi" })).state;
  } catch {
    return "unknown";
  }
}

/**
 * Reports what is present locally for embeddings — the static model's files,
 * local copies of the presets, the `--allow-ffi` state — and whether the
 * configured embedder could start offline. Loads no model. `env` is the entry
 * point's environment snapshot (where the models directory is by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "@gleaner/gleaner";
 * import { embedderStatus } from "./mod.ts";
 * const status = await embedderStatus(parseConfig({}).embed);
 * console.assert(status.provider === "static" && status.static.present);
 * ```
 */
export async function embedderStatus(
  config: Config["embed"],
  env: Env = {},
): Promise<EmbedderStatus> {
  let dir: string | null = null;
  try {
    dir = staticModelDir();
  } catch {
    // Not running from files: the model is read from its copy on disk, once made.
    dir = staticModelCopyDir(env) ?? null;
  }
  const files = dir
    ? await Promise.all(STATIC_MODEL_FILES.map((f) => fileStatus(dir!, f)))
    : STATIC_MODEL_FILES.map((file) => ({ file, present: false }));
  const staticPresent = dir !== null && files.every((f) => f.present);
  const modelsDir = config.models_dir ?? defaultModelsDir(env) ?? null;
  const local_models: LocalModelStatus[] = [];
  for (const [preset, spec] of Object.entries(TRANSFORMERS_PRESETS)) {
    const presetDir = modelsDir ? `${modelsDir.replace(/\/+$/, "")}/${spec.hubId}` : "";
    local_models.push({
      preset,
      hub_id: spec.hubId,
      dir: presetDir,
      present: presetDir !== "" && await modelFilesPresent(presetDir, config.dtype),
    });
  }
  const ffi = await ffiState();
  // The static model runs in plain TypeScript; only transformers.js needs onnxruntime (FFI).
  const needsFfi = config.provider === "transformers";
  let ready = false;
  let detail: string;
  switch (config.provider) {
    case "none":
      ready = true;
      detail = "embeddings off: ranking is lexical (BM25) only";
      break;
    case "static":
      ready = staticPresent;
      detail = staticPresent
        ? `static model ready (${dir})`
        : `static model files missing under ${dir ?? "(not on disk)"}`;
      break;
    case "transformers": {
      try {
        const resolved = resolveTransformersModel(config.model, modelsDir ?? undefined);
        const local = resolved.kind === "dir" &&
          await modelFilesPresent(resolved.source, config.dtype);
        ready = local || config.allow_remote;
        detail = local
          ? `model ${config.model} found at ${resolved.source}`
          : config.allow_remote
          ? `model ${config.model} will be downloaded from the hub into ${modelsDir} on first use`
          : `model ${config.model} (dtype ${config.dtype}) not found under ${modelsDir}; set embed.allow_remote or place it there`;
      } catch (error) {
        detail = error instanceof Error ? error.message : String(error);
      }
      break;
    }
    case "openai":
      ready = Boolean(config.api_url && config.api_model);
      detail = ready
        ? `OpenAI-compatible API ${new URL(config.api_url!).origin}, model ${config.api_model}${
          config.api_key ? "" : " (no key set)"
        }`
        : "embed.api_url and embed.api_model are required for provider openai";
      break;
  }
  if (needsFfi && ffi !== "granted" && ffi !== "unknown") {
    ready = false;
    detail += "; needs --allow-ffi";
  }
  return {
    provider: config.provider,
    ready,
    detail,
    static: { dir, present: staticPresent, files },
    models_dir: modelsDir,
    local_models,
    allow_remote: config.allow_remote,
    ffi,
  };
}
