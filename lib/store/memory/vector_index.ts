/**
 * An in-process vector index for the memory store: every live vector of one
 * model in a float32 matrix, scanned whole with a SIMD dot-product kernel
 * (`dot_kernel.ts`), with exact float64 rescoring of every candidate that
 * could change the answer. It serves nearest-neighbour recall and the
 * duplicate check of a whole save batch (four new vectors per pass over the
 * rows, rows read in cache-sized blocks).
 *
 * Exactness: a kernel score differs from {@link cosine} of the same float32
 * vectors by at most {@link scoreErrorBound} (float32 summation of `d`
 * products of unit-scaled terms, with margin). {@link VectorIndex.search}
 * rescores with {@link cosine} every row whose kernel score is within twice
 * that bound of the k-th best, and {@link VectorIndex.nearest} every row
 * within twice the bound of the best or of the threshold, so both return
 * what an exhaustive float64 scan returns (up to ties of equal cosine).
 *
 * Memory: per vector `4·⌈d/4⌉·4` bytes of matrix plus 21 bytes of columns
 * (id, inverse norm, kind, session) plus one `Map` entry (about 40 bytes);
 * {@link VectorIndex.bytes} reports it.
 *
 * @example
 * ```ts
 * import { VectorIndex } from "./vector_index.ts";
 * const index = new VectorIndex(2);
 * index.upsert(1, "episodic", null, new Float32Array([1, 0]));
 * index.upsert(2, "episodic", "s", new Float32Array([0.6, 0.8]));
 * console.assert(index.search(new Float32Array([1, 0]), 1, {})[0].id === 1);
 * console.assert(index.nearest([new Float32Array([0, 1])], [{ session_id: "s" }], 0.8)[0]?.id === 2);
 * ```
 *
 * @module
 */
import { cosine } from "../../rank/embed/vector.ts";
import { createDotKernel, type DotKernel } from "./dot_kernel.ts";
import type { MemoryCandidate, MemoryKind, MemoryScope } from "./types.ts";

/** Rows per block of a scan (a block of 100-d rows is 400 KB: it stays in cache across queries). */
const BLOCK = 1024;
const KIND_CODE: Record<MemoryKind, number> = { episodic: 0, profile: 1 };
/** Session code of memories saved without a session. */
const NO_SESSION = 0;
const EMPTY = new Float32Array(0);

/**
 * Largest difference between a kernel score and {@link cosine} for vectors
 * of `dimensions` components: float32 summation of `d` products errs by at
 * most about `d·2⁻²⁴` of `Σ|xᵢyᵢ| ≤ ‖x‖‖y‖`; this doubles it and adds room
 * for the float32 store of each sum.
 *
 * @example
 * ```ts
 * import { scoreErrorBound } from "./vector_index.ts";
 * console.assert(scoreErrorBound(100) < 2e-5);
 * ```
 */
export function scoreErrorBound(dimensions: number): number {
  return (dimensions + 8) * 2 ** -23;
}

/** Options of {@link VectorIndex}. */
export interface VectorIndexOptions {
  /** Use the WebAssembly SIMD kernel when available (default true). */
  simd?: boolean;
}

/** Vectors of one model, searched exhaustively by cosine. */
export class VectorIndex {
  /** Components per vector. */
  readonly dimensions: number;
  #stride: number;
  #kernel: DotKernel;
  #eps: number;
  #size = 0;
  #capacity = 0;
  #ids = new Float64Array(0);
  #inv = new Float64Array(0);
  #kinds = new Uint8Array(0);
  #sessions = new Int32Array(0);
  #slots = new Map<number, number>();
  #sessionCodes = new Map<string, number>();
  /**
   * Float offsets in the kernel memory: four query rows, select parameters,
   * scan output (four floats per row of a block), selected row indexes, the
   * matrix (capacity + 4 padding rows), then one float32 inverse norm per row.
   */
  #q = 0;
  #params: number;
  #out: number;
  #rows: number;
  #matrix: number;

  /** An empty index for vectors of `dimensions` components. */
  constructor(dimensions: number, options: VectorIndexOptions = {}) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new RangeError(`vector index: dimensions ${dimensions} is not usable`);
    }
    this.dimensions = dimensions;
    this.#stride = Math.ceil(dimensions / 4) * 4;
    this.#kernel = createDotKernel(options);
    this.#eps = scoreErrorBound(dimensions);
    this.#params = 4 * this.#stride;
    this.#out = this.#params + 8;
    this.#rows = this.#out + 4 * BLOCK;
    this.#matrix = this.#rows + BLOCK;
    this.#grow(64);
  }

  /** Vectors held. */
  get size(): number {
    return this.#size;
  }

  /** True when the WebAssembly SIMD kernel runs. */
  get simd(): boolean {
    return this.#kernel.simd;
  }

  /** Bytes held (kernel memory, columns, and an estimate of the id map). */
  bytes(): number {
    return this.#kernel.bytes() + this.#capacity * (8 + 8 + 1 + 4) + this.#slots.size * 40;
  }

  /** Makes room for `rows` vectors at once (before loading many). */
  reserve(rows: number): void {
    this.#grow(rows);
  }

  /** True when `id` has a vector here. */
  has(id: number): boolean {
    return this.#slots.has(id);
  }

  /** Float offset of the inverse norms for a capacity. */
  #invAt(capacity = this.#capacity): number {
    return this.#matrix + (capacity + 4) * this.#stride;
  }

  /** Float offset of free memory after the inverse norms. */
  #freeAt(): number {
    return this.#invAt() + this.#capacity + 4;
  }

  #ints(): Int32Array {
    const f = this.#kernel.f32();
    if (this.#intView?.buffer !== f.buffer) this.#intView = new Int32Array(f.buffer);
    return this.#intView;
  }
  #intView: Int32Array | undefined;

  #grow(rows: number): void {
    if (rows <= this.#capacity) return;
    const capacity = Math.ceil(Math.max(rows, this.#capacity * 1.5) / 4) * 4;
    const oldInv = this.#invAt();
    this.#kernel.ensure((this.#invAt(capacity) + capacity + 4) * 4);
    if (this.#capacity > 0) {
      this.#kernel.f32().copyWithin(this.#invAt(capacity), oldInv, oldInv + this.#capacity);
    }
    const ids = new Float64Array(capacity);
    ids.set(this.#ids);
    this.#ids = ids;
    const inv = new Float64Array(capacity);
    inv.set(this.#inv);
    this.#inv = inv;
    const kinds = new Uint8Array(capacity);
    kinds.set(this.#kinds);
    this.#kinds = kinds;
    const sessions = new Int32Array(capacity);
    sessions.set(this.#sessions);
    this.#sessions = sessions;
    this.#capacity = capacity;
  }

  #sessionCode(session: string | null, create: boolean): number | undefined {
    if (session === null) return NO_SESSION;
    let code = this.#sessionCodes.get(session);
    if (code === undefined && create) {
      code = this.#sessionCodes.size + 1;
      this.#sessionCodes.set(session, code);
    }
    return code;
  }

  /**
   * Stores (or replaces) the vector of memory `id`. A vector of the wrong
   * length is a `RangeError`; an all-zero one removes `id` (it has no direction).
   */
  upsert(id: number, kind: MemoryKind, session: string | null, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new RangeError(
        `vector index: ${vector.length} components, expected ${this.dimensions}`,
      );
    }
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
    if (!(norm > 0) || !Number.isFinite(norm)) {
      this.remove(id);
      return;
    }
    let slot = this.#slots.get(id);
    if (slot === undefined) {
      this.#grow(this.#size + 1);
      slot = this.#size++;
      this.#slots.set(id, slot);
    }
    const f = this.#kernel.f32();
    const at = this.#matrix + slot * this.#stride;
    f.set(vector, at);
    if (this.#stride > this.dimensions) f.fill(0, at + this.dimensions, at + this.#stride);
    this.#ids[slot] = id;
    this.#inv[slot] = 1 / Math.sqrt(norm);
    f[this.#invAt() + slot] = this.#inv[slot];
    this.#kinds[slot] = KIND_CODE[kind];
    this.#sessions[slot] = this.#sessionCode(session, true)!;
  }

  /** Drops the vector of `id` (nothing when absent). */
  remove(id: number): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    this.#slots.delete(id);
    const last = --this.#size;
    if (slot !== last) {
      const f = this.#kernel.f32();
      const from = this.#matrix + last * this.#stride;
      f.copyWithin(this.#matrix + slot * this.#stride, from, from + this.#stride);
      this.#ids[slot] = this.#ids[last];
      this.#inv[slot] = this.#inv[last];
      f[this.#invAt() + slot] = f[this.#invAt() + last];
      this.#kinds[slot] = this.#kinds[last];
      this.#sessions[slot] = this.#sessions[last];
      this.#slots.set(this.#ids[slot], slot);
    }
  }

  /** The stored vector of a slot (a view: copy it to keep it). */
  #row(slot: number): Float32Array {
    const at = this.#matrix + slot * this.#stride;
    return this.#kernel.f32().subarray(at, at + this.dimensions);
  }

  /** Writes a query at float offset `at`; returns its inverse norm (0 for a zero vector). */
  #putQuery(at: number, vector: Float32Array): number {
    const f = this.#kernel.f32();
    f.fill(0, at, at + this.#stride);
    if (vector.length !== this.dimensions) return 0;
    let norm = 0;
    for (let j = 0; j < vector.length; j++) norm += vector[j] * vector[j];
    if (!(norm > 0) || !Number.isFinite(norm)) return 0;
    f.set(vector, at);
    return 1 / Math.sqrt(norm);
  }

  /** Filter codes of a scope: kind code (-1 any), session code (-1 any), or undefined when nothing can match. */
  #filter(scope: MemoryScope): { kind: number; session: number } | undefined {
    const kind = scope.kind ? KIND_CODE[scope.kind] : -1;
    if (scope.session_id === undefined) return { kind, session: -1 };
    const session = this.#sessionCode(scope.session_id, false);
    return session === undefined ? undefined : { kind, session };
  }

  /**
   * The `k` rows nearest to `vector` by cosine in `scope`, best first, with
   * their {@link cosine} as score (ties by id). A zero vector or one of the
   * wrong length finds nothing.
   */
  search(vector: Float32Array, k: number, scope: MemoryScope): MemoryCandidate[] {
    k = Math.trunc(k);
    const filter = this.#filter(scope);
    if (k <= 0 || this.#size === 0 || !filter) return [];
    const invQ = this.#putQuery(this.#q, vector);
    if (invQ === 0) return [];
    const heap = new MinHeap(k);
    const slots: number[] = [];
    const scores: number[] = [];
    const eps2 = 2 * this.#eps;
    const { kind, session } = filter;
    const out = this.#out;
    const params = this.#params;
    const rows = this.#rows;
    for (let start = 0; start < this.#size; start += BLOCK) {
      const n = Math.min(BLOCK, this.#size - start);
      this.#kernel.dot1(this.#q, this.#matrix + start * this.#stride, n, this.#stride, out);
      const f = this.#kernel.f32();
      // The kernel keeps rows that could enter the heap or the rescoring set
      // (float32 comparison, a millionth below the float64 floor).
      f[params] = invQ;
      f[params + 1] = heap.size < k ? -Infinity : heap.min - eps2 - 1e-6;
      const selected = this.#kernel.select1(out, n, this.#invAt() + start, params, rows);
      const ints = this.#ints();
      for (let e = 0; e < selected; e++) {
        const r = ints[rows + e];
        const slot = start + r;
        if (kind >= 0 && this.#kinds[slot] !== kind) continue;
        if (session >= 0 && this.#sessions[slot] !== session) continue;
        const score = f[out + r] * this.#inv[slot] * invQ;
        if (heap.size < k) heap.push(score);
        else if (score > heap.min) heap.replaceMin(score);
        if (heap.size < k || score >= heap.min - eps2) {
          slots.push(slot);
          scores.push(score);
        }
      }
    }
    const floor = heap.size < k ? -Infinity : heap.min - eps2;
    const exact: MemoryCandidate[] = [];
    for (let i = 0; i < slots.length; i++) {
      if (scores[i] < floor) continue;
      exact.push({ id: this.#ids[slots[i]], score: cosine(vector, this.#row(slots[i])) });
    }
    exact.sort((a, b) => b.score - a.score || a.id - b.id);
    return exact.slice(0, k);
  }

  /**
   * For each vector, the row nearest to it by cosine in its own scope when
   * that cosine ({@link cosine}, exactly) is at least `minScore`, else
   * `undefined`. One pass over the rows serves four vectors; the rows are
   * read block by block so a block is reused from cache by every group.
   */
  nearest(
    vectors: readonly Float32Array[],
    scopes: readonly MemoryScope[],
    minScore: number,
  ): (MemoryCandidate | undefined)[] {
    const count = vectors.length;
    const result: (MemoryCandidate | undefined)[] = new Array(count).fill(undefined);
    if (count === 0 || this.#size === 0) return result;
    const eps = this.#eps;
    const filters = scopes.map((s) => this.#filter(s));
    const best = new Float64Array(count).fill(-Infinity);
    const candidates: { slot: number; score: number }[][] = Array.from({ length: count }, () => []);
    const live: number[] = [];
    for (let i = 0; i < count; i++) if (filters[i]) live.push(i);
    // The batch's queries, in groups of four, after the matrix (zero rows pad the last group).
    const groups = Math.ceil(live.length / 4);
    const region = Math.ceil(this.#freeAt() / 4) * 4;
    this.#kernel.ensure((region + groups * 4 * this.#stride + this.#stride) * 4);
    const invQ = new Float64Array(count);
    for (let g = 0; g < groups * 4; g++) {
      const q = live[g];
      const inv = this.#putQuery(region + g * this.#stride, q === undefined ? EMPTY : vectors[q]);
      if (q !== undefined) invQ[q] = inv;
    }
    const out = this.#out;
    const params = this.#params;
    const rows = this.#rows;
    // Rows worth rescoring: within 2·eps of the best so far or of the threshold.
    const floorOf = (q: number) => Math.max(best[q], minScore - eps) - 2 * eps;
    for (let start = 0; start < this.#size; start += BLOCK) {
      const n = Math.min(BLOCK, this.#size - start);
      const base = this.#matrix + start * this.#stride;
      for (let g = 0; g < groups; g++) {
        this.#kernel.dot4(region + g * 4 * this.#stride, base, n, this.#stride, out);
        const f = this.#kernel.f32();
        const members = live.slice(4 * g, 4 * g + 4);
        for (let i = 0; i < 4; i++) {
          const q = members[i];
          const usable = q !== undefined && invQ[q] !== 0;
          f[params + i] = usable ? invQ[q] : 0;
          f[params + 4 + i] = usable ? floorOf(q) - 1e-6 : Infinity;
        }
        const selected = this.#kernel.select4(out, n, this.#invAt() + start, params, rows);
        const ints = this.#ints();
        for (let e = 0; e < selected; e++) {
          const r = ints[rows + e];
          const slot = start + r;
          for (let i = 0; i < members.length; i++) {
            const q = members[i];
            const inv = invQ[q];
            if (inv === 0) continue;
            const score = f[out + 4 * r + i] * this.#inv[slot] * inv;
            if (score < floorOf(q)) continue;
            const { kind, session } = filters[q]!;
            if (kind >= 0 && this.#kinds[slot] !== kind) continue;
            if (session >= 0 && this.#sessions[slot] !== session) continue;
            candidates[q].push({ slot, score });
            if (score > best[q]) best[q] = score;
          }
        }
      }
    }
    for (let q = 0; q < count; q++) {
      if (best[q] < minScore - eps) continue;
      const floor = best[q] - 2 * eps;
      let found: MemoryCandidate | undefined;
      for (const c of candidates[q]) {
        if (c.score < floor) continue;
        const id = this.#ids[c.slot];
        const score = cosine(vectors[q], this.#row(c.slot));
        if (!found || score > found.score || (score === found.score && id < found.id)) {
          found = { id, score };
        }
      }
      if (found && found.score >= minScore) result[q] = found;
    }
    return result;
  }
}

/** A bounded min-heap of numbers (the k best scores seen). */
class MinHeap {
  #items: Float64Array;
  size = 0;
  constructor(capacity: number) {
    this.#items = new Float64Array(Math.max(1, capacity));
  }
  get min(): number {
    return this.#items[0];
  }
  push(x: number): void {
    const a = this.#items;
    let i = this.size++;
    a[i] = x;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p] <= a[i]) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  replaceMin(x: number): void {
    const a = this.#items;
    a[0] = x;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.size && a[l] < a[m]) m = l;
      if (r < this.size && a[r] < a[m]) m = r;
      if (m === i) return;
      [a[m], a[i]] = [a[i], a[m]];
      i = m;
    }
  }
}
