/**
 * `gleaner mcp` answers `tools/list` before loading the reader, ranker,
 * tokenizer or store: the modules it imports statically on that path must not
 * reach them (they load with the first call, or in the warm-up after
 * `tools/list`). Checked on the real module graph (`deno info --json`).
 */
import assert from "node:assert/strict";

interface GraphModule {
  specifier: string;
  kind?: string;
  npmPackage?: string;
  dependencies?: { isDynamic?: boolean; code?: { specifier?: string } }[];
}

/** Every module reached from `entry` through static, non-type imports. */
async function staticClosure(entry: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(out.success, `deno info ${entry}`);
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: GraphModule[];
    redirects: Record<string, string>;
  };
  const bySpecifier = new Map(graph.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const stack = [...graph.roots];
  while (stack.length) {
    const specifier = graph.redirects[stack.at(-1)!] ?? stack.at(-1)!;
    stack.pop();
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    const module = bySpecifier.get(specifier);
    if (module?.kind === "npm" && module.npmPackage) seen.add(`npm:${module.npmPackage}`);
    for (const dependency of module?.dependencies ?? []) {
      if (!dependency.isDynamic && dependency.code?.specifier) {
        stack.push(dependency.code.specifier);
      }
    }
  }
  return seen;
}

const ROOT = new URL("../", import.meta.url);

/** What `gleaner mcp` imports before the server answers `tools/list`. */
const MCP_START = [
  "cli.ts",
  "lib/config/config.ts",
  "lib/log.ts",
  "mcp/stdio.ts",
  "lib/tools/presentations.ts",
];

/** Loaded only on the first call or in the warm-up. */
const HEAVY = [
  /npm:gpt-tokenizer/,
  /npm:linkedom/,
  /npm:@mozilla\/readability/,
  /npm:turndown/,
  /npm:puppeteer-core/,
  /npm:sqlite-vec/,
  /npm:hono/,
  /^node:sqlite$/,
  /npm:\/?@modelcontextprotocol\/sdk@[^/]+\/server\/index\.js/,
  /\/lib\/gleaner\.ts$/,
  /\/lib\/text\/tokens\.ts$/,
  /\/lib\/store\/mod\.ts$/,
  /\/lib\/read\/tiers\.ts$/,
  /\/lib\/extract\//,
];

Deno.test("gleaner mcp: the modules loaded before tools/list reach no reader, ranker or store", async () => {
  const loaded = new Set<string>();
  for (const entry of MCP_START) {
    for (const specifier of await staticClosure(new URL(entry, ROOT).pathname)) {
      loaded.add(specifier);
    }
  }
  assert.ok([...loaded].some((s) => s.endsWith("/lib/tools/scrape_urls.ts")), "tool specs load");
  const heavy = [...loaded].filter((s) => HEAVY.some((pattern) => pattern.test(s)));
  assert.deepEqual(heavy, [], `loaded before tools/list: ${heavy.join(", ")}`);
});

Deno.test("the full graph does reach them (the check above sees what it looks for)", async () => {
  const all = await staticClosure(new URL("lib/gleaner.ts", ROOT).pathname);
  for (const pattern of [/\/lib\/text\/tokens\.ts$/, /\/lib\/store\/mod\.ts$/, /npm:linkedom/]) {
    assert.ok([...all].some((s) => pattern.test(s)), `lib/gleaner.ts reaches ${pattern}`);
  }
});
