/**
 * The PostgreSQL memory backend against a real throwaway cluster with
 * pgvector (testing/fixtures/postgres.ts): the shared backend contract, tenant
 * isolation in hosted mode, concurrent migrations, BM25 ranking and failures.
 * Ignored without PostgreSQL + pgvector, failing instead when
 * GLEANER_REQUIRE_POSTGRES=1 (CI).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { GleanerError } from "../../errors.ts";
import {
  ignorePostgres,
  type PostgresServer,
  postgresSuffix,
  startPostgres,
} from "../../../testing/fixtures/postgres.ts";
import {
  CONTRACT_DIMENSIONS,
  CONTRACT_MODEL,
  runMemoryBackendContract,
  unit,
} from "../testing/contract.ts";
import { openPostgresMemory, PostgresMemoryDatabase } from "./backend.ts";
import { openPgPool } from "./client.ts";
import { PG_MIGRATIONS } from "./schema.ts";
import { memoryTextKey } from "../text.ts";
import { rng } from "../testdata/rng.ts";
import type { MemoryBackend, NewMemoryRow } from "../types.ts";

const T0 = Date.UTC(2026, 0, 1);

function row(content: string, extra: Partial<NewMemoryRow> = {}): NewMemoryRow {
  return {
    content,
    kind: "episodic",
    session_id: null,
    tokens: content.split(/\s+/).length,
    created_at: T0,
    ...extra,
  };
}

/** A fresh database on the server, so schema tests start from nothing. */
async function freshDatabase(server: PostgresServer, name: string): Promise<string> {
  const pool = await openPgPool({ url: server.url });
  try {
    await pool.query(`CREATE DATABASE ${name}`);
  } finally {
    await pool.end();
  }
  return server.url.replace(/\/postgres$/, `/${name}`);
}

Deno.test({
  name: `postgres memory backend${postgresSuffix}`,
  ignore: ignorePostgres,
  fn: async (t) => {
    await using server = await startPostgres();
    const db = await PostgresMemoryDatabase.open({ url: server.url });
    try {
      await t.step("honours the memory backend contract", async (t) => {
        await runMemoryBackendContract(t, () => Promise.resolve(db.backend(crypto.randomUUID())));
      });

      await t.step(
        "hosted mode: tenant A never reads, changes or deletes B's memories",
        () => tenantIsolation(db),
      );

      await t.step("tenants keep their own embedding models and dimensions", async () => {
        const a = db.backend("dims-a");
        const b = db.backend("dims-b");
        await a.useEmbeddingModel("m4", 4);
        await b.useEmbeddingModel("m3", 3);
        const [ma] = await a.insert([row("a", { embedding: { model: "m4", vector: unit(1) } })]);
        const [mb] = await b.insert([
          row("b", { embedding: { model: "m3", vector: new Float32Array([0, 1, 0]) } }),
        ]);
        assert.deepEqual((await a.vectorCandidates(unit(1), 5, {})).map((c) => c.id), [ma.id]);
        assert.deepEqual(
          (await b.vectorCandidates(new Float32Array([0, 1, 0]), 5, {})).map((c) => c.id),
          [mb.id],
        );
        assert.equal((await a.counts()).embedded, 1, "B's model change left A's vectors alone");
      });

      await t.step(
        "saves go into the full-text index itself, never a pending list a search reads whole",
        async () => {
          const b = db.backend("pending");
          for (let i = 0; i < 5; i++) {
            await b.insert(
              Array.from({ length: 100 }, (_, j) => row(`pending list note ${i} ${j} zebra${j}`)),
            );
          }
          // gin_clean_pending_list answers how many pending pages it merged.
          const { rows } = await db.pool.query<{ pages: string }>(
            "SELECT gin_clean_pending_list('gleaner_memory_fts'::regclass) AS pages",
          );
          assert.equal(Number(rows[0].pages), 0);
          assert.equal((await b.lexicalCandidates("zebra7", 10, {})).length, 5);
        },
      );

      await t.step("lexical ranking is BM25-like: rare terms outweigh common ones", async () => {
        const b = db.backend("bm25");
        const common = Array.from({ length: 30 }, (_, i) => row(`team meeting notes number ${i}`));
        const made = await b.insert([
          ...common,
          row("the team fixed the invoice rounding bug"),
          row("invoice template moved to the shared drive"),
        ]);
        const hits = await b.lexicalCandidates("team invoice", 3, {});
        assert.deepEqual(hits.map((h) => h.id), [made[30].id, made[31].id, hits[2].id]);
        assert.ok(hits[1].score > hits[2].score * 2, "the rare term dominates");
        // Lexemes that need quoting in tsquery syntax never break the query.
        for (const q of ["o'brien's \\ back\\slash", "a:* & !b | <-> (c)", "C++ résumé 東京"]) {
          assert.ok(Array.isArray(await b.lexicalCandidates(q, 5, {})), q);
        }
        const [odd] = await b.insert([row("meeting with O'Brien about résumé in 東京")]);
        assert.equal((await b.lexicalCandidates("o'brien", 5, {}))[0]?.id, odd.id);
        assert.equal((await b.lexicalCandidates("東京", 5, {}))[0]?.id, odd.id);
      });

      await t.step("large store: rarest terms match first, common ones only score", async () => {
        const b = db.backend("large");
        const rows = Array.from(
          { length: 3000 },
          (_, i) => row(`weekly status update number ${i}`, { created_at: T0 + i }),
        );
        for (let i = 0; i < rows.length; i += 1000) await b.insert(rows.slice(i, i + 1000));
        const budget = await b.insert([
          row("quarterly budget review status", { created_at: T0 - 10 }),
          row("budget for the offsite", { created_at: T0 - 20 }),
        ]);
        await db.pool.query("ANALYZE gleaner_memory");
        // "status" is expected in ~3,000 rows: only "budget" matches, "status" scores.
        const hits = await b.lexicalCandidates("budget status", 10, {});
        assert.deepEqual(hits.slice(0, 2).map((h) => h.id), [budget[0].id, budget[1].id]);
        // Fewer than k from the rare term: the newest rows matching any term fill up.
        assert.equal(hits.length, 10);
        for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
        assert.ok(hits.slice(2).every((h) => h.score < hits[1].score));
        assert.equal((await b.lexicalCandidates("weekly status", 25, {})).length, 25);
      });

      await t.step(
        "a tenant holding nearly the whole table is searched with the tenant as a filter, and keeps to its rows",
        async () => {
          const url = await freshDatabase(server, "dominant");
          const loader = await PostgresMemoryDatabase.open({ url });
          const big = loader.backend("big");
          const rows = Array.from(
            { length: 3000 },
            (_, i) => row(`weekly status update number ${i}`, { created_at: T0 + i }),
          );
          for (let i = 0; i < rows.length; i += 1000) await big.insert(rows.slice(i, i + 1000));
          const bigBudget = await big.insert([row("quarterly budget review status")]);
          const smallBudget = await loader.backend("small").insert([
            row("budget status of the small tenant"),
            row("another budget"),
          ]);
          await loader.pool.query("ANALYZE gleaner_memory");
          await loader.close();
          // A new pool: the planner's statistics are read afresh.
          const fresh = await PostgresMemoryDatabase.open({ url });
          try {
            const mine = (await fresh.backend("big").lexicalCandidates("budget", 10, {}))
              .map((h) => h.id);
            assert.deepEqual(mine, [bigBudget[0].id], "the other tenant's rows stay out");
            const theirs = (await fresh.backend("small").lexicalCandidates("budget", 10, {}))
              .map((h) => h.id).sort((a, b) => a - b);
            assert.deepEqual(theirs, smallBudget.map((m) => m.id).sort((a, b) => a - b));
          } finally {
            await fresh.close();
          }
        },
      );

      await t.step(
        "setEmbeddings skips a row whose content changed since it was read",
        async () => {
          const b = db.backend("reembed");
          await b.useEmbeddingModel(CONTRACT_MODEL, CONTRACT_DIMENSIONS);
          const [m, n] = await b.insert([row("old text"), row("other text")]);
          await b.update(m.id, { content: "new text", tokens: 2, updated_at: T0 + 1 });
          const stored = await b.setEmbeddings(CONTRACT_MODEL, [
            { id: m.id, vector: unit(1), content: "old text" },
            { id: n.id, vector: unit(0, 1), content: "other text" },
          ]);
          assert.equal(stored, 1);
          assert.deepEqual((await b.pendingEmbeddings(5)).map((p) => p.id), [m.id]);
        },
      );

      await t.step(
        "content with a NUL character is invalid_arguments, nothing written",
        async () => {
          const b = db.backend("nul");
          await assert.rejects(
            () => b.insert([row("fine"), row("bad\0byte")]),
            (e: unknown) => e instanceof GleanerError && e.code === "invalid_arguments",
          );
          assert.equal((await b.counts()).live, 0);
        },
      );

      await t.step("sessions search with iterative HNSW scans and never JIT-compile", async () => {
        const { rows } = await db.pool.query<{ jit: string; scan: string; ef: string }>(
          `SELECT current_setting('jit') AS jit,
             current_setting('hnsw.iterative_scan') AS scan,
             current_setting('hnsw.ef_search') AS ef`,
        );
        assert.deepEqual(rows[0], { jit: "off", scan: "relaxed_order", ef: "100" });
      });

      await t.step("single-user store owns its pool; the schema is shared", async () => {
        const solo = await openPostgresMemory({ url: server.url });
        try {
          assert.equal(solo.tenant, "");
          assert.equal(solo.engine, "postgres");
          await solo.useEmbeddingModel(CONTRACT_MODEL, CONTRACT_DIMENSIONS);
          const [m] = await solo.insert([row("solo note")]);
          assert.equal((await solo.get({ id: m.id }))?.content, "solo note");
          assert.equal(await db.backend("other").get({ id: m.id }), undefined);
        } finally {
          await solo.close();
        }
      });
    } finally {
      await db.close();
    }

    await t.step(
      "a version-1 schema upgrades in place: existing rows get their duplicate keys",
      async () => {
        const url = await freshDatabase(server, "upgrade");
        // Build the first release's schema and rows by hand.
        const pool = await openPgPool({ url });
        try {
          await pool.query(
            `CREATE TABLE gleaner_memory_migrations (
             version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
          );
          await pool.query(PG_MIGRATIONS[0].sql!);
          await pool.query("INSERT INTO gleaner_memory_migrations (version) VALUES (1)");
          for (
            const [tenant, ref, content, session] of [
              ["alice", "v1ref000", "The user's locker code is 4471.", null],
              ["alice", "v1ref001", "The staging server runs Postgres 15.", "s1"],
              ["bob", "v1ref002", "The user's locker code is 4471.", null],
            ]
          ) {
            await pool.query(
              `INSERT INTO gleaner_memory (tenant, ref, content, kind, session_id, created_at,
               updated_at, tokens) VALUES ($1, $2, $3, 'episodic', $4, $5, $5, 7)`,
              [tenant, ref, content, session, T0],
            );
          }
        } finally {
          await pool.end();
        }
        const upgraded = await PostgresMemoryDatabase.open({ url });
        try {
          const { rows } = await upgraded.pool.query<{ n: string }>(
            "SELECT count(*) AS n FROM gleaner_memory WHERE content_key IS NULL",
          );
          assert.equal(Number(rows[0].n), 0, "every row back-filled");
          const alice = upgraded.backend("alice");
          const [same, other, version, cased] = await alice.insertDistinct([
            row("  The user's locker code is 4471.\n"),
            row("The user's locker code is 9902."),
            row("The staging server runs Postgres 15.", { session_id: "s1" }),
            row("the user's locker code is 4471"),
          ]);
          assert.equal(same.duplicate, true);
          assert.equal(same.memory.ref, "v1ref000");
          assert.equal(other.duplicate, false);
          assert.equal(cased.duplicate, false, "case and punctuation are content");
          assert.equal(version.duplicate, true);
          assert.equal(version.memory.ref, "v1ref001");
          const [bob] = await upgraded.backend("bob").insertDistinct([
            row("The user's locker code is 4471."),
          ]);
          assert.equal(bob.memory.ref, "v1ref002", "tenants stay apart");
        } finally {
          await upgraded.close();
        }
      },
    );

    await t.step(
      "a version-2 schema (keys of the case- and punctuation-blind rule) migrates; cut short, it stays at version 2",
      () => exactKeysMigration(server),
    );

    await t.step(
      "a version-4 schema moves the recall bookkeeping to its side table, keeping every row",
      () => recallSideTableMigration(server),
    );

    await t.step(
      "a small tenant among many is searched exactly, without the shared HNSW graph",
      () => smallTenantExactSearch(server),
    );

    await t.step("instances migrating together: one schema, versions recorded once", async () => {
      const url = await freshDatabase(server, "race");
      const dbs = await Promise.all(
        Array.from({ length: 4 }, () => PostgresMemoryDatabase.open({ url })),
      );
      try {
        // Several instances declaring the same model at once: one vector index.
        await Promise.all(dbs.map((d) => d.backend("").useEmbeddingModel("m", 8)));
        const { rows } = await dbs[0].pool.query<{ version: number }>(
          "SELECT version FROM gleaner_memory_migrations ORDER BY version",
        );
        assert.deepEqual(rows.map((r) => r.version), PG_MIGRATIONS.map((m) => m.version));
        const idx = await dbs[0].pool.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_indexes WHERE indexname = 'gleaner_memory_hnsw_8'",
        );
        assert.equal(Number(idx.rows[0].n), 1);
      } finally {
        await Promise.all(dbs.map((d) => d.close()));
      }
    });

    await t.step(
      "instances writing one tenant at once: nothing lost, history serialised",
      async () => {
        const dbs = await Promise.all(
          Array.from({ length: 3 }, () => PostgresMemoryDatabase.open({ url: server.url })),
        );
        try {
          const stores = dbs.map((d) => d.backend("busy"));
          await stores[0].useEmbeddingModel(CONTRACT_MODEL, CONTRACT_DIMENSIONS);
          const [target] = await stores[0].insert([row("version 0")]);
          const made = await Promise.all(
            stores.flatMap((s, i) =>
              Array.from(
                { length: 10 },
                (_, j) => s.insert(Array.from({ length: 5 }, (_, k) => row(`note ${i}-${j}-${k}`))),
              )
            ),
          );
          const refs = new Set(
            made.flat().map((m) => m.ref),
          );
          assert.equal(refs.size, 150);
          await Promise.all(
            stores.flatMap((s, i) =>
              Array.from({ length: 4 }, (_, j) =>
                s.update(target.id, {
                  content: `version ${i}.${j}`,
                  tokens: 2,
                  updated_at: T0 + 1,
                }))
            ),
          );
          const history = await stores[1].history(target.id);
          assert.equal(history.length, 12);
          // Each update saw the previous one's result: every version kept exactly once.
          const live = await stores[0].get({ id: target.id });
          const versions = new Set([live!.content, ...history.map((h) => h.content)]);
          assert.equal(versions.size, 13);
          assert.ok(versions.has("version 0"));
          assert.deepEqual(await stores[2].counts(), {
            live: 151,
            episodic: 151,
            profile: 0,
            history: 12,
            embedded: 0,
            pending: 151,
          });
        } finally {
          await Promise.all(dbs.map((d) => d.close()));
        }
      },
    );

    await t.step("an unreachable server is provider_unavailable and hides the URL", async () => {
      const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (probe.addr as Deno.NetAddr).port;
      probe.close();
      const url = `postgres://gleaner:s3cret-pass@127.0.0.1:${port}/gleaner`;
      const err = await PostgresMemoryDatabase.open({ url }).then(
        () => assert.fail("opened"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof GleanerError, String(err));
      assert.equal(err.code, "provider_unavailable");
      assert.ok(!err.message.includes("s3cret"), err.message);
      assert.ok(!err.message.includes(String(port)), err.message);
    });
  },
});

/** Every operation of B, with A's ids and refs, sees and changes nothing of A's. */
async function tenantIsolation(db: PostgresMemoryDatabase): Promise<void> {
  const a = db.backend("alice");
  const b = db.backend("bob");
  const evil = db.backend("bob' OR tenant <> '' --");
  for (const s of [a, b, evil]) await s.useEmbeddingModel(CONTRACT_MODEL, CONTRACT_DIMENSIONS);
  const v = (x: number) => ({ model: CONTRACT_MODEL, vector: unit(x, 1, 0, 0) });
  const [am, ap] = await a.insert([
    row("alice secret plan for the launch", { embedding: v(1), session_id: "s" }),
    row("alice prefers tea", { kind: "profile", embedding: v(2) }),
  ]);
  await a.update(am.id, {
    content: "alice secret plan for the launch, revised",
    tokens: 7,
    updated_at: T0 + 1,
    embedding: v(1),
  });
  const [ahist] = await a.history(am.id);
  const before = await a.getMany([am.id, ap.id, ahist.id]);

  for (const other of [b, evil] as MemoryBackend[]) {
    await other.insert([row("bob's own note about the launch", { embedding: v(1) })]);
    for (const m of [am, ap, ahist]) {
      assert.equal(await other.get({ id: m.id }), undefined);
      assert.equal(await other.get({ ref: m.ref }), undefined);
      await assert.rejects(
        () => other.update(m.id, { content: "pwned", tokens: 1, updated_at: T0 + 2 }),
        (e: unknown) => e instanceof GleanerError && e.code === "not_found",
      );
      assert.equal(await other.delete(m.id), false);
      assert.deepEqual(await other.history(m.id), []);
    }
    assert.deepEqual(await other.getMany([am.id, ap.id, ahist.id]), []);
    await other.markRecalled([am.id, ap.id], T0 + 3);
    assert.equal(
      await other.setEmbeddings(CONTRACT_MODEL, [{ id: am.id, vector: unit(0, 0, 0, 1) }]),
      0,
    );
    const mine = (await other.list({ sort: "recent", limit: 50, offset: 0 })).items;
    assert.ok(mine.every((m) => m.content.startsWith("bob")), "lists only its own");
    assert.ok(
      (await other.list({ search: "alice", sort: "relevance", limit: 50, offset: 0 })).total === 0,
    );
    assert.deepEqual(await other.lexicalCandidates("alice secret plan tea", 10, {}), []);
    const near = await other.vectorCandidates(unit(1, 1, 0, 0), 10, {});
    assert.ok(near.every((c) => ![am.id, ap.id].includes(c.id)));
    assert.deepEqual(await other.profilePool(10), []);
    assert.ok(
      (await other.pendingEmbeddings(10)).every((p) => ![am.id, ap.id].includes(p.id)),
    );
    assert.equal((await other.counts()).live, 1);
    // A model change in B drops only B's vectors.
    await other.useEmbeddingModel("another-model", 3);
  }
  assert.deepEqual(await a.getMany([am.id, ap.id, ahist.id]), before, "A is untouched");
  assert.deepEqual(await a.counts(), {
    live: 2,
    episodic: 1,
    profile: 1,
    history: 1,
    embedded: 2,
    pending: 0,
  });
  assert.deepEqual(
    (await a.vectorCandidates(unit(1, 1, 0, 0), 1, {})).map((c) => c.id),
    [am.id],
  );
}

/**
 * The duplicate key of a row as schema version 2 wrote it: SHA-256 (32 hex
 * characters) of the text lowercased, with edge punctuation dropped. Each
 * old form below is that rule's output, written out by hand.
 */
function oldKey(oldForm: string): string {
  return createHash("sha256").update(oldForm).digest("hex").slice(0, 32);
}

/** Rows of a version-2 store: [tenant, ref, content, session, the old rule's normal form]. */
const V2_ROWS: readonly [string, string, string, string | null, string][] = [
  ["alice", "v2ref000", "Wifi password is HuntEr2", null, "wifi password is hunter2"],
  ["alice", "v2ref001", "The door is open.", null, "the door is open"],
  ["alice", "v2ref002", "token suffix Xy7Q", "s1", "token suffix xy7q"],
  ["bob", "v2ref003", "Wifi password is HuntEr2", null, "wifi password is hunter2"],
];

/**
 * A version-2 store with rows keyed by the old rule (and enough rows of a
 * third tenant for the recomputation to take more than one batch): a
 * migration cut short in its second batch leaves version 2 and every old
 * key; run again, it recomputes every key, and case and punctuation
 * variants are saved while exact repeats stay duplicates.
 */
async function exactKeysMigration(server: PostgresServer): Promise<void> {
  const url = await freshDatabase(server, "exact_keys");
  const pool = await openPgPool({ url });
  const keys = async () =>
    (await pool.query<{ ref: string; content_key: string }>(
      "SELECT ref, content_key FROM gleaner_memory WHERE tenant <> 'zbulk' ORDER BY ref",
    )).rows.map((r) => [r.ref, r.content_key]);
  const version = async () =>
    (await pool.query<{ v: number }>("SELECT max(version) AS v FROM gleaner_memory_migrations"))
      .rows[0].v;
  try {
    await pool.query(
      `CREATE TABLE gleaner_memory_migrations (
         version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await pool.query(PG_MIGRATIONS[0].sql!);
    await pool.query(PG_MIGRATIONS[1].sql!);
    await pool.query("INSERT INTO gleaner_memory_migrations (version) VALUES (1), (2)");
    for (const [tenant, ref, content, session, form] of V2_ROWS) {
      await pool.query(
        `INSERT INTO gleaner_memory (tenant, ref, content, kind, session_id, created_at,
         updated_at, tokens, content_key) VALUES ($1, $2, $3, 'episodic', $4, $5, $5, 5, $6)`,
        [tenant, ref, content, session, T0, oldKey(form)],
      );
    }
    // 1,500 rows of a tenant sorted last: the recomputation's second batch.
    await pool.query(
      `INSERT INTO gleaner_memory (tenant, ref, content, kind, created_at, updated_at, tokens,
       content_key)
       SELECT 'zbulk', 'bulk' || n, 'Bulk fact ' || n, 'episodic', $1, $1, 3, 'old'
       FROM generate_series(1, 1500) AS n`,
      [T0],
    );
    const old = V2_ROWS.map(([, ref, , , form]) => [ref, oldKey(form)]);
    assert.deepEqual(await keys(), old);
    await pool.query(`
      CREATE FUNCTION cut_short() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.ref = 'bulk1400' THEN RAISE EXCEPTION 'cut short'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER cut_short BEFORE UPDATE OF content_key ON gleaner_memory
        FOR EACH ROW EXECUTE FUNCTION cut_short();
    `);
    await assert.rejects(() => PostgresMemoryDatabase.open({ url }));
    assert.equal(await version(), 2, "still version 2");
    assert.deepEqual(await keys(), old, "no key half-recomputed");
    await pool.query("DROP TRIGGER cut_short ON gleaner_memory; DROP FUNCTION cut_short()");

    const upgraded = await PostgresMemoryDatabase.open({ url });
    try {
      assert.equal(await version(), PG_MIGRATIONS.length);
      assert.deepEqual(
        await keys(),
        V2_ROWS.map(([, ref, content]) => [ref, memoryTextKey(content)]),
      );
      const { rows } = await pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM gleaner_memory WHERE tenant = 'zbulk' AND content_key = 'old'",
      );
      assert.equal(Number(rows[0].n), 0, "every batch recomputed");
      const alice = upgraded.backend("alice");
      const outcomes = await alice.insertDistinct([
        row("Wifi password is hunter2"),
        row("Wifi password is HuntEr2"),
        row("The door is open?"),
        row("  The door is open.\n"),
        row("token suffix xy7q", { session_id: "s1" }),
        row("token suffix Xy7Q", { session_id: "s1" }),
      ]);
      assert.deepEqual(
        outcomes.map((o) => [o.duplicate, o.duplicate ? o.memory.ref : ""]),
        [
          [false, ""],
          [true, "v2ref000"],
          [false, ""],
          [true, "v2ref001"],
          [false, ""],
          [true, "v2ref002"],
        ],
      );
      const [bob] = await upgraded.backend("bob").insertDistinct([
        row("Wifi password is HuntEr2"),
      ]);
      assert.equal(bob.memory.ref, "v2ref003", "tenants stay apart");
    } finally {
      await upgraded.close();
    }
  } finally {
    await pool.end();
  }
}

/**
 * A version-4 store whose rows carry their recall counts (one memory
 * recalled three times, one with history, one never): the migration moves
 * the counts to `gleaner_memory_recall`, keeps every row, and after it a
 * recall writes the side table only (the memory rows keep their tuple),
 * an update keeps the counts on both versions and a delete takes its
 * bookkeeping with it.
 */
async function recallSideTableMigration(server: PostgresServer): Promise<void> {
  const url = await freshDatabase(server, "recall_side");
  const pool = await openPgPool({ url });
  try {
    await pool.query(
      `CREATE TABLE gleaner_memory_migrations (
         version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const m of PG_MIGRATIONS.filter((m) => m.version <= 4)) {
      if (m.sql) await pool.query(m.sql);
      await pool.query("INSERT INTO gleaner_memory_migrations (version) VALUES ($1)", [m.version]);
    }
    await pool.query(
      `INSERT INTO gleaner_memory (tenant, ref, content, kind, created_at, updated_at, tokens,
         content_key, recall_count, last_recalled_at)
       VALUES ('alice', 'v4ref000', 'The user prefers tea.', 'episodic', $1, $1, 5, 'k0', 3, $2),
              ('alice', 'v4ref001', 'The office is in Lyon.', 'episodic', $1, $1, 6, 'k1', 0, NULL),
              ('bob', 'v4ref002', 'The user prefers tea.', 'profile', $1, $1, 5, 'k0', 1, $3)`,
      [T0, T0 + 60_000, T0 + 120_000],
    );
    // A history version of alice's first memory, as update() wrote it.
    await pool.query(
      `INSERT INTO gleaner_memory (tenant, ref, content, kind, created_at, updated_at, tokens,
         content_key, recall_count, last_recalled_at, superseded_by)
       SELECT tenant, 'v4ref003', 'The user prefers coffee.', kind, created_at, updated_at,
         tokens, 'k3', 2, $1, id FROM gleaner_memory WHERE ref = 'v4ref000'`,
      [T0 + 30_000],
    );
    const before = (await pool.query<{ n: string }>("SELECT count(*) AS n FROM gleaner_memory"))
      .rows[0].n;

    const upgraded = await PostgresMemoryDatabase.open({ url });
    try {
      const version = await pool.query<{ v: number }>(
        "SELECT max(version) AS v FROM gleaner_memory_migrations",
      );
      assert.equal(version.rows[0].v, PG_MIGRATIONS[PG_MIGRATIONS.length - 1].version);
      const after = (await pool.query<{ n: string }>("SELECT count(*) AS n FROM gleaner_memory"))
        .rows[0].n;
      assert.equal(after, before, "every memory row kept");
      const columns = await pool.query<{ c: string }>(
        `SELECT column_name AS c FROM information_schema.columns
         WHERE table_name = 'gleaner_memory' AND column_name LIKE '%recall%'`,
      );
      assert.deepEqual(columns.rows, [], "the bookkeeping left the memory rows");
      const alice = upgraded.backend("alice");
      const bob = upgraded.backend("bob");
      const tea = (await alice.get({ ref: "v4ref000" }))!;
      assert.equal(tea.recall_count, 3);
      assert.equal(tea.last_recalled_at, new Date(T0 + 60_000).toISOString());
      const lyon = (await alice.get({ ref: "v4ref001" }))!;
      assert.equal(lyon.recall_count, 0);
      assert.equal(lyon.last_recalled_at, null);
      assert.equal((await bob.get({ ref: "v4ref002" }))!.recall_count, 1);
      const [old] = await alice.history(tea.id);
      assert.equal(old.ref, "v4ref003");
      assert.equal(old.recall_count, 2);
      assert.equal(old.last_recalled_at, new Date(T0 + 30_000).toISOString());

      // A recall writes the side table only: the memory rows keep their tuples.
      const tuple = async (ref: string) =>
        (await pool.query<{ ctid: string; xmin: string }>(
          "SELECT ctid::text, xmin::text FROM gleaner_memory WHERE ref = $1",
          [ref],
        )).rows[0];
      const [teaBefore, lyonBefore] = [await tuple("v4ref000"), await tuple("v4ref001")];
      await alice.markRecalled([tea.id, lyon.id, lyon.id], T0 + 180_000);
      assert.deepEqual(await tuple("v4ref000"), teaBefore);
      assert.deepEqual(await tuple("v4ref001"), lyonBefore);
      assert.equal((await alice.get({ id: tea.id }))!.recall_count, 4);
      assert.equal((await alice.get({ id: lyon.id }))!.recall_count, 1);
      // Another tenant's id is not counted.
      await bob.markRecalled([tea.id], T0 + 180_000);
      assert.equal((await alice.get({ id: tea.id }))!.recall_count, 4);
      // The stale order reads the side table: never recalled first, then oldest recall.
      await alice.insert([row("The printer is on floor two.")]);
      const stale = await alice.list({ sort: "stale", limit: 10, offset: 0 });
      assert.deepEqual(
        stale.items.map((m) => m.content),
        ["The printer is on floor two.", "The user prefers tea.", "The office is in Lyon."],
      );

      // An update keeps the counts on the live memory and on the version it keeps.
      const changed = await alice.update(tea.id, {
        content: "The user prefers green tea.",
        tokens: 6,
        updated_at: T0 + 240_000,
      });
      assert.equal(changed.memory.recall_count, 4);
      assert.equal(changed.previous.recall_count, 4);
      assert.equal((await alice.get({ id: changed.previous.id }))!.recall_count, 4);

      // A delete takes the memory's bookkeeping and its history's with it.
      assert.equal(await alice.delete(tea.id), true);
      const left = await pool.query<{ id: string }>(
        "SELECT id FROM gleaner_memory_recall WHERE tenant = 'alice' ORDER BY id",
      );
      assert.deepEqual(left.rows.map((r) => Number(r.id)), [lyon.id]);
      assert.equal(await alice.delete(tea.id), false);
    } finally {
      await upgraded.close();
    }
  } finally {
    await pool.end();
  }
}

/** Scans of the HNSW index for `dims` so far, once the server's statistics have caught up with `after`. */
async function hnswScans(
  pool: Awaited<ReturnType<typeof openPgPool>>,
  dims: number,
  after = -1,
): Promise<number> {
  // Sessions publish their counts when idle (at most once a second): poll briefly.
  for (let i = 0; i < 50; i++) {
    const { rows } = await pool.query<{ n: string }>(
      `SELECT idx_scan AS n FROM pg_stat_user_indexes WHERE indexrelname = $1`,
      [`gleaner_memory_hnsw_${dims}`],
    );
    const n = Number(rows[0]?.n ?? 0);
    if (n > after) return n;
    await new Promise((r) => setTimeout(r, 200));
    await pool.query("SELECT pg_stat_clear_snapshot()");
  }
  return after;
}

/**
 * 4 tenants of 500 memories and one of 12 (8-d random vectors): after
 * ANALYZE, the small tenant's nearest are exactly the cosine order computed
 * here and the HNSW index is not scanned for it; a large tenant's search
 * still scans it.
 */
async function smallTenantExactSearch(server: PostgresServer): Promise<void> {
  const url = await freshDatabase(server, "small_tenant");
  // A table this small would be read and sorted either way: with sorts
  // priced out, a search the planner may answer from the HNSW index does.
  const admin = await openPgPool({ url });
  await admin.query("ALTER DATABASE small_tenant SET enable_sort = off");
  await admin.end();
  const db = await PostgresMemoryDatabase.open({ url });
  const pool = await openPgPool({ url });
  const dims = 8;
  const rand = rng(7);
  const vec = () => {
    const v = Float32Array.from({ length: dims }, () => rand() * 2 - 1);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  try {
    const insertMany = async (tenant: string, count: number) => {
      const store = db.backend(tenant);
      await store.useEmbeddingModel("m8", dims);
      const rows = Array.from(
        { length: count },
        (_, i) => row(`memory ${i} of ${tenant}`, { embedding: { model: "m8", vector: vec() } }),
      );
      const made = await store.insert(rows);
      return made.map((m, i) => ({ id: m.id, vector: rows[i].embedding!.vector }));
    };
    for (let t = 0; t < 4; t++) await insertMany(`big${t}`, 500);
    const small = await insertMany("small", 12);
    await pool.query("ANALYZE gleaner_memory");
    const q = vec();
    const dot = (v: Float32Array) => v.reduce((a, x, i) => a + x * q[i], 0);
    const expected = [...small].sort((a, b) => dot(b.vector) - dot(a.vector)).slice(0, 5);
    const before = await hnswScans(pool, dims);
    // One session for both searches: it publishes its counts in order, so
    // once the large tenant's scan shows, so has anything the small one's did.
    const searcher = await PostgresMemoryDatabase.open({ url, maxConnections: 1 });
    try {
      const got = await searcher.backend("small").vectorCandidates(q, 5, {});
      assert.deepEqual(got.map((c) => c.id), expected.map((e) => e.id));
      got.forEach((c, i) => assert.ok(Math.abs(c.score - dot(expected[i].vector)) < 1e-5));
      await searcher.backend("big2").vectorCandidates(q, 5, {});
    } finally {
      await searcher.close();
    }
    const afterBig = await hnswScans(pool, dims, before);
    assert.equal(afterBig, before + 1, "one HNSW scan: the large tenant's only");
  } finally {
    await pool.end();
    await db.close();
  }
}
