import assert from "node:assert/strict";
import { SqliteEmbeddingCache } from "../store/embeddings.ts";
import { openDatabase } from "../store/sqlite.ts";
import { textHash, withCache } from "./cached.ts";
import { createStaticEmbedder } from "./static.ts";
import type { Embedder, EmbeddingCache } from "./types.ts";
import { cosine } from "./vector.ts";

/** The real static embedder, recording which texts reach it. */
function counting(inner: Embedder): Embedder & { seen: string[] } {
  const seen: string[] = [];
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    seen,
    embedQueries: (texts, signal) => {
      seen.push(...texts);
      return inner.embedQueries(texts, signal);
    },
    embedDocuments: (texts, signal) => {
      seen.push(...texts);
      return inner.embedDocuments(texts, signal);
    },
    close: () => inner.close?.() ?? Promise.resolve(),
  };
}

Deno.test("textHash is hex SHA-256 of the UTF-8 text", async () => {
  assert.equal(
    await textHash("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.notEqual(await textHash("é"), await textHash("e"));
});

Deno.test("withCache: documents are computed once, then read from SQLite; queries pass through", async () => {
  const db = openDatabase(":memory:");
  const inner = counting(await createStaticEmbedder());
  try {
    const cache = new SqliteEmbeddingCache(db);
    const embedder = withCache(inner, cache);
    assert.equal(embedder.id, inner.id);
    assert.equal(embedder.dimensions, 100);

    const first = await embedder.embedDocuments(["red apples", "green pears", "red apples"]);
    assert.deepEqual(inner.seen, ["red apples", "green pears"]); // duplicate embedded once
    assert.ok(cosine(first[0], first[2]) > 0.9999);

    const stored = await cache.get(inner.id, [await textHash("red apples")]);
    assert.equal(stored.size, 1);

    inner.seen.length = 0;
    const second = await embedder.embedDocuments(["green pears", "blue plums", "red apples"]);
    assert.deepEqual(inner.seen, ["blue plums"]);
    assert.ok(cosine(second[0], first[1]) > 0.9999);
    assert.ok(cosine(second[2], first[0]) > 0.9999);

    inner.seen.length = 0;
    await embedder.embedQueries(["red apples"]);
    await embedder.embedQueries(["red apples"]);
    assert.deepEqual(inner.seen, ["red apples", "red apples"]);

    // Zero vectors (empty text) are not stored.
    await embedder.embedDocuments([""]);
    assert.equal((await cache.get(inner.id, [await textHash("")])).size, 0);
  } finally {
    await inner.close?.();
    db.close();
  }
});

Deno.test("withCache: a failing cache is bypassed, not fatal", async () => {
  const broken: EmbeddingCache = {
    get: () => Promise.reject(new Error("disk gone")),
    put: () => Promise.reject(new Error("disk gone")),
  };
  const inner = counting(await createStaticEmbedder());
  try {
    const embedder = withCache(inner, broken);
    const [v] = await embedder.embedDocuments(["lighthouse keeper"]);
    assert.equal(v.length, 100);
    assert.deepEqual(inner.seen, ["lighthouse keeper"]);
  } finally {
    await inner.close?.();
  }
});
