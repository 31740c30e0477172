/**
 * Reading every vector of the memory store's `vec0` table at once, to fill
 * the in-process index (`vector_index.ts`). Selecting from the virtual table
 * costs a point lookup per row (over a second at 100,000 rows), so vectors
 * made by sqlite-vec 0.1.x are read straight from its chunk tables (one blob
 * of 1,024 vectors per row, a validity bitmap and the rowids of each chunk);
 * any other layout, or a chunk that does not look as expected, falls back
 * to the plain `SELECT`.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/** Every stored vector with its memory id (`vectors` holds `ids.length × dimensions` floats). */
export interface StoredVectors {
  /** Memory ids. */
  ids: number[];
  /** The vectors, one after the other. */
  vectors: Float32Array;
}

interface Chunk {
  chunk_id: number | bigint;
  size: number | bigint;
  validity: Uint8Array;
  rowids: Uint8Array;
}

/**
 * Every vector of the `vec0` table `table` (column `embedding`, primary key
 * `memory_id`) of `dimensions` floats. Read inside the caller's snapshot
 * (call it in a transaction for a consistent read).
 *
 * @example
 * ```ts ignore
 * const { ids, vectors } = readStoredVectors(db, "memory_vectors", 100);
 * ```
 */
export function readStoredVectors(
  db: DatabaseSync,
  table: string,
  dimensions: number,
): StoredVectors {
  const ids: number[] = [];
  const parts: Float32Array[] = [];
  forEachStoredVector(db, table, dimensions, (id, vector) => {
    ids.push(id);
    parts.push(vector.slice());
  });
  const vectors = new Float32Array(ids.length * dimensions);
  parts.forEach((v, i) => vectors.set(v, i * dimensions));
  return { ids, vectors };
}

/**
 * Calls `fn` with every vector of the `vec0` table `table` and its memory
 * id, without building an array of them all; `vector` is a view valid only
 * during the call. Read inside the caller's snapshot.
 *
 * @example
 * ```ts ignore
 * forEachStoredVector(db, "memory_vectors", 100, (id, v) => index.upsert(id, "episodic", null, v));
 * ```
 */
export function forEachStoredVector(
  db: DatabaseSync,
  table: string,
  dimensions: number,
  fn: (id: number, vector: Float32Array) => void,
): void {
  const chunks = readChunks(db, table, dimensions);
  if (!chunks) {
    const { ids, vectors } = readRows(db, table, dimensions);
    ids.forEach((id, i) => fn(id, vectors.subarray(i * dimensions, (i + 1) * dimensions)));
    return;
  }
  for (const { ids, slots, data } of chunks()) {
    for (let i = 0; i < ids.length; i++) {
      fn(ids[i], data.subarray(slots[i] * dimensions, (slots[i] + 1) * dimensions));
    }
  }
}

/** The plain way: one row per vector through the virtual table. */
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

interface ChunkVectors {
  ids: number[];
  slots: number[];
  data: Float32Array;
}

/**
 * Straight from sqlite-vec 0.1.x chunk tables: checks the layout (version,
 * blob sizes, the count of rowids) and returns a reader of the chunks, or
 * `undefined` when the layout is not the known one.
 */
function readChunks(
  db: DatabaseSync,
  table: string,
  dimensions: number,
): (() => Iterable<ChunkVectors>) | undefined {
  try {
    const version = db.prepare(`SELECT value FROM "${table}_info" WHERE key = 'CREATE_VERSION'`)
      .get() as { value: string } | undefined;
    if (!version || !/^v0\.1\.\d+$/.test(String(version.value))) return undefined;
    const chunks = db.prepare(
      `SELECT chunk_id, size, validity, rowids FROM "${table}_chunks" ORDER BY chunk_id`,
    ).all() as unknown as Chunk[];
    const expected = (db.prepare(`SELECT count(*) AS n FROM "${table}_rowids"`).get() as {
      n: number;
    }).n;
    const layout: { chunk: number | bigint; size: number; ids: number[]; slots: number[] }[] = [];
    let total = 0;
    for (const chunk of chunks) {
      const size = Number(chunk.size);
      if (chunk.validity.length * 8 < size || chunk.rowids.length < size * 8) return undefined;
      const rowids = new DataView(
        chunk.rowids.buffer,
        chunk.rowids.byteOffset,
        chunk.rowids.byteLength,
      );
      const ids: number[] = [];
      const slots: number[] = [];
      for (let i = 0; i < size; i++) {
        if (!(chunk.validity[i >> 3] & (1 << (i & 7)))) continue;
        ids.push(Number(rowids.getBigInt64(i * 8, true)));
        slots.push(i);
      }
      total += ids.length;
      layout.push({ chunk: chunk.chunk_id, size, ids, slots });
    }
    if (total !== Number(expected)) return undefined;
    const blob = db.prepare(`SELECT vectors FROM "${table}_vector_chunks00" WHERE rowid = ?`);
    // Sizes are checked before anything is handed out, so a mismatch cannot leave half a read.
    const blobs = layout.map(({ chunk, size }) => {
      const row = blob.get(chunk) as { vectors: Uint8Array } | undefined;
      if (!row || row.vectors.length !== size * dimensions * 4) throw new Error("layout");
      const v = row.vectors;
      return v.byteOffset % 4 === 0
        ? new Float32Array(v.buffer, v.byteOffset, v.length / 4)
        : new Float32Array(v.slice().buffer);
    });
    return () => layout.map(({ ids, slots }, i) => ({ ids, slots, data: blobs[i] }));
  } catch {
    return undefined;
  }
}
