/**
 * `deno doc --lint` over the public entry points, minus one false alarm:
 * `private-type-ref` for a type that belongs to another package.
 *
 * Deno drops that diagnostic for types of jsr:/https: packages (the
 * visibility of an upstream type is the upstream package's concern), but npm
 * packages resolve to `file:` paths, so every zod, hono or MCP SDK type a
 * public signature names is reported as "private". This script keeps every
 * other diagnostic, and keeps `private-type-ref` whenever the referenced
 * declaration is in this project's own sources (matched by its line number
 * and text, which the diagnostic prints).
 *
 * Usage: `deno run --allow-read --allow-run scripts/doc_lint.ts mod.ts cli.ts …`
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url).pathname;
const SOURCE_DIRS = ["lib", "mcp", "http"];
const entries = Deno.args.length ? Deno.args : ["mod.ts", "mcp/mod.ts", "http/mod.ts", "cli.ts"];

async function projectFiles(): Promise<string[]> {
  const files = ["mod.ts", "cli.ts"];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) files.push(path);
    }
  };
  for (const dir of SOURCE_DIRS) await walk(dir);
  return files;
}

/** True when some project file has `text` at 1-based `line`. */
async function declaredHere(line: number, text: string, files: string[]): Promise<boolean> {
  for (const file of files) {
    const lines = (await Deno.readTextFile(`${ROOT}${file}`)).split("\n");
    if (lines[line - 1]?.trim() === text.trim()) return true;
  }
  return false;
}

const { stdout, stderr } = await new Deno.Command(Deno.execPath(), {
  args: ["doc", "--lint", ...entries],
  cwd: ROOT,
  env: { NO_COLOR: "1" },
  stdout: "piped",
  stderr: "piped",
}).output();
const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
const blocks = text.split(/\n(?=error\[)/).filter((b) => b.startsWith("error["));
const files = await projectFiles();
const kept: string[] = [];
let upstream = 0;
for (const block of blocks) {
  if (block.startsWith("error[private-type-ref]")) {
    // The referenced declaration: "486 | export interface ZodObject<" before "this is the referenced type".
    const ref = block.match(/\n\s*(\d+) \| (.*)\n\s*\| -+ this is the referenced type/);
    if (ref && !(await declaredHere(Number(ref[1]), ref[2], files))) {
      upstream++;
      continue;
    }
  }
  kept.push(block.split("\n").filter((l) => !/^error: Found \d+/.test(l)).join("\n").trimEnd());
}
const write = (s: string) => Deno.stderr.writeSync(new TextEncoder().encode(s));
if (kept.length) write(kept.join("\n") + "\n");
write(
  `doc lint: ${kept.length} problem(s); ${upstream} reference(s) to other packages' types ignored\n`,
);
Deno.exit(kept.length ? 1 : 0);
