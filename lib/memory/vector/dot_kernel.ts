/**
 * Dot products of one or four query vectors against many stored rows, the
 * inner loop of the in-process vector index (`vector_index.ts`). The rows
 * live in one linear memory; the fast path is a small WebAssembly module
 * using 128-bit SIMD (`f32x4`), assembled here from its opcodes (no build
 * step, no dependency); where WebAssembly SIMD is unavailable the same
 * operations run in plain TypeScript.
 *
 * Sums are float32 (four lanes, then across lanes): the index rescores every
 * candidate that could matter in float64, so these sums only ever rank and
 * prune (see `vector_index.ts` for the error bound).
 *
 * @example
 * ```ts
 * import { createDotKernel } from "./dot_kernel.ts";
 * const k = createDotKernel();
 * k.ensure(4 * 24); // floats 0..3: query; 4..19: four rows of 4; 20..23: out
 * k.f32().set([1, 2, 3, 4, 1, 1, 1, 1, 0, 1, 0, 1]);
 * k.dot1(0, 4, 2, 4, 20); // n is padded to 4 rows: room for them is kept
 * console.assert(k.f32()[20] === 10 && k.f32()[21] === 6);
 * ```
 *
 * @module
 */

/** Dot products over rows in one linear memory; offsets and sizes are in floats. */
export interface DotKernel {
  /** True when the WebAssembly SIMD path runs (false: plain TypeScript). */
  readonly simd: boolean;
  /** True when {@link dot1i8} and {@link dot4i8} exist (WebAssembly relaxed SIMD). */
  readonly int8: boolean;
  /** A float32 view of the whole memory (take a new one after {@link ensure}). */
  f32(): Float32Array;
  /** Bytes of memory now. */
  bytes(): number;
  /** Grows the memory to at least `bytes` (contents kept). */
  ensure(bytes: number): void;
  /**
   * `out[r] = q · row_r` for `r < n`, rows of `stride` floats from `base`.
   * `stride` is a multiple of 4; `n` is rounded up to a multiple of 4 (the
   * caller keeps room for the padding rows).
   */
  dot1(q: number, base: number, n: number, stride: number, out: number): void;
  /**
   * `out[4r + i] = q_i · row_r` for the four queries `q_i` at `q + i·stride`;
   * `n` is rounded up to a multiple of 2.
   */
  dot4(q: number, base: number, n: number, stride: number, out: number): void;
  /**
   * {@link dot1} over byte rows of values 0..127 with a signed byte query
   * (offsets and `stride` still in 4-byte units; `stride` a multiple of 4,
   * i.e. 16 bytes): exact integer sums, written as floats.
   */
  dot1i8(q: number, base: number, n: number, stride: number, out: number): void;
  /** {@link dot4} over byte rows of values 0..127, four signed byte queries. */
  dot4i8(q: number, base: number, n: number, stride: number, out: number): void;
  /**
   * Rows worth a closer look after {@link dot1}: writes to the int32 slots
   * from `rows` the indexes `r < n` with `(out[r] − params[3]) · inv[r] ·
   * params[0] + err[r] · params[2] ≥ params[1]` (float32) and returns how
   * many. `inv` and `err` hold one float per row.
   */
  select1(out: number, n: number, inv: number, params: number, rows: number, err: number): number;
  /**
   * The same after {@link dot4}: rows where any of the four lanes has
   * `(out[4r + i] − params[12 + i]) · params[i] · inv[r] + err[r] · params[8 + i]
   * ≥ params[4 + i]`.
   */
  select4(out: number, n: number, inv: number, params: number, rows: number, err: number): number;
}

/** Options of {@link createDotKernel}. */
export interface DotKernelOptions {
  /** Use WebAssembly SIMD when available (default true); false forces the TypeScript path. */
  simd?: boolean;
}

const PAGE = 65_536;

/**
 * A kernel with an empty memory: WebAssembly SIMD when the runtime has it,
 * else plain TypeScript with the same results up to float32 rounding order.
 */
export function createDotKernel(options: DotKernelOptions = {}): DotKernel {
  if (options.simd !== false) {
    try {
      return wasmKernel();
    } catch {
      // No WebAssembly or no SIMD: fall through.
    }
  }
  return jsKernel();
}

// ---------------------------------------------------------------------------
// WebAssembly: a tiny assembler for the two functions.
// ---------------------------------------------------------------------------

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && (b & 0x40))) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => [...uleb(s.length), ...new TextEncoder().encode(s)];

const I32 = 0x7f;
const V128 = 0x7b;
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const tee = (i: number) => [0x22, i];
const i32 = (n: number) => [0x41, ...sleb(n)];
const ADD = 0x6a;
const SUB = 0x6b;
const SHL = 0x74;
const MUL = 0x6c;
const LT_U = 0x49;
const GT_S = 0x4a;
const F32_ADD = 0x92;
const f32Store = (offset: number) => [0x38, 2, ...uleb(offset)];
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const load = (offset = 0) => simd(0x00, 4, ...uleb(offset)); // v128.load align=16
const zero = () => simd(0x0c, ...new Array(16).fill(0)); // v128.const 0
const lane = (i: number) => simd(0x1f, i); // f32x4.extract_lane
const MUL4 = simd(0xe6); // f32x4.mul
const ADD4 = simd(0xe4); // f32x4.add
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = [0x0b];
const brIf = (depth: number) => [0x0d, depth];
/** Horizontal sum of a v128 local as one f32 on the stack (i32 lanes converted in int8 mode). */
const hsum = (acc: number) => int8 ? hsumInt(acc) : hsumFloat(acc);
const hsumInt = (acc: number) => [
  ...get(acc),
  ...simd(0x1b, 0),
  ...get(acc),
  ...simd(0x1b, 1),
  ADD,
  ...get(acc),
  ...simd(0x1b, 2),
  ADD,
  ...get(acc),
  ...simd(0x1b, 3),
  ADD,
  0xb2, // f32.convert_i32_s
];
const hsumFloat = (acc: number) => [
  ...get(acc),
  ...lane(0),
  ...get(acc),
  ...lane(1),
  F32_ADD,
  ...get(acc),
  ...lane(2),
  F32_ADD,
  ...get(acc),
  ...lane(3),
  F32_ADD,
];
/**
 * `acc += a · b` for two v128 expressions: `f32x4.relaxed_madd` when `fused`
 * (one instruction, fused or not as the CPU does it: never less exact), else
 * a multiply then an add.
 */
let fused = false;
/**
 * Building the int8 variant: `acc` is i32x4, and `a` (a row) · `b` (the
 * query) goes through `i32x4.relaxed_dot_i8x16_i7x16_add_s` with the query
 * as its signed operand and the row as its 7-bit (0..127) one, the only
 * operand ranges whose result the instruction defines.
 */
let int8 = false;
const mac = (acc: number, a: number[], b: number[]) =>
  int8
    ? [...b, ...a, ...get(acc), ...simd(0x113), ...set(acc)]
    : fused
    ? [...a, ...b, ...get(acc), ...simd(0x105), ...set(acc)]
    : [...get(acc), ...a, ...b, ...MUL4, ...ADD4, ...set(acc)];
/** `acc += (ptr + j) * qv` with ptr an expression. */
const fma = (acc: number, ptr: number[], j: number, qv: number[]) =>
  mac(acc, [...ptr, ...get(j), ADD, ...load()], qv);

/** dot1(q, base, n, stride, out): params in bytes; four rows per iteration. */
function dot1Body(): number[] {
  const [Q, BASE, N, STRIDE, OUT, J, QV, A0, A1, A2, A3] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const row = (k: number) =>
    k === 0
      ? get(BASE)
      : k === 1
      ? [...get(BASE), ...get(STRIDE), ADD]
      : k === 2
      ? [...get(BASE), ...get(STRIDE), ...i32(1), SHL, ADD]
      : [...get(BASE), ...get(STRIDE), ...i32(3), MUL, ADD];
  const body = [
    ...BLOCK,
    ...get(N),
    ...i32(0),
    GT_S,
    0x45, // i32.eqz
    ...brIf(0),
    ...LOOP,
    ...zero(),
    ...set(A0),
    ...zero(),
    ...set(A1),
    ...zero(),
    ...set(A2),
    ...zero(),
    ...set(A3),
    ...i32(0),
    ...set(J),
    ...LOOP,
    ...get(Q),
    ...get(J),
    ADD,
    ...load(),
    ...set(QV),
    ...fma(A0, row(0), J, get(QV)),
    ...fma(A1, row(1), J, get(QV)),
    ...fma(A2, row(2), J, get(QV)),
    ...fma(A3, row(3), J, get(QV)),
    ...get(J),
    ...i32(16),
    ADD,
    ...tee(J),
    ...get(STRIDE),
    LT_U,
    ...brIf(0),
    ...END,
    ...get(OUT),
    ...hsum(A0),
    ...f32Store(0),
    ...get(OUT),
    ...hsum(A1),
    ...f32Store(4),
    ...get(OUT),
    ...hsum(A2),
    ...f32Store(8),
    ...get(OUT),
    ...hsum(A3),
    ...f32Store(12),
    ...get(OUT),
    ...i32(16),
    ADD,
    ...set(OUT),
    ...get(BASE),
    ...get(STRIDE),
    ...i32(2),
    SHL,
    ADD,
    ...set(BASE),
    ...get(N),
    ...i32(4),
    SUB,
    ...tee(N),
    ...i32(0),
    GT_S,
    ...brIf(0),
    ...END,
    ...END,
    ...END,
  ];
  return [...vec([[1, I32], [5, V128]]), ...body];
}

/** dot4(q, base, n, stride, out): four queries × two rows per iteration. */
function dot4Body(): number[] {
  const [Q, BASE, N, STRIDE, OUT, J, Q1, Q2, Q3, ROW1] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  // v128 locals: 10..13 query lanes, 14..21 accumulators (query i, row r) = 14 + 2i + r.
  const QV = (i: number) => 10 + i;
  const ACC = (i: number, r: number) => 14 + 2 * i + r;
  const R0 = 22;
  const R1 = 23;
  const qPtr = (i: number) => (i === 0 ? get(Q) : get(i === 1 ? Q1 : i === 2 ? Q2 : Q3));
  const inner: number[] = [];
  for (let i = 0; i < 4; i++) inner.push(...qPtr(i), ...get(J), ADD, ...load(), ...set(QV(i)));
  inner.push(...get(BASE), ...get(J), ADD, ...load(), ...set(R0));
  inner.push(...get(ROW1), ...get(J), ADD, ...load(), ...set(R1));
  for (let i = 0; i < 4; i++) {
    for (const [r, reg] of [[0, R0], [1, R1]] as const) {
      inner.push(...mac(ACC(i, r), get(reg), get(QV(i))));
    }
  }
  const resets: number[] = [];
  for (let i = 0; i < 4; i++) for (let r = 0; r < 2; r++) resets.push(...zero(), ...set(ACC(i, r)));
  const stores: number[] = [];
  for (let r = 0; r < 2; r++) {
    for (let i = 0; i < 4; i++) {
      stores.push(...get(OUT), ...hsum(ACC(i, r)), ...f32Store(16 * r + 4 * i));
    }
  }
  const body = [
    ...get(Q),
    ...get(STRIDE),
    ADD,
    ...set(Q1),
    ...get(Q1),
    ...get(STRIDE),
    ADD,
    ...set(Q2),
    ...get(Q2),
    ...get(STRIDE),
    ADD,
    ...set(Q3),
    ...BLOCK,
    ...get(N),
    ...i32(0),
    GT_S,
    0x45,
    ...brIf(0),
    ...LOOP,
    ...resets,
    ...get(BASE),
    ...get(STRIDE),
    ADD,
    ...set(ROW1),
    ...i32(0),
    ...set(J),
    ...LOOP,
    ...inner,
    ...get(J),
    ...i32(16),
    ADD,
    ...tee(J),
    ...get(STRIDE),
    LT_U,
    ...brIf(0),
    ...END,
    ...stores,
    ...get(OUT),
    ...i32(32),
    ADD,
    ...set(OUT),
    ...get(BASE),
    ...get(STRIDE),
    ...i32(1),
    SHL,
    ADD,
    ...set(BASE),
    ...get(N),
    ...i32(2),
    SUB,
    ...tee(N),
    ...i32(0),
    GT_S,
    ...brIf(0),
    ...END,
    ...END,
  ];
  return [...vec([[5, I32], [14, V128]]), ...body, ...END];
}

/**
 * select1/select4(out, n, inv, params, rows) → count. `lanes` 4: four scores
 * per row compared at once; 1: one score per row.
 */
function selectBody(lanes: 1 | 4): number[] {
  const [OUT, N, INV, PAR, ROWS, ERR, R, COUNT, SCALE, FLOOR, ERRS, OFF] = [
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
  ];
  const F32_LOAD = (offset: number) => [0x2a, 2, ...uleb(offset)];
  const test = lanes === 4
    ? [
      ...get(OUT),
      ...load(),
      ...get(OFF),
      ...simd(0xe5), // f32x4.sub
      ...get(SCALE),
      ...MUL4,
      ...get(INV),
      ...F32_LOAD(0),
      ...simd(0x13), // f32x4.splat
      ...MUL4,
      ...get(ERR),
      ...F32_LOAD(0),
      ...simd(0x13),
      ...get(ERRS),
      ...MUL4,
      ...ADD4,
      ...get(FLOOR),
      ...simd(0x46), // f32x4.ge
      ...simd(0x53), // v128.any_true
    ]
    : [
      ...get(OUT),
      ...F32_LOAD(0),
      ...get(PAR),
      ...F32_LOAD(12),
      0x93, // f32.sub
      ...get(INV),
      ...F32_LOAD(0),
      0x94, // f32.mul
      ...get(PAR),
      ...F32_LOAD(0),
      0x94,
      ...get(ERR),
      ...F32_LOAD(0),
      ...get(PAR),
      ...F32_LOAD(8),
      0x94,
      F32_ADD,
      ...get(PAR),
      ...F32_LOAD(4),
      0x60, // f32.ge
    ];
  const body = [
    ...(lanes === 4
      ? [
        ...get(PAR),
        ...load(),
        ...set(SCALE),
        ...get(PAR),
        ...load(16),
        ...set(FLOOR),
        ...get(PAR),
        ...load(32),
        ...set(ERRS),
        ...get(PAR),
        ...load(48),
        ...set(OFF),
      ]
      : []),
    ...BLOCK,
    ...get(N),
    ...i32(0),
    GT_S,
    0x45,
    ...brIf(0),
    ...LOOP,
    ...test,
    0x04,
    0x40, // if
    ...get(ROWS),
    ...get(COUNT),
    ...i32(2),
    SHL,
    ADD,
    ...get(R),
    0x36,
    2,
    0, // i32.store
    ...get(COUNT),
    ...i32(1),
    ADD,
    ...set(COUNT),
    ...END,
    ...get(OUT),
    ...i32(4 * lanes),
    ADD,
    ...set(OUT),
    ...get(INV),
    ...i32(4),
    ADD,
    ...set(INV),
    ...get(ERR),
    ...i32(4),
    ADD,
    ...set(ERR),
    ...get(R),
    ...i32(1),
    ADD,
    ...tee(R),
    ...get(N),
    LT_U,
    ...brIf(0),
    ...END,
    ...END,
    ...get(COUNT),
    ...END,
  ];
  return [...vec([[2, I32], [4, V128]]), ...body];
}

let compiled: WebAssembly.Module | undefined;

let relaxed = false;

/**
 * The kernel module: with relaxed SIMD (multiply-add, and int8 dot products)
 * when the runtime validates it, else plain SIMD without the int8 functions.
 */
function wasmModule(): WebAssembly.Module {
  if (compiled) return compiled;
  for (const withRelaxed of [true, false]) {
    relaxed = withRelaxed;
    try {
      compiled = assemble();
      return compiled;
    } catch (error) {
      if (!withRelaxed) throw error;
    }
  }
  throw new Error("unreachable");
}

function assemble(): WebAssembly.Module {
  fused = relaxed;
  const bodies = [dot1Body(), dot4Body(), selectBody(1), selectBody(4)];
  if (relaxed) {
    int8 = true;
    try {
      bodies.push(dot1Body(), dot4Body());
    } finally {
      int8 = false;
    }
  }
  const fn = (code: number[]) => [...uleb(code.length), ...code];
  const bytes = new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(
      1,
      vec([
        [0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0],
        [0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32]]), ...vec([[I32]])],
      ]),
    ),
    ...section(3, vec(relaxed ? [[0], [0], [1], [1], [0], [0]] : [[0], [0], [1], [1]])),
    ...section(5, vec([[0x00, ...uleb(1)]])),
    ...section(
      7,
      vec([
        [...name("dot1"), 0, 0],
        [...name("dot4"), 0, 1],
        [...name("select1"), 0, 2],
        [...name("select4"), 0, 3],
        ...(relaxed ? [[...name("dot1i8"), 0, 4], [...name("dot4i8"), 0, 5]] : []),
        [...name("memory"), 2, 0],
      ]),
    ),
    ...section(10, vec(bodies.map(fn))),
  ]);
  return new WebAssembly.Module(bytes);
}

type Dot = (q: number, base: number, n: number, stride: number, out: number) => void;
type Select = (
  out: number,
  n: number,
  inv: number,
  params: number,
  rows: number,
  err: number,
) => number;

function wasmKernel(): DotKernel {
  const instance = new WebAssembly.Instance(wasmModule());
  const memory = instance.exports.memory as WebAssembly.Memory;
  const dot1 = instance.exports.dot1 as Dot;
  const dot4 = instance.exports.dot4 as Dot;
  const select1 = instance.exports.select1 as Select;
  const select4 = instance.exports.select4 as Select;
  const dot1i8 = instance.exports.dot1i8 as Dot | undefined;
  const dot4i8 = instance.exports.dot4i8 as Dot | undefined;
  let view = new Float32Array(memory.buffer);
  const none = () => {
    throw new Error("int8 dot products need WebAssembly relaxed SIMD");
  };
  return {
    simd: true,
    int8: dot1i8 !== undefined,
    // Only `ensure` grows the memory (which detaches the old buffer), so the
    // view is renewed there and nowhere else: reading `memory.buffer` is slow.
    f32: () => view,
    bytes: () => view.byteLength,
    ensure(bytes) {
      const have = memory.buffer.byteLength;
      if (bytes > have) memory.grow(Math.ceil((bytes - have) / PAGE));
      if (view.buffer !== memory.buffer) view = new Float32Array(memory.buffer);
    },
    dot1: (q, base, n, stride, out) => dot1(q * 4, base * 4, n, stride * 4, out * 4),
    dot4: (q, base, n, stride, out) => dot4(q * 4, base * 4, n, stride * 4, out * 4),
    dot1i8: dot1i8
      ? (q, base, n, stride, out) => dot1i8(q * 4, base * 4, n, stride * 4, out * 4)
      : none,
    dot4i8: dot4i8
      ? (q, base, n, stride, out) => dot4i8(q * 4, base * 4, n, stride * 4, out * 4)
      : none,
    select1: (out, n, inv, params, rows, err) =>
      select1(out * 4, n, inv * 4, params * 4, rows * 4, err * 4),
    select4: (out, n, inv, params, rows, err) =>
      select4(out * 4, n, inv * 4, params * 4, rows * 4, err * 4),
  };
}

function jsKernel(): DotKernel {
  let buffer = new ArrayBuffer(PAGE);
  let view = new Float32Array(buffer);
  let ints = new Int32Array(buffer);
  const none = () => {
    throw new Error("int8 dot products need WebAssembly relaxed SIMD");
  };
  return {
    simd: false,
    int8: false,
    dot1i8: none,
    dot4i8: none,
    f32: () => view,
    bytes: () => buffer.byteLength,
    ensure(bytes) {
      if (bytes <= buffer.byteLength) return;
      const next = new ArrayBuffer(Math.ceil(bytes / PAGE) * PAGE);
      new Uint8Array(next).set(new Uint8Array(buffer));
      buffer = next;
      view = new Float32Array(buffer);
      ints = new Int32Array(buffer);
    },
    dot1(q, base, n, stride, out) {
      const f = view;
      const rows = Math.ceil(n / 4) * 4;
      for (let r = 0, o = base; r < rows; r++, o += stride) {
        let s = 0;
        for (let j = 0; j < stride; j++) s += f[q + j] * f[o + j];
        f[out + r] = s;
      }
    },
    dot4(q, base, n, stride, out) {
      const f = view;
      const rows = Math.ceil(n / 2) * 2;
      for (let r = 0, o = base; r < rows; r++, o += stride) {
        for (let i = 0; i < 4; i++) {
          const qi = q + i * stride;
          let s = 0;
          for (let j = 0; j < stride; j++) s += f[qi + j] * f[o + j];
          f[out + 4 * r + i] = s;
        }
      }
    },
    select1(out, n, inv, params, rows, err) {
      const f = view;
      const scale = f[params];
      const floor = f[params + 1];
      const errScale = f[params + 2];
      let count = 0;
      for (let r = 0; r < n; r++) {
        const s = Math.fround(
          Math.fround(Math.fround(f[out + r] - f[params + 3]) * f[inv + r]) * scale,
        );
        if (Math.fround(s + Math.fround(f[err + r] * errScale)) >= floor) {
          ints[rows + count++] = r;
        }
      }
      return count;
    },
    select4(out, n, inv, params, rows, err) {
      const f = view;
      let count = 0;
      for (let r = 0; r < n; r++) {
        for (let i = 0; i < 4; i++) {
          const d = Math.fround(f[out + 4 * r + i] - f[params + 12 + i]);
          const s = Math.fround(Math.fround(d * f[params + i]) * f[inv + r]);
          if (
            Math.fround(s + Math.fround(f[err + r] * f[params + 8 + i])) >= f[params + 4 + i]
          ) {
            ints[rows + count++] = r;
            break;
          }
        }
      }
      return count;
    },
  };
}
