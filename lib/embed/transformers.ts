/**
 * Local embeddings with transformers.js (`npm:@huggingface/transformers`,
 * ONNX Runtime under the hood): a feature-extraction pipeline with pooling
 * and L2 normalisation, fed in batches through a bounded one-at-a-time queue.
 *
 * Models come from a local directory (a model directory given directly, or
 * `<modelsDir>/<hub id>/`) or, only when `allowRemote` is set, from the
 * Hugging Face hub on first use; downloads are kept under `modelsDir` in the
 * same layout, so the next start is offline. onnxruntime-node needs
 * `--allow-ffi` under Deno.
 *
 * transformers.js pulls onnxruntime-node, onnxruntime-web and sharp (about
 * 430 MB in `node_modules`), so it is not in the import map: it is imported
 * by its full `npm:` specifier ({@link TRANSFORMERS_SPECIFIER}, an exact
 * version) only when this provider loads a model, and Deno installs it then.
 * It is kept out of `deno.lock` too, since `deno install` installs every
 * package the lock names; `deno task test` runs on a copy of the lock.
 *
 * Permissions: read access to the models folder (write access too when `embed.allow_remote`
 * downloads); the whole `--allow-ffi` (onnxruntime-node).
 *
 * @module
 */
import { GleanerError, toGleanerError } from "../errors.ts";
import { type Env, gleanerDataDir } from "../config/env.ts";
import { getGleanerLogger } from "../log.ts";
import { SerialQueue } from "./queue.ts";
import type { Embedder } from "./types.ts";
import { documentPrefixTag } from "./cached.ts";
import { toUnitVector } from "./vector.ts";

const logger = getGleanerLogger("rank", "embed");

/**
 * The transformers.js package, imported only when a model loads. Kept out of
 * the import map and out of static analysis (the specifier is a variable), so
 * neither `deno install` nor a run that never loads a model fetches
 * onnxruntime.
 */
const TRANSFORMERS_SPECIFIER = "npm:@huggingface/transformers@4.3.2";

/** The part of a transformers.js feature-extraction pipeline Gleaner uses. */
interface FeatureExtractionPipeline {
  (
    texts: string[],
    options: { pooling: Pooling; normalize: boolean },
  ): Promise<{ dims: number[]; data: unknown; dispose?: () => void }>;
  tokenizer: unknown;
  dispose(): Promise<void>;
}

/** The part of the transformers.js module Gleaner uses. */
interface TransformersModule {
  env: {
    allowRemoteModels: boolean;
    allowLocalModels: boolean;
    localModelPath: string;
    cacheDir: string | null;
  };
  pipeline(task: "feature-extraction", model: string, options: {
    dtype: TransformersDtype;
    device: "cpu";
    local_files_only: boolean;
    cache_dir?: string;
  }): Promise<unknown>;
}

/** How token vectors become one text vector. */
export type Pooling = "mean" | "cls";

/** ONNX weight variants transformers.js can load (`onnx/model<suffix>.onnx`). */
export type TransformersDtype =
  | "fp32"
  | "fp16"
  | "q8"
  | "int8"
  | "uint8"
  | "q4"
  | "q4f16"
  | "bnb4";

/** File suffix of each dtype inside `onnx/` (transformers.js 4 naming). */
export const DTYPE_FILE_SUFFIX: Readonly<Record<TransformersDtype, string>> = {
  fp32: "",
  fp16: "_fp16",
  q8: "_quantized",
  int8: "_int8",
  uint8: "_uint8",
  q4: "_q4",
  q4f16: "_q4f16",
  bnb4: "_bnb4",
};

/** What Gleaner knows about a model: where it lives and how to use it. */
export interface TransformersModelSpec {
  /** Model id on the Hugging Face hub. */
  hubId: string;
  /** Vector length. */
  dimensions: number;
  /** Pooling the model was trained for. */
  pooling: Pooling;
  /** Prepended to search queries. */
  queryPrefix: string;
  /** Prepended to passages. */
  documentPrefix: string;
}

const BGE_QUERY_PREFIX = "Represent this sentence for searching relevant passages: ";

/**
 * The named presets: `fast` (MiniLM-L6, 384-d, mean pooling), `balanced`
 * (bge-small-en-v1.5, 384-d, the default) and `quality` (bge-base-en-v1.5,
 * 768-d). BGE models use [CLS] pooling and a query instruction, as their
 * authors specify.
 */
export const TRANSFORMERS_PRESETS: Readonly<
  Record<"fast" | "balanced" | "quality", TransformersModelSpec>
> = {
  fast: {
    hubId: "Xenova/all-MiniLM-L6-v2",
    dimensions: 384,
    pooling: "mean",
    queryPrefix: "",
    documentPrefix: "",
  },
  balanced: {
    hubId: "Xenova/bge-small-en-v1.5",
    dimensions: 384,
    pooling: "cls",
    queryPrefix: BGE_QUERY_PREFIX,
    documentPrefix: "",
  },
  quality: {
    hubId: "Xenova/bge-base-en-v1.5",
    dimensions: 768,
    pooling: "cls",
    queryPrefix: BGE_QUERY_PREFIX,
    documentPrefix: "",
  },
};

/** A preset name. */
export type TransformersPreset = keyof typeof TRANSFORMERS_PRESETS;

/** Options of {@link createTransformersEmbedder}. */
export interface TransformersEmbedderOptions {
  /** A preset (`fast`, `balanced`, `quality`), a hub id, or a local model directory. Default `balanced`. */
  model?: string;
  /** Directory of local models (`<modelsDir>/<hub id>/`); downloads land here. Default {@link defaultModelsDir} of `env`. */
  modelsDir?: string;
  /**
   * The entry point's environment snapshot (`readHostEnv()` in
   * `lib/config/env.ts`): `XDG_DATA_HOME`/`HOME` give the default models
   * directory. Default: none (no default models directory).
   */
  env?: Env;
  /** Download missing models from the Hugging Face hub. Default `false`. */
  allowRemote?: boolean;
  /** Weight variant. Default `q8` (`onnx/model_quantized.onnx`). */
  dtype?: TransformersDtype;
  /** Texts per inference. Default 32. */
  batchSize?: number;
  /** Batches allowed to wait behind the running one before callers get `rate_limited`. Default 64. */
  maxPending?: number;
  /** Characters of a text kept before tokenising (the tokenizer truncates further). Default 16384. */
  maxChars?: number;
  /**
   * Padded tokens allowed in one batch (texts × longest text): a long outlier
   * then shares its batch with few others instead of padding a full batch.
   * Default `batchSize × 128`.
   */
  maxBatchTokens?: number;
  /** Overrides the pooling of the preset (`mean` for unknown models). */
  pooling?: Pooling;
  /** Overrides the query prefix. */
  queryPrefix?: string;
  /** Overrides the document prefix (another one than the preset's changes the embedder's id). */
  documentPrefix?: string;
  /** Overrides the embedder id (used in cache keys). */
  id?: string;
}

/** Where a model will be loaded from. */
export interface ResolvedModel {
  /** `dir`: a directory on disk; `hub`: a hub id to download (remote must be allowed). */
  kind: "dir" | "hub";
  /** What is handed to transformers.js: an absolute directory or a hub id. */
  source: string;
  /** The hub id, when the model has one. */
  hubId?: string;
  /** The preset name, when one was named or matched. */
  preset?: TransformersPreset;
  /** Known facts about the model (from the preset). */
  spec?: TransformersModelSpec;
}

/** True when `path` is a directory holding a `config.json`. */
export function isModelDir(path: string): boolean {
  try {
    return Deno.statSync(joinPath(path, "config.json")).isFile;
  } catch {
    return false;
  }
}

function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

function absolutePath(path: string): string {
  if (path.startsWith("/")) return path;
  let cwd = ".";
  try {
    cwd = Deno.cwd();
  } catch {
    // no read permission for cwd: keep relative
  }
  return joinPath(cwd, path.replace(/^\.\//, ""));
}

/**
 * The default directory of local models: `$XDG_DATA_HOME/gleaner/models`
 * (or `~/.local/share/gleaner/models`); `undefined` when neither variable
 * can be read.
 *
 * @example
 * ```ts
 * import { defaultModelsDir } from "./transformers.ts";
 * console.assert(defaultModelsDir({ XDG_DATA_HOME: "/data" }) === "/data/gleaner/models");
 * ```
 */
export function defaultModelsDir(env: Env): string | undefined {
  const dir = gleanerDataDir(env);
  return dir ? `${dir}/models` : undefined;
}

const HUB_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

/**
 * Decides where a model comes from: an existing model directory wins, then a
 * preset or hub id found under `modelsDir`, then the hub itself.
 *
 * @example
 * ```ts
 * import { resolveTransformersModel } from "./transformers.ts";
 * const r = resolveTransformersModel("balanced", "/nonexistent");
 * console.assert(r.kind === "hub" && r.hubId === "Xenova/bge-small-en-v1.5");
 * ```
 */
export function resolveTransformersModel(model: string, modelsDir?: string): ResolvedModel {
  const name = model.trim();
  if (name === "") throw new GleanerError("invalid_arguments", "embed.model: empty model name");
  const dirCandidate = name.startsWith("file:") ? decodeURIComponent(new URL(name).pathname) : name;
  if (isModelDir(dirCandidate)) {
    return { kind: "dir", source: absolutePath(dirCandidate) };
  }
  const preset = (Object.hasOwn(TRANSFORMERS_PRESETS, name) ? name : undefined) as
    | TransformersPreset
    | undefined;
  const spec = preset
    ? TRANSFORMERS_PRESETS[preset]
    : Object.values(TRANSFORMERS_PRESETS).find((s) => s.hubId === name);
  const hubId = spec?.hubId ?? (HUB_ID.test(name) ? name : undefined);
  if (!hubId) {
    throw new GleanerError(
      "invalid_arguments",
      `embed.model: "${name}" is neither a preset (${
        Object.keys(TRANSFORMERS_PRESETS).join(", ")
      }), a model directory with config.json, nor a hub id`,
      { details: { field: "embed.model" } },
    );
  }
  const matchedPreset = preset ??
    (Object.entries(TRANSFORMERS_PRESETS).find(([, s]) => s.hubId === hubId)?.[0] as
      | TransformersPreset
      | undefined);
  if (modelsDir && isModelDir(joinPath(modelsDir, hubId))) {
    return {
      kind: "dir",
      source: absolutePath(joinPath(modelsDir, hubId)),
      hubId,
      preset: matchedPreset,
      spec,
    };
  }
  return { kind: "hub", source: hubId, hubId, preset: matchedPreset, spec };
}

/** Han characters are one token each under BERT pre-tokenisation; words and punctuation marks are at least one. */
const TOKEN_ESTIMATE = /\p{Script=Han}|[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu;

/**
 * A cheap estimate of a text's token count (BERT-style pre-tokenisation plus
 * the two special tokens), used only to group texts of similar length.
 *
 * @example
 * ```ts
 * import { estimateTokens } from "./transformers.ts";
 * console.assert(estimateTokens("Hello, world!") === 6);
 * ```
 *
 * @internal exported for tests only
 */
export function estimateTokens(text: string): number {
  return (text.match(TOKEN_ESTIMATE)?.length ?? 0) + 2;
}

/**
 * Splits indices, already sorted longest first, into batches of at most
 * `batchSize` texts whose padded size (count × longest) stays within
 * `maxBatchTokens`; a single text always forms a batch.
 *
 * @example
 * ```ts
 * import { planBatches } from "./transformers.ts";
 * const batches = planBatches([0, 1, 2, 3], [600, 50, 40, 30], 64, 1000);
 * console.assert(JSON.stringify(batches) === "[[0],[1,2,3]]");
 * ```
 *
 * @internal exported for tests only
 */
export function planBatches(
  order: number[],
  tokens: number[],
  batchSize: number,
  maxBatchTokens: number,
): number[][] {
  const batches: number[][] = [];
  let current: number[] = [];
  let longest = 0;
  for (const index of order) {
    const width = Math.max(longest, tokens[index]);
    if (
      current.length > 0 &&
      (current.length >= batchSize || (current.length + 1) * width > maxBatchTokens)
    ) {
      batches.push(current);
      current = [];
    }
    if (current.length === 0) longest = tokens[index];
    current.push(index);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Fails with a message naming the flag when FFI (onnxruntime-node) is not permitted. */
async function requireFfi(): Promise<void> {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (!deno?.permissions) return;
  const status = await deno.permissions.query({ name: "ffi" });
  if (status.state !== "granted") {
    throw new GleanerError(
      "provider_unavailable",
      "local embeddings need --allow-ffi (onnxruntime-node); grant it or set embed.provider to none or openai",
    );
  }
}

/** transformers.js settings are process-wide: loads take turns so each sees its own. */
let loadChain: Promise<unknown> = Promise.resolve();

async function loadPipeline(
  resolved: ResolvedModel,
  options: { modelsDir?: string; allowRemote: boolean; dtype: TransformersDtype },
): Promise<FeatureExtractionPipeline> {
  await requireFfi();
  // Node (the npm build) resolves the bare name: an optional peer dependency.
  const specifier = "Deno" in globalThis ? TRANSFORMERS_SPECIFIER : "@huggingface/transformers";
  let transformers: TransformersModule;
  try {
    transformers = await import(specifier) as TransformersModule;
  } catch (error) {
    // `--node-modules-dir=manual` (`deno task mcp`) installs nothing on demand.
    if (!/node_modules|deno install|Could not find/i.test(String(error))) throw error;
    throw new GleanerError(
      "provider_unavailable",
      "@huggingface/transformers is not installed here: run `deno run -A cli.ts setup` once " +
        "(it installs the package and the model), or use embed.provider static",
      { cause: error },
    );
  }
  const { env } = transformers;
  const run = async () => {
    const saved = {
      allowRemoteModels: env.allowRemoteModels,
      allowLocalModels: env.allowLocalModels,
      localModelPath: env.localModelPath,
      cacheDir: env.cacheDir,
    };
    env.allowLocalModels = true;
    env.allowRemoteModels = options.allowRemote && resolved.kind === "hub";
    if (options.modelsDir) {
      env.localModelPath = options.modelsDir.endsWith("/")
        ? options.modelsDir
        : `${options.modelsDir}/`;
      env.cacheDir = options.modelsDir;
    }
    try {
      return await transformers.pipeline("feature-extraction", resolved.source, {
        dtype: options.dtype,
        device: "cpu",
        local_files_only: !env.allowRemoteModels,
        cache_dir: options.modelsDir,
      }) as FeatureExtractionPipeline;
    } finally {
      Object.assign(env, saved);
    }
  };
  const result = loadChain.then(run, run);
  loadChain = result.catch(() => undefined);
  return await result;
}

function describe(resolved: ResolvedModel): string {
  return resolved.preset ? `${resolved.preset} (${resolved.hubId})` : resolved.source;
}

/** The error of a model that did not load: its files missing for `dtype`, or unloadable. */
function loadFailure(error: unknown, label: string, dtype: TransformersDtype): GleanerError {
  if (error instanceof GleanerError) return error;
  const missing = error instanceof Error &&
    (error.name === "ModelFileNotFoundError" || /not found|ENOENT|Could not locate/i.test(
      error.message,
    ));
  return new GleanerError(
    missing ? "not_found" : "provider_unavailable",
    missing
      ? `embedding model ${label}: files for dtype ${dtype} are missing (onnx/model${
        DTYPE_FILE_SUFFIX[dtype]
      }.onnx, tokenizer.json, config.json)`
      : `embedding model ${label} could not be loaded`,
    { cause: error, details: { model: label, dtype } },
  );
}

/**
 * Loads a transformers.js feature-extraction model and returns an
 * {@link Embedder} over it. Texts are embedded in batches of at most `batchSize`
 * (grouped by estimated length under `maxBatchTokens`), one inference at a time; vectors come back
 * in input order, unit length, and a text that yields no vector (empty, or
 * made only of padding) gets the zero vector instead of NaN.
 *
 * Throws `not_found` when the model files are missing and downloads are off,
 * `provider_unavailable` when the runtime or model cannot load,
 * `invalid_arguments` for a model name that is nothing known.
 *
 * @example
 * ```ts ignore
 * import { createTransformersEmbedder } from "./transformers.ts";
 * const embedder = await createTransformersEmbedder({ model: "balanced", modelsDir: "/srv/models" });
 * const [query] = await embedder.embedQueries(["how do tides work"]);
 * console.assert(query.length === embedder.dimensions);
 * await embedder.close?.();
 * ```
 */
export async function createTransformersEmbedder(
  options: TransformersEmbedderOptions = {},
): Promise<Embedder> {
  const modelsDir = options.modelsDir ?? defaultModelsDir(options.env ?? {});
  const resolved = resolveTransformersModel(options.model ?? "balanced", modelsDir);
  const allowRemote = options.allowRemote ?? false;
  const dtype = options.dtype ?? "q8";
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 32));
  const maxChars = Math.max(1, Math.floor(options.maxChars ?? 16_384));
  const maxBatchTokens = Math.max(1, Math.floor(options.maxBatchTokens ?? batchSize * 128));
  const pooling = options.pooling ?? resolved.spec?.pooling ?? "mean";
  const queryPrefix = options.queryPrefix ?? resolved.spec?.queryPrefix ?? "";
  const documentPrefix = options.documentPrefix ?? resolved.spec?.documentPrefix ?? "";
  const label = describe(resolved);

  if (resolved.kind === "hub" && !allowRemote) {
    throw new GleanerError(
      "not_found",
      `embedding model ${label} is not under ${
        modelsDir ?? "(no models directory)"
      } and downloads are off (embed.allow_remote)`,
      { details: { model: resolved.hubId, models_dir: modelsDir } },
    );
  }

  const started = performance.now();
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = await loadPipeline(resolved, { modelsDir, allowRemote, dtype });
  } catch (error) {
    throw loadFailure(error, label, dtype);
  }

  const modelMax = Number(
    (extractor.tokenizer as unknown as { model_max_length?: number }).model_max_length,
  );
  const maxTokens = Number.isFinite(modelMax) && modelMax > 0 ? modelMax : 512;
  const name = options.id ??
    `transformers:${
      resolved.hubId ?? resolved.source.replace(/\/+$/, "").split("/").pop()
    }:${dtype}${
      documentPrefix === (resolved.spec?.documentPrefix ?? "")
        ? ""
        : documentPrefixTag(documentPrefix)
    }`;
  const queue = new SerialQueue(options.maxPending ?? 64, `embedder ${name}`);
  let closed = false;

  const infer = async (texts: string[]): Promise<Float32Array[]> => {
    const output = await extractor(texts, { pooling, normalize: true });
    const [rows, dims] = output.dims as number[];
    const data = output.data as Float32Array;
    const out: Float32Array[] = [];
    for (let r = 0; r < rows; r++) out.push(toUnitVector(data.subarray(r * dims, (r + 1) * dims)));
    output.dispose?.();
    return out;
  };

  let dimensions: number;
  try {
    dimensions = (await infer(["dimension probe"]))[0].length;
  } catch (error) {
    await extractor.dispose().catch(() => undefined);
    throw new GleanerError(
      "provider_unavailable",
      `embedding model ${label} failed its first run`,
      {
        cause: error,
      },
    );
  }
  logger.info("loaded embedding model {model} ({dims}-d, {dtype}) in {ms} ms", {
    model: label,
    dims: dimensions,
    dtype,
    ms: Math.round(performance.now() - started),
  });

  const embed = async (
    texts: string[],
    prefix: string,
    signal?: AbortSignal,
  ): Promise<Float32Array[]> => {
    if (closed) throw new GleanerError("provider_unavailable", `embedder ${name} is closed`);
    const out: Float32Array[] = new Array(texts.length);
    const order: number[] = [];
    texts.forEach((text, i) => {
      if (typeof text !== "string" || text.trim() === "") out[i] = new Float32Array(dimensions);
      else order.push(i);
    });
    const clipped = texts.map((t) => (typeof t === "string" ? prefix + t.slice(0, maxChars) : ""));
    const tokens = clipped.map((t) => Math.min(estimateTokens(t), maxTokens));
    order.sort((a, b) => tokens[b] - tokens[a]);
    for (const indices of planBatches(order, tokens, batchSize, maxBatchTokens)) {
      const batch = indices.map((i) => clipped[i]);
      let vectors: Float32Array[];
      try {
        vectors = await queue.run(() => infer(batch), signal);
      } catch (error) {
        if (error instanceof GleanerError) throw error;
        const converted = toGleanerError(error, `embedder ${name}`);
        throw converted.code === "timeout" ? converted : new GleanerError(
          "provider_unavailable",
          `embedder ${name}: inference failed`,
          { cause: error },
        );
      }
      indices.forEach((i, k) => (out[i] = vectors[k]));
    }
    return out;
  };

  return {
    id: name,
    dimensions,
    embedQueries: (texts, signal) => embed(texts, queryPrefix, signal),
    embedDocuments: (texts, signal) => embed(texts, documentPrefix, signal),
    async close() {
      if (closed) return;
      closed = true;
      queue.clear(new GleanerError("provider_unavailable", `embedder ${name} is closed`));
      await queue.run(() => extractor.dispose()).catch(() => extractor.dispose());
    },
  };
}
