/**
 * The numeric part of the distillation (`distill_static_model.ts`): PCA of the
 * teacher's vectors, the projection onto its main directions, and the Adam
 * fit of the token table on the cosine loss. Plain TypeScript over typed
 * arrays, no model files and no packages, so its tests run anywhere.
 *
 * @module
 */
import { rng, shuffle } from "../lib/memory/testdata/rng.ts";

/** A progress line on stderr. */
export function say(message: string) {
  Deno.stderr.writeSync(new TextEncoder().encode(message + "\n"));
}

// ------------------------------------------------------------------ PCA

/** Mean and covariance (float64) of `n` rows of `dim` in `data`. */
export function meanAndCovariance(
  data: Float32Array,
  n: number,
  dim: number,
): { mean: Float64Array; cov: Float64Array } {
  const mean = new Float64Array(dim);
  for (let r = 0; r < n; r++) for (let d = 0; d < dim; d++) mean[d] += data[r * dim + d];
  for (let d = 0; d < dim; d++) mean[d] /= n;
  const cov = new Float64Array(dim * dim);
  const x = new Float64Array(dim);
  for (let r = 0; r < n; r++) {
    for (let d = 0; d < dim; d++) x[d] = data[r * dim + d] - mean[d];
    for (let i = 0; i < dim; i++) {
      const xi = x[i];
      const row = i * dim;
      for (let j = i; j < dim; j++) cov[row + j] += xi * x[j];
    }
  }
  for (let i = 0; i < dim; i++) {
    for (let j = i; j < dim; j++) {
      cov[i * dim + j] /= n;
      cov[j * dim + i] = cov[i * dim + j];
    }
  }
  return { mean, cov };
}

/** Orthonormalises the `k` columns of `q` (`dim × k`, column-major) in place. */
function orthonormalise(q: Float64Array, dim: number, k: number) {
  for (let c = 0; c < k; c++) {
    const col = q.subarray(c * dim, (c + 1) * dim);
    for (let p = 0; p < c; p++) {
      const prev = q.subarray(p * dim, (p + 1) * dim);
      let dot = 0;
      for (let d = 0; d < dim; d++) dot += col[d] * prev[d];
      for (let d = 0; d < dim; d++) col[d] -= dot * prev[d];
    }
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += col[d] * col[d];
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dim; d++) col[d] /= norm;
  }
}

/**
 * The top `k` principal directions of a covariance (`dim × dim`) by subspace
 * iteration, sorted by variance; returns them column-major with their variances.
 */
export function principalDirections(
  cov: Float64Array,
  dim: number,
  k: number,
  seed: number,
): { basis: Float64Array; variances: Float64Array } {
  const random = rng(seed);
  let q = new Float64Array(dim * k);
  for (let i = 0; i < q.length; i++) q[i] = random() - 0.5;
  orthonormalise(q, dim, k);
  for (let iter = 0; iter < 150; iter++) {
    const next = new Float64Array(dim * k);
    for (let c = 0; c < k; c++) {
      const col = q.subarray(c * dim, (c + 1) * dim);
      for (let i = 0; i < dim; i++) {
        let s = 0;
        const row = i * dim;
        for (let j = 0; j < dim; j++) s += cov[row + j] * col[j];
        next[c * dim + i] = s;
      }
    }
    orthonormalise(next, dim, k);
    q = next;
  }
  const variances = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    const col = q.subarray(c * dim, (c + 1) * dim);
    let v = 0;
    for (let i = 0; i < dim; i++) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += cov[i * dim + j] * col[j];
      v += col[i] * s;
    }
    variances[c] = v;
  }
  const order = [...variances.keys()].sort((a, b) => variances[b] - variances[a]);
  const basis = new Float64Array(dim * k);
  order.forEach((from, to) => basis.set(q.subarray(from * dim, (from + 1) * dim), to * dim));
  return { basis, variances: Float64Array.from(order.map((i) => variances[i])) };
}

/** Projects `n` rows of `data` (minus `mean`) onto `basis`: `n × k` float32. */
export function project(
  data: Float32Array,
  n: number,
  dim: number,
  mean: Float64Array,
  basis: Float64Array,
  k: number,
): Float32Array {
  const out = new Float32Array(n * k);
  const x = new Float64Array(dim);
  for (let r = 0; r < n; r++) {
    for (let d = 0; d < dim; d++) x[d] = data[r * dim + d] - mean[d];
    for (let c = 0; c < k; c++) {
      let s = 0;
      const col = c * dim;
      for (let d = 0; d < dim; d++) s += x[d] * basis[col + d];
      out[r * k + c] = s;
    }
  }
  return out;
}

// ------------------------------------------------------------------ fit

/** Training texts as token ids (words only) and their projected, unit teacher vectors. */
export interface Examples {
  ids: Int32Array[];
  targets: Float32Array;
  /** Weight of each example in the loss (default 1). */
  weights?: Float32Array;
}

/** Mean of `1 - cos(Σ rows, target)` over `examples` (rows `k` wide). */
export function meanLoss(table: Float32Array, k: number, examples: Examples): number {
  if (examples.ids.length === 0) return NaN;
  const sum = new Float64Array(k);
  let total = 0;
  examples.ids.forEach((ids, e) => {
    sum.fill(0);
    for (const id of ids) for (let d = 0; d < k; d++) sum[d] += table[id * k + d];
    let dot = 0, norm = 0;
    for (let d = 0; d < k; d++) {
      dot += sum[d] * examples.targets[e * k + d];
      norm += sum[d] * sum[d];
    }
    total += 1 - (norm > 0 ? dot / Math.sqrt(norm) : 0);
  });
  return total / examples.ids.length;
}

/**
 * Fits the rows with Adam (lazy: only the rows a batch touches move) on the
 * cosine loss; returns the table of the epoch with the best held-out loss and
 * the loss per epoch.
 */
export function fit(
  table: Float32Array,
  k: number,
  train: Examples,
  held: Examples,
  options: { epochs: number; lr: number; seed: number; frozen: Set<number>; report: Examples },
): { best: Float32Array; losses: { epoch: number; train: number; held: number }[] } {
  const beta1 = 0.9, beta2 = 0.999, eps = 1e-8, batchSize = 64;
  const m = new Float32Array(table.length);
  const v = new Float32Array(table.length);
  const grad = new Float32Array(table.length);
  const touched = new Uint8Array(table.length / k);
  const random = rng(options.seed);
  const order = [...train.ids.keys()];
  const losses = [{
    epoch: 0,
    train: meanLoss(table, k, options.report),
    held: meanLoss(table, k, held),
  }];
  say(`epoch 0: train ${losses[0].train.toFixed(4)} held-out ${losses[0].held.toFixed(4)}`);
  let best = table.slice();
  let bestHeld = losses[0].held;
  let step = 0;
  const sum = new Float64Array(k);
  const g = new Float64Array(k);
  for (let epoch = 1; epoch <= options.epochs; epoch++) {
    shuffle(random, order);
    for (let start = 0; start < order.length; start += batchSize) {
      const rows: number[] = [];
      const end = Math.min(order.length, start + batchSize);
      for (let b = start; b < end; b++) {
        const e = order[b];
        const ids = train.ids[e];
        sum.fill(0);
        for (const id of ids) for (let d = 0; d < k; d++) sum[d] += table[id * k + d];
        let norm = 0, dot = 0;
        for (let d = 0; d < k; d++) {
          norm += sum[d] * sum[d];
          dot += sum[d] * train.targets[e * k + d];
        }
        norm = Math.sqrt(norm);
        if (norm === 0) continue;
        const c = dot / norm;
        // d(1 - cos)/dS = -(t - c·Ŝ) / |S|, t unit.
        for (let d = 0; d < k; d++) {
          g[d] = -(train.targets[e * k + d] - c * sum[d] / norm) / norm / (end - start) *
            (train.weights?.[e] ?? 1);
        }
        for (const id of ids) {
          if (options.frozen.has(id)) continue;
          if (!touched[id]) {
            touched[id] = 1;
            rows.push(id);
          }
          for (let d = 0; d < k; d++) grad[id * k + d] += g[d];
        }
      }
      step++;
      const lrT = options.lr * Math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step);
      for (const id of rows) {
        touched[id] = 0;
        for (let d = id * k, stop = id * k + k; d < stop; d++) {
          const gd = grad[d];
          grad[d] = 0;
          m[d] = beta1 * m[d] + (1 - beta1) * gd;
          v[d] = beta2 * v[d] + (1 - beta2) * gd * gd;
          table[d] -= lrT * m[d] / (Math.sqrt(v[d]) + eps);
        }
      }
    }
    const entry = {
      epoch,
      train: meanLoss(table, k, options.report),
      held: meanLoss(table, k, held),
    };
    losses.push(entry);
    say(`epoch ${epoch}: train ${entry.train.toFixed(4)} held-out ${entry.held.toFixed(4)}`);
    if (entry.held < bestHeld) {
      bestHeld = entry.held;
      best = table.slice();
    }
  }
  return { best, losses };
}
