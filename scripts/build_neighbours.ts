/**
 * Writes `neighbours.bin` beside a static model: for every vocabulary word,
 * its nearest words (cosine over the model's rows) that query expansion may
 * add, so that expansion at run time is a lookup. The lists cover the
 * default `rank.expand_terms` (8) and `rank.expand_min_similarity` (0.4);
 * other settings fall back to a scan of the rows.
 *
 * Run: `deno run --allow-read --allow-write scripts/build_neighbours.ts [model dir]`
 * (default `models/static`). Takes about a minute; the output is the same on
 * every run.
 *
 * @module
 */
import { expansionSpace, vocabularyOf } from "../lib/rank/expand.ts";
import { readStaticModel } from "../lib/embed/static_fast.ts";
import { buildNeighbourTable, encodeNeighbourTable } from "../lib/rank/neighbours.ts";

/** Neighbours kept per word. */
export const NEIGHBOURS = 8;
/** Least similarity kept. */
export const MIN_SIMILARITY = 0.4;

/**
 * Computes the neighbour lists of the static model in `dir` and writes
 * `dir/neighbours.bin`; returns the bytes written.
 */
export async function writeNeighbourLists(dir: string): Promise<Uint8Array> {
  const { table, tokenizer } = await readStaticModel(dir);
  const vocabulary = vocabularyOf(tokenizer, table.rows);
  const lists = buildNeighbourTable(
    expansionSpace(table, vocabulary).space,
    NEIGHBOURS,
    MIN_SIMILARITY,
  );
  const bytes = encodeNeighbourTable(lists);
  await Deno.writeFile(`${dir}/neighbours.bin`, bytes);
  return bytes;
}

if (import.meta.main) {
  const dir = (Deno.args[0] ?? "models/static").replace(/\/+$/, "");
  const started = performance.now();
  const bytes = await writeNeighbourLists(dir);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  Deno.stderr.writeSync(
    new TextEncoder().encode(`${dir}/neighbours.bin: ${bytes.length} bytes in ${seconds} s\n`),
  );
}
