/**
 * Reading the vectors of the memory store's `vec0` table, to fill the
 * in-process index (`vector_index.ts`), a slice at a time. Selecting from
 * the virtual table costs a point lookup per row (over a second at 100,000
 * rows), so vectors made by sqlite-vec 0.1.x are read straight from its
 * chunk tables (one blob of 1,024 vectors per row, a validity bitmap and the
 * rowids of each chunk); any other layout, or a chunk that does not look as
 * expected, falls back to point lookups through the virtual table.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** Every stored vector with its memory id (`vectors` holds `ids.length × dimensions` floats). */
export interface StoredVectors {
  /** Memory ids. */
  ids: number[];
  /** The vectors, one after the other. */
  vectors: Float32Array;
}

/**
 * Reads the vectors of a `vec0` table a slice at a time, resuming where the
 * last slice ended (by chunk, or by memory id). Each {@link VectorReader.read}
 * reads inside the caller's snapshot; nothing is held open between calls, so
 * a vector written between two calls may be read in its old or its new place,
 * twice, or not at all: the caller applies the changes logged since it began.
 */
export interface VectorReader {
  /** `chunks` (sqlite-vec 0.1.x chunk tables) or `rows` (point lookups). */
  readonly mode: "chunks" | "rows";
  /**
   * Calls `fn` with up to `rows` more vectors and their memory ids (`vector`
   * is a view of what was read: never write to it); false once every vector
   * was read.
   */
  read(rows: number, fn: (id: number, vector: Float32Array) => void): boolean;
}

/**
 * Where the `rows` reader takes the ids to look up: up to `limit` ids above
 * `after`, in ascending order.
 */
export type IdsAfter = (after: number, limit: number) => number[];

interface Chunk {
  chunk_id: number | bigint;
  size: number | bigint;
  validity: Uint8Array;
  rowids: Uint8Array;
}

interface ChunkVectors {
  chunk: number;
  ids: number[];
  slots: number[];
  data: Float32Array;
}

/**
 * A {@link VectorReader} of the `vec0` table `table` (column `embedding`,
 * primary key `memory_id`) of `dimensions` floats. Reads the chunk tables
 * when their layout is the known one (checked here, in the caller's
 * snapshot); otherwise looks every id given by `idsAfter` up.
 *
 * @example
 * ```ts ignore
 * const reader = openVectorReader(db, "memory_vectors", 100, idsAfter);
 * while (reader.read(1024, (id, v) => index.upsert(id, "episodic", null, v)));
 * ```
 */
export function openVectorReader(
  db: DatabaseSync,
  table: string,
  dimensions: number,
  idsAfter: IdsAfter,
): VectorReader {
  if (chunkLayoutKnown(db, table)) return new ChunkReader(db, table, dimensions);
  return new RowReader(db, table, dimensions, idsAfter);
}

/**
 * Every vector of the `vec0` table `table` of `dimensions` floats, in one
 * read: from the chunk tables when their layout is the known one, otherwise
 * by {@link readRows} (call it in a transaction for a consistent read).
 *
 * @example
 * ```ts ignore
 * const { ids, vectors } = readStoredVectors(db, "memory_vectors", 100);
 * ```
 *
 * @internal exported for tests only
 */
export function readStoredVectors(
  db: DatabaseSync,
  table: string,
  dimensions: number,
): StoredVectors {
  if (!chunkLayoutKnown(db, table)) return readRows(db, table, dimensions);
  const ids: number[] = [];
  const parts: Float32Array[] = [];
  const reader = new ChunkReader(db, table, dimensions);
  while (
    reader.read(4096, (id, vector) => {
      ids.push(id);
      parts.push(vector.slice());
    })
  );
  const vectors = new Float32Array(ids.length * dimensions);
  parts.forEach((v, i) => vectors.set(v, i * dimensions));
  return { ids, vectors };
}

/**
 * The plain way: one row per vector through the virtual table.
 *
 * @internal exported for tests only
 */
export function readRows(db: DatabaseSync, table: string, dimensions: number): StoredVectors {
  const rows = db.prepare(`SELECT memory_id AS id, embedding FROM ${table}`).all() as {
    id: number | bigint;
    embedding: Uint8Array;
  }[];
  const vectors = new Float32Array(rows.length * dimensions);
  const ids = rows.map((row, i) => {
    vectors.set(floats(row.embedding, dimensions), i * dimensions);
    return Number(row.id);
  });
  return { ids, vectors };
}

function floats(blob: Uint8Array, count: number): Float32Array {
  const copy = new Uint8Array(count * 4);
  copy.set(blob.subarray(0, count * 4));
  return new Float32Array(copy.buffer);
}

/**
 * True when the table was made by sqlite-vec 0.1.x and its chunks hold, in
 * all, as many valid slots as the table has rows.
 */
function chunkLayoutKnown(db: DatabaseSync, table: string): boolean {
  try {
    const version = db.prepare(`SELECT value FROM "${table}_info" WHERE key = 'CREATE_VERSION'`)
      .get() as { value: string } | undefined;
    if (!version || !/^v0\.1\.\d+$/.test(String(version.value))) return false;
    const chunks = db.prepare(
      `SELECT size, validity, length(rowids) AS rowids FROM "${table}_chunks"`,
    ).all() as { size: number | bigint; validity: Uint8Array; rowids: number | bigint }[];
    const expected = (db.prepare(`SELECT count(*) AS n FROM "${table}_rowids"`).get() as {
      n: number;
    }).n;
    let total = 0;
    for (const chunk of chunks) {
      const size = Number(chunk.size);
      if (chunk.validity.length * 8 < size || Number(chunk.rowids) < size * 8) return false;
      for (let i = 0; i < size; i++) {
        if (chunk.validity[i >> 3] & (1 << (i & 7))) total++;
      }
    }
    return total === Number(expected);
  } catch {
    return false;
  }
}

/** Straight from sqlite-vec 0.1.x chunk tables, a chunk (or part of one) at a time. */
class ChunkReader implements VectorReader {
  readonly mode = "chunks";
  #dimensions: number;
  #next: StatementSync;
  #blob: StatementSync;
  /** The chunk being handed out, and how much of it was. */
  #current: ChunkVectors | undefined;
  #at = 0;
  #after = Number.MIN_SAFE_INTEGER;

  constructor(db: DatabaseSync, table: string, dimensions: number) {
    this.#dimensions = dimensions;
    this.#next = db.prepare(
      `SELECT chunk_id, size, validity, rowids FROM "${table}_chunks" WHERE chunk_id > ? ` +
        `ORDER BY chunk_id LIMIT 1`,
    );
    this.#blob = db.prepare(`SELECT vectors FROM "${table}_vector_chunks00" WHERE rowid = ?`);
  }

  read(rows: number, fn: (id: number, vector: Float32Array) => void): boolean {
    const d = this.#dimensions;
    let left = rows;
    while (left > 0) {
      const chunk = this.#current ?? this.#load();
      if (!chunk) return false;
      const end = Math.min(chunk.ids.length, this.#at + left);
      for (let i = this.#at; i < end; i++) {
        const slot = chunk.slots[i];
        fn(chunk.ids[i], chunk.data.subarray(slot * d, (slot + 1) * d));
      }
      left -= end - this.#at;
      this.#at = end;
      if (end === chunk.ids.length) {
        this.#after = chunk.chunk;
        this.#current = undefined;
        this.#at = 0;
      }
    }
    return true;
  }

  /** The next chunk, its sizes checked (a mismatch throws: the layout is not the known one). */
  #load(): ChunkVectors | undefined {
    const chunk = this.#next.get(this.#after) as Chunk | undefined;
    if (!chunk) return undefined;
    const size = Number(chunk.size);
    if (chunk.validity.length * 8 < size || chunk.rowids.length < size * 8) {
      throw new Error("vec0 chunk layout");
    }
    const rowids = new DataView(chunk.rowids.buffer, chunk.rowids.byteOffset, chunk.rowids.length);
    const ids: number[] = [];
    const slots: number[] = [];
    for (let i = 0; i < size; i++) {
      if (!(chunk.validity[i >> 3] & (1 << (i & 7)))) continue;
      ids.push(Number(rowids.getBigInt64(i * 8, true)));
      slots.push(i);
    }
    const row = this.#blob.get(chunk.chunk_id) as { vectors: Uint8Array } | undefined;
    if (!row || row.vectors.length !== size * this.#dimensions * 4) {
      throw new Error("vec0 chunk layout");
    }
    const v = row.vectors;
    const data = v.byteOffset % 4 === 0
      ? new Float32Array(v.buffer, v.byteOffset, v.length / 4)
      : new Float32Array(v.slice().buffer);
    this.#current = { chunk: Number(chunk.chunk_id), ids, slots, data };
    this.#at = 0;
    return this.#current;
  }
}

/** Point lookups through the virtual table, by ascending memory id. */
class RowReader implements VectorReader {
  readonly mode = "rows";
  #dimensions: number;
  #get: StatementSync;
  #idsAfter: IdsAfter;
  #after = Number.MIN_SAFE_INTEGER;
  #done = false;

  constructor(db: DatabaseSync, table: string, dimensions: number, idsAfter: IdsAfter) {
    this.#dimensions = dimensions;
    this.#idsAfter = idsAfter;
    this.#get = db.prepare(`SELECT embedding FROM ${table} WHERE memory_id = ?`);
  }

  read(rows: number, fn: (id: number, vector: Float32Array) => void): boolean {
    if (this.#done) return false;
    const d = this.#dimensions;
    const ids = this.#idsAfter(this.#after, Math.max(1, Math.min(rows, 100_000)));
    if (ids.length === 0) {
      this.#done = true;
      return false;
    }
    for (const id of ids) {
      const row = this.#get.get(BigInt(id)) as { embedding: Uint8Array } | undefined;
      if (row) fn(id, floats(row.embedding, d));
    }
    this.#after = ids[ids.length - 1];
    return true;
  }
}
