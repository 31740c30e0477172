/**
 * A tool's input as a model reads it: the JSON Schema of its zod input, as
 * the MCP `tools/list` answer and `GET /v1/tools` list it. A model pays for
 * every token of it on every turn of every session, so what it never needs
 * to form a call is left out:
 *
 * - the `$schema` URL, and the bound zod gives every integer
 *   (`maximum: 9007199254740991`);
 * - the length bounds of strings (`minLength`, `maxLength`): guard rails a
 *   call never comes near (a 4096-character URL, a 100,000-character memory);
 *   a value past one is still refused, with a message naming the field and
 *   the bound;
 * - the other names a field is accepted under ({@link ALIAS_OF}): `ref` and
 *   `id` beside `memory_id`;
 * - the `anyOf` wrapping of branches of distinct types ({@link mergedTypes}):
 *   a nullable string is listed as `"type": ["string", "null"]`, which means
 *   the same.
 *
 * Types, enums, required fields, defaults, numeric and array bounds and
 * `additionalProperties: false` stay: those are what a call gets wrong.
 *
 * @module
 */
import { z } from "zod";
import { PREBUILT_LISTING } from "./listing_prebuilt.ts";
import { listingKey } from "./listing_key.ts";
import type { AnyToolSpec } from "./spec.ts";

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/**
 * The metadata key (zod `.meta({ [ALIAS_OF]: "memory_id" })`) of a field that is another
 * name of a listed one: accepted, not listed.
 */
export const ALIAS_OF = "x-alias-of";

const DROPPED = new Set(["$schema", "minLength", "maxLength"]);

/** True for a property schema that names an alias. */
function isAlias(node: unknown): boolean {
  return typeof node === "object" && node !== null && ALIAS_OF in node;
}

/** Removes what carries nothing for a model, at every level. */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (typeof node !== "object" || node === null) return node;
  const out: JsonSchema = {};
  const properties = (node as JsonSchema).properties as JsonSchema | undefined;
  const aliases = new Set(
    Object.entries(properties ?? {}).filter(([, value]) => isAlias(value)).map(([key]) => key),
  );
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    // zod's bound of `.int()`: no call can pass it, so it says nothing.
    if (
      (key === "maximum" || key === "minimum") &&
      Math.abs(value as number) >= Number.MAX_SAFE_INTEGER
    ) continue;
    if (key === "properties" && aliases.size > 0) {
      out[key] = compact(
        Object.fromEntries(Object.entries(value as JsonSchema).filter(([k]) => !aliases.has(k))),
      );
    } else if (key === "required" && Array.isArray(value)) {
      out[key] = value.filter((k) => !aliases.has(k));
    } else out[key] = compact(value);
  }
  const merged = mergedTypes(out);
  if (merged) {
    delete out.anyOf;
    Object.assign(out, merged);
  }
  return out;
}

/** Keywords that apply to one type of value only (JSON Schema draft-07, section 6). */
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  string: ["pattern", "format"],
  null: [],
  boolean: [],
};

/**
 * An `anyOf` of branches of distinct types whose other keywords apply to
 * their own type only (`{type: integer, exclusiveMinimum: 0}` or `{type: string}`;
 * a nullable string) as one schema with a list of types: each keyword still
 * constrains only values of its type, so it accepts exactly the same values,
 * in fewer tokens. Undefined when the node is not such an `anyOf`.
 *
 * @internal exported for tests only
 */
export function mergedTypes(node: JsonSchema): JsonSchema | undefined {
  const anyOf = node.anyOf as JsonSchema[] | undefined;
  if (!Array.isArray(anyOf) || anyOf.length < 2 || node.type !== undefined) return undefined;
  const merged: JsonSchema = { type: [] };
  const types = merged.type as string[];
  for (const branch of anyOf) {
    const type = branch.type;
    if (typeof type !== "string" || !(type in TYPE_KEYWORDS) || types.includes(type)) {
      return undefined;
    }
    if (
      types.includes("number") && type === "integer" ||
      type === "number" && types.includes("integer")
    ) {
      return undefined;
    }
    types.push(type);
    for (const [key, value] of Object.entries(branch)) {
      if (key === "type") continue;
      if (!TYPE_KEYWORDS[type].includes(key) || key in merged || key in node) return undefined;
      merged[key] = value;
    }
  }
  return merged;
}

/** A tool's listed schemas: its input as a model reads it, and its output. */
export interface ListedSchemas {
  /** The input, as {@link listedInputSchema} gives it. */
  input: JsonSchema;
  /** The output (draft-07), as MCP clients check `structuredContent` against it. */
  output: JsonSchema;
}

/**
 * A tool's listed schemas generated from its zod schemas now (never from the prebuilt table):
 * what `scripts/build_listing.ts` writes and its test compares.
 *
 * @example
 * ```ts
 * import { generatedListing } from "./listing.ts";
 * import { scrapeUrlsTool } from "./scrape_urls.ts";
 * console.assert(generatedListing(scrapeUrlsTool).output.type === "object");
 * ```
 */
export function generatedListing(tool: AnyToolSpec): ListedSchemas {
  return { input: generatedInput(tool), output: generatedOutput(tool) };
}

function generatedInput(tool: AnyToolSpec): JsonSchema {
  return compact(z.toJSONSchema(tool.input, { io: "input", target: "draft-7" })) as JsonSchema;
}

function generatedOutput(tool: AnyToolSpec): JsonSchema {
  return z.toJSONSchema(tool.output, { io: "output", target: "draft-7" }) as JsonSchema;
}

/**
 * The prebuilt schemas of `tool`, if the table has its key: the input under the key, the
 * output under the tool's name (a configuration's variant changes only the input).
 */
function prebuilt(tool: AnyToolSpec): Partial<ListedSchemas> {
  const key = listingKey(tool);
  return key === undefined
    ? {}
    : { input: PREBUILT_LISTING.inputs[key], output: PREBUILT_LISTING.outputs[tool.name] };
}

/**
 * The JSON Schema (draft-07) of a tool's output, as MCP lists it: from the prebuilt table when
 * it has the tool (shared: not to be changed), else generated.
 *
 * @example
 * ```ts
 * import { listedOutputSchema } from "./listing.ts";
 * import { scrapeUrlsTool } from "./scrape_urls.ts";
 * console.assert(listedOutputSchema(scrapeUrlsTool).type === "object");
 * ```
 */
export function listedOutputSchema(tool: AnyToolSpec): JsonSchema {
  return prebuilt(tool).output ?? generatedOutput(tool);
}

/**
 * The JSON Schema (draft-07) of a tool's input as models see it: from the prebuilt table
 * when it has the tool (shared: not to be changed; generating them all cost about 20 ms of
 * every start), else generated.
 *
 * @example
 * ```ts
 * import { listedInputSchema } from "./listing.ts";
 * import { getMemoryTool } from "./get_memory.ts";
 * import { scrapeUrlsTool } from "./scrape_urls.ts";
 * const schema = listedInputSchema(scrapeUrlsTool);
 * console.assert(schema.type === "object" && !("$schema" in schema));
 * console.assert(!JSON.stringify(schema).includes(String(Number.MAX_SAFE_INTEGER)));
 * const memory = listedInputSchema(getMemoryTool).properties as Record<string, unknown>;
 * console.assert(Object.keys(memory).join() === "memory_id", "ref and id are its aliases");
 * ```
 */
export function listedInputSchema(tool: AnyToolSpec): JsonSchema {
  return prebuilt(tool).input ?? generatedInput(tool);
}
