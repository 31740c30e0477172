import assert from "node:assert/strict";
import { countTokens } from "./tokens.ts";
import { encode } from "gpt-tokenizer/encoding/o200k_base";

Deno.test("countTokens: o200k_base counts, special-token text counted as text", () => {
  assert.equal(countTokens(""), 0);
  const text = "Gleaner keeps only the passages that answer the question.";
  assert.equal(countTokens(text), encode(text).length);
  assert.ok(countTokens("a <|endoftext|> b") > 3);
  assert.ok(countTokens("数据".repeat(50)) > 10);
});
