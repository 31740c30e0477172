import assert from "node:assert/strict";
import { DECODE_SLICE_BYTES, htmlBytesNeeded, htmlTextSlices } from "./body.ts";

/** Joined slices, and how many there were. */
function decodeInSlices(bytes: Uint8Array, charset: string, maxChars = 10_000_000) {
  const { cut, slices } = htmlTextSlices(bytes, charset, maxChars);
  const parts = [...slices];
  return { text: parts.join(""), parts: parts.length, cut };
}

/** `bytes` with `insert` written so that it straddles every slice boundary in turn. */
function straddling(insert: number[], offset: number): Uint8Array {
  const bytes = new Uint8Array(DECODE_SLICE_BYTES * 3 + 17).fill(0x61); // "a"
  for (const boundary of [DECODE_SLICE_BYTES, DECODE_SLICE_BYTES * 2]) {
    bytes.set(insert, boundary - offset);
  }
  return bytes;
}

Deno.test("htmlTextSlices: UTF-8 characters across a slice boundary decode as in the whole", () => {
  const sequences = [
    [0xc3, 0xa9], // é
    [0xe2, 0x82, 0xac], // €
    [0xf0, 0x9f, 0x98, 0x80], // 😀
  ];
  for (const sequence of sequences) {
    for (let offset = 0; offset <= sequence.length; offset++) {
      const bytes = straddling(sequence, offset);
      const { text, parts } = decodeInSlices(bytes, "utf-8");
      assert.equal(text, new TextDecoder().decode(bytes), `${sequence} at -${offset}`);
      assert(parts >= 3);
      assert(!text.includes("\ufffd"));
    }
  }
});

Deno.test("htmlTextSlices: broken UTF-8 at a boundary gives the replacement characters of the whole", () => {
  const broken = [
    [0xe2, 0x82, 0x41], // a sequence cut short by "A"
    [0x80, 0x80, 0x80, 0x80, 0x80], // stray continuation bytes
    [0xf0, 0x9f, 0x98], // a truncated four-byte sequence
    [0xed, 0xa0, 0x80], // an encoded surrogate
  ];
  for (const sequence of broken) {
    for (let offset = 0; offset <= sequence.length; offset++) {
      const bytes = straddling(sequence, offset);
      assert.equal(
        decodeInSlices(bytes, "utf-8").text,
        new TextDecoder().decode(bytes),
        `${sequence} at -${offset}`,
      );
    }
  }
});

Deno.test("htmlTextSlices: a byte order mark is dropped at the start only", () => {
  const bom = [0xef, 0xbb, 0xbf];
  const bytes = straddling(bom, 0);
  bytes.set(bom, 0);
  const { text } = decodeInSlices(bytes, "utf-8");
  assert.equal(text, new TextDecoder().decode(bytes));
  assert.equal(text.split("\ufeff").length, 3); // the two inside are kept
  assert(!text.startsWith("\ufeff"));
});

Deno.test("htmlTextSlices: legacy encodings decode as in the whole", () => {
  // Shift_JIS "日本" (two bytes each) across the boundary; windows-1252 "é" anywhere.
  for (
    const [charset, sequence] of [["shift_jis", [0x93, 0xfa, 0x96, 0x7b]], [
      "windows-1252",
      [0xe9, 0xe9],
    ]] as const
  ) {
    for (let offset = 0; offset <= sequence.length; offset++) {
      const bytes = straddling([...sequence], offset);
      const { text } = decodeInSlices(bytes, charset);
      assert.equal(text, new TextDecoder(charset).decode(bytes), `${charset} at -${offset}`);
      assert(!text.includes("\ufffd"));
    }
  }
});

Deno.test("htmlTextSlices: unknown charsets decode as UTF-8 and the cut follows htmlBytesNeeded", () => {
  const bytes = new TextEncoder().encode("é".repeat(DECODE_SLICE_BYTES));
  const { text, cut } = decodeInSlices(bytes, "no-such-charset", 100_000);
  assert(cut);
  assert.equal(
    text,
    new TextDecoder().decode(bytes.subarray(0, htmlBytesNeeded(bytes.length, 100_000))),
  );
});
