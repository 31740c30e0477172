import assert from "node:assert/strict";
import { cosine, dedupe, jaccard, tokenSet } from "./dedupe.ts";

const PARAGRAPH =
  "The city council approved the new budget on Tuesday, allocating 4.2 million dollars " +
  "to road repairs and 1.1 million dollars to public libraries over the next two years.";

Deno.test("dedupe: two syndicated copies of one paragraph keep the higher-ranked one", () => {
  const items = [
    { id: "wire", text: PARAGRAPH },
    { id: "other", text: "Library hours will be extended on weekends starting in March." },
    { id: "syndicated", text: `${PARAGRAPH.replace("Tuesday,", "Tuesday")} ` },
    { id: "copy-with-credit", text: `(AP) — ${PARAGRAPH}` },
  ];
  const kept = dedupe(items, { text: (i) => i.text });
  assert.deepEqual(kept.map((i) => i.id), ["wire", "other"]);
  assert.ok(jaccard(tokenSet(items[0].text), tokenSet(items[3].text)) >= 0.92);
});

Deno.test("dedupe: paraphrases are dropped by cosine only when vectors are given", () => {
  const items = [
    { text: "Tides are caused by the Moon.", v: new Float32Array([1, 0.1, 0]) },
    { text: "The Moon's gravity produces the tides.", v: new Float32Array([0.98, 0.12, 0.01]) },
    { text: "Bread needs yeast.", v: new Float32Array([0, 0, 1]) },
  ];
  assert.equal(dedupe(items, { text: (i) => i.text }).length, 3);
  const kept = dedupe(items, { text: (i) => i.text, vector: (i) => i.v });
  assert.deepEqual(kept.map((i) => i.text), [items[0].text, items[2].text]);
});

Deno.test("cosine: guards zero, NaN and mismatched vectors", () => {
  assert.equal(cosine(new Float32Array([0, 0]), new Float32Array([1, 0])), 0);
  assert.equal(cosine(new Float32Array([NaN, 1]), new Float32Array([1, 0])), 0);
  assert.equal(cosine(new Float32Array([1]), new Float32Array([1, 0])), 0);
  assert.equal(cosine(undefined, new Float32Array([1])), 0);
});
