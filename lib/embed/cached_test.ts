import assert from "node:assert/strict";
import { SqliteEmbeddingCache } from "../store/embeddings.ts";
import { openDatabase } from "../store/sqlite.ts";
import { LruCache } from "../cache/lru_cache.ts";
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

Deno.test("withCache with memory: a text read once is served in process, the store is not read again", async () => {
  const db = openDatabase(":memory:");
  const inner = counting(await createStaticEmbedder());
  const store = new SqliteEmbeddingCache(db);
  const reads: string[][] = [];
  // The real store, recording which hashes are asked of it.
  const cache: EmbeddingCache = {
    get: (model, hashes) => {
      reads.push(hashes);
      return store.get(model, hashes);
    },
    put: (model, entries) => store.put(model, entries),
  };
  try {
    await withCache(inner, cache).embedDocuments(["red apples", "green pears"]);
    assert.deepEqual(inner.seen, ["red apples", "green pears"]);
    inner.seen.length = 0;
    reads.length = 0;

    const memory = new LruCache<string, Float32Array>(100);
    const embedder = withCache(inner, cache, { memory });
    const first = await embedder.embedDocuments(["red apples", "green pears", "blue plums"]);
    assert.deepEqual(inner.seen, ["blue plums"], "the stored ones come from the store");
    assert.equal(reads.length, 1);
    assert.equal(memory.size, 3);

    reads.length = 0;
    inner.seen.length = 0;
    const again = await embedder.embedDocuments(["blue plums", "red apples", "green pears"]);
    assert.deepEqual(reads, [], "nothing read from the store");
    assert.deepEqual(inner.seen, [], "nothing embedded");
    assert.deepEqual(again, [first[2], first[0], first[1]]);

    // A text the memory does not hold is read from the store alone.
    reads.length = 0;
    await embedder.embedDocuments(["red apples", "yellow lemons"]);
    assert.deepEqual(reads, [[await textHash("yellow lemons")]]);
  } finally {
    await inner.close?.();
    db.close();
  }
});
