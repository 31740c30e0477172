import assert from "node:assert/strict";
import { MemoryService } from "./service.ts";
import { Batched } from "../async/batched.ts";
import { GroupCommit } from "./group_commit.ts";
import { openSqliteMemoryBackend } from "./sqlite/backend.ts";
import type { NewMemoryRow } from "./types.ts";

const SAVER = new URL("./testdata/concurrent_saver.ts", import.meta.url).pathname;

function row(content: string, session_id: string | null = null): NewMemoryRow {
  return { content, kind: "episodic", session_id, tokens: 4, created_at: Date.now() };
}

Deno.test("group commit: saves made at once share transactions, each acknowledged with its own rows", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const backend = openSqliteMemoryBackend(`${dir}/m.db`);
    const writes = new GroupCommit(backend);
    const out = await Promise.all(
      Array.from({ length: 20 }, (_, i) => writes.insert([row(`memory ${i}`), row(`extra ${i}`)])),
    );
    assert.ok(writes.groups < 20, `${writes.groups} groups for 20 saves`);
    out.forEach((inserted, i) => {
      assert.deepEqual(inserted.map((x) => x.memory.content), [`memory ${i}`, `extra ${i}`]);
      assert.ok(inserted.every((x) => !x.duplicate));
    });
    await backend.close();
    // Read back from a fresh connection: every acknowledged row committed.
    const fresh = openSqliteMemoryBackend(`${dir}/m.db`);
    const ids = out.flat().map((x) => x.memory.id);
    assert.equal((await fresh.getMany(ids)).length, 40);
    await fresh.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("group commit: the same text saved twice at once is stored once", async () => {
  const backend = openSqliteMemoryBackend(":memory:");
  const service = new MemoryService(backend);
  const [a, b] = await Promise.all([
    service.save({ memories: [{ content: "the deploy key lives in the vault" }] }),
    service.save({ memories: [{ content: "the deploy key lives in the vault  " }] }),
  ]);
  assert.equal(a.results[0].status, "saved");
  assert.equal(b.results[0].status, "duplicate");
  assert.equal(b.results[0].id, a.results[0].id);
  await service.close();
});

Deno.test("group commit: a save that fails fails alone; the others of its group are saved", async () => {
  const backend = openSqliteMemoryBackend(":memory:");
  await backend.useEmbeddingModel("demo", 2);
  const writes = new GroupCommit(backend);
  const bad: NewMemoryRow = {
    ...row("a vector of the wrong length"),
    embedding: { model: "demo", vector: new Float32Array([1, 0, 0]) },
  };
  const results = await Promise.allSettled([
    writes.insert([row("first good one")]),
    writes.insert([bad]),
    writes.insert([row("second good one")]),
  ]);
  assert.equal(results[0].status, "fulfilled");
  assert.equal(results[1].status, "rejected");
  assert.equal(results[2].status, "fulfilled");
  const counts = await backend.counts();
  assert.equal(counts.live, 2);
  await backend.close();
});

Deno.test("batched calls: every caller gets its own slice, in order, at most maxItems a batch", async () => {
  const sizes: number[] = [];
  const twice = new Batched<number, number>((xs) => {
    sizes.push(xs.length);
    return Promise.resolve(xs.map((x) => 2 * x));
  }, 5);
  const out = await Promise.all([[1, 2], [3, 4, 5], [6], [7, 8]].map((xs) => twice.run(xs)));
  assert.deepEqual(out, [[2, 4], [6, 8, 10], [12], [14, 16]]);
  assert.deepEqual(sizes, [5, 3]);
});

Deno.test("group commit: closing the service with saves in flight keeps every acknowledged save", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const service = new MemoryService(openSqliteMemoryBackend(`${dir}/m.db`));
    await service.ready();
    const saves = Array.from(
      { length: 30 },
      (_, i) => service.save({ memories: [{ content: `saved while closing ${i}` }] }),
    );
    const closing = service.close();
    const settled = await Promise.allSettled(saves);
    await closing;
    const acked = settled.flatMap((s) => s.status === "fulfilled" ? [s.value.results[0].id] : []);
    assert.ok(acked.length > 0);
    const fresh = openSqliteMemoryBackend(`${dir}/m.db`);
    assert.equal((await fresh.getMany(acked)).length, acked.length);
    await fresh.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("group commit: a process killed mid-group loses no acknowledged save", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/m.db`;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--node-modules-dir=manual", "-A", SAVER, path, "12"],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const acked: number[] = [];
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of child.stdout) {
      text += decoder.decode(chunk, { stream: true });
      const lines = text.split("\n");
      text = lines.pop()!;
      for (const line of lines) if (line.startsWith("ack ")) acked.push(Number(line.slice(4)));
      if (acked.length >= 200) {
        child.kill("SIGKILL");
        break;
      }
    }
    await child.status;
    const fresh = openSqliteMemoryBackend(path);
    assert.equal((await fresh.getMany(acked)).length, acked.length);
    await fresh.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
