import assert from "node:assert/strict";
import { memoByText } from "./text_memo.ts";

Deno.test("memoByText: computes a text once, again after it falls out, always past maxChars", () => {
  const seen: string[] = [];
  const upper = memoByText(2, (text) => (seen.push(text), text.toUpperCase()), 8);
  assert.equal(upper("tide"), "TIDE");
  assert.equal(upper("tide"), "TIDE");
  assert.deepEqual(seen, ["tide"], "a remembered text is not computed again");
  upper("reef");
  upper("kelp"); // "tide" is now the least recently used of three: it falls out
  upper("tide");
  assert.deepEqual(seen, ["tide", "reef", "kelp", "tide"]);
  upper("a long text");
  upper("a long text");
  assert.equal(seen.filter((t) => t === "a long text").length, 2, "past maxChars: never kept");
});
