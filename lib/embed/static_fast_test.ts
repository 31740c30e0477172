import assert from "node:assert/strict";
import {
  createFastStaticEmbedder,
  createStaticTokenizer,
  loadStaticTable,
  poolIds,
  readOnnxInitializers,
} from "./static_fast.ts";
import { staticModelDir } from "./static.ts";
import { pace, PACE_BUSY_MS } from "../async/pace.ts";
import { cosine, isZeroVector } from "./vector.ts";

const dir = staticModelDir();
const tokenizerJson = JSON.parse(await Deno.readTextFile(`${dir}tokenizer.json`));
const vocab: Record<string, number> = tokenizerJson.model.vocab;

Deno.test("readOnnxInitializers: finds the int8 rows and float scales of the shipped model", async () => {
  const bytes = await Deno.readFile(`${dir}onnx/model_quantized.onnx`);
  const inits = readOnnxInitializers(bytes);
  const q = inits.get("embeddings_q8");
  const s = inits.get("row_scales");
  assert.ok(q && s);
  assert.deepEqual(q.dims, [Object.keys(vocab).length, 100]);
  assert.deepEqual(s.dims, [Object.keys(vocab).length, 1]);
  assert.equal(q.raw.length, q.dims[0] * 100);
  const table = loadStaticTable(bytes);
  assert.equal(table.rows, q.dims[0]);
  // [PAD], [CLS], [SEP] rows are zero; [UNK] is tiny but not zero; "the" is a real row.
  const row = (id: number) => table.table.subarray(id * 100, id * 100 + 100);
  assert.ok(isZeroVector(row(vocab["[CLS]"])));
  assert.ok(!isZeroVector(row(vocab["[UNK]"])));
  let norm = 0;
  for (const x of row(vocab["the"])) norm += x * x;
  assert.ok(norm > 1e-4, `row norm² ${norm}`);
  assert.throws(() => loadStaticTable(new Uint8Array([0x3a, 0x00])), /not a Gleaner static model/);
});

Deno.test("static tokenizer: BERT normalisation, punctuation split, whole words or [UNK]", () => {
  const t = createStaticTokenizer(tokenizerJson, 8192);
  const unk = vocab["[UNK]"];
  // Punctuation is not in the word vocabulary: it becomes [UNK] like any unknown word.
  const id = (w: string) => vocab[w] ?? unk;
  assert.ok(vocab["cafe"] && vocab["naive"] && vocab["the"] && !vocab[","]);
  const cls = vocab["[CLS]"];
  const sep = vocab["[SEP]"];
  assert.deepEqual(t.encode("Café, NAÏVE!"), [cls, id("cafe"), id(","), id("naive"), id("!"), sep]);
  assert.deepEqual(t.encode("don't 4.5"), [
    cls,
    id("don"),
    id("'"),
    id("t"),
    id("4"),
    id("."),
    id("5"),
    sep,
  ]);
  assert.deepEqual(t.encode("zqxjvblorf"), [cls, unk, sep]);
  // CJK ideographs are single tokens; control characters vanish; NBSP splits.
  assert.deepEqual(t.encode("a\u0000b c\u00a0d"), [cls, id("ab"), id("c"), id("d"), sep]);
  assert.equal(t.encode("日本").length, 4);
  // Special tokens written in the text are matched before normalisation.
  assert.deepEqual(t.encode("the [UNK] [cls]"), [
    cls,
    id("the"),
    unk,
    id("["),
    id("cls"),
    id("]"),
    sep,
  ]);
  // Over-long words are [UNK]; truncation keeps the first tokens.
  assert.deepEqual(t.encode("a".repeat(101)), [cls, unk, sep]);
  const short = createStaticTokenizer(tokenizerJson, 4);
  assert.deepEqual(short.encode("one two three four"), [cls, id("one"), id("two"), id("three")]);
  // Sub-word vocabularies are refused rather than approximated.
  const withPieces = structuredClone(tokenizerJson);
  withPieces.model.vocab["##s"] = 99_999;
  assert.throws(() => createStaticTokenizer(withPieces, 512), /sub-word/);
});

Deno.test("poolIds: mean of rows then unit length; nothing or only zero rows is the zero vector", () => {
  const table = { rows: 3, dims: 2, table: new Float32Array([0, 0, 3, 0, 0, 4]) };
  const v = poolIds(table, [0, 1, 2]);
  assert.ok(Math.abs(v[0] - 0.6) < 1e-6 && Math.abs(v[1] - 0.8) < 1e-6);
  assert.ok(isZeroVector(poolIds(table, [])));
  assert.ok(isZeroVector(poolIds(table, [0, 0])));
});

Deno.test("fast static embedder: missing files are not_found; closed refuses; aborted signal is timeout", async () => {
  const empty = await Deno.makeTempDir();
  try {
    await assert.rejects(
      createFastStaticEmbedder({ dir: empty, id: "static:x" }),
      (e: Error & { code?: string }) => e.code === "not_found",
    );
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
  const e = await createFastStaticEmbedder({ dir, id: "static:test" });
  const [a, b] = await e.embedQueries(["ocean tides", "ocean tides"]);
  assert.ok(cosine(a, b) > 0.99999);
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    e.embedDocuments(["x"], controller.signal),
    (err: Error & { code?: string }) => err.code === "timeout",
  );
  await e.close?.();
  await assert.rejects(
    e.embedDocuments(["x"]),
    (err: Error & { code?: string }) => err.code === "provider_unavailable",
  );
});

/** Brings the shared pacer to where its next call pauses: busy past PACE_BUSY_MS in one turn. */
async function pacerDue(): Promise<void> {
  await pace();
  const start = performance.now();
  while (performance.now() - start < PACE_BUSY_MS + 1) {
    // Busy, as paced work is between two of its steps.
  }
}

Deno.test("fast static embedder: one text never waits for the shared pacer; a batch pauses between texts", async () => {
  const e = await createFastStaticEmbedder({ dir, id: "static:pace" });
  try {
    // A recall embeds its one query: no pause after the work is done (a timer set after the
    // call fires after the answer).
    await pacerDue();
    const order: string[] = [];
    const one = e.embedQueries(["ocean tides"]).then(() => order.push("embedded"));
    const timer = new Promise((resolve) => setTimeout(resolve, 0)).then(() => order.push("timer"));
    await Promise.all([one, timer]);
    assert.deepEqual(order, ["embedded", "timer"]);
    // Between two texts of a batch the pacer still pauses (the timer fires first).
    await pacerDue();
    order.length = 0;
    // The timer is set before the batch starts, so its deadline is never after the pacer's
    // pause whatever the load (set after, a slow first text could put the pause's first).
    const later = new Promise((resolve) => setTimeout(resolve, 0)).then(() => order.push("timer"));
    const two = e.embedDocuments(["ocean tides", "moon phases"]).then(() => order.push("embedded"));
    await Promise.all([two, later]);
    assert.deepEqual(order, ["timer", "embedded"]);
  } finally {
    await e.close?.();
  }
});
