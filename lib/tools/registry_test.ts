/**
 * Every tool anywhere in lib/ takes a strict input: each object level of its
 * input JSON Schema says `additionalProperties: false`, so an unknown key is
 * refused instead of silently ignored. Tools are discovered, not listed: every
 * module under lib/ that calls `defineTool(` is imported and each exported tool
 * (or list of tools) is checked, so tools added later are covered too.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { parseToolInput } from "../api.ts";
import { GleanerError } from "../errors.ts";
import { TOOLS } from "./mod.ts";
import type { AnyToolSpec } from "./spec.ts";

const LIB = new URL("../", import.meta.url);

function isTool(value: unknown): value is AnyToolSpec {
  return typeof value === "object" && value !== null &&
    typeof (value as AnyToolSpec).name === "string" &&
    (value as AnyToolSpec).input instanceof z.ZodType &&
    typeof (value as AnyToolSpec).handler === "function";
}

async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) yield url;
  }
}

/** Every tool defined or listed anywhere in lib/, by name (TOOLS first). */
async function allTools(): Promise<Map<string, AnyToolSpec>> {
  const tools = new Map<string, AnyToolSpec>();
  const add = (tool: AnyToolSpec) => tools.set(`${tool.name}@${tools.size}`, tool);
  for (const tool of TOOLS) add(tool);
  for await (const file of sourceFiles(LIB)) {
    const text = await Deno.readTextFile(file);
    if (!/defineTool\(|AnyToolSpec\[\]/.test(text) || file.pathname.endsWith("/spec.ts")) continue;
    const module = await import(file.href) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (isTool(value)) add(value);
      else if (Array.isArray(value)) value.filter(isTool).forEach(add);
    }
  }
  return tools;
}

type JsonSchema = Record<string, unknown>;

/** Paths of object levels that accept unknown keys. */
function looseObjects(schema: unknown, path: string, out: string[] = []): string[] {
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => looseObjects(s, `${path}[${i}]`, out));
    return out;
  }
  if (typeof schema !== "object" || schema === null) return out;
  const node = schema as JsonSchema;
  const isObject = node.type === "object" || node.properties !== undefined;
  if (isObject && node.additionalProperties !== false) out.push(path || "(root)");
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && typeof value === "object" && value !== null) {
      for (const [name, sub] of Object.entries(value)) looseObjects(sub, `${path}.${name}`, out);
    } else if (key !== "additionalProperties" && typeof value === "object") {
      looseObjects(value, `${path}/${key}`, out);
    }
  }
  return out;
}

Deno.test("tools: every input schema refuses unknown keys at every object level", async () => {
  const tools = await allTools();
  assert.ok(tools.size >= TOOLS.length);
  for (const [id, tool] of tools) {
    const schema = z.toJSONSchema(tool.input, { io: "input", target: "draft-7" });
    assert.equal((schema as JsonSchema).type, "object", `${id}: input is an object`);
    assert.deepEqual(
      looseObjects(schema, ""),
      [],
      `${id}: build every input object with z.strictObject`,
    );
  }
});

Deno.test("tools: the checker itself notices a loose nested object", () => {
  const loose = z.strictObject({ items: z.array(z.object({ url: z.string() })) });
  assert.deepEqual(looseObjects(z.toJSONSchema(loose, { io: "input" }), ""), [".items/items"]);
});

Deno.test("tools: an unknown key is invalid_arguments naming the tool and the key", () => {
  const clear = TOOLS.find((t) => t.name === "clear_cache")!;
  assert.throws(
    () => parseToolInput(clear, { namespace: "search" }),
    (e: GleanerError) =>
      e instanceof GleanerError && e.code === "invalid_arguments" &&
      e.message === 'clear_cache: unknown key "namespace"',
  );
  const scrape = TOOLS.find((t) => t.name === "scrape_urls")!;
  assert.throws(
    () => parseToolInput(scrape, { items: [{ url: "https://example.com/", qurey: "x" }] }),
    (e: GleanerError) =>
      e.code === "invalid_arguments" &&
      e.message === 'scrape_urls: items.0: unknown key "qurey" (did you mean "query"?)',
  );
  assert.deepEqual(parseToolInput(clear, {}), { target: "all" });
});
