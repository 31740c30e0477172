/**
 * Nearest words in a static embedding table (cosine over its rows), and the
 * precomputed neighbour lists the build ships beside the model
 * (`neighbours.bin`), so that query expansion is a lookup instead of a scan
 * of every row.
 *
 * `neighbours.bin` layout (little-endian): the bytes `GLNB`, a u16 format
 * version (1), a u16 neighbours per row `k`, a f32 least similarity, a u32
 * row count, then for each row `k` u16 row ids, best first (`0xFFFF` = none).
 * Similarities are not stored: the table gives them again when needed.
 *
 * @module
 */
import type { StaticTable } from "../embed/static_fast.ts";

/** Neighbour lists of every row, best first. */
export interface NeighbourTable {
  /** Neighbours kept per row. */
  k: number;
  /** Least similarity kept. */
  minSimilarity: number;
  /** Number of rows. */
  rows: number;
  /** `rows · k` row ids; `NO_NEIGHBOUR` where a row has fewer than `k`. */
  ids: Uint16Array;
}

/** Id that marks an empty neighbour slot. */
export const NO_NEIGHBOUR = 0xffff;

const MAGIC = "GLNB";
const HEADER_BYTES = 16;

/**
 * Unit-length rows of a table plus which rows may be neighbours. The rows are
 * normalised on first use, so a caller that only reads precomputed lists
 * never pays for it.
 */
export class WordSpace {
  /** Vector length. */
  readonly dims: number;
  /** Rows searched. */
  readonly rows: number;
  readonly #table: StaticTable;
  readonly #isWord: (row: number) => boolean;
  #unit?: Float32Array;
  #eligible?: Uint8Array;

  /** `eligible(row)` says whether a row may be returned (rows with a zero vector never are). */
  constructor(table: StaticTable, rows: number, eligible: (row: number) => boolean) {
    this.dims = table.dims;
    this.rows = Math.min(rows, table.rows, NO_NEIGHBOUR);
    this.#table = table;
    this.#isWord = eligible;
  }

  #prepare(): { unit: Float32Array; eligible: Uint8Array } {
    if (this.#unit && this.#eligible) return { unit: this.#unit, eligible: this.#eligible };
    const { dims, rows } = this;
    const source = this.#table.table;
    const unit = new Float32Array(rows * dims);
    const eligible = new Uint8Array(rows);
    for (let r = 0; r < rows; r++) {
      const base = r * dims;
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += source[base + d] ** 2;
      if (!(norm > 0) || !this.#isWord(r)) continue;
      const scale = 1 / Math.sqrt(norm);
      for (let d = 0; d < dims; d++) unit[base + d] = source[base + d] * scale;
      eligible[r] = 1;
    }
    this.#unit = unit;
    this.#eligible = eligible;
    return { unit, eligible };
  }

  /** True when the row may be a neighbour (and can have some). */
  isEligible(row: number): boolean {
    return row >= 0 && row < this.rows && this.#prepare().eligible[row] === 1;
  }

  /** Cosine similarity of two rows (0 when either is not eligible). */
  similarity(a: number, b: number): number {
    if (!this.isEligible(a) || !this.isEligible(b)) return 0;
    const { unit } = this.#prepare();
    let dot = 0;
    for (let d = 0; d < this.dims; d++) dot += unit[a * this.dims + d] * unit[b * this.dims + d];
    return dot;
  }

  /** Up to `k` other eligible rows with cosine ≥ `minSimilarity`, best first. */
  nearest(row: number, k: number, minSimilarity: number): [row: number, similarity: number][] {
    if (k <= 0 || !this.isEligible(row)) return [];
    const { dims } = this;
    const { unit, eligible } = this.#prepare();
    const base = row * dims;
    const best: [number, number][] = [];
    for (let r = 0; r < this.rows; r++) {
      if (r === row || eligible[r] === 0) continue;
      const other = r * dims;
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += unit[base + d] * unit[other + d];
      if (dot < minSimilarity || (best.length === k && dot <= best[k - 1][1])) continue;
      let at = best.length;
      while (at > 0 && best[at - 1][1] < dot) at--;
      best.splice(at, 0, [r, dot]);
      if (best.length > k) best.pop();
    }
    return best;
  }
}

/**
 * Computes the neighbour lists of every row (what `scripts/build_neighbours.ts` ships).
 *
 * @example
 * ```ts
 * import { buildNeighbourTable, WordSpace } from "./neighbours.ts";
 * const table = { rows: 3, dims: 2, table: new Float32Array([1, 0, 0.9, 0.1, 0, 1]) };
 * const t = buildNeighbourTable(new WordSpace(table, 3, () => true), 1, 0.5);
 * console.assert(t.ids[0] === 1 && t.ids[2] === 0xffff);
 * ```
 */
export function buildNeighbourTable(
  space: WordSpace,
  k: number,
  minSimilarity: number,
): NeighbourTable {
  const ids = new Uint16Array(space.rows * k).fill(NO_NEIGHBOUR);
  for (let r = 0; r < space.rows; r++) {
    space.nearest(r, k, minSimilarity).forEach(([id], i) => ids[r * k + i] = id);
  }
  return { k, minSimilarity, rows: space.rows, ids };
}

/**
 * Serialises a table in the `neighbours.bin` layout.
 *
 * @example
 * ```ts
 * import { decodeNeighbourTable, encodeNeighbourTable } from "./neighbours.ts";
 * const t = { k: 1, minSimilarity: 0.5, rows: 2, ids: new Uint16Array([1, 0xffff]) };
 * console.assert(decodeNeighbourTable(encodeNeighbourTable(t)).ids[0] === 1);
 * ```
 */
export function encodeNeighbourTable(table: NeighbourTable): Uint8Array {
  const { k, rows } = table;
  const bytes = new Uint8Array(HEADER_BYTES + rows * k * 2);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint16(4, 1, true);
  view.setUint16(6, k, true);
  view.setFloat32(8, table.minSimilarity, true);
  view.setUint32(12, rows, true);
  for (let i = 0; i < rows * k; i++) view.setUint16(HEADER_BYTES + 2 * i, table.ids[i], true);
  return bytes;
}

/** Reads the `neighbours.bin` layout; throws on anything else. */
export function decodeNeighbourTable(bytes: Uint8Array): NeighbourTable {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (
    bytes.length < HEADER_BYTES || new TextDecoder().decode(bytes.subarray(0, 4)) !== MAGIC ||
    view.getUint16(4, true) !== 1
  ) throw new Error("not a neighbours.bin file (version 1)");
  const k = view.getUint16(6, true);
  const minSimilarity = view.getFloat32(8, true);
  const rows = view.getUint32(12, true);
  if (bytes.length !== HEADER_BYTES + rows * k * 2) throw new Error("neighbours.bin is truncated");
  const ids = new Uint16Array(rows * k);
  for (let i = 0; i < rows * k; i++) ids[i] = view.getUint16(HEADER_BYTES + 2 * i, true);
  return { k, minSimilarity, rows, ids };
}
