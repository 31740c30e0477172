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
  return readChunks(db, table, dimensions) ?? readRows(db, table, dimensions);
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

/** Straight from sqlite-vec 0.1.x chunk tables; `undefined` when the layout is not the known one. */
function readChunks(
  db: DatabaseSync,
  table: string,
  dimensions: number,
): StoredVectors | undefined {
  try {
    const version = db.prepare(`SELECT value FROM "${table}_info" WHERE key = 'CREATE_VERSION'`)
      .get() as { value: string } | undefined;
    if (!version || !/^v0\.1\.\d+$/.test(String(version.value))) return undefined;
    const chunks = db.prepare(
      `SELECT chunk_id, size, validity, rowids FROM "${table}_chunks" ORDER BY chunk_id`,
    ).all() as unknown as Chunk[];
    const blob = db.prepare(`SELECT vectors FROM "${table}_vector_chunks00" WHERE rowid = ?`);
    const expected = (db.prepare(`SELECT count(*) AS n FROM "${table}_rowids"`).get() as {
      n: number;
    }).n;
    const ids: number[] = [];
    const parts: { data: Uint8Array; slots: number[] }[] = [];
    for (const chunk of chunks) {
      const size = Number(chunk.size);
      if (chunk.validity.length * 8 < size || chunk.rowids.length < size * 8) return undefined;
      const row = blob.get(chunk.chunk_id) as { vectors: Uint8Array } | undefined;
      if (!row || row.vectors.length !== size * dimensions * 4) return undefined;
      const rowids = new DataView(
        chunk.rowids.buffer,
        chunk.rowids.byteOffset,
        chunk.rowids.byteLength,
      );
      const slots: number[] = [];
      for (let i = 0; i < size; i++) {
        if (!(chunk.validity[i >> 3] & (1 << (i & 7)))) continue;
        ids.push(Number(rowids.getBigInt64(i * 8, true)));
        slots.push(i);
      }
      parts.push({ data: row.vectors, slots });
    }
    if (ids.length !== Number(expected)) return undefined;
    const vectors = new Float32Array(ids.length * dimensions);
    const bytes = new Uint8Array(vectors.buffer);
    let at = 0;
    const width = dimensions * 4;
    for (const { data, slots } of parts) {
      for (const slot of slots) {
        bytes.set(data.subarray(slot * width, slot * width + width), at);
        at += width;
      }
    }
    return { ids, vectors };
  } catch {
    return undefined;
  }
}
