import assert from "node:assert/strict";
import { BodyBuffer, SMALL_BODY_BYTES } from "./body_buffer.ts";

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

Deno.test("BodyBuffer: keeps bytes in order up to the limit, drops the rest", () => {
  const body = new BodyBuffer(10);
  assert.equal(body.push(bytes(4, 1)), true);
  assert.equal(body.push(bytes(6, 2)), true);
  // Exactly at the limit is not over it.
  assert.equal(body.full, false);
  assert.equal(body.push(bytes(1, 3)), false);
  assert.equal(body.full, true);
  assert.equal(body.push(bytes(5, 4)), false);
  assert.deepEqual([...body.bytes()], [1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
  assert.equal(body.size, 10);
});

Deno.test("BodyBuffer: a small body is joined once, exactly sized", () => {
  const body = new BodyBuffer(1_000_000);
  for (let i = 0; i < 10; i++) body.push(bytes(1000, i));
  const out = body.bytes();
  assert.equal(out.length, 10_000);
  assert.equal(out.buffer.byteLength, 10_000);
  assert.equal(out[9_999], 9);
  assert.equal(body.bytes(), out);
});

Deno.test("BodyBuffer: a large body is written into one buffer no larger than the limit, never copied whole", () => {
  const limit = 3 * SMALL_BODY_BYTES;
  const body = new BodyBuffer(limit);
  const chunk = 65_536;
  let pushed = 0;
  let n = 0;
  while (body.push(bytes(chunk, n++ % 251))) pushed += chunk;
  assert.equal(body.full, true);
  assert.equal(body.size, limit);
  const out = body.bytes();
  assert.equal(out.length, limit);
  // One allocation holds the body (no list of chunks beside it, no final copy).
  assert.ok(out.buffer.byteLength <= limit);
  assert.equal(body.bytes().buffer, out.buffer);
  for (let i = 0; i < limit; i += chunk) assert.equal(out[i], (i / chunk) % 251, `chunk at ${i}`);
  assert.ok(pushed >= limit - chunk);
});

Deno.test("BodyBuffer: the declared length sizes the buffer; a longer body still fits the limit", () => {
  const declared = 2 * SMALL_BODY_BYTES;
  const exact = new BodyBuffer(10 * SMALL_BODY_BYTES, declared);
  for (let at = 0; at < declared; at += 100_000) {
    exact.push(bytes(Math.min(100_000, declared - at), 7));
  }
  assert.equal(exact.bytes().length, declared);
  assert.equal(exact.bytes().buffer.byteLength, declared);

  // The server sent more than it declared: the buffer grows (to the limit), nothing is lost.
  const half = SMALL_BODY_BYTES / 2;
  const liar = new BodyBuffer(16 * SMALL_BODY_BYTES, SMALL_BODY_BYTES + 1);
  for (let i = 0; i < 30; i++) liar.push(bytes(half, i));
  const out = liar.bytes();
  assert.equal(out.length, 30 * half);
  assert.equal(out[30 * half - 1], 29);
  assert.equal(out[11 * half], 11);
  assert.ok(out.buffer.byteLength <= 16 * SMALL_BODY_BYTES);
});
