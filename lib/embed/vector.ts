/**
 * Small vector helpers shared by the embedders and the ranking code: unit
 * normalisation that never produces NaN, and a cosine that treats the zero
 * vector (the mark of a text that could not be embedded) as unrelated to
 * everything.
 *
 * @module
 */

/**
 * Returns a unit-length copy of `values`, or an all-zero vector when the
 * input has no direction (zero norm) or holds a non-finite number. The zero
 * vector is how embedders mark a text they could not embed (for example an
 * empty string); {@link cosine} scores it 0 against anything.
 *
 * @example
 * ```ts
 * import { toUnitVector } from "./vector.ts";
 * const v = toUnitVector([3, 4]);
 * console.assert(Math.abs(v[0] - 0.6) < 1e-6 && Math.abs(v[1] - 0.8) < 1e-6);
 * console.assert(toUnitVector([NaN, 1]).every((x) => x === 0));
 * ```
 */
export function toUnitVector(values: ArrayLike<number>): Float32Array {
  const out = new Float32Array(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (!Number.isFinite(x)) return new Float32Array(values.length);
    sum += x * x;
  }
  const norm = Math.sqrt(sum);
  if (!(norm > 1e-12) || !Number.isFinite(norm)) return out;
  for (let i = 0; i < values.length; i++) out[i] = values[i] / norm;
  return out;
}

/**
 * True when every component is 0 (an embedder's "no vector" mark).
 *
 * @example
 * ```ts
 * import { isZeroVector } from "./vector.ts";
 * console.assert(isZeroVector(new Float32Array(4)) && !isZeroVector(new Float32Array([0, 1])));
 * ```
 */
export function isZeroVector(vector: ArrayLike<number>): boolean {
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) return false;
  return true;
}

/**
 * Cosine similarity in [-1, 1]; 0 when either vector is zero or the lengths
 * differ, never NaN.
 *
 * @example
 * ```ts
 * import { cosine } from "./vector.ts";
 * console.assert(cosine(new Float32Array([1, 0]), new Float32Array([1, 0])) === 1);
 * console.assert(cosine(new Float32Array([1, 0]), new Float32Array([0, 0])) === 0);
 * ```
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (!(na > 0) || !(nb > 0)) return 0;
  const value = dot / Math.sqrt(na * nb);
  if (!Number.isFinite(value)) return 0;
  return Math.max(-1, Math.min(1, value));
}
