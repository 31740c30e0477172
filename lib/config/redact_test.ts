import assert from "node:assert/strict";
import { maskUrl, safeEndpoint } from "./redact.ts";

Deno.test("safeEndpoint: origin and path only, whatever the URL carries", () => {
  assert.equal(
    safeEndpoint("https://user:pw@api.example:8443/v1/embeddings?key=abc#frag"),
    "https://api.example:8443/v1/embeddings",
  );
  assert.equal(safeEndpoint(new URL("http://127.0.0.1/search?q=x")), "http://127.0.0.1/search");
  assert.equal(safeEndpoint("not a url"), "(invalid URL)");
});

Deno.test("maskUrl: credentials and query values masked, the rest kept as written", () => {
  assert.equal(
    maskUrl("postgres://gleaner:s3cret@db.internal:5432/gleaner?sslmode=require"),
    "postgres://[redacted]@db.internal:5432/gleaner?sslmode=[redacted]",
  );
  assert.equal(
    maskUrl("https://searx.example/search?flag&k=v#top"),
    "https://searx.example/search?flag&k=[redacted]#top",
  );
  assert.equal(maskUrl("https://searx.example/"), "https://searx.example/");
  assert.equal(maskUrl("us-en"), "us-en");
});
