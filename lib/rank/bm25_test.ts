import assert from "node:assert/strict";
import { Bm25Index, bm25Rank, stem, tokenize } from "./bm25.ts";

Deno.test("tokenize: lower case, stopwords out, light stemming, CJK bigrams", () => {
  assert.deepEqual(tokenize("The Cats were Running to the Stores!"), ["cat", "run", "store"]);
  assert.equal(stem("studies"), stem("study"));
  assert.equal(stem("boxes"), "box");
  assert.equal(stem("walked"), "walk");
  assert.equal(stem("glass"), "glass");
  assert.deepEqual(tokenize("潮汐"), ["潮", "潮汐", "汐"]);
});

Deno.test("BM25: more matching terms rank higher; rare terms weigh more", () => {
  const docs = [
    "The weather today is sunny with a light breeze.",
    "Tides are caused by the gravitational pull of the Moon on the oceans.",
    "The Moon orbits the Earth every 27 days.",
    "Ocean tides rise and fall twice a day.",
  ];
  assert.deepEqual(bm25Rank("what causes ocean tides moon", docs), [1, 3, 2]);
  const scores = new Bm25Index(docs).score("breeze");
  assert.ok(scores[0] > 0 && scores.slice(1).every((s) => s === 0));
});

Deno.test("BM25: length normalization favours the shorter of two equal matches", () => {
  const short = "tides explained";
  const long = "tides explained " + "with many other unrelated words about gardening ".repeat(10);
  assert.deepEqual(bm25Rank("tides", [long, short]), [1, 0]);
});

Deno.test("BM25: term frequency saturates (k1) instead of growing linearly", () => {
  const index = new Bm25Index([
    "moon",
    "moon moon",
    "moon moon moon moon moon moon moon moon",
    "sun",
  ]);
  const [one, two, eight] = index.score("moon");
  assert.ok(two > one);
  assert.ok(eight - two < two - one + 1, "saturation");
  assert.ok(eight / one < 2.3, "bounded by (k1 + 1)");
});
