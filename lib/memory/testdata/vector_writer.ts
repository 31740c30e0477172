/**
 * Test helper (not part of the library): applies vector writes to a memory
 * file from another process, through the SQLite backend. Usage:
 * `deno run -A vector_writer.ts <path> <json steps>`, steps being
 * `{ "insert": [[content, [floats…]], …] }`, `{ "delete": id }`,
 * `{ "update": [id, content, [floats…]] }`, `{ "model": [name, dimensions] }` or
 * `{ "bulk": n }` (n rows of 4-d vectors near `[0, 0, 0, 1]`)
 * (inserts and updates use the store's current model). Prints the ids of
 * inserted rows as JSON.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openSqliteMemoryBackend } from "../sqlite/backend.ts";

/** Runs these vector writes on the file at `path` in another process; returns the ids it inserted. */
export async function otherProcess(path: string, steps: unknown[]): Promise<number[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--node-modules-dir=manual",
      "-A",
      new URL(import.meta.url).pathname,
      path,
      JSON.stringify(steps),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

if (import.meta.main) {
  const [path, script] = Deno.args;
  const backend = openSqliteMemoryBackend(path);
  const inserted: number[] = [];
  try {
    for (const step of JSON.parse(script)) {
      const model = (await backend.embeddingModel())?.model ?? "none";
      const embedding = (v: number[]) => ({ model, vector: new Float32Array(v) });
      if (step.insert) {
        const rows = await backend.insert(
          (step.insert as [string, number[]][]).map(([content, v]) => ({
            content,
            kind: "episodic" as const,
            session_id: null,
            tokens: 3,
            created_at: Date.now(),
            embedding: embedding(v),
          })),
        );
        inserted.push(...rows.map((r) => r.id));
      } else if (step.bulk) {
        const rows = await backend.insert(
          Array.from({ length: Number(step.bulk) }, (_, i) => ({
            content: `bulk ${i}`,
            kind: "episodic" as const,
            session_id: null,
            tokens: 3,
            created_at: Date.now(),
            embedding: embedding([0, 0, 0, 1 + i / 1e5]),
          })),
        );
        inserted.push(...rows.map((r) => r.id));
      } else if (step.delete !== undefined) {
        await backend.delete(step.delete);
      } else if (step.update) {
        const [id, content, v] = step.update as [number, string, number[]];
        await backend.update(id, {
          content,
          tokens: 3,
          updated_at: Date.now(),
          embedding: embedding(v),
        });
      } else if (step.model) {
        await backend.useEmbeddingModel(step.model[0], step.model[1]);
      }
    }
  } finally {
    await backend.close();
  }
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(inserted) + "\n"));
}
