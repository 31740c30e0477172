import assert from "node:assert/strict";
import { anchorSpecifiers, docExamples } from "./doc_examples.ts";

const FENCE = "`".repeat(3);

/** A JSDoc comment holding `blocks` (each a fence line's attributes and its code lines). */
function comment(...blocks: [string, string[]][]): string {
  const lines = ["/**", " * Text."];
  for (const [attributes, code] of blocks) {
    lines.push(" *", ` * ${FENCE}${attributes}`, ...code.map((l) => ` * ${l}`), ` * ${FENCE}`);
  }
  return [...lines, " */", "export const x = 1;", ""].join("\n");
}

Deno.test("doc examples: ts and js fences run; ignore, bare and other languages do not", () => {
  const source = comment(
    ["ts", ["a();"]],
    ["ts ignore", ["b();"]],
    ["", ["gleaner serve"]],
    ["sh", ["deno task test"]],
    ["js", ["c();"]],
    ["typescript", ["d();"]],
  );
  assert.deepEqual(docExamples(source).map((e) => e.code), ["a();\n", "c();\n", "d();\n"]);
});

Deno.test("doc examples: line ranges are the fences' lines, code loses its markers", () => {
  const source = `const y = 2;\n${
    comment(["ts", ["const a = 1;", "  if (a) b();", "# hidden();"]])
  }`;
  const [example] = docExamples(source);
  assert.equal(example.line, 5);
  assert.equal(example.endLine, 9);
  assert.equal(source.split("\n")[example.line - 1], ` * ${FENCE}ts`);
  assert.equal(source.split("\n")[example.endLine - 1], ` * ${FENCE}`);
  assert.equal(example.code, "const a = 1;\n  if (a) b();\nhidden();\n");
});

Deno.test("doc examples: examples in every comment of a module, none outside comments", () => {
  const source = `${comment(["ts", ["one();"]])}// ${FENCE}ts\n${comment(["ts", ["two();"]])}`;
  assert.deepEqual(docExamples(source).map((e) => e.code), ["one();\n", "two();\n"]);
  assert.deepEqual(docExamples("/* " + FENCE + "ts\nthree();\n" + FENCE + " */"), []);
});

Deno.test("doc examples: relative specifiers point at the module's folder, others stay", () => {
  const base = new URL("file:///repo/lib/net/fetch.ts");
  const code = [
    `import { a } from "./a.ts";`,
    `import "../side.ts";`,
    `export { b } from './b.ts';`,
    `const c = await import("./c.ts");`,
    `import { z } from "zod";`,
    `import { g } from "@gleaner/gleaner";`,
    `const text = "./not-a-specifier.ts";`,
  ].join("\n");
  assert.equal(
    anchorSpecifiers(code, base),
    [
      `import { a } from "file:///repo/lib/net/a.ts";`,
      `import "file:///repo/lib/side.ts";`,
      `export { b } from 'file:///repo/lib/net/b.ts';`,
      `const c = await import("file:///repo/lib/net/c.ts");`,
      `import { z } from "zod";`,
      `import { g } from "@gleaner/gleaner";`,
      `const text = "./not-a-specifier.ts";`,
    ].join("\n"),
  );
});
