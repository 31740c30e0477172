/**
 * Every JSDoc example of the repository, run as one test each in this one
 * test module (see `testing/doc_examples.ts` for why and how they are found).
 * Each example is written as a module of its own under `dist/doc_examples/`
 * with its relative imports pointed back at its folder, then imported: its
 * `console.assert`s throw (`tests/preload.ts`), so a false one fails its test.
 *
 * @module
 */
import { anchorSpecifiers, docExamples } from "../testing/doc_examples.ts";

const root = new URL("../", import.meta.url);
const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
const excluded: string[] = ["node_modules/", ...(config.test?.exclude ?? [])];
const MODULE = /\.(ts|tsx|mts|js|jsx|mjs)$/;

/** Paths (relative to the root, `/`-separated) of the modules the tests cover, sorted. */
async function modules(dir = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir || ".", root))) {
    const path = `${dir}${entry.name}${entry.isDirectory ? "/" : ""}`;
    if (entry.name.startsWith(".") || excluded.some((e) => path.startsWith(e))) continue;
    if (entry.isDirectory) found.push(...await modules(path));
    else if (entry.isFile && MODULE.test(entry.name)) found.push(path);
  }
  return found.sort();
}

const out = new URL(`dist/doc_examples/${Deno.pid}/`, root);
let written = 0;
for (const path of await modules()) {
  const source = await Deno.readTextFile(new URL(path, root));
  for (const example of docExamples(source)) {
    if (written++ === 0) await Deno.mkdir(out, { recursive: true });
    const name = `${path}#${example.line}-${example.endLine}`;
    const file = new URL(`${name.replaceAll("/", "__").replace("#", "_")}.ts`, out);
    await Deno.writeTextFile(file, anchorSpecifiers(example.code, new URL(path, root)));
    Deno.test(name, async () => {
      await import(file.href);
    });
  }
}

Deno.test("doc examples: the repository's JSDoc examples are found", () => {
  if (written < 100) throw new Error(`only ${written} examples found under ${root.pathname}`);
});

globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(out, { recursive: true });
  } catch { /* already gone */ }
});
