import assert from "node:assert/strict";
import { normalizeDomain, resultKey, siteHint, urlInDomains } from "./domains.ts";

Deno.test("normalizeDomain strips scheme, path, port, www and case", () => {
  assert.equal(normalizeDomain("Example.COM"), "example.com");
  assert.equal(normalizeDomain("https://www.example.com:8443/docs?q=1"), "example.com");
  assert.equal(normalizeDomain("docs.example.com."), "docs.example.com");
  assert.throws(() => normalizeDomain("exa mple.com"), /domains: "exa mple.com"/);
  assert.throws(() => normalizeDomain(""), /is not a domain/);
});

Deno.test("urlInDomains admits subdomains only on a label boundary", () => {
  const domains = ["example.com"];
  assert.ok(urlInDomains("https://example.com/", domains));
  assert.ok(urlInDomains("https://www.example.com/x", domains));
  assert.ok(urlInDomains("http://a.b.EXAMPLE.com/x", domains));
  assert.ok(!urlInDomains("https://notexample.com/", domains));
  assert.ok(!urlInDomains("https://example.com.evil.net/", domains));
  assert.ok(!urlInDomains("ftp://example.com/", domains));
  assert.ok(!urlInDomains("not a url", domains));
});

Deno.test("siteHint and resultKey", () => {
  assert.equal(siteHint([]), "");
  assert.equal(siteHint(["a.org"]), "site:a.org");
  assert.equal(siteHint(["a.org", "b.org", "c.org"]), "(site:a.org OR site:b.org OR site:c.org)");
  assert.equal(resultKey("https://a.com/x/#frag"), resultKey("https://A.com/x"));
  assert.equal(resultKey("https://a.com/"), resultKey("https://a.com"));
  assert.notEqual(resultKey("https://a.com/x?p=1"), resultKey("https://a.com/x?p=2"));
  assert.equal(resultKey("mailto:x@a.com"), undefined);
});
