import { openSqliteMemoryBackend } from "./sqlite.ts";
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
