/**
 * Staged vectors and the indexer against a real throwaway cluster with
 * pgvector: a save writes nothing to the HNSW index, recall finds a staged
 * memory as it finds an indexed one, instances share a backlog without
 * taking a row twice, and a backlog left behind is taken by the next
 * instance to start. Ignored without PostgreSQL + pgvector, failing instead
 * when GLEANER_REQUIRE_POSTGRES=1 (CI).
 */
import assert from "node:assert/strict";
import {
  ignorePostgres,
  postgresSuffix,
  startPostgres,
} from "../../../testing/fixtures/postgres.ts";
import { PostgresMemoryBackend, PostgresMemoryDatabase } from "./backend.ts";
import { openPgPool, type PgPool } from "./client.ts";
import { VectorIndexer } from "./indexer.ts";
import { vectorIndexName } from "./schema.ts";
import { rng } from "../testdata/rng.ts";
import type { MemoryCandidate, NewMemoryRow } from "../types.ts";

const DIMS = 8;
const MODEL = "indexer:m8";

/** `n` rows with seeded random vectors of {@link MODEL}. */
function rows(n: number, seed: number, label: string): NewMemoryRow[] {
  const random = rng(seed);
  return Array.from({ length: n }, (_, i) => ({
    content: `${label} memory ${i}`,
    kind: "episodic",
    session_id: null,
    tokens: 3,
    created_at: Date.UTC(2026, 0, 1) + i,
    embedding: {
      model: MODEL,
      vector: Float32Array.from({ length: DIMS }, () => random() * 2 - 1),
    },
  }));
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

/** Rows of `tenant` staged and indexed right now. */
async function where(pool: PgPool, tenant: string): Promise<{ staged: number; indexed: number }> {
  const { rows } = await pool.query<{ staged: string; indexed: string }>(
    `SELECT count(*) FILTER (WHERE staged IS NOT NULL) AS staged,
            count(*) FILTER (WHERE embedding IS NOT NULL AND embedding_dims = ${DIMS}) AS indexed
     FROM gleaner_memory WHERE tenant = $1`,
    [tenant],
  );
  return { staged: Number(rows[0].staged), indexed: Number(rows[0].indexed) };
}

/** Pages of the HNSW index of {@link DIMS} dimensions. */
async function indexPages(pool: PgPool): Promise<number> {
  const { rows } = await pool.query<{ bytes: string }>(
    "SELECT pg_relation_size($1::regclass) AS bytes",
    [vectorIndexName(DIMS)],
  );
  return Number(rows[0].bytes) / 8192;
}

/** Waits (at most 20 s) until nothing of `tenant` is staged, without taking a row itself. */
async function settled(pool: PgPool, tenant: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await where(pool, tenant)).staged > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Batches of `indexer` until it finds nothing; the rows it moved. */
async function takeAll(indexer: VectorIndexer): Promise<number> {
  let moved = 0;
  for (let n; (n = await indexer.indexBatch(25)) > 0;) moved += n;
  return moved;
}

Deno.test({
  name: `postgres vector indexer${postgresSuffix}`,
  ignore: ignorePostgres,
  fn: async (t) => {
    await using server = await startPostgres();
    const db = await PostgresMemoryDatabase.open({ url: server.url });
    try {
      await t.step(
        "a save stages its vector outside the index; recall finds it before and after indexing",
        async () => {
          // A store without an indexer: what it saves stays staged.
          const store = new PostgresMemoryBackend(db.pool, "staged");
          await store.useEmbeddingModel(MODEL, DIMS);
          const pagesBefore = await indexPages(db.pool);
          const saved = await store.insert(rows(200, 1, "staged"));
          assert.deepEqual(await where(db.pool, "staged"), { staged: 200, indexed: 0 });
          assert.equal(await indexPages(db.pool), pagesBefore, "the save wrote no index page");

          const queries = rows(5, 2, "query").map((r) => r.embedding!.vector);
          const vectors = new Map(saved.map((m, i) => [m.id, rows(200, 1, "staged")[i]]));
          const exact = (q: Float32Array) =>
            [...vectors].map(([id, r]) => ({ id, score: cosine(q, r.embedding!.vector) }))
              .sort((a, b) => b.score - a.score).slice(0, 10).map((c) => c.id);
          const staged: MemoryCandidate[][] = [];
          for (const q of queries) {
            const found = await store.vectorCandidates(q, 10, {});
            assert.deepEqual(found.map((c) => c.id), exact(q), "staged rows are searched exactly");
            staged.push(found);
          }

          assert.equal(await takeAll(db.indexer), 200);
          assert.deepEqual(await where(db.pool, "staged"), { staged: 0, indexed: 200 });
          assert.ok(await indexPages(db.pool) > pagesBefore, "indexing wrote the index");
          for (const [i, q] of queries.entries()) {
            const found = await store.vectorCandidates(q, 10, {});
            assert.deepEqual(found.map((c) => c.id), staged[i].map((c) => c.id));
            found.forEach((c, j) => assert.ok(Math.abs(c.score - staged[i][j].score) < 1e-5));
          }

          // A changed memory is staged again; its old version keeps no vector.
          const target = rows(1, 3, "changed")[0];
          const { memory, previous } = await store.update(saved[0].id, {
            content: target.content,
            tokens: 3,
            updated_at: Date.UTC(2026, 0, 2),
            embedding: target.embedding,
          });
          assert.deepEqual(await where(db.pool, "staged"), { staged: 1, indexed: 199 });
          const [first] = await store.vectorCandidates(target.embedding!.vector, 1, {});
          assert.equal(first.id, memory.id);
          assert.ok(first.score > 0.9999);
          const { rows: old } = await db.pool.query<{ n: string }>(
            `SELECT count(*) AS n FROM gleaner_memory
             WHERE tenant = 'staged' AND id = $1 AND staged IS NULL AND embedding IS NULL`,
            [previous.id],
          );
          assert.equal(Number(old[0].n), 1);

          // A new model drops staged vectors with the indexed ones.
          await store.useEmbeddingModel(`${MODEL}-b`, DIMS);
          assert.deepEqual(await where(db.pool, "staged"), { staged: 0, indexed: 0 });
          assert.equal((await store.counts()).pending, 200);
        },
      );

      await t.step("two instances share a backlog: every row taken once, none left", async () => {
        const store = new PostgresMemoryBackend(db.pool, "shared");
        await store.useEmbeddingModel(MODEL, DIMS);
        for (let i = 0; i < 4; i++) await store.insert(rows(250, 10 + i, `shared ${i}`));
        // A second instance's indexer: its own pool (a database would start a run of its own).
        const pool = await openPgPool({ url: server.url });
        try {
          const [a, b] = await Promise.all([takeAll(db.indexer), takeAll(new VectorIndexer(pool))]);
          assert.equal(a + b, 1000, `taken ${a} + ${b}`);
          assert.ok(a > 0 && b > 0, `both took rows: ${a} + ${b}`);
          assert.deepEqual(await where(db.pool, "shared"), { staged: 0, indexed: 1000 });
        } finally {
          await pool.end();
        }
      });

      await t.step("a backlog left behind is indexed by the next instance to start", async () => {
        const store = new PostgresMemoryBackend(db.pool, "left");
        await store.useEmbeddingModel(MODEL, DIMS);
        await store.insert(rows(300, 20, "left"));
        assert.equal((await where(db.pool, "left")).staged, 300);
        const next = await PostgresMemoryDatabase.open({ url: server.url });
        try {
          await settled(db.pool, "left");
          assert.deepEqual(await where(db.pool, "left"), { staged: 0, indexed: 300 });
        } finally {
          await next.close();
        }
      });

      await t.step("saves through the database are indexed once committed", async () => {
        const store = db.backend("kicked");
        await store.useEmbeddingModel(MODEL, DIMS);
        await store.insert(rows(120, 30, "kicked"));
        await settled(db.pool, "kicked");
        assert.deepEqual(await where(db.pool, "kicked"), { staged: 0, indexed: 120 });
        assert.equal(await db.indexer.backlog(), 0);
      });
    } finally {
      await db.close();
    }
  },
});
