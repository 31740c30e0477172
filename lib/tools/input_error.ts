/**
 * The `invalid_arguments` error of a tool input that does not fit its schema,
 * written for the model that sent it: the field, and for the usual wrong
 * shapes the expected one. A batch tool called without `items` (`{urls: […]}`,
 * `{query: "…"}`, `{items: ["https://…"]}`) is told the shape of `items`; an
 * unknown key in camelCase is pointed to its snake_case name (`maxTokens` →
 * `max_tokens`), a near miss to the nearest key, and a key given one level
 * too deep to the level it belongs to.
 *
 * @module
 */
import type { z } from "zod";
import { nearest } from "../config/suggest.ts";
import { GleanerError } from "../errors.ts";

type Def = { type?: string; element?: unknown; innerType?: unknown };

/** The schema inside optional and default wrappers. */
function unwrap(field: unknown): unknown {
  const def = (field as { def?: Def })?.def;
  return def && (def.type === "optional" || def.type === "default" || def.type === "nullable")
    ? unwrap(def.innerType)
    : field;
}

function isObject(schema: unknown): schema is z.ZodObject {
  return (unwrap(schema) as { def?: Def })?.def?.type === "object";
}

/** The element object of an array field (`items: [{…}]`), when the field is one. */
function elementObject(field: unknown): z.ZodObject | undefined {
  const def = (unwrap(field) as { def?: Def })?.def;
  if (def?.type !== "array") return undefined;
  const element = unwrap(def.element);
  return isObject(element) ? element : undefined;
}

/** The object schema at a path of the input (`["items", 0]` → the item object). */
function objectAt(schema: z.ZodObject, path: readonly PropertyKey[]): z.ZodObject | undefined {
  let here: unknown = schema;
  for (const segment of path) {
    if (typeof segment === "number") {
      const def = (unwrap(here) as { def?: Def })?.def;
      if (def?.type !== "array") return undefined;
      here = unwrap(def.element);
    } else {
      const object = unwrap(here);
      if (!isObject(object)) return undefined;
      here = unwrap(object.shape[String(segment)]);
    }
  }
  return isObject(here) ? unwrap(here) as z.ZodObject : undefined;
}

/** True when a field may be left out (optional or with a default). */
function optional(field: unknown): boolean {
  return (field as z.ZodType).safeParse(undefined).success;
}

/** The batch field of a tool: its one required array of objects (`items`, `memories`). */
function batchField(schema: z.ZodObject): { key: string; element: z.ZodObject } | undefined {
  const batches = Object.entries(schema.shape).flatMap(([key, field]) => {
    const element = optional(field) ? undefined : elementObject(field);
    return element ? [{ key, element }] : [];
  });
  return batches.length === 1 ? batches[0] : undefined;
}

/** An example value of a required item field, for the expected shape. */
function example(key: string): string {
  return key === "url" ? '"https://…"' : '"…"';
}

/** The expected shape of a batch field, from its element schema: `[{"url": "https://…"}, …]`. */
function batchShape(element: z.ZodObject): string {
  const required = Object.entries(element.shape).filter(([, field]) => !optional(field))
    .map(([key]) => `"${key}": ${example(key)}`);
  return `[{${required.join(", ")}}, …]`;
}

/** What a value is, in a few words (never the value itself). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) {
    if (value.length === 0) return "an empty array";
    const kinds = [...new Set(value.map(kindOf))];
    return kinds.length === 1 ? `an array of ${kinds[0].replace(/^an? /, "")}s` : "a mixed array";
  }
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}

/** `maxTokens` → `max_tokens`. */
function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/-/g, "_").toLowerCase();
}

/**
 * The hint for one unknown key: its snake_case name, a near miss, or the level it belongs to
 * (the top level, or each item of the batch field).
 */
function keyHint(
  key: string,
  here: z.ZodObject | undefined,
  top: z.ZodObject,
  batch: { key: string; element: z.ZodObject } | undefined,
): string {
  const known = here ? Object.keys(here.shape) : [];
  const snake = snakeCase(key);
  if (snake !== key && known.includes(snake)) return ` (did you mean "${snake}"?)`;
  const near = nearest(key, known);
  if (near) return ` (did you mean "${near}"?)`;
  if (here !== top && Object.hasOwn(top.shape, snake)) {
    return ` ("${snake}" goes at the top level)`;
  }
  if (batch && here === top && Object.hasOwn(batch.element.shape, snake)) {
    return ` ("${snake}" goes in each of \`${batch.key}\`)`;
  }
  return "";
}

/**
 * The `invalid_arguments` error for an input the tool's schema refused.
 *
 * @example
 * ```ts
 * import { inputError } from "./input_error.ts";
 * import { ScrapeInput } from "./scrape_urls_schemas.ts";
 * const input = { urls: ["https://example.com/"] };
 * const error = inputError("scrape_urls", ScrapeInput, input, ScrapeInput.safeParse(input).error!);
 * console.assert(error.message.startsWith('scrape_urls takes `items`: [{"url": "https://…"}, …]'));
 * ```
 */
export function inputError(
  tool: string,
  schema: z.ZodObject,
  input: unknown,
  error: z.ZodError,
): GleanerError {
  const batch = batchField(schema);
  const record = (typeof input === "object" && input !== null ? input : {}) as Record<
    string,
    unknown
  >;
  const issues = error.issues;

  // A batch tool whose batch field is missing or is not an array of objects: show the shape.
  if (batch) {
    const badBatch = issues.some((issue) =>
      issue.code === "invalid_type" && issue.path[0] === batch.key &&
      (issue.path.length === 1 || (issue.path.length === 2 && typeof issue.path[1] === "number"))
    );
    if (badBatch) {
      const unknown = issues.flatMap((issue) =>
        issue.code === "unrecognized_keys" && issue.path.length === 0 ? issue.keys : []
      );
      const given = record[batch.key];
      const got = given === undefined
        ? unknown.length > 0 ? unknown.map((key) => `\`${key}\``).join(", ") : `no \`${batch.key}\``
        : `\`${batch.key}\` as ${kindOf(given)}`;
      const shape = batchShape(batch.element);
      return new GleanerError(
        "invalid_arguments",
        `${tool} takes \`${batch.key}\`: ${shape} (got ${got})`,
        {
          details: {
            field: batch.key,
            expected: shape,
            ...(unknown.length > 0 ? { unknown_keys: unknown } : {}),
          },
        },
      );
    }
  }

  const issue = issues[0];
  const where = issue.path.join(".");
  const prefix = where ? `${tool}: ${where}` : tool;
  if (issue.code === "unrecognized_keys") {
    const here = objectAt(schema, issue.path);
    const keys = issue.keys.map((key) => JSON.stringify(key) + keyHint(key, here, schema, batch))
      .join(", ");
    return new GleanerError(
      "invalid_arguments",
      `${prefix}: unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}`,
      {
        details: where ? { field: where, unknown_keys: issue.keys } : { unknown_keys: issue.keys },
      },
    );
  }
  return new GleanerError("invalid_arguments", `${prefix}: ${issue.message}`, {
    details: { field: where || "input" },
  });
}
