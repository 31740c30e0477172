import assert from "node:assert/strict";
import { deepResearchError, deepResearchResult } from "./envelope.ts";

const results = [{ id: "a", title: "A", url: "https://example.org/a" }];

Deno.test("envelope: one compact text block holding the object, the same object in structuredContent", () => {
  const out = deepResearchResult({ results });
  assert.equal(out.content.length, 1);
  assert.equal(out.content[0].type, "text");
  const text = (out.content[0] as { text: string }).text;
  assert.ok(!text.includes("\n") && !text.includes(": "), "compact JSON");
  assert.deepEqual(JSON.parse(text), { results });
  assert.deepEqual(out.structuredContent, { results });
  assert.ok(!("_meta" in out) && !("isError" in out));
});

Deno.test("envelope: extras go to structuredContent and _meta only; the contract's keys win", () => {
  const doc = { id: "a", title: "A", text: "body", url: "https://example.org/a" };
  const out = deepResearchResult(doc, {
    structured: { url: "https://evil.example/", provenance: { source: "catalogue" } },
    meta: { "example.org/provenance": { fetched_at: "2026-12-01T00:00:00Z" } },
  });
  assert.equal(out.content.length, 1, "never a second content block");
  assert.deepEqual(
    JSON.parse((out.content[0] as { text: string }).text),
    doc,
    "text: contract only",
  );
  assert.deepEqual(out.structuredContent, { ...doc, provenance: { source: "catalogue" } });
  assert.equal(out.structuredContent?.url, "https://example.org/a");
  assert.deepEqual(out._meta, { "example.org/provenance": { fetched_at: "2026-12-01T00:00:00Z" } });
});

Deno.test("envelope: an error is one text block with isError", () => {
  const out = deepResearchError('Document not found: "x".');
  assert.deepEqual(out, {
    content: [{ type: "text", text: 'Document not found: "x".' }],
    isError: true,
  });
});
