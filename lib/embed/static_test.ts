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
