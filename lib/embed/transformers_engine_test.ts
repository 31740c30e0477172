/**
 * The cases that load transformers.js (`engine: "transformers"` and
 * createTransformersEmbedder), all on the static model the project ships:
 * the same model bytes give the same vectors as the TypeScript engine.
 * transformers.js is not installed by `deno install` (about 430 MB with
 * onnxruntime), so these are ignored with one line where it is not installed,
 * unless `GLEANER_REQUIRE_TRANSFORMERS=1` (CI runs them after the README's
 * test command): see testing/fixtures/transformers.ts.
 */
import assert from "node:assert/strict";
import { createStaticEmbedder, STATIC_MODEL_FILES, staticModelDir } from "./static.ts";
import { createTransformersEmbedder } from "./transformers.ts";
import { cosine, isZeroVector } from "./vector.ts";
import { textHash } from "./cached.ts";
import { corpora, READABILITY_CORPUS } from "../../testing/fixtures/corpora.ts";
import { transformers } from "../../testing/fixtures/transformers.ts";

function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

Deno.test({
  name:
    `static embedder: the transformers.js engine keeps the id without the engine suffix${transformers.suffix}`,
  ignore: transformers.ignore,
}, async () => {
  transformers.assertPresent();
  const embedder = await createStaticEmbedder();
  await embedder.close?.();
  const onnx = await createStaticEmbedder({ engine: "transformers" });
  try {
    assert.equal(onnx.id, embedder.id.slice(0, -3));
    assert.equal(onnx.dimensions, 100);
    assert.notEqual(await textHash(onnx.id), await textHash(embedder.id));
  } finally {
    await onnx.close?.();
  }
});

/** Text units chunked from real pages, plus edge cases for the tokenizer. */
async function sampleUnits(count: number): Promise<string[]> {
  const units = [
    "Café naïve résumé — Ångström, Øresund, straße, İstanbul, ﬁnance",
    "The [UNK] cat sat on [CLS] the [SEP] mat [MASK] [PAD]",
    "日本語のテキスト。中文字符 and English 混合",
    "Prices rose 4.5% to $1,234.56 in Q3-2024 (see fig. 7b) e-mail: a@b.co",
    "control\u0000chars\u200bzero\u00a0width\ttab\nnew line\u0085next",
    "zqxjv blorfnik wuggle " + "x".repeat(150),
    "!!! ??? ... «quoted» ‘single’ “double” — – ‐ ¿¡",
    "[CLS]",
    "\ud800 lone surrogate \udfff and emoji 👩‍🔬 🚀",
  ];
  const names = [...Deno.readDirSync(READABILITY_CORPUS)].map((e) => e.name).sort();
  // Every 7th page first (spread over the set), then the rest; at most 20 units a page.
  const order = [...names.filter((_, i) => i % 7 === 0), ...names.filter((_, i) => i % 7 !== 0)];
  for (const name of order) {
    if (units.length >= count) break;
    const html = await Deno.readTextFile(`${READABILITY_CORPUS}/${name}/source.html`);
    const text = html.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, " ")
      .replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    for (let at = 0, n = 0; at + 50 < text.length && n < 20 && units.length < count; at += 1_000) {
      units.push(text.slice(at, at + 300 + (at % 700)));
      n++;
    }
  }
  return units;
}

Deno.test({
  name:
    `static embedder: the TypeScript engine gives the transformers.js vectors${corpora.suffix}${transformers.suffix}`,
  ignore: corpora.ignore || transformers.ignore,
}, async () => {
  corpora.assertPresent();
  transformers.assertPresent();
  const units = await sampleUnits(200);
  assert.equal(units.length, 200);
  const fast = await createStaticEmbedder();
  const onnx = await createStaticEmbedder({ engine: "transformers" });
  try {
    const a = await fast.embedDocuments(units);
    const b = await onnx.embedDocuments(units);
    let nonZero = 0;
    for (let i = 0; i < units.length; i++) {
      assert.equal(isZeroVector(a[i]), isZeroVector(b[i]), `unit ${i} zero-ness`);
      if (isZeroVector(a[i])) continue;
      nonZero++;
      const c = cosine(a[i], b[i]);
      assert.ok(c >= 0.999, `unit ${i} cosine ${c}: ${JSON.stringify(units[i].slice(0, 60))}`);
    }
    assert.ok(nonZero >= 195, `${nonZero} non-zero vectors`);
    // A text longer than the tokenizer's limit is truncated the same way.
    const long = "harbour ".repeat(5_000) + "volcano ".repeat(5_000);
    const [la] = await fast.embedDocuments([long]);
    const [lb] = await onnx.embedDocuments([long]);
    assert.ok(cosine(la, lb) >= 0.999);
  } finally {
    await fast.close?.();
    await onnx.close?.();
  }
});

Deno.test({
  name:
    `transformers embedder: loads a preset from <modelsDir>/<hub id> without any download${transformers.suffix}`,
  ignore: transformers.ignore,
}, async () => {
  transformers.assertPresent();
  const modelsDir = await Deno.makeTempDir();
  try {
    const target = `${modelsDir}/Xenova/all-MiniLM-L6-v2`;
    await Deno.mkdir(`${target}/onnx`, { recursive: true });
    // The shipped static files stand in for the preset's files.
    for (const file of STATIC_MODEL_FILES) {
      await Deno.copyFile(`${staticModelDir()}${file}`, `${target}/${file}`);
    }
    const embedder = await createTransformersEmbedder({ model: "fast", modelsDir, batchSize: 2 });
    try {
      assert.equal(embedder.id, "transformers:Xenova/all-MiniLM-L6-v2:q8");
      assert.equal(embedder.dimensions, 100);
      const [v] = await embedder.embedDocuments(["harbour lighthouse"]);
      assert.ok(Math.abs(norm(v) - 1) < 1e-4);
      // Same model bytes → same vector as the static embedder.
      const reference = await createStaticEmbedder();
      const [r] = await reference.embedDocuments(["harbour lighthouse"]);
      await reference.close?.();
      assert.ok(cosine(v, r) > 0.9999);
      assert.notEqual(await textHash(embedder.id), await textHash(reference.id));
    } finally {
      await embedder.close?.();
    }
  } finally {
    await Deno.remove(modelsDir, { recursive: true });
  }
});

Deno.test({
  name:
    `transformers embedder: a model directory without the dtype's ONNX file is not_found${transformers.suffix}`,
  ignore: transformers.ignore,
}, async () => {
  transformers.assertPresent();
  const dir = await Deno.makeTempDir();
  try {
    for (const file of ["config.json", "tokenizer.json", "tokenizer_config.json"]) {
      await Deno.copyFile(`${staticModelDir()}${file}`, `${dir}/${file}`);
    }
    await assert.rejects(
      createTransformersEmbedder({ model: dir, dtype: "fp32" }),
      (e: Error & { code?: string }) => e.code === "not_found" && e.message.includes("model.onnx"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
