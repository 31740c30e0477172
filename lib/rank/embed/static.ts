/**
 * The static embedder: the small word-vector model Gleaner builds and ships in
 * `models/static/` (GloVe 100-d, SIF-weighted, int8), run through the same
 * transformers.js path as any other model — mean pooling over the words, then
 * L2 normalisation. Loads in a fraction of a second, fully offline.
 *
 * By default the vectors are computed in plain TypeScript (`static_fast.ts`:
 * same tokenizer, same rows, no ONNX Runtime, no FFI); `engine: "transformers"`
 * runs the model through transformers.js instead.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { GleanerError } from "../../errors.ts";
import { createFastStaticEmbedder } from "./static_fast.ts";
import { createTransformersEmbedder } from "./transformers.ts";
import type { Embedder } from "./types.ts";

/** The shipped model directory as a URL (resolved from this module). */
export const STATIC_MODEL_URL: URL = new URL("../../../models/static/", import.meta.url);

/** Files the static model consists of, relative to its directory. */
export const STATIC_MODEL_FILES: readonly string[] = [
  "config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "onnx/model_quantized.onnx",
];

/**
 * The shipped model directory on disk.
 *
 * Throws `not_found` when Gleaner runs from a non-file location (for example
 * straight from a registry URL), where the model cannot be read.
 *
 * @example
 * ```ts
 * import { staticModelDir } from "./static.ts";
 * console.assert(staticModelDir().endsWith("/models/static/"));
 * ```
 */
export function staticModelDir(): string {
  if (STATIC_MODEL_URL.protocol !== "file:") {
    throw new GleanerError(
      "not_found",
      `the static embedding model is not on disk (${STATIC_MODEL_URL.protocol} install); set embed.provider to transformers with embed.models_dir, or none`,
    );
  }
  return fileURLToPath(STATIC_MODEL_URL);
}

/** Options of {@link createStaticEmbedder}. */
export interface StaticEmbedderOptions {
  /** Model directory; default the shipped one ({@link staticModelDir}). */
  dir?: string;
  /**
   * `js` (default): plain TypeScript, id `<model id>:js`; `transformers`: the
   * transformers.js pipeline (needs `--allow-ffi`), id `<model id>`.
   */
  engine?: "js" | "transformers";
  /** Texts per inference (transformers engine). Default 64. */
  batchSize?: number;
  /** Batches allowed to wait before callers get `rate_limited` (transformers engine). Default 64. */
  maxPending?: number;
}

/**
 * Reads the embedder id the build stamped into `config.json`
 * (`static:glove-sif-30k:<first 8 hex of the model's SHA-256>`), so cached
 * vectors are dropped whenever the model is rebuilt differently.
 */
async function staticModelId(dir: string): Promise<string> {
  try {
    const config = JSON.parse(await Deno.readTextFile(`${dir.replace(/\/+$/, "")}/config.json`));
    const id = config?.gleaner_static?.id;
    if (typeof id === "string" && id.startsWith("static:")) return id;
  } catch (error) {
    throw new GleanerError("not_found", `static embedding model missing at ${dir}`, {
      cause: error,
    });
  }
  return "static:custom";
}

/**
 * Creates the static embedder over the shipped model.
 *
 * @example
 * ```ts
 * import { createStaticEmbedder } from "./static.ts";
 * import { cosine } from "./vector.ts";
 * const embedder = await createStaticEmbedder();
 * const [a, b, c] = await embedder.embedDocuments([
 *   "The cat sat on the mat",
 *   "A kitten was sitting on the rug",
 *   "Stock markets fell sharply today",
 * ]);
 * console.assert(cosine(a, b) > cosine(a, c));
 * await embedder.close?.();
 * ```
 */
export async function createStaticEmbedder(options: StaticEmbedderOptions = {}): Promise<Embedder> {
  const dir = options.dir ?? staticModelDir();
  const id = await staticModelId(dir);
  if ((options.engine ?? "js") === "js") {
    return await createFastStaticEmbedder({ dir, id: `${id}:js` });
  }
  return await createTransformersEmbedder({
    model: dir,
    allowRemote: false,
    dtype: "q8",
    pooling: "mean",
    queryPrefix: "",
    documentPrefix: "",
    batchSize: options.batchSize ?? 64,
    maxPending: options.maxPending,
    id,
  });
}
