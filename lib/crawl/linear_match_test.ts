import assert from "node:assert/strict";
import { compileLinearGlob, compileLinearRegex, PatternError } from "./linear_match.ts";

function lcg(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
}

Deno.test("compileLinearRegex: same answers as RegExp on random patterns and paths", () => {
  const next = lcg(11);
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
  const atom = (depth: number): string => {
    const r = next();
    if (depth > 0 && r < 0.15) return `(${pattern(depth - 1)})`;
    if (depth > 0 && r < 0.2) return `(?:${pattern(depth - 1)})`;
    return pick(["a", "b", "/", ".", "[ab]", "[^/]", "\\d", "\\w", "\\/", "-", "\\b", "1"]);
  };
  const piece = (depth: number) => {
    const a = atom(depth);
    if (a === "\\b") return a;
    return a + pick(["", "", "", "*", "+", "?", "{2}", "{1,3}", "{2,}", "*?"]);
  };
  const pattern = (depth: number): string => {
    const n = 1 + Math.floor(next() * 4);
    let s = "";
    for (let i = 0; i < n; i++) s += piece(depth);
    if (next() < 0.2) s += "|" + piece(depth);
    return (next() < 0.2 ? "^" : "") + s + (next() < 0.2 ? "$" : "");
  };
  let compared = 0;
  for (let t = 0; t < 400; t++) {
    const source = pattern(2);
    const re = new RegExp(source);
    const linear = compileLinearRegex(source);
    for (let k = 0; k < 25; k++) {
      let path = "";
      const len = Math.floor(next() * 12);
      for (let i = 0; i < len; i++) path += pick(["a", "b", "/", "1", "-", "x"]);
      assert.equal(linear(path), re.test(path), `${source} on ${JSON.stringify(path)}`);
      compared++;
    }
  }
  assert.equal(compared, 10_000);
});

Deno.test("compileLinearRegex: classes, escapes, anchors, groups", () => {
  const cases: [string, string, boolean][] = [
    ["^/v\\d+/", "/v12/x", true],
    ["^/v\\d+/", "/x/v12/", false],
    ["[?&]page=\\d", "/list?a=1&page=2", true],
    ["\\.(pdf|docx?)$", "/a/b.doc", true],
    ["\\.(pdf|docx?)$", "/a/b.docs", false],
    ["[a-c\\-]+x", "/-bx", true],
    ["(?<year>\\d{4})/\\d{2}", "/2024/05/", true],
    ["\\u0041\\x42", "/AB", true],
    ["/api/{id}", "/api/{id}", true],
    ["[^]", "", false],
  ];
  for (const [source, path, expected] of cases) {
    assert.equal(compileLinearRegex(source)(path), expected, `${source} on ${path}`);
    assert.equal(new RegExp(source).test(path), expected, `RegExp ${source} on ${path}`);
  }
});

Deno.test("compileLinearRegex: refuses what cannot run in linear time or is too big", () => {
  for (
    const source of [
      "(a)\\1",
      "(?<n>a)\\k<n>",
      "a(?=b)",
      "(?<!a)b",
      "(?i)a",
      "x".repeat(201),
      "(a{100}){100}",
      "(",
      "a)",
      "[a",
      "*a",
      "a**",
    ]
  ) {
    assert.throws(() => compileLinearRegex(source), PatternError, source);
  }
});

Deno.test("compileLinearRegex and globs: catastrophic patterns answer at once", () => {
  // With backtracking, each of these takes seconds to hours on a 31-character path.
  const path = "/" + "a".repeat(30) + "!";
  assert.equal(compileLinearRegex("^(a+)+$")(path.slice(1)), false);
  assert.equal(compileLinearRegex("(a|a)*b")(path), false);
  assert.equal(compileLinearRegex("(.*a){12}x")(path), false);
  assert.equal(compileLinearGlob("/**a**a**a**a**a**a**a**a**a**b")(path), false);
  assert.equal(compileLinearGlob("/**a**a**a**a**a**a**a**a**a**!")(path), true);
});

Deno.test("compileLinearGlob: * stays within a segment, ** crosses, ? is one character", () => {
  const cases: [string, string, boolean][] = [
    ["/blog/*", "/blog/post-1", true],
    ["/blog/*", "/blog/2024/post", false],
    ["/blog/**", "/blog/2024/post", true],
    ["**/*.html", "/a/b.html", true],
    ["**/*.html", "/a/b.htm", false],
    ["/p?ge", "/page", true],
    ["/p?ge", "/p/ge", false],
    ["/a/***/b", "/a/x/y/b", true],
    ["/a/*/b", "/a//b", true],
    ["/a*", "/abc/", false],
  ];
  for (const [glob, path, expected] of cases) {
    assert.equal(compileLinearGlob(glob)(path), expected, `${glob} on ${path}`);
  }
});
