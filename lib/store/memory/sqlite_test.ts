import assert from "node:assert/strict";
import { COMMON_WORD_ROWS, openSqliteMemoryBackend } from "./sqlite.ts";
import { runMemoryBackendContract } from "./contract.ts";

Deno.test("SQLite memory backend honours the contract (in memory)", async (t) => {
  await runMemoryBackendContract(t, () => Promise.resolve(openSqliteMemoryBackend(":memory:")));
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
