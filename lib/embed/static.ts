/**
 * The static embedder: the small token-table model Gleaner builds and ships in
 * `models/static/` (100-d, int8; USE-lite distilled into 30,000 word rows by
 * `scripts/distill_static_model.ts`, see `bench/distill.md`), run through the same
 * transformers.js path as any other model — mean pooling over the words, then
 * L2 normalisation. Loads in a fraction of a second, fully offline.
 *
 * By default the vectors are computed in plain TypeScript (`static_fast.ts`:
 * same tokenizer, same rows, no ONNX Runtime, no FFI); `engine: "transformers"`
 * runs the model through transformers.js instead.
 *
 * Permissions: read access to the model folder (`models/static/` of a checkout, or its copy in the
 * data dir, which a JSR run writes once).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { GleanerError } from "../errors.ts";
import type { Env } from "../config/env.ts";
import { createFastStaticEmbedder } from "./static_fast.ts";
import { getGleanerLogger } from "../log.ts";
import { VERSION } from "../version.ts";
import { createTransformersEmbedder, defaultModelsDir } from "./transformers.ts";
import type { Embedder } from "./types.ts";

const log = getGleanerLogger("rank", "embed");

/** The shipped model directory as a URL (resolved from this module). */
export const STATIC_MODEL_URL: URL = new URL("../../models/static/", import.meta.url);

/** Files the static model consists of, relative to its directory. */
export const STATIC_MODEL_FILES: readonly string[] = [
  "config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "onnx/model_quantized.onnx",
  "neighbours.bin",
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

/** Options of {@link ensureStaticModelDir}. */
export interface EnsureStaticModelOptions {
  /** Where the model is published; default {@link STATIC_MODEL_URL}. */
  source?: URL;
  /**
   * Where a model that is not on disk is copied (default
   * `<models dir>/gleaner-static/<version>`, see `defaultModelsDir`).
   */
  cacheDir?: string;
  /**
   * The entry point's environment snapshot (`readHostEnv()` in
   * `lib/config/env.ts`): `XDG_DATA_HOME`/`HOME` give the default models
   * directory. Default: none (no default models directory).
   */
  env?: Env;
}

const copies = new Map<string, Promise<string>>();

/** Longest wait for one model file when copying it (the biggest is about 3 MB). */
const COPY_TIMEOUT_MS = 60_000;

/**
 * Where {@link ensureStaticModelDir} copies the model when Gleaner does not
 * run from files: `<models dir>/gleaner-static/<version>/`; `undefined` when
 * no data directory is known.
 */
export function staticModelCopyDir(env: Env): string | undefined {
  const base = defaultModelsDir(env);
  return base ? `${base}/gleaner-static/${VERSION}/` : undefined;
}

/**
 * The static model's directory on disk. When Gleaner runs from files (a
 * checkout, a `deno install`, a compiled binary) that is the shipped
 * directory itself. When it runs from a registry URL (a JSR import), the
 * model's files are fetched once from beside the module, written to
 * `cacheDir` (each file complete before it appears) and read from there on.
 * Throws `not_found` when they can be neither read nor fetched.
 *
 * @example
 * ```ts
 * import { ensureStaticModelDir } from "./static.ts";
 * console.assert((await ensureStaticModelDir()).endsWith("/models/static/"));
 * ```
 */
export function ensureStaticModelDir(options: EnsureStaticModelOptions = {}): Promise<string> {
  const source = options.source ?? STATIC_MODEL_URL;
  if (source.protocol === "file:") return Promise.resolve(fileURLToPath(source));
  const dir = options.cacheDir ?? staticModelCopyDir(options.env ?? {});
  if (!dir) {
    return Promise.reject(
      new GleanerError(
        "not_found",
        "the static model must be copied to disk, but no data directory is known (set XDG_DATA_HOME or HOME)",
      ),
    );
  }
  const key = `${source.href}\n${dir}`;
  let copy = copies.get(key);
  if (!copy) {
    copy = copyModel(source, dir);
    copies.set(key, copy);
    copy.catch(() => copies.delete(key));
  }
  return copy;
}

async function copyModel(source: URL, dir: string): Promise<string> {
  const root = dir.replace(/\/+$/, "");
  for (const file of STATIC_MODEL_FILES) {
    const target = `${root}/${file}`;
    try {
      await Deno.stat(target);
      continue;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const url = new URL(file, source);
    let bytes: Uint8Array;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(COPY_TIMEOUT_MS) });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}`);
      }
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw new GleanerError("not_found", `static model file ${url.href} could not be fetched`, {
        cause: error,
      });
    }
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    const partial = `${target}.partial-${crypto.randomUUID()}`;
    await Deno.writeFile(partial, bytes);
    await Deno.rename(partial, target);
  }
  log.info("static model copied from {source} to {dir}", { source: source.href, dir: root });
  return `${root}/`;
}

/** Options of {@link createStaticEmbedder}. */
export interface StaticEmbedderOptions {
  /** Model directory; default the shipped one ({@link ensureStaticModelDir}). */
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
  /**
   * The entry point's environment snapshot (`readHostEnv()` in
   * `lib/config/env.ts`): `XDG_DATA_HOME`/`HOME` give the default models
   * directory. Default: none (no default models directory).
   */
  env?: Env;
}

/**
 * Reads the embedder id the build stamped into `config.json`
 * (`static:<model name>:<first 8 hex of the model's SHA-256>`, e.g.
 * `static:use-lite-distil-30k-100d:0a073480`), so cached
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
  const dir = options.dir ?? await ensureStaticModelDir({ env: options.env });
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
