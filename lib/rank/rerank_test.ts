import assert from "node:assert/strict";
import { createUseLiteEmbedder } from "../embed/use_lite.ts";
import { chunkMarkdown, rankUnits } from "./mod.ts";
import { rerankTop } from "./rerank.ts";
import type { Embedder } from "../embed/types.ts";

const MD = [
  "## Flights",
  "The airline cancelled the morning flight because of the storm over the coast.",
  "## Cars",
  "The company recalled forty thousand cars after a fault in the brake pedal was found.",
  "## Towers",
  "The tower rises 330 metres above the river and was finished in 1889.",
  "## Food",
  "Bread dough rises because yeast produces carbon dioxide in the warm kitchen.",
].join("\n\n");

const QUERY = "how high does the tower rise";

Deno.test("rerankTop: the encoder reorders only the top K, which stay above the rest", async () => {
  const use = await createUseLiteEmbedder();
  try {
    const ranked = [
      { text: "Bread dough rises because yeast produces carbon dioxide.", score: 1 },
      { text: "The airline cancelled the morning flight.", score: 0.95 },
      { text: "The tower rises 330 metres above the river.", score: 0.9 },
      { text: "A unit left out of the top.", score: 0.5 },
    ];
    const out = await rerankTop(QUERY, ranked, (r) => r.text, {
      embedder: use,
      topK: 3,
      weight: 1,
    });
    assert.equal(out.length, 4);
    assert.ok(out[0].item.text.startsWith("The tower"), out[0].item.text);
    assert.equal(out[3].item.text, "A unit left out of the top.");
    assert.equal(out[3].score, 0.5);
    assert.ok(out.slice(0, 3).every((r) => r.score >= 0.5 && r.score <= 1));
    for (let i = 1; i < out.length; i++) assert.ok(out[i - 1].score >= out[i].score);
  } finally {
    await use.close?.();
  }
});

Deno.test("rankUnits with a reranker: ranking says hybrid+rerank or bm25+rerank", async () => {
  const use = await createUseLiteEmbedder();
  try {
    const units = chunkMarkdown(MD, { minWords: 1, maxWords: 20 });
    const bm25Only = await rankUnits(QUERY, units, { rerank: { embedder: use } });
    assert.equal(bm25Only.ranking, "bm25+rerank");
    assert.ok(bm25Only.ranked[0].unit.text.startsWith("The tower"));
    const hybrid = await rankUnits(QUERY, units, { embedder: use, rerank: { embedder: use } });
    assert.equal(hybrid.ranking, "hybrid+rerank");
    assert.ok(hybrid.ranked[0].unit.text.startsWith("The tower"));
  } finally {
    await use.close?.();
  }
});

Deno.test("rankUnits: a failing reranker keeps the first-stage order and says why", async () => {
  const broken: Embedder = {
    id: "test:broken",
    dimensions: 4,
    embedQueries: () => Promise.reject(new Error("runtime missing")),
    embedDocuments: () => Promise.reject(new Error("runtime missing")),
  };
  const units = chunkMarkdown(MD, { minWords: 1, maxWords: 20 });
  const plain = await rankUnits(QUERY, units);
  const out = await rankUnits(QUERY, units, { rerank: { embedder: broken } });
  assert.equal(out.ranking, "bm25");
  assert.equal(out.rerankError, "runtime missing");
  assert.deepEqual(out.ranked.map((r) => r.unit.start), plain.ranked.map((r) => r.unit.start));
});
