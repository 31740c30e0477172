/**
 * Group commit of saves: the inserts of saves running at once on one memory
 * service go to the store together, as one `insertDistinct` call (one
 * transaction, one multi-row write), instead of one transaction each; their
 * similarity checks likewise go as one `nearestMany` call ({@link Batched}). A save
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
import { setImmediate } from "node:timers";
import type {
  InsertedMemory,
  MemoryBackend,
  MemoryCandidate,
  MemoryScope,
  NewMemoryRow,
} from "./types.ts";

/** Most rows one group commits (a larger backlog commits in several groups, in order). */
export const GROUP_COMMIT_MAX_ROWS = 1_000;

/** One caller waiting for its group. */
interface Waiting<I, O> {
  items: I[];
  resolve: (out: O[]) => void;
  reject: (error: unknown) => void;
}

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

/**
 * Calls of one batch operation made at once, run as one call: the items of
 * every caller waiting when a batch starts (up to a limit), each caller
 * answered with its own slice of the results once the batch settled; a
 * failed batch is retried caller by caller, so a caller fails only for its
 * own items. `batch` must answer one result per item, in order.
 */
export class Batched<I, O> {
  #batch: (items: I[]) => Promise<O[]>;
  #maxItems: number;
  #queue: Waiting<I, O>[] = [];
  #running = false;
  #groups = 0;

  /** Runs `batch` over the items of callers waiting at once, at most `maxItems` items a batch. */
  constructor(batch: (items: I[]) => Promise<O[]>, maxItems: number) {
    this.#batch = batch;
    this.#maxItems = Math.max(1, maxItems);
  }

  /** Batches run (or attempted) so far. */
  get groups(): number {
    return this.#groups;
  }

  /**
   * Runs `items` with the callers waiting now; settles once that batch
   * settled (or, when it failed, once these items were tried on their own).
   */
  run(items: I[]): Promise<O[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.#queue.push({ items, resolve, reject });
      if (!this.#running) {
        this.#running = true;
        // One turn of the event loop: the callers of the same turn join.
        setImmediate(() => void this.#drain());
      }
    });
  }

  /** Runs batches until no caller waits. */
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#commit(this.#take());
    } finally {
      this.#running = false;
    }
  }

  /** The next batch: waiting callers in order, up to the item limit (at least one caller). */
  #take(): Waiting<I, O>[] {
    const group: Waiting<I, O>[] = [];
    let items = 0;
    while (this.#queue.length > 0) {
      const next = this.#queue[0];
      if (group.length > 0 && items + next.items.length > this.#maxItems) break;
      group.push(this.#queue.shift()!);
      items += next.items.length;
    }
    return group;
  }

  /** One batch for `group`; on failure, each caller of it alone. */
  async #commit(group: Waiting<I, O>[]): Promise<void> {
    this.#groups++;
    let out: O[];
    try {
      out = await this.#batch(group.flatMap((w) => w.items));
    } catch (error) {
      if (group.length === 1) {
        group[0].reject(error);
        return;
      }
      for (const waiting of group) await this.#alone(waiting);
      return;
    }
    let at = 0;
    for (const waiting of group) {
      waiting.resolve(out.slice(at, at + waiting.items.length));
      at += waiting.items.length;
    }
  }

  async #alone(waiting: Waiting<I, O>): Promise<void> {
    try {
      waiting.resolve(await this.#batch(waiting.items));
    } catch (error) {
      waiting.reject(error);
    }
  }
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
