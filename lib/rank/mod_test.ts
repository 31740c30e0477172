import assert from "node:assert/strict";
import { bm25Rank, chunkMarkdown, rankUnits } from "./mod.ts";
import type { Embedder } from "../embed/types.ts";

const MD = [
  "# Tides",
  "Tides are caused by the gravitational pull of the Moon on the oceans.",
  "## Lunar orbit",
  "Our satellite circles the Earth roughly every 27 days.",
  "## Bread",
  "Bread dough rises because yeast produces carbon dioxide.",
].join("\n\n");

/** A small real embedder: hashed bag of words with a synonym table, unit length. */
class HashEmbedder implements Embedder {
  readonly id = "test:hash";
  readonly dimensions = 64;
  #synonyms: Record<string, string> = { satellite: "moon", lunar: "moon" };
  #embed(text: string): Float32Array {
    const v = new Float32Array(this.dimensions);
    for (const raw of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
      const w = this.#synonyms[raw] ?? raw;
      let h = 0;
      for (const ch of w) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
      v[h % this.dimensions] += 1;
    }
    const n = Math.hypot(...v);
    return n ? v.map((x) => x / n) : v;
  }
  embedQueries(texts: string[]) {
    return Promise.resolve(texts.map((t) => this.#embed(t)));
  }
  embedDocuments(texts: string[]) {
    return Promise.resolve(texts.map((t) => this.#embed(t)));
  }
}

Deno.test("rankUnits: BM25 alone, top unit scores 1", async () => {
  const units = chunkMarkdown(MD);
  const { ranked, ranking } = await rankUnits("moon tides", units);
  assert.equal(ranking, "bm25");
  assert.deepEqual(
    ranked.map((r) => r.unit),
    bm25Rank("moon tides", units.map((u) => u.text)).map((i) => units[i]),
  );
  assert.equal(ranked.length, 1);
  assert.equal(ranked[0].score, 1);
  assert.equal(ranked[0].relevance, "high");
});

Deno.test("rankUnits: hybrid finds what BM25 misses and fuses both rankings", async () => {
  const units = chunkMarkdown(MD);
  const { ranked, ranking } = await rankUnits("moon", units, { embedder: new HashEmbedder() });
  assert.equal(ranking, "hybrid");
  // BM25 ranks only the tides unit; the dense side ranks the short synonym unit
  // ("satellite") first and the tides unit second.
  assert.equal(ranked[0].unit.text, units[0].text);
  assert.ok(Math.abs(ranked[0].score - (0.5 / 61 + 0.5 / 62) / (1 / 61)) < 1e-9);
  assert.equal(ranked[0].relevance, "high");
  const orbit = ranked.find((r) => r.unit.text.startsWith("Our satellite"));
  assert.ok(orbit, "the synonym unit is ranked by the dense side");
  assert.ok(Math.abs(orbit.score - 0.5) < 1e-9);
  assert.equal(orbit.relevance, "low");
  assert.ok(ranked.every((r) => r.vector?.length === 64));
});

Deno.test("rankUnits: a failing embedder or useless vectors fall back to BM25", async () => {
  const units = chunkMarkdown(MD);
  const failing: Embedder = {
    id: "test:fail",
    dimensions: 4,
    embedQueries: () => Promise.reject(new Error("model missing")),
    embedDocuments: () => Promise.reject(new Error("model missing")),
  };
  const a = await rankUnits("moon tides", units, { embedder: failing });
  assert.equal(a.ranking, "bm25");
  assert.equal(a.ranked[0].score, 1);
  const zero = units.map(() => new Float32Array(4));
  const b = await rankUnits("moon tides", units, {
    vectors: zero,
    queryVector: new Float32Array([NaN, 0, 0, 0]),
  });
  assert.equal(b.ranking, "bm25");
  assert.deepEqual(b.ranked.map((r) => r.unit), a.ranked.map((r) => r.unit));
});

Deno.test("rankUnits: the lexical anchor puts the passage holding the question's words first", async () => {
  // Thirty passages the dense side prefers (close to the query vector), and one that holds the
  // question's rare word but which the dense side ranks last.
  const texts = [
    ...Array.from({ length: 30 }, (_, i) => `Mobile browsers for phones and tablets, note ${i}.`),
    "Firefox Mobile, codenamed Fennec, is the build for devices such as smartphones.",
  ];
  const units = chunkMarkdown(texts.join("\n\n"), { minWords: 1, maxWords: 20 });
  assert.equal(units.length, texts.length);
  const unit = (x: number, y: number) => Float32Array.from([x, y].map((v) => v / Math.hypot(x, y)));
  const queryVector = unit(1, 0);
  const vectors = units.map((_, i) => i < 30 ? unit(1, 0.01 * i) : unit(0.1, 1));
  const rank = (lexicalAnchor: number) =>
    rankUnits("What is Fennec for phones?", units, {
      vectors,
      queryVector,
      denseWeight: 0.8,
      lexicalAnchor,
    });
  const off = await rank(0);
  assert.equal(off.ranking, "hybrid");
  const at = off.ranked.findIndex((r) => r.unit.text.includes("Fennec"));
  assert.ok(at > 10, `without the anchor the passage sinks (rank ${at})`);
  const on = await rank(0.7);
  assert.ok(on.ranked[0].unit.text.includes("Fennec"), on.ranked[0].unit.text);
  assert.ok(on.ranked[0].score >= on.ranked[1].score, "the anchor scores as the first did");
  assert.equal(on.ranked.length, off.ranked.length);
  // A question whose words no passage holds has no anchor: the fused order stands.
  const none = await rankUnits("Which release names do browsers use?", units, {
    vectors,
    queryVector,
    denseWeight: 0.8,
    lexicalAnchor: 0.7,
  });
  const noneOff = await rankUnits("Which release names do browsers use?", units, {
    vectors,
    queryVector,
    denseWeight: 0.8,
  });
  assert.deepEqual(none.ranked.map((r) => r.unit.text), noneOff.ranked.map((r) => r.unit.text));
});
