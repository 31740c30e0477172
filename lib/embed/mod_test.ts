import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import type { GleanerError } from "../errors.ts";
import { createFetcher } from "../net/fetch.ts";
import { createEmbedder, embedderStatus, STATIC_MODEL_FILES, staticModelDir } from "./mod.ts";

function embed(input: Record<string, unknown>) {
  return parseConfig({ embed: input }).embed;
}

Deno.test("createEmbedder: none → null, static → the shipped 100-d model", async () => {
  assert.equal(await createEmbedder(embed({ provider: "none" })), null);
  const embedder = await createEmbedder(embed({ provider: "static", batch_size: 4 }));
  assert.ok(embedder);
  try {
    assert.match(embedder.id, /^static:/);
    assert.equal(embedder.dimensions, 100);
    const vectors = await embedder.embedDocuments(["one", "two", "three", "four", "five"]);
    assert.equal(vectors.length, 5);
  } finally {
    await embedder.close?.();
  }
});

Deno.test("createEmbedder: openai needs url, model and a fetcher", async () => {
  for (
    const [input, field] of [
      [{ provider: "openai", api_model: "m" }, "embed.api_url"],
      [{ provider: "openai", api_url: "http://127.0.0.1:9/v1" }, "embed.api_model"],
    ] as const
  ) {
    await assert.rejects(
      createEmbedder(embed(input)),
      (e: GleanerError) => e.code === "invalid_arguments" && e.message.includes(field),
    );
  }
  await assert.rejects(
    createEmbedder(embed({ provider: "openai", api_url: "http://127.0.0.1:9/v1", api_model: "m" })),
    (e: GleanerError) => e.code === "internal",
  );
});

Deno.test("embedderStatus: static files present; presets absent from an empty models dir", async () => {
  const modelsDir = await Deno.makeTempDir();
  try {
    const status = await embedderStatus(embed({ provider: "static", models_dir: modelsDir }));
    assert.equal(status.provider, "static");
    assert.equal(status.static.dir, staticModelDir());
    assert.equal(status.static.present, true);
    assert.deepEqual(status.static.files.map((f) => f.file), [...STATIC_MODEL_FILES]);
    assert.ok(status.static.files.every((f) => f.present && (f.bytes ?? 0) > 0));
    assert.equal(status.ffi, "granted");
    assert.equal(status.ready, true);
    assert.deepEqual(status.local_models.map((m) => m.preset), ["fast", "balanced", "quality"]);
    assert.ok(status.local_models.every((m) => !m.present));

    const tf = await embedderStatus(embed({ provider: "transformers", models_dir: modelsDir }));
    assert.equal(tf.ready, false);
    assert.match(tf.detail, /not found/);
    const remote = await embedderStatus(
      embed({ provider: "transformers", models_dir: modelsDir, allow_remote: true }),
    );
    assert.equal(remote.ready, true);

    // Place a preset's files (the static ones stand in) and it is found.
    const dir = `${modelsDir}/Xenova/bge-small-en-v1.5`;
    await Deno.mkdir(`${dir}/onnx`, { recursive: true });
    for (const file of STATIC_MODEL_FILES) {
      await Deno.copyFile(`${staticModelDir()}${file}`, `${dir}/${file}`);
    }
    const found = await embedderStatus(embed({ provider: "transformers", models_dir: modelsDir }));
    assert.equal(found.ready, true);
    assert.equal(found.local_models.find((m) => m.preset === "balanced")?.present, true);
    const openai = await embedderStatus(embed({ provider: "openai" }));
    assert.equal(openai.ready, false);
  } finally {
    await Deno.remove(modelsDir, { recursive: true });
  }
});

Deno.test("createEmbedder: dense_query_prefix and dense_document_prefix reach the model, the document one its id", async () => {
  const inputs: string[][] = [];
  // The response shape of https://platform.openai.com/docs/api-reference/embeddings/create
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json() as { input: string[]; model: string };
    inputs.push(body.input);
    return Response.json({
      object: "list",
      data: body.input.map((text, index) => ({
        object: "embedding",
        index,
        embedding: [text.length, 1, 0],
      })),
      model: body.model,
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
  });
  const origin = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  const config = parseConfig({
    network: { allow_private: [origin] },
    embed: {
      provider: "openai",
      api_url: `${origin}/v1`,
      api_model: "nomic-embed-text",
      dense_query_prefix: "search_query: ",
      dense_document_prefix: "search_document: ",
    },
  });
  const fetcher = createFetcher(config.network);
  try {
    const embedder = await createEmbedder(config.embed, { fetcher });
    assert.ok(embedder);
    await embedder.embedQueries(["what is bm25"]);
    await embedder.embedDocuments(["BM25 ranks passages."]);
    assert.deepEqual(inputs, [["search_query: what is bm25"], [
      "search_document: BM25 ranks passages.",
    ]]);
    assert.match(embedder.id, /\/nomic-embed-text:dp-[0-9a-f]{8}$/);
    const plain = await createEmbedder({ ...config.embed, dense_document_prefix: undefined }, {
      fetcher,
    });
    assert.ok(plain && !plain.id.includes(":dp-"));
    await plain.embedDocuments(["BM25 ranks passages."]);
    assert.deepEqual(inputs.at(-1), ["BM25 ranks passages."]);
  } finally {
    await server.shutdown();
  }
});
