import assert from "node:assert/strict";
import { GleanerError } from "../../errors.ts";
import { capWords, createUseLiteEmbedder, USE_LITE_ID } from "./use_lite.ts";
import { cosine } from "./vector.ts";

Deno.test("capWords keeps the first words of the original text", () => {
  assert.equal(capWords("one two  three four", 2), "one two");
  assert.equal(capWords("  one two ", 5), "one two");
  assert.equal(capWords("", 3), "");
});

Deno.test("USE-lite loads the shipped weights offline and orders paraphrases above unrelated text", async () => {
  const use = await createUseLiteEmbedder({ maxWords: 48 });
  try {
    assert.equal(use.dimensions, 512);
    assert.equal(use.id, `${USE_LITE_ID}:w48`);
    const [q] = await use.embedQueries(["How many advertising firms failed to honour opt-outs?"]);
    const docs = await use.embedDocuments([
      "In a recent experiment, two advertisers' opt-out mechanisms failed to take effect.",
      "The bread dough rises because the yeast produces carbon dioxide.",
      "",
    ]);
    assert.equal(q.length, 512);
    assert.ok(Math.abs(Math.hypot(...q) - 1) < 1e-4, "unit length");
    assert.ok(cosine(q, docs[0]) > cosine(q, docs[1]) + 0.1, "paraphrase closer than unrelated");
    assert.ok(docs[2].every((x) => x === 0), "empty text gives the zero vector");
    // Same text again: served from the LRU, identical vector.
    const [again] = await use.embedDocuments([
      "In a recent experiment, two advertisers' opt-out mechanisms failed to take effect.",
    ]);
    assert.deepEqual(again, docs[0]);
  } finally {
    await use.close?.();
  }
  await assert.rejects(() => use.embedDocuments(["closed"]), GleanerError);
});

Deno.test("USE-lite: a missing model directory fails with not_found", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(
      () => createUseLiteEmbedder({ modelDir: dir }),
      (error: unknown) => error instanceof GleanerError && error.code === "not_found",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
