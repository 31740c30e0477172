/**
 * Group commit of saves: the inserts of saves running at once on one memory
 * service go to the store together, as one `insertDistinct` call (one
 * transaction, one multi-row write), instead of one transaction each; their
 * similarity checks likewise go as one `nearestMany` call (both through
 * `lib/async/batched.ts`). A save
 * is acknowledged only once the transaction holding its rows committed; a
 * save arriving while a group commits waits for the next group, so the size
 * of a group follows the load (one save alone commits at once, after one turn
 * of the event loop).
 *
 * When a group's transaction fails, each save of it is retried on its own, so
 * a save fails only for its own rows. The store's duplicate decision holds
 * across the group: rows of one transaction see the rows inserted before
 * them (`insertDistinct`), so two saves of the same text at once store it once.
 *
 * @example
 * ```ts
 * import { GroupCommit } from "./group_commit.ts";
 * import { openSqliteMemoryBackend } from "./sqlite/backend.ts";
 * const backend = openSqliteMemoryBackend(":memory:");
 * const writes = new GroupCommit(backend);
 * const row = (content: string) => ({
 *   content, kind: "episodic" as const, session_id: null, tokens: 1, created_at: Date.now(),
 * });
 * const [a, b] = await Promise.all([writes.insert([row("one")]), writes.insert([row("two")])]);
 * console.assert(a[0].memory.id !== b[0].memory.id && writes.groups === 1);
 * await backend.close();
 * ```
 *
 * @module
 */
import { Batched } from "../async/batched.ts";
import type {
  InsertedMemory,
  MemoryBackend,
  MemoryCandidate,
  MemoryScope,
  NewMemoryRow,
} from "./types.ts";

/** Most rows one group commits (a larger backlog commits in several groups, in order). */
export const GROUP_COMMIT_MAX_ROWS = 1_000;

/** Inserts through `backend`, each row told whether it was new or repeated a live memory. */
export function insertRows(
  backend: MemoryBackend,
  rows: NewMemoryRow[],
): Promise<InsertedMemory[]> {
  return backend.insertDistinct
    ? backend.insertDistinct(rows)
    : backend.insert(rows).then((out) => out.map((memory) => ({ memory, duplicate: false })));
}

/** One vector of a similarity check, and the scope it is looked for in. */
export interface SimilarityProbe {
  /** The vector. */
  vector: Float32Array;
  /** Where to look. */
  scope: MemoryScope;
}

/**
 * The nearest stored memory of each probe when its cosine is at least
 * `floor` (`nearestMany` when the backend has it: one pass for all).
 */
export async function nearestRows(
  backend: MemoryBackend,
  probes: SimilarityProbe[],
  floor: number,
): Promise<(MemoryCandidate | undefined)[]> {
  if (backend.nearestMany) {
    return await backend.nearestMany(
      probes.map((p) => p.vector),
      probes.map((p) => p.scope),
      floor,
    );
  }
  const out: (MemoryCandidate | undefined)[] = [];
  for (const probe of probes) {
    const [top] = await backend.vectorCandidates(probe.vector, 1, probe.scope);
    out.push(top && top.score >= floor ? top : undefined);
  }
  return out;
}

/** The saves of one memory service, committed in groups (see the module documentation). */
export class GroupCommit extends Batched<NewMemoryRow, InsertedMemory> {
  /** Groups the inserts into `backend`, at most `maxRows` rows a group. */
  constructor(backend: MemoryBackend, maxRows = GROUP_COMMIT_MAX_ROWS) {
    super((rows) => insertRows(backend, rows), maxRows);
  }

  /**
   * Inserts `rows` with the saves waiting now, in one transaction; settles
   * once that transaction committed (or, when it failed, once these rows
   * were tried on their own).
   */
  insert(rows: NewMemoryRow[]): Promise<InsertedMemory[]> {
    return this.run(rows);
  }
}
