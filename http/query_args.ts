/**
 * Tool arguments from a query string, for the `GET` form of a read-only tool's mirror path
 * (`GET /recall_memories?query=…&max_tokens=500`): each value is read as the type the tool's
 * listed input schema gives its key (a number, a boolean, a JSON object), a repeated key or a
 * key whose type is an array is a list, anything else stays a string. The tool's own checks
 * then run as for a JSON body.
 *
 * @module
 */
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { listedInputSchema } from "../lib/tools/listing.ts";

type Schema = { type?: string | string[]; anyOf?: Schema[]; items?: Schema };

function types(schema: Schema | undefined): Set<string> {
  const found = new Set<string>();
  if (!schema) return found;
  for (const type of [schema.type ?? []].flat()) found.add(type);
  for (const option of schema.anyOf ?? []) for (const type of types(option)) found.add(type);
  return found;
}

const NUMBER = /^-?\d+(\.\d+)?$/;

function value(text: string, schema: Schema | undefined): unknown {
  const allowed = types(schema);
  if ((allowed.has("integer") || allowed.has("number")) && NUMBER.test(text)) return Number(text);
  if (allowed.has("boolean") && (text === "true" || text === "false")) return text === "true";
  if (allowed.has("object") && !allowed.has("string")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * The arguments a query string gives a tool.
 *
 * @example
 * ```ts
 * import { queryArguments } from "./query_args.ts";
 * import { recallMemoriesTool } from "../lib/tools/recall_memories.ts";
 * const args = queryArguments(new URL("http://x/recall_memories?query=tea&max_tokens=300"), recallMemoriesTool);
 * console.assert(args.query === "tea" && args.max_tokens === 300);
 * ```
 */
export function queryArguments(url: URL, tool: AnyToolSpec): Record<string, unknown> {
  const properties = (listedInputSchema(tool) as { properties?: Record<string, Schema> })
    .properties ?? {};
  const args: Record<string, unknown> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const schema = properties[key];
    const given = url.searchParams.getAll(key);
    if (types(schema).has("array") || given.length > 1) {
      args[key] = given.map((text) => value(text, schema?.items));
    } else {
      args[key] = value(given[0], schema);
    }
  }
  return args;
}
