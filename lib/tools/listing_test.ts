/**
 * The tool list a model reads on every turn stays within its budget, and the
 * listing leaves out only what a model never needs: every field but an alias
 * is listed, with its type, enum, default, numeric and array bounds, and
 * required fields stay required.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { toolListCost } from "../../testing/tool_list_cost.ts";
import { parseConfig } from "../config/config.ts";
import { ALIAS_OF, type JsonSchema, listedInputSchema, mergedTypes } from "./listing.ts";
import { toolsFor } from "./presentations.ts";

/** Budget of the default tool list (o200k tokens of names, descriptions, input schemas). */
const DEFAULT_BUDGET = 2000;

Deno.test("listing: the default tool list costs at most 2,000 tokens", () => {
  const cost = toolListCost({});
  assert.equal(cost.tools, 13);
  assert.ok(
    cost.tokens <= DEFAULT_BUDGET,
    `${cost.tokens} tokens > ${DEFAULT_BUDGET}: ${JSON.stringify(cost.per_tool)}`,
  );
});

/** The object levels of a JSON Schema and of the zod schema it came from, side by side. */
function compareLevels(listed: JsonSchema, full: JsonSchema, path: string): void {
  const properties = (full.properties ?? {}) as Record<string, JsonSchema>;
  const shown = (listed.properties ?? {}) as Record<string, JsonSchema>;
  const expected = Object.keys(properties).filter((key) => !(ALIAS_OF in properties[key]));
  assert.deepEqual(Object.keys(shown), expected, `${path}: every field but an alias is listed`);
  assert.deepEqual(listed.required ?? [], full.required ?? [], `${path}: required fields`);
  assert.equal(listed.additionalProperties, false, `${path}: unknown keys are refused`);
  for (const key of expected) {
    const a = shown[key];
    // An anyOf of distinct types is listed as one schema with a list of types
    // (string lengths and zod's integer bound left out first).
    const bare = JSON.parse(
      JSON.stringify(properties[key]),
      (k, v) =>
        k === "minLength" || k === "maxLength" ||
          (k === "maximum" || k === "minimum") && Math.abs(v) >= Number.MAX_SAFE_INTEGER
          ? undefined
          : v,
    );
    const b = { ...bare, ...mergedTypes(bare) };
    for (
      const kept of [
        "type",
        "enum",
        "default",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
      ]
    ) {
      const bound = b[kept];
      if (typeof bound === "number" && Math.abs(bound) >= Number.MAX_SAFE_INTEGER) continue;
      assert.deepEqual(a[kept], bound, `${path}.${key}: ${kept}`);
    }
    const items = b.items as JsonSchema | undefined;
    if (items?.type === "object") {
      compareLevels(a.items as JsonSchema, items, `${path}.${key}[]`);
    }
  }
}

Deno.test("listing: only $schema, string lengths, zod's integer bound and aliases are left out", () => {
  for (const settings of [{}, { llm: { url: "http://127.0.0.1:11434/v1", model: "m" } }]) {
    for (const tool of toolsFor(parseConfig(settings))) {
      const full = z.toJSONSchema(tool.input, { io: "input", target: "draft-7" }) as JsonSchema;
      const listed = listedInputSchema(tool);
      assert.equal(listed.type, "object");
      assert.ok(!("$schema" in listed), tool.name);
      const text = JSON.stringify(listed);
      assert.doesNotMatch(text, /minLength|maxLength|9007199254740991|x-alias-of/, tool.name);
      compareLevels(listed, full, tool.name);
    }
  }
});

Deno.test("listing: the memory tools list memory_id alone; ref and id are still accepted", () => {
  for (const name of ["get_memory", "update_memory", "delete_memory"]) {
    const tool = toolsFor(parseConfig({})).find((t) => t.name === name)!;
    const properties = Object.keys(listedInputSchema(tool).properties as JsonSchema);
    assert.ok(properties.includes("memory_id") && !properties.includes("ref"), name);
    const content = name === "update_memory" ? { content: "x" } : {};
    assert.ok(tool.input.safeParse({ ref: "abcdefgh", ...content }).success, `${name}: ref`);
    assert.ok(tool.input.safeParse({ id: 3, ...content }).success, `${name}: id`);
  }
});

Deno.test("listing: an anyOf of distinct types is listed as a list of types that accepts the same", () => {
  assert.deepEqual(
    mergedTypes({ anyOf: [{ type: "integer", exclusiveMinimum: 0 }, { type: "string" }] }),
    { type: ["integer", "string"], exclusiveMinimum: 0 },
  );
  assert.deepEqual(mergedTypes({ anyOf: [{ type: "string" }, { type: "null" }] }), {
    type: ["string", "null"],
  });
  for (
    const node of [
      { anyOf: [{ type: "integer", minimum: 1 }, { type: "number", maximum: 5 }] },
      { anyOf: [{ type: "string", minimum: 1 }, { type: "null" }] },
      { anyOf: [{ type: "string", description: "x" }, { type: "null" }] },
      { anyOf: [{ type: "object" }, { type: "null" }] },
      { anyOf: [{ type: "string" }] },
    ]
  ) assert.equal(mergedTypes(node), undefined, JSON.stringify(node));
  const update = toolsFor(parseConfig({})).find((t) => t.name === "update_memory")!;
  const listed = listedInputSchema(update).properties as Record<string, JsonSchema>;
  assert.deepEqual(listed.author, { type: ["string", "null"] });
  assert.equal(listed.memory_id.exclusiveMinimum, 0);
});
