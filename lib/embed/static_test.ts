import assert from "node:assert/strict";
import {
  createStaticEmbedder,
  ensureStaticModelDir,
  STATIC_MODEL_FILES,
  staticModelDir,
} from "./static.ts";
import { GleanerError } from "../errors.ts";
import { serveLoopback } from "../../testing/fixtures/serve.ts";
import { createTransformersEmbedder } from "./transformers.ts";
import { cosine, isZeroVector } from "./vector.ts";
import { textHash } from "./cached.ts";
import { corpora, READABILITY_CORPUS } from "../../testing/fixtures/corpora.ts";

function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

Deno.test("static model files are shipped and under 4 MiB", async () => {
  const dir = staticModelDir();
  let total = 0;
  for (const file of STATIC_MODEL_FILES) {
    const stat = await Deno.stat(`${dir}${file}`);
    assert.ok(stat.isFile, file);
    total += stat.size;
  }
  const onnx = await Deno.stat(`${dir}onnx/model_quantized.onnx`);
  assert.ok(onnx.size < 4 * 1024 * 1024, `model is ${onnx.size} bytes`);
  assert.ok(total < 4 * 1024 * 1024, `all files are ${total} bytes`);
});

Deno.test("static embedder: id names the model bytes it loaded", async () => {
  const embedder = await createStaticEmbedder();
  try {
    const bytes = await Deno.readFile(`${staticModelDir()}onnx/model_quantized.onnx`);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
    // The id the build stamped into config.json: `static:<model name>:<first 8 hex of the bytes>`.
    const stamped = JSON.parse(await Deno.readTextFile(`${staticModelDir()}config.json`))
      .gleaner_static.id as string;
    assert.match(stamped, /^static:[a-z0-9-]+:[0-9a-f]{8}$/);
    assert.equal(embedder.id, `${stamped}:js`);
    assert.equal(embedder.id.slice(-11, -3), hex.slice(0, 8));
    assert.equal(embedder.dimensions, 100);
  } finally {
    await embedder.close?.();
  }
  // The transformers.js engine keeps the id without the engine suffix.
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
  name: `static embedder: the TypeScript engine gives the transformers.js vectors${corpora.suffix}`,
  ignore: corpora.ignore,
}, async () => {
  corpora.assertPresent();
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

Deno.test("static embedder: similar sentences are closer than unrelated ones", async () => {
  const embedder = await createStaticEmbedder();
  try {
    const [cat, kitten, stocks] = await embedder.embedDocuments([
      "The cat sat on the mat",
      "A kitten was sitting on the rug",
      "Stock markets fell sharply today",
    ]);
    const near = cosine(cat, kitten);
    const far = cosine(cat, stocks);
    assert.ok(near > far + 0.2, `cat~kitten ${near} should beat cat~stocks ${far}`);

    const [query] = await embedder.embedQueries(["symptoms of the flu"]);
    const [flu, football] = await embedder.embedDocuments([
      "Influenza causes fever, cough and muscle aches.",
      "The team won the championship game in overtime.",
    ]);
    assert.ok(cosine(query, flu) > cosine(query, football));
  } finally {
    await embedder.close?.();
  }
});

Deno.test("static embedder: unit length; unknown-only text is finite; empty text is the zero vector", async () => {
  const embedder = await createStaticEmbedder();
  try {
    const [known, unknown, empty, punctuation] = await embedder.embedDocuments([
      "Rivers flow into the sea.",
      "zqxjv blorfnik wuggle",
      "   ",
      "!!! ??? ...",
    ]);
    for (const v of [known, unknown, punctuation]) {
      assert.equal(v.length, 100);
      assert.ok(v.every(Number.isFinite), "no NaN or Infinity");
      assert.ok(Math.abs(norm(v) - 1) < 1e-4, `norm ${norm(v)}`);
    }
    assert.equal(empty.length, 100);
    assert.ok(isZeroVector(empty));
    assert.equal(cosine(empty, known), 0);
    // Unknown words only reach the tiny [UNK] row: nothing like real text.
    assert.ok(Math.abs(cosine(unknown, known)) < 0.5);
  } finally {
    await embedder.close?.();
  }
});

Deno.test("static embedder: batches return vectors in input order, same as one by one", async () => {
  const embedder = await createStaticEmbedder({ batchSize: 3 });
  try {
    const texts = [
      "ships sail across the ocean",
      "a",
      "the central bank raised interest rates again to fight inflation this year",
      "music concert tickets",
      "",
      "volcano eruption ash cloud grounded flights",
      "python programming language",
      "rain",
      "the quick brown fox jumps over the lazy dog near the river bank",
      "election results",
    ];
    const batched = await embedder.embedDocuments(texts);
    assert.equal(batched.length, texts.length);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await embedder.embedDocuments([texts[i]]);
      for (let d = 0; d < single.length; d++) {
        assert.ok(Math.abs(single[d] - batched[i][d]) < 1e-5, `text ${i} dim ${d}`);
      }
    }
    // Concurrent callers share one queue and still get their own answers.
    const [a, b] = await Promise.all([
      embedder.embedDocuments(["ocean waves", "mountain snow"]),
      embedder.embedQueries(["stock prices"]),
    ]);
    const [ocean] = await embedder.embedDocuments(["ocean waves"]);
    assert.ok(cosine(a[0], ocean) > 0.9999);
    assert.equal(b.length, 1);
  } finally {
    await embedder.close?.();
  }
});

Deno.test("static embedder: closed embedder refuses work", async () => {
  const embedder = await createStaticEmbedder();
  await embedder.close?.();
  await assert.rejects(
    embedder.embedDocuments(["anything"]),
    (e: Error & { code?: string }) => e.code === "provider_unavailable",
  );
});

Deno.test("transformers embedder: loads a preset from <modelsDir>/<hub id> without any download", async () => {
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

Deno.test("transformers embedder: a missing model with downloads off is not_found, before any network use", async () => {
  const modelsDir = await Deno.makeTempDir();
  try {
    await assert.rejects(
      createTransformersEmbedder({ model: "balanced", modelsDir }),
      (e: Error & { code?: string }) =>
        e.code === "not_found" && e.message.includes("Xenova/bge-small-en-v1.5") &&
        e.message.includes("embed.allow_remote"),
    );
    await assert.rejects(
      createTransformersEmbedder({ model: "not a model!", modelsDir }),
      (e: Error & { code?: string }) => e.code === "invalid_arguments",
    );
  } finally {
    await Deno.remove(modelsDir, { recursive: true });
  }
});

Deno.test("transformers embedder: a model directory without the dtype's ONNX file is not_found", async () => {
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

Deno.test("without --allow-ffi the static embedder still works; its transformers engine names the flag", async () => {
  const root = new URL("../../", import.meta.url);
  const code = `import { createStaticEmbedder } from "./lib/embed/static.ts";
const out = {};
const fast = await createStaticEmbedder();
out.dims = (await fast.embedDocuments(["rivers and seas"]))[0].length;
try { await createStaticEmbedder({ engine: "transformers" }); out.onnx = "loaded"; }
catch (e) { out.code = e.code; out.message = e.message; }
console.log(JSON.stringify(out));`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--node-modules-dir=manual", "--allow-read", "--allow-env", "--allow-sys", "-"],
    cwd: root,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(code));
  await writer.close();
  const { stdout } = await child.output();
  const line = new TextDecoder().decode(stdout).trim().split("\n").at(-1) ?? "";
  const result = JSON.parse(line);
  assert.equal(result.dims, 100);
  assert.equal(result.code, "provider_unavailable");
  assert.match(result.message, /--allow-ffi/);
});

Deno.test("static model from a registry URL: copied once to disk, complete files only", async () => {
  const shipped = staticModelDir();
  const requests: string[] = [];
  let missing = "";
  const server = serveLoopback(async (request) => {
    const path = new URL(request.url).pathname;
    requests.push(path);
    const file = path.replace(/^\/pkg\/models\/static\//, "");
    if (file === missing || !STATIC_MODEL_FILES.includes(file)) {
      return new Response("not found", { status: 404 });
    }
    return new Response(await Deno.readFile(`${shipped}${file}`));
  });
  const cacheDir = await Deno.makeTempDir();
  try {
    const source = new URL(`${server.origin}/pkg/models/static/`);
    const dir = await ensureStaticModelDir({ source, cacheDir });
    assert.equal(dir, `${cacheDir}/`);
    for (const file of STATIC_MODEL_FILES) {
      assert.deepEqual(
        await Deno.readFile(`${dir}${file}`),
        await Deno.readFile(`${shipped}${file}`),
      );
    }
    assert.equal(requests.length, STATIC_MODEL_FILES.length);
    const embedder = await createStaticEmbedder({ dir });
    const reference = await createStaticEmbedder();
    assert.equal(embedder.id, reference.id);
    const [a] = await embedder.embedDocuments(["tides and the moon"]);
    const [b] = await reference.embedDocuments(["tides and the moon"]);
    assert.deepEqual(a, b);

    // A second process finds the copy and fetches nothing.
    requests.length = 0;
    const again = await ensureStaticModelDir({ source: new URL(`${source.href}?again`), cacheDir });
    assert.equal(again, dir);
    assert.equal(requests.length, 0);

    // A file the source cannot serve: not_found, and nothing half-written is left.
    const other = await Deno.makeTempDir();
    missing = "onnx/model_quantized.onnx";
    await assert.rejects(
      ensureStaticModelDir({ source, cacheDir: other }),
      (error: unknown) => error instanceof GleanerError && error.code === "not_found",
    );
    const left: string[] = [];
    for await (const entry of Deno.readDir(other)) left.push(entry.name);
    if (left.includes("onnx")) {
      for await (const entry of Deno.readDir(`${other}/onnx`)) left.push(entry.name);
    }
    assert.ok(left.every((name) => !name.includes(".partial-")), left.join());
    assert.ok(!left.includes("model_quantized.onnx"));
    await Deno.remove(other, { recursive: true });
  } finally {
    await server.close();
    await Deno.remove(cacheDir, { recursive: true });
  }
});
