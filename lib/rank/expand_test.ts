import assert from "node:assert/strict";
import { createQueryExpander, expansionSpace, loadQueryExpander, vocabularyOf } from "./expand.ts";
import {
  buildNeighbourTable,
  decodeNeighbourTable,
  encodeNeighbourTable,
  NO_NEIGHBOUR,
} from "./neighbours.ts";
import { bm25Rank } from "./bm25.ts";
import { rankUnits } from "./mod.ts";
import { chunkMarkdown } from "../text/chunk.ts";
import { staticModelDir } from "../embed/static.ts";
import { readStaticModel } from "../embed/static_fast.ts";

const UNITS = [
  "The vehicle was parked outside the bakery all night.",
  "Bread dough rises because yeast produces carbon dioxide.",
  "Tides are caused by the pull of the Moon.",
];

Deno.test("the shipped model's expansion finds a unit BM25 alone cannot", async () => {
  const expander = await loadQueryExpander();
  const extra = expander.expand("Where did they leave the car?");
  assert.ok(extra.has("vehicle") || extra.has("truck"), [...extra.keys()].join(" "));
  assert.ok(!extra.has("car"), "the query's own words are not added again");
  assert.deepEqual(bm25Rank("Where did they leave the car?", UNITS), []);
  const order = bm25Rank("Where did they leave the car?", UNITS, { expansion: extra });
  assert.equal(UNITS[order[0]], UNITS[0]);
});

Deno.test("rankUnits passes the expansion to BM25 and keeps the units' text", async () => {
  const units = chunkMarkdown(UNITS.join("\n\n"), { minWords: 1, maxWords: 12 });
  const plain = await rankUnits("physician advice", units);
  assert.equal(plain.ranked.length, 0);
  const expander = await loadQueryExpander();
  const doc = chunkMarkdown(
    "The doctor said to rest for a week.\n\nThe bakery opens at six.",
    { minWords: 1, maxWords: 12 },
  );
  const expanded = await rankUnits("physician advice", doc, {
    expansion: expander.expand("physician advice"),
  });
  assert.equal(expanded.ranking, "bm25");
  assert.equal(expanded.ranked[0].unit.text, "The doctor said to rest for a week.");
});

Deno.test("shipped neighbours.bin matches a scan of the shipped model", async () => {
  const dir = staticModelDir();
  const { table, tokenizer } = await readStaticModel(dir);
  const vocabulary = vocabularyOf(tokenizer, table.rows);
  const lists = decodeNeighbourTable(await Deno.readFile(`${dir}/neighbours.bin`));
  const { space, index } = expansionSpace(table, vocabulary);
  assert.equal(lists.rows, space.rows);
  // Every 300th eligible word: the stored list is the scan's.
  let checked = 0;
  for (const [word, row] of index) {
    if (row % 300 !== 0 || !space.isEligible(row)) continue;
    const scanned = space.nearest(row, lists.k, lists.minSimilarity).map(([r]) => r);
    const stored = [...lists.ids.subarray(row * lists.k, (row + 1) * lists.k)]
      .filter((id) => id !== NO_NEIGHBOUR);
    assert.deepEqual(stored, scanned, word);
    checked++;
  }
  assert.ok(checked > 50);
});

Deno.test("precomputed lists and the scan give the same expansion", () => {
  const table = {
    rows: 5,
    dims: 2,
    table: new Float32Array([1, 0, 0.9, 0.1, 0, 1, 0.95, 0, 0.1, 0.9]),
  };
  const vocabulary = ["car", "automobile", "banana", "vehicle", "fruit"];
  const scan = createQueryExpander(table, vocabulary, { neighbours: 2 });
  const { space } = expansionSpace(table, vocabulary);
  const precomputed = decodeNeighbourTable(
    encodeNeighbourTable(buildNeighbourTable(space, 3, 0.3)),
  );
  const lookup = createQueryExpander(table, vocabulary, { neighbours: 2, precomputed });
  for (const q of ["red car", "ripe banana", "nothing known"]) {
    assert.deepEqual([...lookup.expand(q)], [...scan.expand(q)], q);
  }
  assert.deepEqual([...scan.expand("ripe banana").keys()], ["fruit"]);
  // Lists built for fewer neighbours than asked are not used: the scan answers.
  const short = decodeNeighbourTable(encodeNeighbourTable(buildNeighbourTable(space, 1, 0.3)));
  const fallback = createQueryExpander(table, vocabulary, { neighbours: 2, precomputed: short });
  assert.equal(fallback.expand("red car").size, 2);
});

Deno.test("a floor above the lists' own is checked against the table", () => {
  const table = {
    rows: 3,
    dims: 2,
    table: new Float32Array([1, 0, 0.99, 0.14, 0.6, 0.8]),
  };
  const vocabulary = ["car", "vehicle", "road"];
  const { space } = expansionSpace(table, vocabulary);
  const precomputed = buildNeighbourTable(space, 2, 0.3);
  const strict = createQueryExpander(table, vocabulary, { minSimilarity: 0.9, precomputed });
  assert.deepEqual([...strict.expand("car").keys()], ["vehicle"]);
  const loose = createQueryExpander(table, vocabulary, { minSimilarity: 0.3, precomputed });
  assert.deepEqual([...loose.expand("car").keys()], ["vehicle", "road"]);
});

Deno.test("weight, zero neighbours and stopwords", () => {
  const table = { rows: 3, dims: 2, table: new Float32Array([1, 0, 0.99, 0.01, 0.98, 0.02]) };
  const vocabulary = ["car", "the", "vehicle"];
  assert.deepEqual(
    [...createQueryExpander(table, vocabulary, { weight: 0.5 }).expand("car")],
    [["vehicle", 0.5]],
  );
  assert.equal(createQueryExpander(table, vocabulary, { neighbours: 0 }).expand("car").size, 0);
});

Deno.test("a damaged neighbours.bin is refused", () => {
  const table = { k: 1, minSimilarity: 0.5, rows: 2, ids: new Uint16Array([1, 0]) };
  const bytes = encodeNeighbourTable(table);
  assert.throws(() => decodeNeighbourTable(bytes.subarray(0, bytes.length - 1)), /truncated/);
  assert.throws(() => decodeNeighbourTable(new Uint8Array(20)), /not a neighbours.bin/);
  const back = decodeNeighbourTable(bytes);
  assert.deepEqual([...back.ids], [1, 0]);
  assert.equal(back.k, 1);
  assert.ok(Math.abs(back.minSimilarity - 0.5) < 1e-6);
});

Deno.test("numbers neither bring nor become expansion words", async () => {
  const expander = await loadQueryExpander();
  const extra = expander.expand("What changed for browsers in 2019?");
  assert.ok(extra.size > 0);
  for (const word of extra.keys()) assert.match(word, /^\p{L}+$/u);
  assert.equal(expander.expand("2019 1999").size, 0);
});
