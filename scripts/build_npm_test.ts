import assert from "node:assert/strict";
import { bareImports, npmTarget, packageName, transform, usesDeno } from "./build_npm.ts";

Deno.test("build_npm: deno.json npm targets and package names", () => {
  assert.deepEqual(npmTarget("npm:zod@4.6.7"), ["zod", "4.6.7"]);
  assert.deepEqual(npmTarget("npm:/@modelcontextprotocol/sdk@1.32.2/"), [
    "@modelcontextprotocol/sdk",
    "1.32.2",
  ]);
  assert.equal(npmTarget("jsr:@std/http@1"), undefined);
  assert.equal(packageName("hono/utils/http-status"), "hono");
  assert.equal(packageName("@modelcontextprotocol/sdk/server/mcp.js"), "@modelcontextprotocol/sdk");
});

Deno.test("build_npm: Deno in code (not in comments or strings) pulls in the shim", () => {
  assert.ok(usesDeno("const x = Deno.env.get('A');"));
  assert.ok(usesDeno("const d = (globalThis as { Deno?: typeof Deno }).Deno;"));
  assert.ok(!usesDeno("/** Runs on `Deno.serve`. */\nexport const a = 1;"));
  assert.ok(!usesDeno("// Deno.exit is not called here\nexport const a = 1;"));
  assert.ok(!usesDeno('const specifier = "Deno" in globalThis;'));
});

Deno.test("build_npm: transform adds the shim, rewrites import.meta.main, shebang and worker URLs", () => {
  const cli = transform(
    "cli.ts",
    "#!/usr/bin/env -S deno run -A\nimport { a } from './lib/a.ts';\nif (import.meta.main) Deno.exit(0);\n",
  );
  assert.ok(cli.startsWith('#!/usr/bin/env node\nimport "./_shims/cli_entry.ts";\n'), cli);
  assert.match(cli, /^import \{ Deno, isMainModule \} from "\.\/_shims\/deno\.ts";$/m);
  assert.match(cli, /if \(isMainModule\(import\.meta\.url\)\) Deno\.exit\(0\);/);
  assert.ok(!cli.includes("import.meta.main"));

  const deep = transform("lib/store/sqlite.ts", "export const f = () => Deno.cwd();\n");
  assert.match(deep, /^import \{ Deno \} from "\.\.\/\.\.\/_shims\/deno\.ts";$/m);

  const entry = transform("mcp/mod.ts", "export { a } from './a.ts';\n");
  assert.match(entry, /^import "\.\.\/_shims\/deno\.ts";$/m, "entry points load the polyfills");
  assert.ok(entry.startsWith('import "../_shims/entry.ts";\n'), "the warning filter first");

  const plain = transform("lib/rank/bm25.ts", "export const k = 1.2;\n");
  assert.equal(plain, "export const k = 1.2;\n");

  const worker = transform(
    "lib/embed/use_lite.ts",
    'new Worker(new URL("./use_lite_worker.ts", import.meta.url));\n',
  );
  assert.match(worker, /new URL\("\.\/use_lite_worker\.js", import\.meta\.url\)/);
});

Deno.test("build_npm: node:sqlite values come from the shim loaded after the gate; types stay", () => {
  const store = transform(
    "lib/store/sqlite.ts",
    'import { DatabaseSync } from "node:sqlite";\nimport type { StatementSync } from "node:sqlite";\n',
  );
  assert.match(store, /^import \{ DatabaseSync \} from "\.\.\/\.\.\/_shims\/sqlite\.ts";$/m);
  assert.match(store, /^import type \{ StatementSync \} from "node:sqlite";$/m, "erased at emit");
  assert.ok(!/^import \{[^}]*\} from "node:sqlite"/m.test(store), "no static value import left");
});

Deno.test("build_npm: bare imports of compiled code, comments and node: builtins left out", () => {
  const js = [
    '/** import { x } from "@gleaner/gleaner"; */',
    'import { z } from "zod";',
    'import { Hono } from "hono";',
    'export { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";',
    'import "./local.js";',
    'import { readFile } from "node:fs/promises";',
    'const m = await import("unpdf");',
    'const flags = { import: "--allow-import", sys: "--allow-sys" };',
  ].join("\n");
  assert.deepEqual(bareImports(js), [
    "zod",
    "hono",
    "@modelcontextprotocol/sdk/server/mcp.js",
    "unpdf",
  ]);
});
