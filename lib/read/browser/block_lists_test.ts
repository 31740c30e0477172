import assert from "node:assert/strict";
import { parseBlockLists } from "./block_lists.ts";

Deno.test("parseBlockLists: anchors, separators, options and exceptions as Adblock Plus reads them", () => {
  const list = parseBlockLists([
    [
      "||ads.example^",
      "|https://start.example/x",
      "swf|",
      "||cdn.example/track^$third-party",
      "/promo/*$domain=news.example|~sports.news.example",
      "/beacon.$~image",
      "@@||ads.example/consent^",
      "/re/[a-z]+/$script",
      "||*.wild.example^",
      "ab",
      "||unknown.example^$csp=script-src 'none'",
      "site.example#@#.ad",
    ].join("\n"),
  ]);
  const b = (url: string, type = "script", pageHost = "news.example") =>
    list.blocks({ url, type, pageHost });
  assert.ok(b("https://ads.example/a.js"));
  assert.ok(b("https://sub.ads.example:8443/a.js"), "subdomain, a port's colon is a separator");
  assert.ok(!b("https://notads.example/a.js"), "a host anchor is a label boundary");
  assert.ok(!b("https://ads.example.com/a.js"), "^ after the host does not match a dot");
  assert.ok(!b("https://ads.example/consent/"), "the exception wins");
  assert.ok(b("https://start.example/x/y"));
  assert.ok(!b("https://other.example/?u=https://start.example/x"), "| anchors at the start");
  assert.ok(b("https://m.example/movie.swf") && !b("https://m.example/movie.swf?x"));
  assert.ok(b("https://cdn.example/track/1"), "third-party on news.example");
  assert.ok(!b("https://cdn.example/track/1", "script", "www.cdn.example"), "first-party");
  assert.ok(b("https://x.example/promo/1", "image", "www.news.example"));
  assert.ok(!b("https://x.example/promo/1", "image", "sports.news.example"));
  assert.ok(!b("https://x.example/promo/1", "image", "blog.example"));
  assert.ok(
    b("https://x.example/beacon.gif", "ping") && !b("https://x.example/beacon.gif", "image"),
  );
  assert.ok(!b("https://x.example/re/abc/", "script"), "no regular expressions");
  assert.ok(!b("https://unknown.example/", "script"), "a rule with an unknown option is left out");
  assert.ok(!b("https://x.example/about"), "two-character patterns are left out");
  assert.equal(list.rules, 7);
  assert.ok(list.skipped >= 4);
});

Deno.test("parseBlockLists: a hostile pattern against a long URL costs linear work", () => {
  const list = parseBlockLists([`${"a*".repeat(500)}b^`]);
  const url = `https://x.example/${"a".repeat(8_000)}`;
  assert.equal(list.blocks({ url, type: "script" }), false);
  assert.equal(list.blocks({ url: `${url}b/`, type: "script" }), true);
});
