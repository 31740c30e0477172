import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { COMMON_WORD_ROWS, openSqliteMemoryBackend } from "./backend.ts";
import { openVectorReader, readRows, readStoredVectors } from "./vectors.ts";
import { runMemoryBackendContract } from "../testing/contract.ts";
import { otherProcess } from "../testdata/vector_writer.ts";

Deno.test("SQLite memory backend honours the contract (in memory, vectors searched in memory)", async (t) => {
  await runMemoryBackendContract(
    t,
    () => Promise.resolve(openSqliteMemoryBackend(":memory:", { vectorIndexAfter: 0 })),
  );
});

Deno.test("SQLite memory backend honours the contract (in memory, vectors searched in vec0)", async (t) => {
  await runMemoryBackendContract(
    t,
    () => Promise.resolve(openSqliteMemoryBackend(":memory:", { vectorIndex: false })),
  );
});

Deno.test("SQLite memory backend honours the contract (file, WAL)", async (t) => {
  const root = await Deno.makeTempDir();
  let n = 0;
  try {
    await runMemoryBackendContract(
      t,
      () => Promise.resolve(openSqliteMemoryBackend(`${root}/m${n++}/memory.db`)),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("SQLite lexical candidates: rare words rank when common ones would score the whole table", async () => {
  const backend = openSqliteMemoryBackend(":memory:");
  try {
    const row = (content: string) => ({
      content,
      kind: "episodic" as const,
      session_id: null,
      tokens: 5,
      created_at: Date.now(),
    });
    await backend.insert(
      Array.from({ length: COMMON_WORD_ROWS + 200 }, (_, i) => row(`project status note ${i}`)),
    );
    const [a, b] = await backend.insert([
      row("project status: the zeppelin launch slipped"),
      row("zeppelin hangar lease renewed"),
    ]);
    const hits = await backend.lexicalCandidates("project status zeppelin", 10, {});
    // Words in nearly every row weigh nothing in BM25; scoring them would only cost time.
    assert.deepEqual(new Set(hits.map((h) => h.id)), new Set([a.id, b.id]));
    // A query of common words alone still answers.
    assert.equal((await backend.lexicalCandidates("project status", 10, {})).length, 10);
  } finally {
    await backend.close();
  }
});

Deno.test("SQLite lexical candidates: the best rows outside the scope leave the next ones in score order", async () => {
  const backend = openSqliteMemoryBackend(":memory:");
  try {
    const row = (content: string, kind: "episodic" | "profile", session_id: string | null) => ({
      content,
      kind,
      session_id,
      tokens: 5,
      created_at: Date.now(),
    });
    // Forty profile memories outscore every episodic one (the word three times in few words).
    await backend.insert(
      Array.from({ length: 40 }, (_, i) => row(`zeppelin zeppelin zeppelin ${i}`, "profile", null)),
    );
    const episodic = await backend.insert(
      Array.from(
        { length: 12 },
        (_, i) =>
          row(
            `zeppelin ${"hangar lease renewal notes ".repeat(1 + i)}`,
            "episodic",
            i % 2 ? "s" : null,
          ),
      ),
    );
    // Shorter rows score higher: the episodic ones in the order they were written.
    const hits = await backend.lexicalCandidates("zeppelin", 5, { kind: "episodic" });
    assert.deepEqual(hits.map((h) => h.id), episodic.slice(0, 5).map((m) => m.id));
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score > hits[i].score);
    const all = await backend.lexicalCandidates("zeppelin", 60, {});
    assert.equal(all.length, 52);
    assert.deepEqual(
      all.filter((h) => episodic.some((m) => m.id === h.id)).map((h) => h.id),
      episodic.map((m) => m.id),
    );
    const inSession = await backend.lexicalCandidates("zeppelin", 3, { session_id: "s" });
    assert.deepEqual(inSession.map((h) => h.id), [1, 3, 5].map((i) => episodic[i].id));
  } finally {
    await backend.close();
  }
});

const f32 = (...xs: number[]) => new Float32Array(xs);
const embedded = (content: string, vector: Float32Array) => ({
  content,
  kind: "episodic" as const,
  session_id: null,
  tokens: 3,
  created_at: Date.now(),
  embedding: { model: "m", vector },
});

Deno.test("SQLite in-memory vectors: another process's writes become visible to this one's searches", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  // Catching up on at most 1,500 changes (not VECTOR_LOG_KEEP, 10,000): the bulk write below,
  // over that, is then small, yet more than loads at once (1,000), so the reload is a background one.
  const catchUpMax = 1_500;
  const backend = openSqliteMemoryBackend(path, {
    vectorIndexAfter: 0,
    vectorCatchUpMax: catchUpMax,
  });
  try {
    await backend.useEmbeddingModel("m", 4);
    const [x, y] = await backend.insert([
      embedded("x", f32(1, 0, 0, 0)),
      embedded("y", f32(0, 1, 0, 0)),
    ]);
    const ids = async (v: Float32Array) =>
      (await backend.vectorCandidates(v, 100, {})).map((c) => c.id);
    assert.deepEqual(await ids(f32(1, 0, 0, 0)), [x.id, y.id]);
    assert.ok(backend.vectorIndex, "the first search loaded the vectors into memory");

    // Insert a near twin of x, delete x, turn y away: all from the other process.
    const [z] = await otherProcess(path, [
      { insert: [["z", [1, 0.01, 0, 0]]] },
      { delete: x.id },
      { update: [y.id, "y moved", [0, 0, 1, 0]] },
    ]);
    const near = await backend.vectorCandidates(f32(1, 0, 0, 0), 100, {});
    assert.deepEqual(near.map((c) => c.id), [z, y.id]);
    assert.ok(Math.abs(near[1].score) < 1e-6, "y's new vector is the one searched");
    const [dup] = await backend.nearestMany!([f32(1, 0, 0, 0)], [{}], 0.95);
    assert.equal(dup?.id, z);

    // More changes than it catches up on: this process reloads (in the background,
    // searching vec0 meanwhile) and still sees them all.
    const many = await otherProcess(path, [{ bulk: catchUpMax + 100 }]);
    assert.ok(many.includes((await backend.vectorCandidates(f32(0, 0, 0, 1), 1, {}))[0].id));
    assert.ok(await backend.vectorIndexLoaded(), "reloaded");
    const all = await backend.vectorCandidates(f32(0, 0, 0, 1), catchUpMax + 500, {});
    assert.equal(all.length, many.length + 2);
    assert.deepEqual(new Set(all.slice(0, many.length).map((c) => c.id)), new Set(many));

    // A model change elsewhere drops every vector here too.
    await otherProcess(path, [{ model: ["m2", 3] }]);
    assert.deepEqual(await ids(f32(1, 0, 0, 0)), []);
    assert.deepEqual(await ids(f32(1, 0, 0)), []);
  } finally {
    await backend.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("SQLite in-memory vectors: a rolled-back batch leaves no vector behind", async () => {
  const backend = openSqliteMemoryBackend(":memory:", { vectorIndexAfter: 0 });
  try {
    await backend.useEmbeddingModel("m", 2);
    const [a] = await backend.insert([embedded("a", f32(1, 0))]);
    assert.equal((await backend.vectorCandidates(f32(1, 0), 5, {})).length, 1);
    await assert.rejects(
      backend.insert([embedded("b", f32(0, 1)), embedded("bad", f32(1, 2, 3))]),
      /wrong length/,
    );
    assert.deepEqual((await backend.vectorCandidates(f32(0, 1), 5, {})).map((c) => c.id), [a.id]);
  } finally {
    await backend.close();
  }
});

Deno.test("SQLite in-memory vectors answer as the vec0 table does", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  const fast = openSqliteMemoryBackend(path, { vectorIndexAfter: 0 });
  const slow = openSqliteMemoryBackend(path, { vectorIndex: false });
  try {
    await fast.useEmbeddingModel("m", 16);
    await slow.embeddingModel(); // reads the model declared by the other connection
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
    const vector = () => Float32Array.from({ length: 16 }, random);
    const rows = await fast.insert(Array.from({ length: 3000 }, (_, i) => ({
      ...embedded(`row ${i}`, vector()),
      kind: i % 9 ? "episodic" as const : "profile" as const,
      session_id: ["a", "b", null][i % 3],
    })));
    for (const row of rows.slice(0, 300)) await fast.delete(row.id);
    for (const row of rows.slice(300, 400)) {
      await fast.update(row.id, {
        content: "changed",
        tokens: 1,
        updated_at: Date.now(),
        embedding: { model: "m", vector: vector() },
      });
    }
    await fast.vectorCandidates(new Float32Array(16).fill(1), 1, {});
    assert.ok(await fast.vectorIndexLoaded(), "loaded in the background");
    const chunked = readStoredVectors(fast.db, "memory_vectors", 16);
    const plain = readRows(fast.db, "memory_vectors", 16);
    assert.equal(chunked.ids.length, 2700);
    const byId = (s: typeof plain) =>
      new Map(s.ids.map((id, i) => [id, [...s.vectors.subarray(i * 16, i * 16 + 16)]]));
    assert.deepEqual(byId(chunked), byId(plain), "vec0's chunks read straight equal its rows");
    for (let i = 0; i < 30; i++) {
      const q = vector();
      const scope = [{}, { kind: "episodic" as const }, { session_id: "a" }, { session_id: null }][
        i % 4
      ];
      const a = await fast.vectorCandidates(q, 20, scope);
      const b = await slow.vectorCandidates(q, 20, scope);
      assert.deepEqual(
        a.map((c) => [c.id, c.score.toFixed(5)]),
        b.map((c) => [c.id, c.score.toFixed(5)]),
        JSON.stringify(scope),
      );
      a.forEach((c, j) => assert.ok(Math.abs(c.score - b[j].score) < 1e-5));
    }
    assert.ok(fast.vectorIndex && !slow.vectorIndex);
  } finally {
    await fast.close();
    await slow.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("SQLite caches (profile pool, word counts, list totals) never hide a write, from this connection or another", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  const a = openSqliteMemoryBackend(path);
  const b = openSqliteMemoryBackend(path);
  const row = (content: string, kind: "episodic" | "profile" = "episodic") => ({
    content,
    kind,
    session_id: null,
    tokens: 3,
    created_at: Date.now(),
  });
  try {
    const [p1] = await a.insert([row("prefers tea", "profile"), row("the kettle is blue")]);
    const pool = async () => (await a.profilePool(10)).map((m) => m.content);
    const hits = async (q: string) => (await a.lexicalCandidates(q, 10, {})).length;
    assert.deepEqual(await pool(), ["prefers tea"]);
    assert.equal(await hits("kettle zebra"), 1);
    // Another connection adds a profile memory and the word "zebra".
    await b.insert([row("likes zebra crossings", "profile")]);
    assert.deepEqual(await pool(), ["likes zebra crossings", "prefers tea"]);
    assert.equal(await hits("kettle zebra"), 2);
    // This connection's own writes, and recall marks on profile memories.
    await a.update(p1.id, { content: "prefers green tea", tokens: 3, updated_at: Date.now() + 1 });
    assert.deepEqual(await pool(), ["likes zebra crossings", "prefers green tea"]);
    await a.markRecalled([p1.id], Date.now());
    assert.equal((await a.profilePool(10)).find((m) => m.id === p1.id)?.recall_count, 1);
    await a.delete(p1.id);
    assert.deepEqual(await pool(), ["likes zebra crossings"]);
    // List totals too.
    const total = async () => (await a.list({ sort: "recent", limit: 1, offset: 0 })).total;
    assert.equal(await total(), 2);
    await b.insert([row("one more")]);
    assert.equal(await total(), 3);
    const [mine] = await a.insert([row("and mine")]);
    assert.equal(await total(), 4);
    await a.delete(mine.id);
    assert.equal(await total(), 3);
  } finally {
    await a.close();
    await b.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("SQLite in-memory vectors load on the third search or a batch of 16, not before", async () => {
  const backend = openSqliteMemoryBackend(":memory:");
  try {
    await backend.useEmbeddingModel("m", 2);
    const [a] = await backend.insert([embedded("a", f32(1, 0))]);
    for (let i = 0; i < 2; i++) {
      assert.equal((await backend.vectorCandidates(f32(1, 0), 5, {}))[0].id, a.id);
      assert.equal(backend.vectorIndex, undefined, "one-shot callers search vec0");
    }
    assert.equal((await backend.nearestMany!([f32(1, 0)], [{}], 0.8))[0]?.id, a.id);
    assert.ok(backend.vectorIndex, "the third search loads");
  } finally {
    await backend.close();
  }
  const batch = openSqliteMemoryBackend(":memory:");
  try {
    await batch.useEmbeddingModel("m", 2);
    const [a] = await batch.insert([embedded("a", f32(1, 0))]);
    const found = await batch.nearestMany!(Array(16).fill(f32(1, 0.01)), Array(16).fill({}), 0.95);
    assert.ok(batch.vectorIndex, "a batch of 16 loads at once");
    assert.ok(found.every((c) => c?.id === a.id));
  } finally {
    await batch.close();
  }
});

Deno.test("SQLite vector reader: an unknown chunk layout is read by point lookups, a slice at a time", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  const backend = openSqliteMemoryBackend(path, { vectorIndex: false });
  try {
    await backend.useEmbeddingModel("m", 3);
    const rows = await backend.insert(
      Array.from({ length: 700 }, (_, i) => embedded(`r ${i}`, f32(i + 1, 1, -i))),
    );
    for (const row of rows.slice(100, 150)) await backend.delete(row.id);
    const ids = (after: number, limit: number) =>
      (backend.db.prepare("SELECT id FROM memories WHERE id > ? ORDER BY id LIMIT ?")
        .all(after, limit) as { id: number }[]).map((r) => Number(r.id));
    const read = (reader: ReturnType<typeof openVectorReader>) => {
      const out = new Map<number, number[]>();
      let slices = 0;
      while (reader.read(64, (id, v) => out.set(id, [...v]))) slices++;
      return { out, slices };
    };
    const chunks = openVectorReader(backend.db, "memory_vectors", 3, ids);
    assert.equal(chunks.mode, "chunks");
    const straight = read(chunks);
    assert.equal(straight.out.size, 650);
    assert.ok(straight.slices >= 10, "read 64 at a time");
    // A layout this reader does not know (sqlite-vec guards its tables: edit
    // them from a connection without the extension).
    const plainDb = new DatabaseSync(path);
    plainDb.exec("UPDATE memory_vectors_info SET value = 'v9.9.9' WHERE key = 'CREATE_VERSION'");
    plainDb.close();
    const lookups = openVectorReader(backend.db, "memory_vectors", 3, ids);
    assert.equal(lookups.mode, "rows");
    const plain = read(lookups);
    assert.ok(plain.slices >= 10, "read 64 at a time");
    assert.deepEqual(plain.out, straight.out);
    assert.deepEqual(plain.out.get(rows[5].id), [6, 1, -5]);
  } finally {
    await backend.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "SQLite memory store: created 0600 in a 0700 folder; looser modes are tightened on open",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const root = await Deno.makeTempDir();
    try {
      const dir = `${root}/gleaner`;
      const path = `${dir}/memory.db`;
      let backend = openSqliteMemoryBackend(path);
      await backend.close();
      assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
      assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);

      Deno.chmodSync(dir, 0o755);
      Deno.chmodSync(path, 0o640);
      backend = openSqliteMemoryBackend(path);
      assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
      assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
      await backend.close();
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
