import assert from "node:assert/strict";
import { memoryTextKey, normalizeMemoryText } from "./text.ts";

Deno.test("normalizeMemoryText: only white space at the edges and in runs, and canonical forms, do not count", () => {
  const same: [string, string][] = [
    ["The code is 4471.", "  The code is 4471.  "],
    ["  The   code\tis\n4471  ", "The code is 4471"],
    ["The code\r\n\r\nis 4471.", "The code is 4471."],
    ["No\u00a0break", "No break"], // a no-break space is white space
    ["caf\u00e9", "cafe\u0301"], // NFC: one é, precomposed or combined
    ["\u212b", "\u00c5"], // NFC: the angstrom sign is canonically Å
  ];
  for (const [a, b] of same) {
    assert.equal(normalizeMemoryText(a), normalizeMemoryText(b), `${a} | ${b}`);
    assert.equal(memoryTextKey(a), memoryTextKey(b));
  }
  assert.equal(normalizeMemoryText("  The code\n is 4471.\t"), "The code is 4471.");
});

Deno.test("normalizeMemoryText: case, punctuation, look-alike forms, numbers and word order count", () => {
  const different: [string, string][] = [
    // Case and punctuation are content.
    ["Wifi password is HuntEr2", "Wifi password is hunter2"],
    ["token suffix Xy7Q", "token suffix xy7q"],
    ["The door is open.", "The door is open?"],
    ["The code is 4471.", "The code is 4471"],
    ["Hello, world!", "Hello world"],
    ["(see the runbook)", "see the runbook"],
    ["The user\u2019s locker", "The user's locker"],
    ["\u201cDeploys happen on Fridays\u201d", '"Deploys happen on Fridays"'],
    ["Meeting \u2014 Tuesday", "Meeting - Tuesday"],
    // Compatibility forms look different and stay apart (no NFKC).
    ["\uff21\uff22\uff23 \uff11\uff12\uff13", "ABC 123"],
    ["\ufb01le", "file"],
    ["x\u00b2", "x2"],
    // What the old rule already kept apart.
    ["3.5", "35"],
    ["07:40", "0740"],
    ["v1.2.3", "v1.23"],
    ["-5 \u00b0C", "5 \u00b0C"],
    ["$500", "\u20ac500"],
    ["Bob pays Alice", "Alice pays Bob"],
    ["...", "!!!"],
    ["a\tb", "ab"], // white space between characters counts as a space, never as nothing
  ];
  for (const [a, b] of different) {
    assert.notEqual(normalizeMemoryText(a), normalizeMemoryText(b), `${a} | ${b}`);
    assert.notEqual(memoryTextKey(a), memoryTextKey(b), `${a} | ${b}`);
  }
  assert.match(memoryTextKey("x"), /^[0-9a-f]{32}$/);
});
