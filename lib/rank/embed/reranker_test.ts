import assert from "node:assert/strict";
import { parseConfig } from "../../config.ts";
import { sharedReranker } from "./reranker.ts";

Deno.test("sharedReranker: none gives null; use-lite loads once and is shared", async () => {
  assert.equal(await sharedReranker(parseConfig({}).rank), null);
  const rank = parseConfig({ rank: { rerank: "use-lite" } }).rank;
  const a = await sharedReranker(rank);
  const b = await sharedReranker(rank);
  assert.ok(a?.embedder, a?.error ?? "no reranker");
  assert.equal(a.embedder, b?.embedder, "one model per process");
  const [v] = await a.embedder.embedDocuments(["The tower is 330 metres high."]);
  assert.equal(v.length, 512);
});
