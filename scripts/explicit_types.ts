/**
 * Adds the explicit types JSR asks for (`deno publish` slow-type errors
 * `missing-explicit-type` / `missing-explicit-return-type`), taking each type
 * from the declaration tsc emitted for the npm build, so the annotation is
 * exactly the inferred type (zod schemas mostly). A tool spec gets
 * `ToolSpec<typeof Input, typeof Output>` when its schemas are named.
 *
 * After changing a schema: delete its old annotation, then
 * `deno task build:npm && deno run -A scripts/explicit_types.ts && deno fmt`.
 *
 * @module
 */
const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const log = (s: string) => Deno.stderr.writeSync(new TextEncoder().encode(`${s}\n`));
const out = new TextDecoder().decode(
  (await new Deno.Command(Deno.execPath(), {
    args: ["publish", "--dry-run", "--allow-dirty"],
    cwd: root,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output()).stderr,
);
const re =
  /error\[(missing-explicit-type|missing-explicit-return-type)\][^\n]*\n\s*--> (\S+):(\d+):(\d+)/g;
const sites: { kind: string; file: string; line: number; col: number }[] = [];
for (const m of out.matchAll(re)) sites.push({ kind: m[1], file: m[2], line: +m[3], col: +m[4] });
log(`${sites.length} sites`);
function declType(dts: string, name: string, fn: boolean): string | undefined {
  const m = new RegExp(`(?:export )?declare const ${name.replace("$", "\\$")}: `).exec(dts);
  if (!m) return undefined;
  let i = m.index + m[0].length, depth = 0;
  const start = i;
  for (; i < dts.length; i++) {
    const c = dts[i];
    if ("<({[".includes(c)) depth++;
    else if (">)}]".includes(c)) { if (!(c === ">" && dts[i - 1] === "=")) depth--; }
    else if (c === ";" && depth === 0) break;
  }
  let t = dts.slice(start, i).trim();
  if (fn) {
    const arrow = t.indexOf("=>");
    t = t.slice(arrow + 2).trim();
  }
  return t;
}
function topLevelArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ("<({[".includes(c)) depth++;
    else if (">)}]".includes(c) && !(c === ">" && text[i - 1] === "=")) depth--;
    else if (c === "," && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}
const needsToolSpec = new Set<string>();
const byFile = new Map<string, typeof sites>();
for (const s of sites) byFile.set(s.file, [...(byFile.get(s.file) ?? []), s]);
for (const [file, list] of byFile) {
  const rel = file.slice(root.length + 1);
  const dts = await Deno.readTextFile(`${root}/dist/npm/${rel.replace(/\.ts$/, ".d.ts")}`);
  const lines = (await Deno.readTextFile(file)).split("\n");
  for (const s of list) {
    const line = lines[s.line - 1];
    const name = line.slice(s.col - 1).match(/^[\w$]+/)![0];
    const t = declType(dts, name, s.kind === "missing-explicit-return-type");
    if (!t) {
      log(`no decl for ${rel}:${s.line} ${name}`);
      continue;
    }
    let type = t;
    if (/^import\("\.\/spec\.(ts|js)"\)\.ToolSpec</.test(t)) {
      const block = lines.slice(s.line - 1, s.line + 40).join("\n");
      const input = block.match(/\binput: (\w+),/)?.[1];
      const output = block.match(/\boutput: (\w+),/)?.[1];
      const args = topLevelArgs(t.slice(t.indexOf("ToolSpec<") + "ToolSpec<".length, -1));
      type = `ToolSpec<${input ? `typeof ${input}` : args[0]}, ${
        output ? `typeof ${output}` : args[1]
      }>`;
      needsToolSpec.add(file);
    }
    if (type.includes("import(")) log(`WARN import() in ${rel} ${name}: ${t.slice(0, 200)}`);
    const after = s.col - 1 + name.length;
    if (s.kind === "missing-explicit-type") {
      lines[s.line - 1] = line.slice(0, after) + `: ${type}` + line.slice(after);
    } else {
      // const f = () => ...  →  const f = (): T => ...
      lines[s.line - 1] = line.replace(/\(\)\s*=>/, `(): ${t} =>`);
    }
  }
  let text = lines.join("\n");
  if (needsToolSpec.has(file) && !/\bToolSpec\b[^\n]*from "\.\/spec\.ts"/.test(text)) {
    text = text.replace(
      /import \{ defineTool \} from "\.\/spec\.ts";/,
      'import { defineTool, type ToolSpec } from "./spec.ts";',
    );
    if (!/type ToolSpec \}/.test(text)) log(`ADD ToolSpec import by hand: ${rel}`);
  }
  await Deno.writeTextFile(file, text);
  log(`annotated ${rel}: ${list.length}`);
}

// Second pass: where an annotation spells out the type of another exported schema
// that is in scope (imported or defined in the same file), name it instead
// (`typeof MemorySchema`), so a shared schema's type is written once.
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const spelled = (type: string) =>
  new RegExp(type.match(/\w+|[^\s\w]/g)!.map(escapeRe).join("\\s*"), "g");
const toolFiles: string[] = [];
for await (const entry of Deno.readDir(`${root}/lib/tools`)) {
  if (entry.name.endsWith(".ts")) toolFiles.push(`${root}/lib/tools/${entry.name}`);
}
const shared: { name: string; file: string; type: string }[] = [];
for (const file of toolFiles) {
  const text = await Deno.readTextFile(file);
  for (
    const m of text.matchAll(/export const ([A-Z]\w*): (z\.Zod(?:Object|Enum)<[\s\S]*?>) = z\./g)
  ) {
    if (m[2].length > 80) shared.push({ name: m[1], file, type: m[2] });
  }
}
shared.sort((a, b) => b.type.length - a.type.length);
for (const file of toolFiles) {
  let text = await Deno.readTextFile(file);
  const before = text;
  for (const { name, file: home, type } of shared) {
    const own = `export const ${name}: `;
    const rest = text.replace(own + type, "");
    if (home !== file && !new RegExp(`\\b${name}\\b`).test(rest)) continue;
    text = text.replace(
      spelled(type),
      (match, offset: number) =>
        home === file && text.slice(offset - own.length, offset) === own ? match : `typeof ${name}`,
    );
  }
  if (text !== before) {
    await Deno.writeTextFile(file, text);
    log(`named shared schemas in ${file.slice(root.length + 1)}`);
  }
}
