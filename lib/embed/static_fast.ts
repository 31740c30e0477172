/**
 * The static model computed in plain TypeScript: the same vectors the
 * transformers.js pipeline produces for `models/static/` (BERT normaliser and
 * pre-tokeniser, whole-word lookup, `Cast(Gather(q, ids)) * Gather(scale, ids)`,
 * mean pooling over every token including `[CLS]`/`[SEP]`, L2 normalisation),
 * without ONNX Runtime, FFI or batching. The int8 rows and their scales are
 * read straight from the ONNX file's initializers, so the model stays one set
 * of bytes.
 *
 * @module
 */
import { pace } from "../async/pace.ts";
import { GleanerError } from "../errors.ts";
import type { Embedder } from "./types.ts";
import { toUnitVector } from "./vector.ts";
import { memoByText } from "../cache/text_memo.ts";

/** Vectors kept per embedder, of texts up to {@link RECENT_CHARS} characters. */
const RECENT_VECTORS = 8_192;
/** Longest text whose vector is kept (a passage is far shorter; a memory too). */
const RECENT_CHARS = 4_096;

/** The dequantised lookup table: row `id` is `table[id·dims … (id+1)·dims)`. */
export interface StaticTable {
  /** Rows (vocabulary size). */
  rows: number;
  /** Vector length. */
  dims: number;
  /** `float32(q · scale)` per element, exactly what the ONNX graph computes. */
  table: Float32Array;
}

// ---------------------------------------------------------------- protobuf

interface Reader {
  bytes: Uint8Array;
  pos: number;
}

function readVarint(r: Reader): number {
  let result = 0;
  let shift = 1;
  for (let i = 0; i < 10; i++) {
    if (r.pos >= r.bytes.length) throw new Error("truncated varint");
    const b = r.bytes[r.pos++];
    result += (b & 0x7f) * shift;
    if ((b & 0x80) === 0) return result;
    shift *= 128;
  }
  throw new Error("varint too long");
}

/** Calls `onField(field, wireType, value)` for every field of one message. */
function eachField(
  bytes: Uint8Array,
  onField: (field: number, wire: number, r: Reader, end: number) => void,
): void {
  const r: Reader = { bytes, pos: 0 };
  while (r.pos < bytes.length) {
    const key = readVarint(r);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      const start = r.pos;
      readVarint(r);
      onField(field, wire, { bytes, pos: start }, r.pos);
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      onField(field, wire, { bytes, pos: r.pos }, r.pos + size);
      r.pos += size;
    } else if (wire === 2) {
      const length = readVarint(r);
      const end = r.pos + length;
      if (end > bytes.length) throw new Error("truncated field");
      onField(field, wire, { bytes, pos: r.pos }, end);
      r.pos = end;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
}

/** One ONNX initializer with raw little-endian data. */
interface RawTensor {
  dims: number[];
  dataType: number;
  raw: Uint8Array;
}

/**
 * Reads the initializers (name → dims, data type, raw bytes) of an ONNX model
 * (`ModelProto.graph` = field 7, `GraphProto.initializer` = field 5,
 * `TensorProto` dims 1, data_type 2, name 8, raw_data 9). Tensors stored
 * without `raw_data` are skipped.
 *
 * @example
 * ```ts
 * import { readOnnxInitializers } from "./static_fast.ts";
 * console.assert(readOnnxInitializers(new Uint8Array()).size === 0);
 * ```
 *
 * @internal exported for tests only
 */
export function readOnnxInitializers(model: Uint8Array): Map<string, RawTensor> {
  const out = new Map<string, RawTensor>();
  eachField(model, (field, wire, r, end) => {
    if (field !== 7 || wire !== 2) return;
    eachField(r.bytes.subarray(r.pos, end), (gField, gWire, gr, gEnd) => {
      if (gField !== 5 || gWire !== 2) return;
      const tensor: RawTensor & { name: string } = {
        dims: [],
        dataType: 0,
        raw: new Uint8Array(),
        name: "",
      };
      let hasRaw = false;
      eachField(gr.bytes.subarray(gr.pos, gEnd), (tField, tWire, tr, tEnd) => {
        if (tField === 1 && tWire === 0) tensor.dims.push(readVarint(tr));
        else if (tField === 1 && tWire === 2) {
          const packed = { bytes: tr.bytes, pos: tr.pos };
          while (packed.pos < tEnd) tensor.dims.push(readVarint(packed));
        } else if (tField === 2 && tWire === 0) tensor.dataType = readVarint(tr);
        else if (tField === 8 && tWire === 2) {
          tensor.name = new TextDecoder().decode(tr.bytes.subarray(tr.pos, tEnd));
        } else if (tField === 9 && tWire === 2) {
          tensor.raw = tr.bytes.subarray(tr.pos, tEnd);
          hasRaw = true;
        }
      });
      if (hasRaw) {
        out.set(tensor.name, { dims: tensor.dims, dataType: tensor.dataType, raw: tensor.raw });
      }
    });
  });
  return out;
}

const ONNX_FLOAT = 1;
const ONNX_INT8 = 3;

/**
 * Builds the dequantised table from the static model's ONNX bytes
 * (initializers `embeddings_q8` int8 [rows, dims] and `row_scales` float32
 * [rows, 1]). Throws when the file does not have that shape.
 *
 * @example
 * ```ts ignore
 * import { loadStaticTable } from "./static_fast.ts";
 * const t = loadStaticTable(await Deno.readFile("models/static/onnx/model_quantized.onnx"));
 * console.assert(t.dims === 100);
 * ```
 *
 * @internal exported for tests only
 */
export function loadStaticTable(model: Uint8Array): StaticTable {
  const inits = readOnnxInitializers(model);
  const q = inits.get("embeddings_q8");
  const s = inits.get("row_scales");
  if (
    !q || !s || q.dataType !== ONNX_INT8 || s.dataType !== ONNX_FLOAT || q.dims.length !== 2 ||
    s.dims[0] !== q.dims[0] || q.raw.length !== q.dims[0] * q.dims[1] ||
    s.raw.length !== q.dims[0] * 4
  ) {
    throw new Error("not a Gleaner static model (embeddings_q8 / row_scales initializers)");
  }
  const [rows, dims] = q.dims;
  const qv = new Int8Array(q.raw.buffer, q.raw.byteOffset, q.raw.length);
  const sv = new DataView(s.raw.buffer, s.raw.byteOffset, s.raw.length);
  const table = new Float32Array(rows * dims);
  for (let r = 0; r < rows; r++) {
    const scale = sv.getFloat32(r * 4, true);
    const base = r * dims;
    for (let d = 0; d < dims; d++) table[base + d] = qv[base + d] * scale;
  }
  return { rows, dims, table };
}

// ---------------------------------------------------------------- tokenizer

/** BERT's punctuation set as the transformers.js pre-tokeniser spells it. */
const PUNCT = "\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E";
const PRE_TOKEN = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, "gu");
/** Dropped by BertNormalizer.clean_text: NUL, U+FFFD, control/format/private/surrogate except \t\n\r. */
const CLEAN_DROP = /[\0\uFFFD]|(?![\t\n\r])[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu;
const WHITESPACE = /\s/g;
/** CJK ideographs BertNormalizer spaces out (it checks UTF-16 units, so only BMP ranges apply). */
const CJK = /[\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]/g;
const MARKS = /\p{Mn}/gu;
/** Anything but printable ASCII (NFD and mark stripping may change it). */
const NON_ASCII = /[^ -~\t\n\r]/;

/** The parts of `tokenizer.json` / `tokenizer_config.json` the fast path reproduces. */
export interface StaticTokenizer {
  /** Token ids of a text, with the special tokens and truncation the pipeline applies. */
  encode(text: string): number[];
}

interface TokenizerJson {
  added_tokens?: {
    id: number;
    content: string;
    normalized?: boolean;
    special?: boolean;
    lstrip?: boolean;
    rstrip?: boolean;
    single_word?: boolean;
  }[];
  normalizer?: Record<string, unknown> | null;
  pre_tokenizer?: { type?: string } | null;
  post_processor?: {
    type?: string;
    single?: ({ SpecialToken?: { id: string } } | { Sequence?: { id: string } })[];
  } | null;
  model?: {
    type?: string;
    unk_token?: string;
    continuing_subword_prefix?: string;
    max_input_chars_per_word?: number;
    vocab?: Record<string, number>;
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Builds the tokenizer from the model's `tokenizer.json` and
 * `model_max_length`. Throws when the file uses anything the fast path does
 * not reproduce exactly (sub-word pieces, other normalisers or templates).
 *
 * @example
 * ```ts
 * import { createStaticTokenizer } from "./static_fast.ts";
 * const t = createStaticTokenizer({
 *   added_tokens: [{ id: 1, content: "[UNK]", normalized: false }],
 *   normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, lowercase: true, strip_accents: null },
 *   pre_tokenizer: { type: "BertPreTokenizer" },
 *   post_processor: null,
 *   model: { type: "WordPiece", unk_token: "[UNK]", vocab: { "[UNK]": 1, cafe: 2 } },
 * }, 512);
 * console.assert(t.encode("Café!").join() === "2,1");
 * ```
 */
export function createStaticTokenizer(json: unknown, maxLength: number): StaticTokenizer {
  const tj = json as TokenizerJson;
  const model = tj.model;
  const norm = tj.normalizer;
  const unsupported = (what: string) =>
    new Error(`static fast path cannot reproduce this tokenizer (${what})`);
  if (!model || model.type !== "WordPiece" || !model.vocab || !model.unk_token) {
    throw unsupported("model");
  }
  if (
    !norm || norm.type !== "BertNormalizer" || norm.clean_text !== true ||
    norm.handle_chinese_chars !== true || norm.lowercase !== true || norm.strip_accents === false
  ) throw unsupported("normalizer");
  if (tj.pre_tokenizer?.type !== "BertPreTokenizer") throw unsupported("pre_tokenizer");
  const vocab = new Map<string, number>(Object.entries(model.vocab));
  const prefix = model.continuing_subword_prefix ?? "##";
  for (const token of vocab.keys()) {
    if (token.startsWith(prefix)) throw unsupported("sub-word pieces");
  }
  const unk = vocab.get(model.unk_token);
  if (unk === undefined) throw unsupported("unk token");
  const maxChars = model.max_input_chars_per_word ?? 100;

  const added = new Map<string, number>();
  for (const token of tj.added_tokens ?? []) {
    const normalized = token.normalized ?? !token.special;
    if (normalized || token.lstrip || token.rstrip || token.single_word) {
      throw unsupported(`added token ${token.content}`);
    }
    added.set(token.content, token.id);
  }
  const splitter = added.size > 0
    ? new RegExp(
      [...added.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp).join("|"),
      "g",
    )
    : null;

  const before: number[] = [];
  const after: number[] = [];
  const post = tj.post_processor;
  if (post) {
    if (post.type !== "TemplateProcessing" || !post.single) throw unsupported("post_processor");
    let seen = false;
    for (const part of post.single) {
      if ("Sequence" in part && part.Sequence) seen = true;
      else if ("SpecialToken" in part && part.SpecialToken) {
        const id = added.get(part.SpecialToken.id) ?? vocab.get(part.SpecialToken.id);
        if (id === undefined) throw unsupported("template token");
        (seen ? after : before).push(id);
      }
    }
  }

  const encodeSection = (section: string, ids: number[]) => {
    let text = section.replace(CLEAN_DROP, "").replace(WHITESPACE, " ").replace(CJK, " $& ")
      .toLowerCase();
    if (NON_ASCII.test(text)) text = text.normalize("NFD").replace(MARKS, "");
    if (text.length === 0) return;
    const words = text.trim().match(PRE_TOKEN);
    if (!words) return;
    for (const word of words) {
      const id = vocab.get(word);
      if (id === undefined || (word.length > maxChars && [...word].length > maxChars)) {
        ids.push(unk);
      } else ids.push(id);
    }
  };

  return {
    encode(text: string): number[] {
      const ids = [...before];
      if (splitter) {
        let last = 0;
        for (const match of text.matchAll(splitter)) {
          if (match.index > last) encodeSection(text.slice(last, match.index), ids);
          ids.push(added.get(match[0])!);
          last = match.index + match[0].length;
        }
        if (last < text.length) encodeSection(text.slice(last), ids);
      } else encodeSection(text, ids);
      ids.push(...after);
      if (ids.length > maxLength) ids.length = maxLength;
      return ids;
    },
  };
}

// ---------------------------------------------------------------- embedder

/** The parsed files of a static model directory. */
export interface StaticModelFiles {
  /** The dequantized table of `onnx/model_quantized.onnx`. */
  table: StaticTable;
  /** `tokenizer.json`, parsed. */
  tokenizer: unknown;
  /** `tokenizer_config.json`, parsed. */
  tokenizerConfig: unknown;
}

const readModels = new Map<string, Promise<StaticModelFiles>>();

/**
 * Reads and parses a static model directory once per process: the embedder
 * and the query expander share the same table. Throws `not_found` when files
 * are missing and `provider_unavailable` when they are not a static model (a
 * failed read is not remembered).
 *
 * @example
 * ```ts ignore
 * import { readStaticModel } from "./static_fast.ts";
 * const { table } = await readStaticModel("models/static");
 * console.assert(table.dims === 100);
 * ```
 */
export function readStaticModel(dir: string): Promise<StaticModelFiles> {
  const key = dir.replace(/\/+$/, "");
  let reading = readModels.get(key);
  if (!reading) {
    reading = parseModelDir(key);
    readModels.set(key, reading);
    reading.catch(() => readModels.delete(key));
  }
  return reading;
}

async function parseModelDir(dir: string): Promise<StaticModelFiles> {
  let files: [Uint8Array, string, string];
  try {
    files = await Promise.all([
      Deno.readFile(`${dir}/onnx/model_quantized.onnx`),
      Deno.readTextFile(`${dir}/tokenizer.json`),
      Deno.readTextFile(`${dir}/tokenizer_config.json`),
    ]);
  } catch (error) {
    throw new GleanerError("not_found", `static embedding model missing at ${dir}`, {
      cause: error,
    });
  }
  try {
    return {
      table: loadStaticTable(files[0]),
      tokenizer: JSON.parse(files[1]),
      tokenizerConfig: JSON.parse(files[2]),
    };
  } catch (error) {
    throw new GleanerError(
      "provider_unavailable",
      `static embedding model at ${dir} could not be loaded`,
      { cause: error },
    );
  }
}

/** Options of {@link createFastStaticEmbedder}. */
export interface FastStaticEmbedderOptions {
  /** Model directory (with `tokenizer.json`, `tokenizer_config.json`, `onnx/model_quantized.onnx`). */
  dir: string;
  /** Embedder id (cache key). */
  id: string;
  /** Characters of a text kept before tokenising, as the transformers path does. Default 16384. */
  maxChars?: number;
}

/**
 * Mean of the table rows of `ids` (float64 sums, float32 result, as
 * transformers.js pools), then unit length; zero vector when nothing is left.
 *
 * @internal exported for tests only
 */
export function poolIds(table: StaticTable, ids: number[]): Float32Array {
  const { dims } = table;
  const data = table.table;
  const sum = new Float64Array(dims);
  for (const id of ids) {
    const base = id * dims;
    for (let d = 0; d < dims; d++) sum[d] += data[base + d];
  }
  const mean = new Float32Array(dims);
  if (ids.length === 0) return mean;
  for (let d = 0; d < dims; d++) mean[d] = sum[d] / ids.length;
  return toUnitVector(mean);
}

/**
 * Loads the static model for the plain-TypeScript path and returns an
 * {@link Embedder}. Needs only read access to the model directory (no FFI).
 *
 * Throws `not_found` when files are missing and `provider_unavailable` when
 * they are not a static model this path can reproduce.
 *
 * @example
 * ```ts ignore
 * import { createFastStaticEmbedder } from "./static_fast.ts";
 * const e = await createFastStaticEmbedder({ dir: "models/static/", id: "static:demo" });
 * const [v] = await e.embedDocuments(["tides and the moon"]);
 * console.assert(v.length === 100);
 * ```
 */
export async function createFastStaticEmbedder(
  options: FastStaticEmbedderOptions,
): Promise<Embedder> {
  const maxChars = Math.max(1, Math.floor(options.maxChars ?? 16_384));
  const files = await readStaticModel(options.dir);
  let tokenizer: StaticTokenizer;
  try {
    const modelMax = Number(
      (files.tokenizerConfig as { model_max_length?: unknown })?.model_max_length,
    );
    tokenizer = createStaticTokenizer(
      files.tokenizer,
      Number.isFinite(modelMax) && modelMax > 0 ? modelMax : 512,
    );
  } catch (error) {
    throw new GleanerError(
      "provider_unavailable",
      `static embedding model at ${options.dir} could not be loaded`,
      { cause: error },
    );
  }
  const { table } = files;
  // A text's vector, remembered for the texts embedded lately: a page's passages are embedded
  // again for every question asked of it. The same vector comes back for the same text (callers
  // only read it).
  const pooled = memoByText(
    RECENT_VECTORS,
    (cut) => poolIds(table, tokenizer.encode(cut)),
    RECENT_CHARS,
  );
  const vectorOf = (text: string) => pooled(text.slice(0, maxChars));
  let closed = false;
  const embed = (texts: string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    if (closed) {
      return Promise.reject(
        new GleanerError("provider_unavailable", `embedder ${options.id} is closed`),
      );
    }
    if (signal?.aborted) {
      return Promise.reject(
        new GleanerError("timeout", `embedder ${options.id} timed out`, { cause: signal.reason }),
      );
    }
    return embedPaced(texts, signal);
  };
  /**
   * One text at a time, pausing with the shared pacer between two texts: a server answers
   * meanwhile. Not after the last one: the work is done, and a pause there would only delay
   * the answer (a recall's one query paused 2 ms whenever recalls came less than 50 ms apart).
   */
  const embedPaced = async (texts: string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (const [i, text] of texts.entries()) {
      if (i > 0) {
        const pause = pace();
        if (pause) {
          await pause;
          if (signal?.aborted) {
            throw new GleanerError("timeout", `embedder ${options.id} timed out`, {
              cause: signal.reason,
            });
          }
        }
      }
      if (typeof text !== "string" || text.trim() === "") out.push(new Float32Array(table.dims));
      else out.push(vectorOf(text));
    }
    return out;
  };
  return {
    id: options.id,
    dimensions: table.dims,
    embedQueries: embed,
    embedDocuments: embed,
    close() {
      closed = true;
      return Promise.resolve();
    },
  };
}
