import assert from "node:assert/strict";
import {
  defaultModelsDir,
  estimateTokens,
  planBatches,
  resolveTransformersModel,
  TRANSFORMERS_PRESETS,
} from "./transformers.ts";
import { staticModelDir } from "./static.ts";

Deno.test("estimateTokens follows BERT pre-tokenisation (words, punctuation, Han characters)", () => {
  assert.equal(estimateTokens(""), 2);
  assert.equal(estimateTokens("Hello, world!"), 6);
  assert.equal(estimateTokens("naïve café"), 4);
  assert.equal(estimateTokens("東京タワー"), 2 + 2 + 1);
});

Deno.test("planBatches caps count and padded size, keeps every index once", () => {
  const tokens = [700, 60, 55, 50, 45, 40, 30, 20];
  const order = tokens.map((_, i) => i);
  const batches = planBatches(order, tokens, 3, 1000);
  assert.deepEqual(batches, [[0], [1, 2, 3], [4, 5, 6], [7]]);
  const oversized = planBatches([0, 1], [5000, 4000], 8, 1000);
  assert.deepEqual(oversized, [[0], [1]]);
  assert.deepEqual(planBatches([], [], 4, 100), []);
});

Deno.test("resolveTransformersModel: directory, preset, hub id, junk", () => {
  const dir = resolveTransformersModel(staticModelDir());
  assert.equal(dir.kind, "dir");
  assert.equal(dir.spec, undefined);
  const preset = resolveTransformersModel("quality", "/nonexistent");
  assert.equal(preset.kind, "hub");
  assert.equal(preset.hubId, "Xenova/bge-base-en-v1.5");
  assert.equal(preset.spec?.dimensions, 768);
  assert.equal(preset.spec?.pooling, "cls");
  assert.match(preset.spec?.queryPrefix ?? "", /^Represent this sentence/);
  const byId = resolveTransformersModel("Xenova/all-MiniLM-L6-v2");
  assert.equal(byId.preset, "fast");
  assert.equal(byId.spec, TRANSFORMERS_PRESETS.fast);
  const other = resolveTransformersModel("someone/some-model");
  assert.equal(other.kind, "hub");
  assert.equal(other.spec, undefined);
  assert.throws(() => resolveTransformersModel("no such thing"), /embed\.model/);
  assert.throws(() => resolveTransformersModel("  "), /embed\.model/);
});

Deno.test("defaultModelsDir prefers XDG_DATA_HOME, then HOME", () => {
  assert.equal(defaultModelsDir({ XDG_DATA_HOME: "/x", HOME: "/h" }), "/x/gleaner/models");
  assert.equal(defaultModelsDir({ HOME: "/h" }), "/h/.local/share/gleaner/models");
  assert.equal(defaultModelsDir({}), undefined);
});
