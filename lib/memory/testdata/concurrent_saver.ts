/**
 * Test helper (not part of the library): `clients` clients saving one memory
 * at a time through one {@link MemoryService} (their inserts committed in
 * groups), without end; prints `ack <id>` for every acknowledged save, so a
 * test can kill the process mid-group and check that every acknowledged save
 * is in the file. Usage: `deno run -A concurrent_saver.ts <path> <clients>`.
 *
 * @module
 */
import { MemoryService } from "../service.ts";
import { openSqliteMemoryBackend } from "../sqlite/backend.ts";

if (import.meta.main) {
  const [path, clients] = Deno.args;
  const service = new MemoryService(openSqliteMemoryBackend(path));
  await service.ready();
  const out = Deno.stdout.writable.getWriter();
  const encoder = new TextEncoder();
  await Promise.all(Array.from({ length: Number(clients) }, async (_, c) => {
    for (let n = 0;; n++) {
      const saved = await service.save({
        memories: [{
          content: `client ${c} save ${n}: a memory of a save made at once with others`,
        }],
      });
      for (const r of saved.results) {
        if (r.status === "saved") await out.write(encoder.encode(`ack ${r.id}\n`));
      }
    }
  }));
}
