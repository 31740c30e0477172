import assert from "node:assert/strict";
import {
  countTokens,
  countTokensUpTo,
  TOKEN_PIECE_CHARS,
  TOKEN_RUN_CHARS,
  tokenPieces,
  tokenReach,
} from "./tokens.ts";
import { countTokens as countWhole, encode } from "gpt-tokenizer/encoding/o200k_base";
import { extractHtml } from "../extract/mod.ts";
import { corpusPages, fixturePages, type TestPage } from "../../testing/fixtures/test_pages.ts";
import { corpora } from "../../testing/fixtures/corpora.ts";
import { evalInChild } from "../../testing/fixtures/eval.ts";

const WHOLE = { disallowedSpecial: new Set<string>() };

Deno.test("countTokens: o200k_base counts, special-token text counted as text", () => {
  assert.equal(countTokens(""), 0);
  const text = "Gleaner keeps only the passages that answer the question.";
  assert.equal(countTokens(text), encode(text).length);
  assert.ok(countTokens("a <|endoftext|> b") > 3);
  assert.ok(countTokens("数据".repeat(50)) > 10);
});

/** Counting in pieces equals counting whole, page by page and on all the pages joined. */
function assertPiecesExact(pages: TestPage[], longPages: number): void {
  const texts = pages.map((page) =>
    extractHtml(page.html, "http://fakehost/test/page.html").markdown
  );
  for (const [i, text] of texts.entries()) {
    assert.equal(countTokens(text), countWhole(text, WHOLE), pages[i].name);
  }
  assert.ok(texts.filter((t) => t.length > TOKEN_PIECE_CHARS).length >= longPages);
  const all = texts.join("\n\n");
  assert.equal(countTokens(all), countWhole(all, WHOLE));
}

Deno.test("countTokens: counting in pieces gives exactly the whole count on real pages", async () => {
  assertPiecesExact(await fixturePages(), 5);
});

Deno.test({
  name: `countTokens: counting in pieces is exact on the Readability corpus${corpora.suffix}`,
  ignore: corpora.ignore,
}, async () => {
  corpora.assertPresent();
  assertPiecesExact((await corpusPages()).filter((_, i) => i % 3 === 0), 20);
});

Deno.test("tokenPieces: cuts only where o200k cuts pre-tokens, so the sum is exact", () => {
  // Random text from fragments no longer than the search tail: a boundary is always found.
  const fragments = [
    "a",
    "B",
    "é",
    "e\u0301",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    ".",
    ",",
    "'",
    "'s",
    "’",
    "1",
    "23",
    "数",
    "据",
    "/",
    "-",
    "(",
    ")",
    "«",
    "\u00a0",
    "😀",
    "<|endoftext|>",
    "ABc",
    "http://x.y/z",
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let t = 0; t < 2000; t++) {
    let text = "";
    const n = 60 + Math.floor(next() * 200);
    for (let i = 0; i < n; i++) {
      text += fragments[Math.floor(next() * fragments.length)];
      if (i % 3 === 2) text += " ";
    }
    const pieces = tokenPieces(text, 40, 30);
    assert.equal(pieces.join(""), text);
    assert.ok(pieces.length > 1);
    const sum = pieces.reduce((total, piece) => total + countWhole(piece, WHOLE), 0);
    assert.equal(sum, countWhole(text, WHOLE), JSON.stringify(text));
  }
});

Deno.test("tokenPieces: unbroken runs are cut into short pieces, pairs kept whole", () => {
  const emoji = "😀".repeat(5_000);
  for (const text of ["a".repeat(100_000), "数据库".repeat(30_000), " ".repeat(50_000), emoji]) {
    const pieces = tokenPieces(text);
    assert.equal(pieces.join(""), text);
    assert.ok(pieces.every((p) => p.length <= TOKEN_PIECE_CHARS + 1));
    // The run is cut into pieces of at most 64 characters (65 for a pair), the first too.
    assert.ok(pieces.every((p) => p.length <= 65), String(pieces.map((p) => p.length)));
  }
  // Words then a run: the words make one piece, ending where the run starts; the run is cut
  // short from there (before, the piece took the first 1,800 characters of the run whole).
  const mixed = "Tides rise and fall. ".repeat(20) + "数据库".repeat(2_000);
  const pieces = tokenPieces(mixed);
  assert.equal(pieces.join(""), mixed);
  assert.equal(pieces[0], "Tides rise and fall. ".repeat(19) + "Tides rise and fall.");
  assert.ok(pieces.slice(1).every((p) => p.length <= 65), String(pieces.map((p) => p.length)));
  assert.ok(tokenPieces(emoji).every((p) => !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(p)));
});

Deno.test("tokenPieces: a run inside a piece, or in a short text, is cut like any other", () => {
  const run = "数据库".repeat(600); // 1,800 characters without a boundary
  const cases = [
    run, // shorter than a piece: was counted whole (47 ms for 2,048 characters of CJK)
    `Intro. ${run} outro, and more words.`,
    `${"Tides rise and fall. ".repeat(5)}${" ".repeat(1_000)}x`,
    `List:\n${"-\n  ".repeat(300)}end`, // spaces inside a run: after a line break, not a word
  ];
  for (const text of cases) {
    const pieces = tokenPieces(text);
    assert.equal(pieces.join(""), text);
    // Each text is a short text, or one run with a few words around it: no piece is long.
    assert.ok(pieces.every((p) => p.length <= TOKEN_RUN_CHARS), `${pieces.map((p) => p.length)}`);
    assert.equal(countTokens(text), pieces.reduce((sum, p) => sum + countTokens(p), 0));
  }
});

Deno.test("countTokens: a 1 MB unbroken run is counted (bounded pieces) and the count is sane", async () => {
  // Run in a subprocess with a generous watchdog: whole-run byte-pair merging takes hours here.
  const code = `
    import { countTokens } from "./lib/text/tokens.ts";
    const cjk = Array.from({ length: 1_000_000 }, (_, i) => String.fromCharCode(0x4e00 + (i * 7919) % 3000)).join("");
    const word = "abcdefghij".repeat(100_000);
    // Reference: the whole-run count of a short sample, scaled.
    const { countTokens: whole } = await import("gpt-tokenizer/encoding/o200k_base");
    const sample = whole(cjk.slice(0, 8_000)) * 125;
    console.log(JSON.stringify([countTokens(cjk), countTokens(word), sample]));
  `;
  const out = await evalInChild(code, 60_000);
  assert.ok(out.success, `the count did not finish: ${out.stderr}`);
  const [cjk, word, sample] = JSON.parse(out.stdout);
  assert.ok(Math.abs(cjk - sample) < 0.1 * sample, `CJK tokens ${cjk}, about ${sample} expected`);
  assert.ok(word > 50_000 && word < 1_000_000, `word tokens ${word}`);
});

Deno.test("countTokensUpTo: a prefix reaching a piece past the limit counts the same as the whole", () => {
  // What evidence gathering relies on to count huge pages without copying them whole.
  let cjk = "";
  for (let i = 0; i < 40_000; i++) cjk += String.fromCharCode(0x4e00 + (i * 7919) % 3000);
  const texts = {
    prose: "Tides rise and fall twice a day, because of the Moon.\n\n".repeat(3_000),
    cjk,
    word: "abcdefghij".repeat(20_000),
    spaces: " ".repeat(100_000) + "end",
    mixed: ("word ".repeat(300) + "x".repeat(3_000) + "\n").repeat(40),
  };
  for (const [name, text] of Object.entries(texts)) {
    for (const limit of [10, 501, 5_000]) {
      const whole = countTokensUpTo(text, limit);
      // Just long enough (the tightest prefix evidence gathering may use), then longer ones.
      const tight = tokenReach(text, limit) + TOKEN_PIECE_CHARS + 3;
      for (let chars = tight; chars < text.length; chars = Math.max(4_096, chars * 2)) {
        const prefix = text.slice(0, chars) + "\n";
        if (tokenReach(prefix, limit) + TOKEN_PIECE_CHARS + 2 >= prefix.length) continue;
        assert.equal(countTokensUpTo(prefix, limit), whole, `${name}, limit ${limit}, ${chars}`);
      }
    }
  }
});
