/**
 * An in-process vector index for the memory store: every live vector of one
 * model kept in memory and scanned whole with a SIMD kernel
 * (`dot_kernel.ts`), then every candidate that could change the answer
 * rescored exactly. It serves nearest-neighbour recall and the duplicate
 * check of a whole save batch (four new vectors per pass over the rows, rows
 * read in cache-sized blocks).
 *
 * Two scans, one guarantee. Where WebAssembly relaxed SIMD exists, rows are
 * also kept as 7-bit codes (per-row scale) and scanned with integer dot
 * products against an 8-bit query; else the float32 rows are scanned. Either
 * way each scanned score comes with a proven bound on its distance from
 * {@link cosine} (for codes: `‖u−û‖ + ‖û‖·‖v−v̂‖` of the unit vectors and
 * their quantised forms, stored per row; for float32: {@link scoreErrorBound}).
 * {@link VectorIndex.search} rescores with {@link cosine}, on the float32
 * rows, every row whose upper bound reaches the k-th best lower bound, and
 * {@link VectorIndex.nearest} every row whose upper bound reaches the best
 * lower bound and the threshold; so both return exactly what an exhaustive
 * float64 scan returns (up to ties of equal cosine).
 *
 * Memory per vector (d = 100): 400 bytes of float32 row, 112 of codes, 12 of
 * float32 factors in the kernel memory, 37 of columns (id, factors, kind,
 * session) and one `Map` entry (about 40 bytes): about 600 bytes;
 * {@link VectorIndex.bytes} reports it.
 *
 * @example
 * ```ts
 * import { VectorIndex } from "./vector_index.ts";
 * const index = new VectorIndex(2);
 * index.upsert(1, "episodic", null, new Float32Array([1, 0]));
 * index.upsert(2, "episodic", "s", new Float32Array([0.6, 0.8]));
 * console.assert(index.search(new Float32Array([1, 0]), 1, {})[0].id === 1);
 * console.assert(index.nearest([new Float32Array([0, 1])], [{ session_id: "s" }], 0.75)[0]?.id === 2);
 * ```
 *
 * @module
 */
import { cosine } from "../../embed/vector.ts";
import { createDotKernel, type DotKernel } from "./dot_kernel.ts";
import type { MemoryCandidate, MemoryKind, MemoryScope } from "../types.ts";

/** Rows per block of a scan (a block of 100-d rows is 400 KB: it stays in cache across queries). */
const BLOCK = 1024;
const KIND_CODE: Record<MemoryKind, number> = { episodic: 0, profile: 1 };
/** Session code of memories saved without a session. */
const NO_SESSION = 0;
/** Largest row code: rows are stored as `code + 64` in 1..127 (see `dot_kernel.ts`). */
const ROW_LEVELS = 63;
/** Largest query code (a signed byte). */
const QUERY_LEVELS = 127;
/** Slack for float64 rounding in bounds computed from exact integer sums. */
const FLOAT_SLACK = 1e-9;
/** Slack for the kernel's float32 selection (it only decides which rows JS looks at). */
const SELECT_SLACK = 1e-5;

/**
 * Largest difference between a float32 kernel score and {@link cosine} for
 * vectors of `dimensions` components: float32 summation of `d` products
 * errs by at most about `d·2⁻²⁴` of `Σ|xᵢyᵢ| ≤ ‖x‖‖y‖`; this doubles it and
 * adds room for the float32 store of each sum.
 *
 * @example
 * ```ts
 * import { scoreErrorBound } from "./vector_index.ts";
 * console.assert(scoreErrorBound(100) < 2e-5);
 * ```
 *
 * @internal exported for its documentation example (a doc test)
 */
export function scoreErrorBound(dimensions: number): number {
  return (dimensions + 8) * 2 ** -23;
}

/**
 * Bytes a {@link VectorIndex} holds per vector of `dimensions` components
 * (float32 row, 7-bit codes, factors, columns, id map), before growth slack.
 *
 * @example
 * ```ts
 * import { bytesPerVector } from "./vector_index.ts";
 * console.assert(bytesPerVector(100) < 650);
 * ```
 */
export function bytesPerVector(dimensions: number): number {
  return Math.ceil(dimensions / 4) * 16 + Math.ceil(dimensions / 16) * 16 + 12 + 37 + 40;
}

/** Options of {@link VectorIndex}. */
export interface VectorIndexOptions {
  /** Use the WebAssembly SIMD kernel when available (default true). */
  simd?: boolean;
  /** Scan 7-bit codes when the kernel has integer dot products (default true). */
  int8?: boolean;
}

/** A query prepared for one scan: how to turn a kernel sum into a score and its bound. */
interface Prepared {
  /** 0: the query has no direction (matches nothing). */
  inv: number;
  /** Score = (sum − offset) · scale · rowFactor. */
  scale: number;
  offset: number;
  /** Bound = fixed + errScale · rowError. */
  fixed: number;
  errScale: number;
}

/** Region offsets (floats) of the per-row arrays for a capacity. */
interface Layout {
  matrix: number;
  inv: number;
  factor: number;
  error: number;
  codes: number;
  free: number;
}

/** Vectors of one model, searched exhaustively by cosine. */
export class VectorIndex {
  /** Components per vector. */
  readonly dimensions: number;
  #stride: number;
  /** Floats (4-byte units) per row of codes: 16-byte multiples. */
  #codeStride: number;
  #kernel: DotKernel;
  #int8: boolean;
  #eps: number;
  #size = 0;
  #capacity = 0;
  #ids = new Float64Array(0);
  /** Per row: 1/‖y‖; for codes, factor = 1/(‖y‖·s) and error = ‖y−ŷ‖/‖y‖. */
  #inv = new Float64Array(0);
  #factor = new Float64Array(0);
  #error = new Float64Array(0);
  #kinds = new Uint8Array(0);
  #sessions = new Int32Array(0);
  #slots = new Map<number, number>();
  #sessionCodes = new Map<string, number>();
  /**
   * Fixed float offsets in the kernel memory: a float32 query, a code query,
   * select parameters, scan output (four floats per row of a block), selected
   * row indexes; then the per-row regions of {@link Layout}.
   */
  #q = 0;
  #q8: number;
  #params: number;
  #out: number;
  #rows: number;
  #layout: Layout;
  #bytes?: Uint8Array;
  #intView?: Int32Array;

  /** An empty index for vectors of `dimensions` components. */
  constructor(dimensions: number, options: VectorIndexOptions = {}) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new RangeError(`vector index: dimensions ${dimensions} is not usable`);
    }
    this.dimensions = dimensions;
    this.#stride = Math.ceil(dimensions / 4) * 4;
    this.#codeStride = Math.ceil(dimensions / 16) * 4;
    this.#kernel = createDotKernel(options);
    this.#int8 = this.#kernel.int8 && options.int8 !== false;
    this.#eps = scoreErrorBound(dimensions);
    this.#q8 = 4 * this.#stride;
    this.#params = this.#q8 + 4 * this.#codeStride;
    this.#out = this.#params + 16;
    this.#rows = this.#out + 4 * BLOCK;
    this.#layout = this.#layoutFor(0);
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

  /** True when scans read 7-bit codes (WebAssembly relaxed SIMD). */
  get int8(): boolean {
    return this.#int8;
  }

  /** Bytes held (kernel memory, columns, and an estimate of the id map). */
  bytes(): number {
    return this.#kernel.bytes() + this.#capacity * (8 * 4 + 1 + 4) + this.#slots.size * 40;
  }

  /** Makes room for `rows` vectors at once (before loading many). */
  reserve(rows: number): void {
    this.#grow(rows);
  }

  /** True when `id` has a vector here. */
  has(id: number): boolean {
    return this.#slots.has(id);
  }

  #layoutFor(capacity: number): Layout {
    const rows = capacity + 4;
    const matrix = this.#rows + BLOCK;
    const inv = matrix + rows * this.#stride;
    const factor = inv + rows;
    const error = factor + (this.#int8 ? rows : 0);
    const codes = Math.ceil((error + (this.#int8 ? rows : 0)) / 4) * 4;
    const free = Math.ceil((codes + (this.#int8 ? rows * this.#codeStride : 0)) / 4) * 4;
    return { matrix, inv, factor, error, codes, free };
  }

  #f32(): Float32Array {
    return this.#kernel.f32();
  }

  #u8(): Uint8Array {
    const f = this.#f32();
    if (this.#bytes?.buffer !== f.buffer) this.#bytes = new Uint8Array(f.buffer);
    return this.#bytes;
  }

  #ints(): Int32Array {
    const f = this.#f32();
    if (this.#intView?.buffer !== f.buffer) this.#intView = new Int32Array(f.buffer);
    return this.#intView;
  }

  #grow(rows: number): void {
    if (rows <= this.#capacity) return;
    const capacity = Math.ceil(Math.max(rows, this.#capacity * 1.25) / 4) * 4;
    const from = this.#layout;
    const to = this.#layoutFor(capacity);
    this.#kernel.ensure(to.free * 4);
    if (this.#capacity > 0) {
      // Later regions first: each moves up, never over one not yet moved.
      const used = this.#capacity;
      if (this.#int8) {
        this.#u8().copyWithin(
          to.codes * 4,
          from.codes * 4,
          (from.codes + used * this.#codeStride) * 4,
        );
        this.#f32().copyWithin(to.error, from.error, from.error + used);
        this.#f32().copyWithin(to.factor, from.factor, from.factor + used);
      }
      this.#f32().copyWithin(to.inv, from.inv, from.inv + used);
    }
    this.#layout = to;
    const grown = <T extends Float64Array | Uint8Array | Int32Array>(
      old: T,
      make: (n: number) => T,
    ) => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.#ids = grown(this.#ids, (n) => new Float64Array(n));
    this.#inv = grown(this.#inv, (n) => new Float64Array(n));
    this.#factor = grown(this.#factor, (n) => new Float64Array(n));
    this.#error = grown(this.#error, (n) => new Float64Array(n));
    this.#kinds = grown(this.#kinds, (n) => new Uint8Array(n));
    this.#sessions = grown(this.#sessions, (n) => new Int32Array(n));
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
    let max = 0;
    for (let i = 0; i < vector.length; i++) {
      norm += vector[i] * vector[i];
      const a = Math.abs(vector[i]);
      if (a > max) max = a;
    }
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
    const f = this.#f32();
    const L = this.#layout;
    const at = L.matrix + slot * this.#stride;
    f.set(vector, at);
    if (this.#stride > this.dimensions) f.fill(0, at + this.dimensions, at + this.#stride);
    const inv = 1 / Math.sqrt(norm);
    this.#ids[slot] = id;
    this.#inv[slot] = inv;
    f[L.inv + slot] = inv;
    // Compared, not looked up: a kind read from SQLite is a fresh string, and
    // a keyed lookup by one deoptimises this function on every call.
    this.#kinds[slot] = kind === "profile" ? KIND_CODE.profile : KIND_CODE.episodic;
    this.#sessions[slot] = this.#sessionCode(session, true)!;
    if (this.#int8) {
      // Codes in −63..63 (stored + 64), scale s = 63 / max|yᵢ|.
      const s = ROW_LEVELS / max;
      const bytes = this.#u8();
      const base = (L.codes + slot * this.#codeStride) * 4;
      const step = 1 / s;
      let err = 0;
      for (let i = 0; i < vector.length; i++) {
        // |yᵢ·s| ≤ 63 by the choice of s, so the code needs no clamp, and
        // yᵢ·s + 64.5 > 0 truncates to round(yᵢ·s) + 64 (halves up, as Math.round).
        const stored = (vector[i] * s + 64.5) | 0;
        bytes[base + i] = stored;
        const e = vector[i] - (stored - 64) * step;
        err += e * e;
      }
      bytes.fill(64, base + vector.length, base + this.#codeStride * 4);
      this.#factor[slot] = inv / s;
      this.#error[slot] = Math.sqrt(err) * inv;
      f[L.factor + slot] = this.#factor[slot];
      f[L.error + slot] = this.#error[slot];
    }
  }

  /** Drops the vector of `id` (nothing when absent). */
  remove(id: number): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    this.#slots.delete(id);
    const last = --this.#size;
    if (slot === last) return;
    const f = this.#f32();
    const L = this.#layout;
    const from = L.matrix + last * this.#stride;
    f.copyWithin(L.matrix + slot * this.#stride, from, from + this.#stride);
    f[L.inv + slot] = f[L.inv + last];
    for (const column of [this.#ids, this.#inv, this.#factor, this.#error]) {
      column[slot] = column[last];
    }
    this.#kinds[slot] = this.#kinds[last];
    this.#sessions[slot] = this.#sessions[last];
    if (this.#int8) {
      f[L.factor + slot] = f[L.factor + last];
      f[L.error + slot] = f[L.error + last];
      const width = this.#codeStride * 4;
      const codes = L.codes * 4;
      this.#u8().copyWithin(codes + slot * width, codes + last * width, codes + (last + 1) * width);
    }
    this.#slots.set(this.#ids[slot], slot);
  }

  /** The stored vector of a slot (a view: copy it to keep it). */
  #row(slot: number): Float32Array {
    const at = this.#layout.matrix + slot * this.#stride;
    return this.#f32().subarray(at, at + this.dimensions);
  }

  /**
   * Writes a query for a scan at float offset `at` (float32) or `at8` (codes)
   * and returns how to read the kernel's sums against it.
   */
  #prepare(vector: Float32Array, at: number, at8: number): Prepared {
    const none: Prepared = { inv: 0, scale: 0, offset: 0, fixed: 0, errScale: 0 };
    const f = this.#f32();
    if (!this.#int8) f.fill(0, at, at + this.#stride);
    else this.#u8().fill(0, at8 * 4, (at8 + this.#codeStride) * 4);
    if (vector.length !== this.dimensions) return none;
    let norm = 0;
    let max = 0;
    for (let j = 0; j < vector.length; j++) {
      norm += vector[j] * vector[j];
      const a = Math.abs(vector[j]);
      if (a > max) max = a;
    }
    if (!(norm > 0) || !Number.isFinite(norm)) return none;
    const inv = 1 / Math.sqrt(norm);
    if (!this.#int8) {
      f.set(vector, at);
      return { inv, scale: inv, offset: 0, fixed: this.#eps, errScale: 0 };
    }
    const s = QUERY_LEVELS / max;
    const codes = new Int8Array(this.#f32().buffer, at8 * 4, this.#codeStride * 4);
    let sum = 0;
    let err = 0;
    let quantised = 0;
    for (let j = 0; j < vector.length; j++) {
      const code = Math.max(-QUERY_LEVELS, Math.min(QUERY_LEVELS, Math.round(vector[j] * s)));
      codes[j] = code;
      sum += code;
      const e = vector[j] - code / s;
      err += e * e;
      quantised += (code / s) ** 2;
    }
    // Rows hold code + 64: the kernel's sum carries 64·Σ(query codes) too.
    return {
      inv,
      scale: inv / s,
      offset: 64 * sum,
      fixed: Math.sqrt(err) * inv + FLOAT_SLACK,
      errScale: Math.sqrt(quantised) * inv,
    };
  }

  /** Filter codes of a scope: kind code (-1 any), session code (-1 any), or undefined when nothing can match. */
  #filter(scope: MemoryScope): { kind: number; session: number } | undefined {
    const kind = scope.kind ? KIND_CODE[scope.kind] : -1;
    if (scope.session_id === undefined) return { kind, session: -1 };
    const session = this.#sessionCode(scope.session_id, false);
    return session === undefined ? undefined : { kind, session };
  }

  /** Writes select parameters for lane `i` so the kernel keeps rows whose upper bound may reach `floor`. */
  #selectParams(i: number, p: Prepared | undefined, floor: number): void {
    const f = this.#f32();
    const at = this.#params;
    const usable = p !== undefined && p.inv !== 0;
    f[at + i] = usable ? p.scale : 0;
    f[at + 4 + i] = usable ? floor - p.fixed - SELECT_SLACK : Infinity;
    f[at + 8 + i] = usable ? p.errScale : 0;
    f[at + 12 + i] = usable ? p.offset : 0;
  }

  /** Scan score and bound of `slot` from the kernel sum. */
  #bounds(sum: number, slot: number, p: Prepared): { score: number; bound: number } {
    return this.#int8
      ? {
        score: (sum - p.offset) * p.scale * this.#factor[slot],
        bound: p.fixed + p.errScale * this.#error[slot],
      }
      : { score: sum * p.scale * this.#inv[slot], bound: p.fixed };
  }

  /** Runs the kernel over one block for the query group at `q` (float32) / `q8` (codes). */
  #scan(group: 1 | 4, q: number, q8: number, start: number, n: number): void {
    const L = this.#layout;
    if (this.#int8) {
      const base = L.codes + start * this.#codeStride;
      if (group === 1) this.#kernel.dot1i8(q8, base, n, this.#codeStride, this.#out);
      else this.#kernel.dot4i8(q8, base, n, this.#codeStride, this.#out);
    } else {
      const base = L.matrix + start * this.#stride;
      if (group === 1) this.#kernel.dot1(q, base, n, this.#stride, this.#out);
      else this.#kernel.dot4(q, base, n, this.#stride, this.#out);
    }
  }

  /** Rows of a block the kernel keeps (select parameters already written). */
  #select(group: 1 | 4, start: number, n: number): number {
    const L = this.#layout;
    const factors = (this.#int8 ? L.factor : L.inv) + start;
    const errors = (this.#int8 ? L.error : L.inv) + start;
    return group === 1
      ? this.#kernel.select1(this.#out, n, factors, this.#params, this.#rows, errors)
      : this.#kernel.select4(this.#out, n, factors, this.#params, this.#rows, errors);
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
    const p = this.#prepare(vector, this.#q, this.#q8);
    if (p.inv === 0) return [];
    // Lower bounds of the k best so far; rows whose upper bound reaches the k-th are candidates.
    const heap = new MinHeap(k);
    const slots: number[] = [];
    const uppers: number[] = [];
    const { kind, session } = filter;
    for (let start = 0; start < this.#size; start += BLOCK) {
      const n = Math.min(BLOCK, this.#size - start);
      this.#scan(1, this.#q, this.#q8, start, n);
      const f = this.#f32();
      const params = this.#params;
      const floor = heap.size < k ? -Infinity : heap.min;
      f[params] = p.scale;
      f[params + 1] = floor - p.fixed - SELECT_SLACK;
      f[params + 2] = p.errScale;
      f[params + 3] = p.offset;
      const selected = this.#select(1, start, n);
      const ints = this.#ints();
      for (let e = 0; e < selected; e++) {
        const r = ints[this.#rows + e];
        const slot = start + r;
        if (kind >= 0 && this.#kinds[slot] !== kind) continue;
        if (session >= 0 && this.#sessions[slot] !== session) continue;
        const { score, bound } = this.#bounds(f[this.#out + r], slot, p);
        const lower = score - bound;
        if (heap.size < k) heap.push(lower);
        else if (lower > heap.min) heap.replaceMin(lower);
        if (heap.size < k || score + bound >= heap.min) {
          slots.push(slot);
          uppers.push(score + bound);
        }
      }
    }
    const floor = heap.size < k ? -Infinity : heap.min;
    const exact: MemoryCandidate[] = [];
    for (let i = 0; i < slots.length; i++) {
      if (uppers[i] < floor) continue;
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
    const filters = scopes.map((s) => this.#filter(s));
    const live: number[] = [];
    for (let i = 0; i < count; i++) if (filters[i]) live.push(i);
    // The batch's queries in groups of four after the per-row regions.
    const groups = Math.ceil(live.length / 4);
    const region = this.#layout.free;
    const width = this.#int8 ? this.#codeStride : this.#stride;
    this.#kernel.ensure((region + (groups * 4 + 1) * width) * 4);
    const prepared: (Prepared | undefined)[] = new Array(count);
    for (let g = 0; g < groups * 4; g++) {
      const q = live[g];
      const at = region + g * width;
      const p = this.#prepare(q === undefined ? EMPTY : vectors[q], at, at);
      if (q !== undefined) prepared[q] = p;
    }
    // Best lower bound so far; rows whose upper bound reaches it and minScore are candidates.
    const best = new Float64Array(count).fill(-Infinity);
    const candidates: { slot: number; upper: number }[][] = Array.from(
      { length: count },
      () => [],
    );
    const floorOf = (q: number) => Math.max(best[q], minScore);
    // Exact best so far. Candidates are rescored a few dozen at a time, so
    // that rows tied at the top (identical vectors) never pile up per query.
    const found: (MemoryCandidate | undefined)[] = new Array(count).fill(undefined);
    const settle = (q: number) => {
      const floor = floorOf(q);
      for (const c of candidates[q]) {
        if (c.upper < floor) continue;
        const id = this.#ids[c.slot];
        const score = cosine(vectors[q], this.#row(c.slot));
        const top = found[q];
        if (!top || score > top.score || (score === top.score && id < top.id)) {
          found[q] = { id, score };
        }
      }
      candidates[q] = [];
      // The exact best is a lower bound too.
      if (found[q] && found[q]!.score > best[q]) best[q] = found[q]!.score;
    };
    for (let start = 0; start < this.#size; start += BLOCK) {
      const n = Math.min(BLOCK, this.#size - start);
      for (let g = 0; g < groups; g++) {
        const members = live.slice(4 * g, 4 * g + 4);
        const at = region + g * 4 * width;
        this.#scan(4, at, at, start, n);
        for (let i = 0; i < 4; i++) {
          const q = members[i];
          this.#selectParams(
            i,
            q === undefined ? undefined : prepared[q],
            q === undefined ? 0 : floorOf(q),
          );
        }
        const selected = this.#select(4, start, n);
        const f = this.#f32();
        const ints = this.#ints();
        for (let e = 0; e < selected; e++) {
          const r = ints[this.#rows + e];
          const slot = start + r;
          for (let i = 0; i < members.length; i++) {
            const q = members[i];
            const p = prepared[q]!;
            if (p.inv === 0) continue;
            const { score, bound } = this.#bounds(f[this.#out + 4 * r + i], slot, p);
            if (score + bound < floorOf(q)) continue;
            const { kind, session } = filters[q]!;
            if (kind >= 0 && this.#kinds[slot] !== kind) continue;
            if (session >= 0 && this.#sessions[slot] !== session) continue;
            candidates[q].push({ slot, upper: score + bound });
            if (score - bound > best[q]) best[q] = score - bound;
            if (candidates[q].length >= SETTLE_EVERY) settle(q);
          }
        }
      }
    }
    for (let q = 0; q < count; q++) {
      settle(q);
      const top = found[q];
      if (top && top.score >= minScore) result[q] = top;
    }
    return result;
  }
}

const EMPTY = new Float32Array(0);
/** Candidates of one query rescored together (bounds the lists when many rows tie). */
const SETTLE_EVERY = 64;

/** A bounded min-heap of numbers (the k best lower bounds seen). */
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
