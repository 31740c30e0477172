import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { compilePathPattern, createPathFilter, looksLikePage, sameSite } from "./urls.ts";

Deno.test("sameSite: host and port, www. ignored, http(s) only", () => {
  const site = new URL("https://example.com/docs/");
  assert.ok(sameSite(new URL("http://www.example.com/x"), site));
  assert.ok(!sameSite(new URL("https://example.com:8443/x"), site));
  assert.ok(!sameSite(new URL("https://cdn.example.com/x"), site));
  assert.ok(!sameSite(new URL("ftp://example.com/x"), site));
});

Deno.test("looksLikePage: assets and archives skipped, pages and PDFs kept", () => {
  for (const p of ["/", "/a", "/a.html", "/a.php", "/paper.pdf", "/v1.2/intro", "/.well-known"]) {
    assert.ok(looksLikePage(new URL(`https://e.com${p}`)), p);
  }
  for (
    const p of ["/a.png", "/b.JPG", "/c.zip", "/d.css", "/e.js", "/f.woff2", "/g.mp4", "/feed.xml"]
  ) {
    assert.ok(!looksLikePage(new URL(`https://e.com${p}`)), p);
  }
});

Deno.test("path patterns: globs, folder prefixes, regexes", () => {
  const cases: [string, string, boolean][] = [
    ["/docs/*", "/docs/a", true],
    ["/docs/*", "/docs/a/b", false],
    ["/docs/**", "/docs/a/b", true],
    ["/docs/", "/docs/a/b", true],
    ["/docs/", "/doc", false],
    ["*.html", "/a.html", true],
    ["draft-?", "/x/y/draft-1", true],
    ["draft-?", "/x/y/draft-12", false],
    ["re:/v\\d+/", "/api/v2/x", true],
    ["^/v\\d+/", "/api/v2/x", false],
    ["re:[?&]page=", "/list?page=2", true],
    ["/list", "/list?page=2", true],
  ];
  for (const [pattern, path, expected] of cases) {
    assert.equal(compilePathPattern(pattern)(path), expected, `${pattern} on ${path}`);
  }
  assert.throws(
    () => createPathFilter([], ["ok", "re:(["]),
    (e) =>
      e instanceof GleanerError && e.code === "invalid_arguments" && /exclude\[1\]/.test(e.message),
  );
  const pass = createPathFilter(["/docs/", "/guide/*"], ["**/old-*"]);
  assert.ok(pass(new URL("https://e.com/docs/x/y")));
  assert.ok(pass(new URL("https://e.com/guide/x")));
  assert.ok(!pass(new URL("https://e.com/guide/x/y")));
  assert.ok(!pass(new URL("https://e.com/docs/old-api")));
  assert.ok(createPathFilter()(new URL("https://e.com/anything")));
});

Deno.test("path patterns: catastrophic regexes and globs run in linear time", () => {
  // Backtracking took seconds to hours on these 32-character paths.
  const path = `/${"a".repeat(30)}!`;
  assert.equal(compilePathPattern("re:(a+)+$")(path), false);
  assert.equal(compilePathPattern("re:(a|aa)*b")(path), false);
  assert.equal(compilePathPattern("/**a**a**a**a**a**a**a**a**a**b")(path), false);
  const pass = createPathFilter(["re:(\\w+\\w*)+\\.html$"], ["**a*a*a*a*a*a*a*a*a*a*a*x"]);
  assert.equal(pass(new URL(`https://e.com/${"a".repeat(40)}.htm`)), false);
});

Deno.test("path patterns: backreferences, lookarounds and long patterns are refused by name", () => {
  for (const pattern of ["re:(a)\\1", "re:a(?=b)", "re:(?<!x)y", `re:${"a".repeat(201)}`]) {
    assert.throws(
      () => createPathFilter([pattern]),
      (e) =>
        e instanceof GleanerError && e.code === "invalid_arguments" &&
        e.message.startsWith("include[0]: pattern ") && e.message.includes(pattern.slice(3, 6)),
      pattern,
    );
  }
});
