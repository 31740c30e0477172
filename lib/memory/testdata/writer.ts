/**
 * Test helper (not part of the library): saves memories into a memory file
 * through the {@link MemoryService}, without an embedder. Prints `ready` once
 * the file is open and waits for a line on stdin, so tests can release two
 * writers together or kill one mid-batch. Usage:
 * `deno run -A writer.ts <path> <label> <batches> <batch size> [same]`; with
 * `same`, every writer saves the same texts (no label) in session `shared`,
 * and prints how many it saved after `done`.
 *
 * @module
 */
import { MemoryService } from "../service.ts";
import { openSqliteMemoryBackend } from "../sqlite/backend.ts";

if (import.meta.main) {
  const [path, label, batches, size, mode] = Deno.args;
  const same = mode === "same";
  let saved = 0;
  const service = new MemoryService(openSqliteMemoryBackend(path));
  await service.ready();
  await Deno.stdout.write(new TextEncoder().encode("ready\n"));
  const reader = Deno.stdin.readable.getReader();
  await reader.read();
  reader.releaseLock();
  for (let b = 0; b < Number(batches); b++) {
    const out = await service.save({
      memories: Array.from({ length: Number(size) }, (_, i) => ({
        content: `${same ? "" : `${label} `}batch ${b} item ${i}: a memory written by one of ` +
          "several processes to check that concurrent writers keep the store whole.",
        session_id: same ? "shared" : label,
      })),
    });
    saved += out.saved;
    // Let the other writer's transactions interleave with ours.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await service.close();
  await Deno.stdout.write(new TextEncoder().encode(same ? `done ${saved}\n` : "done\n"));
}
