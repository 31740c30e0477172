import assert from "node:assert/strict";
import {
  contractJsonSchemas,
  contractSchemas,
  DEEP_RESEARCH_TOOLS,
  fetchDocumentSchema,
  fetchInputSchema,
  searchInputSchema,
  searchOutputSchema,
} from "./contract.ts";
import { GleanerError } from "../errors.ts";
import { CONTRACT_LOCALES } from "./messages.ts";

Deno.test("contract: the two names, search then fetch", () => {
  assert.deepEqual([...DEEP_RESEARCH_TOOLS], ["search", "fetch"]);
});

Deno.test("contract: inputs are strict and name the key outside the contract, in each locale", () => {
  const en = fetchInputSchema.safeParse({ id: "a", max_tokens: 10 });
  assert.ok(!en.success);
  assert.match(en.error.issues[0].message, /Unrecognized key: "max_tokens"/);
  const pt = contractSchemas("pt-BR").searchInputSchema.safeParse({ query: "x", limit: 1, k: 2 });
  assert.ok(!pt.success);
  assert.match(pt.error.issues[0].message, /Chaves não reconhecidas: "limit", "k"/);
  assert.ok(searchInputSchema.safeParse({ query: "" }).success, "an empty query is allowed");
  assert.ok(!searchInputSchema.safeParse({ query: "x".repeat(2_001) }).success, "bounded");
  assert.ok(!fetchInputSchema.safeParse({ id: "" }).success);
  assert.ok(!fetchInputSchema.safeParse({}).success);
});

Deno.test("contract: outputs take the contract's keys, need a non-empty url, allow top-level extras", () => {
  const result = { id: "a", title: "A", url: "https://example.org/a" };
  assert.ok(searchOutputSchema.safeParse({ results: [result], provenance: { at: 1 } }).success);
  assert.ok(!searchOutputSchema.safeParse({ results: [{ ...result, url: "" }] }).success);
  assert.ok(!searchOutputSchema.safeParse({}).success);
  const doc = { ...result, text: "…", metadata: { kind: "table" } };
  assert.ok(fetchDocumentSchema.safeParse(doc).success);
  assert.ok(!fetchDocumentSchema.safeParse({ ...doc, url: "" }).success);
  assert.ok(!fetchDocumentSchema.safeParse({ ...doc, text: undefined }).success);
});

Deno.test("contract: JSON Schema draft-07 without $schema or $ref, strict inputs, in both locales", () => {
  for (const locale of CONTRACT_LOCALES) {
    const json = contractJsonSchemas(locale);
    assert.deepEqual(Object.keys(json).sort(), [
      "fetchDocumentSchema",
      "fetchInputSchema",
      "searchInputSchema",
      "searchOutputSchema",
      "searchResultSchema",
    ]);
    const text = JSON.stringify(json);
    assert.ok(!text.includes('"$schema"'), "no $schema");
    assert.ok(!text.includes('"$ref"') && !text.includes('"$defs"'), "references inlined");
    assert.equal(json.searchInputSchema.additionalProperties, false);
    assert.equal(json.fetchInputSchema.additionalProperties, false);
    assert.deepEqual(json.searchInputSchema.required, ["query"]);
    assert.deepEqual(json.fetchInputSchema.required, ["id"]);
    assert.deepEqual(json.fetchDocumentSchema.required, ["id", "title", "text", "url"]);
    const results = (json.searchOutputSchema.properties as Record<string, Record<string, unknown>>)
      .results;
    assert.deepEqual((results.items as { required: string[] }).required, ["id", "title", "url"]);
  }
  const en = contractJsonSchemas("en");
  const pt = contractJsonSchemas("pt-BR");
  assert.equal(en.fetchInputSchema.title, "Read one document");
  assert.equal(pt.fetchInputSchema.title, "Ler um documento");
  const query = (s: Record<string, unknown>) =>
    (s.properties as Record<string, { description: string }>).query.description;
  assert.match(query(en.searchInputSchema), /accents and case are ignored/);
  assert.match(query(pt.searchInputSchema), /acentos e maiúsculas são ignorados/);
  assert.notDeepEqual(contractJsonSchemas("en"), pt, "descriptions differ by locale");
  // Fresh objects each call: a caller's edit does not leak into the next.
  en.searchInputSchema.additionalProperties = true;
  assert.equal(contractJsonSchemas("en").searchInputSchema.additionalProperties, false);
});

Deno.test("contract: an unknown locale is refused naming it", () => {
  assert.throws(
    () => contractSchemas("fr" as "en"),
    (e: unknown) =>
      e instanceof GleanerError && e.code === "invalid_arguments" && /fr/.test(e.message),
  );
});
