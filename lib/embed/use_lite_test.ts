import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
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

Deno.test("USE-lite runs off the main thread: timers keep firing while one batch embeds", async () => {
  const use = await createUseLiteEmbedder({ lruSize: 0, batchSize: 64 });
  try {
    const texts = Array.from(
      { length: 64 },
      (_, i) =>
        `Passage ${i}: the harbour authority said the new pier would open in spring, after ` +
        `engineers finished checking the pilings, the lighting and the ferry ramps that ` +
        `connect it with the old town and the railway station on the other bank.`,
    );
    let last = performance.now();
    let maxGap = 0;
    let ticks = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    const vectors = await use.embedDocuments(texts);
    const took = performance.now() - started;
    clearInterval(timer);
    assert.equal(vectors.length, 64);
    // On the main thread the one batch would block every timer for its whole duration.
    assert.ok(ticks >= 3, `${ticks} ticks in ${took.toFixed(0)} ms`);
    assert.ok(
      maxGap < took / 2,
      `longest timer gap ${maxGap.toFixed(0)} ms of ${took.toFixed(0)} ms`,
    );
  } finally {
    await use.close?.();
  }
});
