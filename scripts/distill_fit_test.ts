import assert from "node:assert/strict";
import { type Examples, fit, meanLoss, principalDirections } from "./distill_fit.ts";
import { rng } from "../lib/memory/testdata/rng.ts";

Deno.test("distil: PCA finds the directions of largest variance, largest first", () => {
  // Diagonal covariance in a rotated basis: variances 9, 4, 1 along e2, e0, e1.
  const dim = 3;
  const cov = new Float64Array(dim * dim);
  cov[2 * dim + 2] = 9;
  cov[0] = 4;
  cov[1 * dim + 1] = 1;
  const { basis, variances } = principalDirections(cov, dim, 2, 1);
  assert.ok(Math.abs(variances[0] - 9) < 1e-9 && Math.abs(variances[1] - 4) < 1e-9);
  assert.ok(Math.abs(Math.abs(basis[2]) - 1) < 1e-9, "first direction is e2");
  assert.ok(Math.abs(Math.abs(basis[dim + 0]) - 1) < 1e-9, "second direction is e0");
});

Deno.test("distil: Adam on the cosine loss recovers rows whose sums match the targets", () => {
  const k = 8, vocab = 40, random = rng(3);
  const truth = new Float32Array(vocab * k).map(() => random() - 0.5);
  const make = (n: number): Examples => {
    const ids: Int32Array[] = [];
    const targets = new Float32Array(n * k);
    for (let e = 0; e < n; e++) {
      const row = Int32Array.from(
        { length: 3 + Math.floor(random() * 4) },
        () => Math.floor(random() * vocab),
      );
      ids.push(row);
      let norm = 0;
      for (let d = 0; d < k; d++) {
        for (const id of row) targets[e * k + d] += truth[id * k + d];
        norm += targets[e * k + d] ** 2;
      }
      for (let d = 0; d < k; d++) targets[e * k + d] /= Math.sqrt(norm);
    }
    return { ids, targets };
  };
  const train = make(600), held = make(100);
  // A poor start: the true rows drowned in noise.
  const start = truth.map((x) => x * 0.2 + (random() - 0.5));
  const before = meanLoss(start, k, held);
  const { best, losses } = fit(start.slice(), k, train, held, {
    epochs: 30,
    lr: 0.01,
    seed: 1,
    frozen: new Set(),
    report: train,
  });
  const after = meanLoss(best, k, held);
  assert.equal(losses[0].held, before);
  assert.ok(after < before / 4, `held-out loss ${before} -> ${after}`);
  assert.ok(after < 0.05, `held-out loss ${after}`);
});
