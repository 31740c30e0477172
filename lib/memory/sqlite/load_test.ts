/**
 * The in-memory vector index loads in the background, in slices between
 * turns of the event loop: timers keep firing, writes made meanwhile (here
 * or in another process) are all in the index once it is ready, and closing
 * or switching model during a load ends it cleanly.
 */
import assert from "node:assert/strict";
import { openSqliteMemoryBackend, type SqliteMemoryBackend } from "./backend.ts";
import { rng } from "../testdata/rng.ts";
import { otherProcess } from "../testdata/vector_writer.ts";

const DIMS = 4;
/**
 * Enough vectors that a load takes many slices (ten times the size loaded at once, about
 * 0.1 s in 6 ms slices here; filling the store is most of this file's time, 0.15 ms a row).
 */
const SIZE = 10_000;

/** Distinct vectors, the same ones on every run (`random = rng(11)` starts them over). */
let random = rng(11);
const vector = () => Float32Array.from({ length: DIMS }, () => random() - 0.5);
const row = (content: string, v: Float32Array, i = 0) => ({
  content,
  kind: i % 7 ? "episodic" as const : "profile" as const,
  session_id: ["a", null][i % 2],
  tokens: 3,
  created_at: Date.now(),
  embedding: { model: "m", vector: v },
});

/** A store of `SIZE` vectors under model "m"; returns their ids. */
async function fill(backend: SqliteMemoryBackend): Promise<number[]> {
  await backend.useEmbeddingModel("m", DIMS);
  const ids: number[] = [];
  for (let i = 0; i < SIZE; i += 10_000) {
    const rows = await backend.insert(
      Array.from({ length: 10_000 }, (_, j) => row(`row ${i + j}`, vector(), i + j)),
    );
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/**
 * One store of `SIZE` vectors from `rng(11)`, filled once for this file (filling is
 * most of its time) and copied for each use; removed when the file's tests end.
 */
let template: Promise<{ path: string; ids: number[] }> | undefined;

/**
 * A copy of the filled store at `path` (as `fill` would have made it there, same
 * ids and vectors, `random` where `fill` leaves it); returns the ids.
 */
async function filled(path: string): Promise<number[]> {
  template ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "gleaner-load-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    const path = `${dir}/template.db`;
    const backend = openSqliteMemoryBackend(path, { vectorIndexAfter: 0 });
    try {
      // Only this template skips the WAL (about twice as fast to fill); every open of a copy
      // puts the file back in WAL mode.
      backend.db.exec("PRAGMA journal_mode = MEMORY");
      backend.db.exec("PRAGMA cache_size = -131072");
      random = rng(11);
      return { path, ids: await fill(backend) };
    } finally {
      await backend.close();
    }
  })();
  const { path: from, ids } = await template;
  await Deno.copyFile(from, path);
  random = rng(11);
  for (let i = 0; i < SIZE * DIMS; i++) random();
  return ids;
}

/** A filled store at `path` (see `filled`), its index load started with a search; returns the ids. */
async function fillAndStartLoad(
  path: string,
): Promise<{ backend: SqliteMemoryBackend; ids: number[] }> {
  const ids = await filled(path);
  const backend = openSqliteMemoryBackend(path, { vectorIndexAfter: 0 });
  await backend.vectorCandidates(vector(), 1, {});
  assert.ok(backend.vectorIndexLoading, "loading");
  return { backend, ids };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("SQLite index load: timers on the event loop keep firing while 10,000 vectors load", async () => {
  const root = await Deno.makeTempDir();
  await filled(`${root}/memory.db`);
  const backend = openSqliteMemoryBackend(`${root}/memory.db`, { vectorIndexAfter: 0 });
  const exact = openSqliteMemoryBackend(`${root}/memory.db`, { vectorIndex: false });
  try {
    const ticks: number[] = [];
    const interval = setInterval(() => ticks.push(performance.now()), 1);
    let loaded;
    let began = 0;
    let ended = 0;
    try {
      began = performance.now();
      const first = await backend.vectorCandidates(vector(), 5, {});
      assert.equal(first.length, 5, "answered from vec0 meanwhile");
      assert.ok(backend.vectorIndexLoading, "a store this size loads in the background");
      assert.equal(backend.vectorIndex, undefined);
      loaded = await backend.vectorIndexLoaded();
      ended = performance.now();
    } finally {
      clearInterval(interval);
    }
    assert.ok(loaded, "the index is ready");
    assert.equal(loaded.size, SIZE);
    const during = ticks.filter((t) => t > began && t < ended);
    assert.ok(during.length >= 5, `the timer fired ${during.length} times during the load`);
    // With the index in use, searches answer as vec0 does.
    for (let i = 0; i < 10; i++) {
      const q = vector();
      const scope = [{}, { kind: "profile" as const }, { session_id: "a" }][i % 3];
      const a = await backend.vectorCandidates(q, 10, scope);
      assert.equal(backend.vectorIndex, loaded, "searched in memory");
      const b = await exact.vectorCandidates(q, 10, scope);
      assert.deepEqual(a.map((c) => c.id), b.map((c) => c.id));
    }
  } finally {
    await backend.close();
    await exact.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("SQLite index load: writes made during the load, here and in another process, are all in the index", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  const { backend, ids } = await fillAndStartLoad(path);
  const exact = openSqliteMemoryBackend(path, { vectorIndex: false });
  try {
    await exact.embeddingModel(); // reads the model declared by the other connection

    // This process, between slices: early rows (already read) and late ones
    // (not read yet) deleted and moved, new rows added.
    const gone = [ids[1], ids[2], ids[SIZE - 2]];
    for (const id of gone) await backend.delete(id);
    await tick();
    const moved = [ids[3], ids[SIZE - 3]];
    for (const id of moved) {
      await backend.update(id, {
        content: "moved",
        tokens: 1,
        updated_at: Date.now(),
        embedding: { model: "m", vector: vector() },
      });
      await tick();
    }
    const added = await backend.insert([row("new here", vector()), row("new here too", vector())]);
    assert.ok(backend.vectorIndexLoading, "still loading after this process's writes");

    // Another process: the load waits while this connection is in someone
    // else's transaction (no snapshot taken), so the writes land mid-load.
    backend.db.exec("BEGIN");
    let theirs: number[];
    try {
      theirs = await otherProcess(path, [
        { insert: [["theirs", [0.1, 0.2, 0.3, 0.4]]] },
        { delete: ids[4] },
        { delete: ids[SIZE - 4] },
        { update: [ids[5], "theirs moved", [0.4, 0.3, 0.2, 0.1]] },
        { update: [ids[SIZE - 5], "theirs moved too", [-0.4, 0.3, 0.2, 0.1]] },
      ]);
    } finally {
      backend.db.exec("COMMIT");
    }
    assert.ok(backend.vectorIndexLoading, "still loading after the other process's writes");

    const index = await backend.vectorIndexLoaded();
    assert.ok(index, "loaded");
    const stored = Number(
      (backend.db.prepare("SELECT count(*) AS n FROM memory_vectors").get() as { n: number }).n,
    );
    assert.equal(stored, SIZE - 5 + 3);
    assert.equal(index.size, stored, "as many vectors in memory as in vec0");
    for (const id of [...gone, ids[4], ids[SIZE - 4]]) assert.ok(!index.has(id), `${id} deleted`);
    for (const id of [...added.map((m) => m.id), ...theirs]) {
      assert.ok(index.has(id), `${id} added`);
    }
    // Every query answers as vec0: the moved rows are searched at their new vectors.
    const queries = [
      ...Array.from({ length: 20 }, vector),
      Float32Array.of(0.4, 0.3, 0.2, 0.1),
      Float32Array.of(-0.4, 0.3, 0.2, 0.1),
      Float32Array.of(0.1, 0.2, 0.3, 0.4),
    ];
    for (const q of queries) {
      const a = await backend.vectorCandidates(q, 10, {});
      assert.equal(backend.vectorIndex, index, "searched in memory");
      const b = await exact.vectorCandidates(q, 10, {});
      assert.deepEqual(a.map((c) => c.id), b.map((c) => c.id));
    }
    const top = async (v: number[]) =>
      (await backend.vectorCandidates(Float32Array.from(v), 1, {}))[0].id;
    assert.equal(await top([0.4, 0.3, 0.2, 0.1]), ids[5]);
    assert.equal(await top([-0.4, 0.3, 0.2, 0.1]), ids[SIZE - 5]);
  } finally {
    await backend.close();
    await exact.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("SQLite index load: a model switch or close() during the load ends it cleanly", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  const { backend } = await fillAndStartLoad(path);
  try {
    // Switched here: the load stops, and the next search loads the new model's vectors.
    await backend.useEmbeddingModel("m2", 3);
    assert.ok(!backend.vectorIndexLoading, "stopped at once");
    assert.equal(await backend.vectorIndexLoaded(), undefined);
    await backend.insert([{ ...row("after", Float32Array.of(1, 0, 0)), embedding: undefined }]);
    await backend.setEmbeddings("m2", [{
      id: (await backend.pendingEmbeddings(1))[0].id,
      vector: Float32Array.of(1, 0, 0),
    }]);
    const [hit] = await backend.vectorCandidates(Float32Array.of(1, 0, 0), 5, {});
    assert.equal((await backend.vectorIndexLoaded())?.size, 1);
    assert.ok(hit);
  } finally {
    await backend.close();
  }

  // Switched by another process mid-load: the load starts over on the new model.
  const { backend: other } = await fillAndStartLoad(`${root}/other.db`);
  try {
    other.db.exec("BEGIN");
    try {
      await otherProcess(`${root}/other.db`, [{ model: ["m3", 2] }]);
    } finally {
      other.db.exec("COMMIT");
    }
    const index = await other.vectorIndexLoaded();
    assert.equal(index?.dimensions, 2);
    assert.equal(index?.size, 0);
  } finally {
    await other.close();
  }

  // Closed mid-load: the load ends, nothing runs on the closed connection.
  const { backend: closing } = await fillAndStartLoad(`${root}/closing.db`);
  const waiting = closing.vectorIndexLoaded();
  await closing.close();
  assert.equal(await waiting, undefined);
  assert.ok(!closing.vectorIndexLoading);
  for (let i = 0; i < 5; i++) await tick();
  await Deno.remove(root, { recursive: true });
});

Deno.test("SQLite index load: thousands of changes from another process are applied in the background too", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  const backend = openSqliteMemoryBackend(path, { vectorIndexAfter: 0 });
  try {
    await backend.useEmbeddingModel("m", DIMS);
    const [x] = await backend.insert([row("x", Float32Array.of(1, 0, 0, 0))]);
    await backend.vectorCandidates(Float32Array.of(1, 0, 0, 0), 1, {});
    const index = await backend.vectorIndexLoaded();
    assert.equal(index?.size, 1);
    const theirs = await otherProcess(path, [{ bulk: 5_000 }, { delete: x.id }]);
    const first = await backend.vectorCandidates(Float32Array.of(0, 0, 0, 1), 3, {});
    assert.ok(backend.vectorIndexLoading, "caught up in the background");
    assert.equal(backend.vectorIndex, undefined, "vec0 meanwhile");
    assert.equal(first.length, 3);
    assert.equal(await backend.vectorIndexLoaded(), index, "the same index, brought up to date");
    assert.equal(index?.size, theirs.length);
    assert.ok(!index?.has(x.id));
    const all = await backend.vectorCandidates(Float32Array.of(0, 0, 0, 1), 6_000, {});
    assert.equal(backend.vectorIndex, index);
    assert.deepEqual(new Set(all.map((c) => c.id)), new Set(theirs));
  } finally {
    await backend.close();
    await Deno.remove(root, { recursive: true });
  }
});
