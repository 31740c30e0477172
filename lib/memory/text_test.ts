import assert from "node:assert/strict";
import { memoryTextKey, normalizeMemoryText } from "./text.ts";

Deno.test("normalizeMemoryText: case, whitespace, edge punctuation and quote forms do not count", () => {
  const same: [string, string][] = [
    ["The code is 4471.", "the code is 4471"],
    ["  The   code\tis\n4471  ", "The code is 4471"],
    ["“Deploys happen on Fridays.”", '"Deploys happen on Fridays"'],
    ["Hello, world!", "hello world"],
    ["(see the runbook)", "see the runbook"],
    ["The user’s locker", "The user's locker"],
    ["ＡＢＣ １２３", "abc 123"], // NFKC: full-width forms
    ["Meeting — Tuesday", "Meeting Tuesday"],
    ["e–mail", "e-mail"],
  ];
  for (const [a, b] of same) {
    assert.equal(normalizeMemoryText(a), normalizeMemoryText(b), `${a} | ${b}`);
    assert.equal(memoryTextKey(a), memoryTextKey(b));
  }
});

Deno.test("normalizeMemoryText: numbers, codes, versions, signs, symbols and word order count", () => {
  const different: [string, string][] = [
    ["3.5", "35"],
    ["07:40", "0740"],
    ["v1.2.3", "v1.23"],
    ["-5 °C", "5 °C"],
    ["(-5)", "5"],
    [".5 mg", "5 mg"],
    ["$500", "€500"],
    ["5%", "5"],
    ["#3", "3"],
    ["C++", "C"],
    ["1,000", "1000"],
    ["don't", "dont"],
    ["Bob pays Alice", "Alice pays Bob"],
    ["Tuesday at 3pm", "Thursday at 3pm"],
    ["...", "!!!"], // punctuation alone is compared as written
  ];
  for (const [a, b] of different) {
    assert.notEqual(normalizeMemoryText(a), normalizeMemoryText(b), `${a} | ${b}`);
    assert.notEqual(memoryTextKey(a), memoryTextKey(b));
  }
  assert.equal(normalizeMemoryText("It was -5 °C (really)."), "it was -5 °c really");
  assert.equal(
    normalizeMemoryText("The flight leaves at 07:40, gate B12."),
    "the flight leaves at 07:40 gate b12",
  );
  assert.match(memoryTextKey("x"), /^[0-9a-f]{32}$/);
});
