import assert from "node:assert/strict";
import { createDotKernel } from "./dot_kernel.ts";
import { rng } from "../testdata/rng.ts";

function fill(kernel: ReturnType<typeof createDotKernel>, floats: number, seed: number) {
  kernel.ensure(floats * 4);
  const f = kernel.f32();
  const r = rng(seed);
  for (let i = 0; i < floats; i++) f[i] = r() * 2 - 1;
  return f;
}

for (const simd of [true, false]) {
  Deno.test(`dot kernel (${simd ? "WebAssembly SIMD" : "TypeScript"}) matches float64 dot products`, () => {
    const kernel = createDotKernel({ simd });
    if (simd) assert.equal(kernel.simd, true, "WebAssembly SIMD is available in Deno");
    for (const [stride, n] of [[4, 1], [8, 3], [100, 37], [384, 10], [12, 4]]) {
      const q = 0;
      const base = 4 * stride;
      const out = base + (n + 4) * stride;
      const f = fill(kernel, out + 4 * (n + 4), stride * 1000 + n);
      const exact = (qi: number, r: number) => {
        let s = 0;
        for (let j = 0; j < stride; j++) s += f[q + qi * stride + j] * f[base + r * stride + j];
        return s;
      };
      kernel.dot1(q, base, n, stride, out);
      for (let r = 0; r < n; r++) {
        assert.ok(
          Math.abs(kernel.f32()[out + r] - exact(0, r)) < 1e-4,
          `dot1 ${stride}×${n} row ${r}`,
        );
      }
      kernel.dot4(q, base, n, stride, out);
      for (let r = 0; r < n; r++) {
        for (let i = 0; i < 4; i++) {
          const got = kernel.f32()[out + 4 * r + i];
          assert.ok(Math.abs(got - exact(i, r)) < 1e-4, `dot4 ${stride}×${n} row ${r} query ${i}`);
        }
      }
    }
  });
}

Deno.test("dot kernel memory grows and keeps its contents", () => {
  const kernel = createDotKernel();
  kernel.ensure(16);
  kernel.f32()[3] = 1.5;
  kernel.ensure(10 * 65_536);
  assert.ok(kernel.bytes() >= 10 * 65_536);
  assert.equal(kernel.f32()[3], 1.5);
});

for (const simd of [true, false]) {
  Deno.test(`dot kernel (${simd ? "WebAssembly SIMD" : "TypeScript"}) selects the rows at or above a floor`, () => {
    const kernel = createDotKernel({ simd });
    const n = 203;
    const [out, inv, err, params, rows] = [0, 1024, 1280, 1536, 1552];
    const f = fill(kernel, rows + 256, 5);
    for (let r = 0; r < n; r++) f[inv + r] = 0.5 + (r % 7) / 7;
    for (let r = 0; r < n; r++) f[err + r] = (r % 5) / 50;
    const ints = () => new Int32Array(kernel.f32().buffer);
    f.set([1.5, 0.8, 2, 0.1], params);
    const one = kernel.select1(out, n, inv, params, rows, err);
    const want1 = [];
    for (let r = 0; r < n; r++) {
      if ((f[out + r] - 0.1) * f[inv + r] * 1.5 + f[err + r] * 2 >= 0.8) want1.push(r);
    }
    assert.deepEqual([...ints().subarray(rows, rows + one)], want1);
    f.set([1, 2, 0.5, 1, 0.3, 0.9, Infinity, -0.2, 0, 1, 3, 0, 0, 0.2, 0, -0.1], params);
    const four = kernel.select4(out, n, inv, params, rows, err);
    const want4 = [];
    for (let r = 0; r < n; r++) {
      const lane = (i: number) =>
        (f[out + 4 * r + i] - f[params + 12 + i]) * f[params + i] * f[inv + r] +
        f[err + r] * f[params + 8 + i];
      if ([0, 1, 2, 3].some((i) => lane(i) >= f[params + 4 + i])) want4.push(r);
    }
    assert.ok(want4.length > 0 && want4.length < n);
    assert.deepEqual([...ints().subarray(rows, rows + four)], want4);
  });
}

Deno.test("dot kernel: int8 dot products are exact integer sums", () => {
  const kernel = createDotKernel();
  assert.equal(kernel.int8, true, "Deno has WebAssembly relaxed SIMD");
  const r = rng(3);
  for (const [bytes, n] of [[16, 1], [112, 37], [32, 5]]) {
    const stride = bytes / 4;
    const q = 0;
    const base = 4 * stride;
    const out = base + (n + 4) * stride;
    kernel.ensure((out + 4 * (n + 4)) * 4);
    const i8 = new Int8Array(kernel.f32().buffer);
    // Queries signed, rows 0..127 (the operand ranges the relaxed instruction defines).
    for (let i = 0; i < 4 * bytes; i++) i8[q * 4 + i] = Math.round(r() * 254) - 127;
    for (let i = 0; i < (n + 4) * bytes; i++) i8[base * 4 + i] = Math.round(r() * 127);
    const exact = (qi: number, row: number) => {
      let s = 0;
      for (let j = 0; j < bytes; j++) {
        s += i8[q * 4 + qi * bytes + j] * i8[base * 4 + row * bytes + j];
      }
      return s;
    };
    kernel.dot1i8(q, base, n, stride, out);
    for (let row = 0; row < n; row++) assert.equal(kernel.f32()[out + row], exact(0, row));
    kernel.dot4i8(q, base, n, stride, out);
    for (let row = 0; row < n; row++) {
      for (let i = 0; i < 4; i++) assert.equal(kernel.f32()[out + 4 * row + i], exact(i, row));
    }
  }
  assert.throws(() => createDotKernel({ simd: false }).dot1i8(0, 0, 0, 4, 0));
});
