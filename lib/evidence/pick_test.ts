import assert from "node:assert/strict";
import { canonicalKey, pickPages } from "./pick.ts";

Deno.test("canonicalKey: fragments, tracking parameters, www and trailing slashes do not make a new page", () => {
  assert.equal(
    canonicalKey("https://www.a.example/x/?utm_source=n#top"),
    canonicalKey("https://a.example/x"),
  );
  assert.notEqual(
    canonicalKey("https://a.example/x?id=1"),
    canonicalKey("https://a.example/x?id=2"),
  );
});

Deno.test("pickPages: distinct pages, at most N per domain, order kept", () => {
  const urls = [
    "https://a.example/1",
    "https://a.example/1#x",
    "https://a.example/2",
    "https://a.example/3",
    "https://b.example/1",
  ];
  assert.deepEqual(pickPages(urls, 2), [
    "https://a.example/1",
    "https://a.example/2",
    "https://b.example/1",
  ]);
  assert.equal(pickPages(urls, Infinity).length, 4);
});
