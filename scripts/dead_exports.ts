/**
 * Lists the exports of production modules that no other file names and that
 * are not marked `@internal`: each is either dead (used nowhere, or only in
 * its own file: lower the `export` or delete it) or used only by tests and
 * examples (mark it `@internal`, or move it to a `testing/` folder). A type
 * named only in its own module is often part of an exported signature (an
 * options object, a result): it stays exported. The public faces (`mod.ts`, `mcp/mod.ts`, `http/mod.ts`,
 * `cli.ts`, `lib/deep_research/mod.ts`) and what a face re-exports with
 * `export *` are left out: they are the published API.
 *
 * A name counts as used by another file when that file holds the word
 * (imports, `typeof import(…)`, JSDoc links), so the list errs on the side of
 * keeping: a name shared by two modules is never listed. A JSDoc example that
 * imports the name from its own module is a doc test, so such a name counts
 * as used by tests (`tests-only`), never as `own-file`: lowering its
 * `export` would break the example.
 *
 * ```sh
 * deno run --allow-read scripts/dead_exports.ts          # one line per export
 * deno run --allow-read scripts/dead_exports.ts --json   # the same as JSON
 * ```
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url);
const FACES = ["mod.ts", "mcp/mod.ts", "http/mod.ts", "cli.ts", "lib/deep_research/mod.ts"];
const PRODUCTION = ["lib/", "mcp/", "http/", "mod.ts", "cli.ts"];
const SEARCHED = [...PRODUCTION, "tests/", "testing/", "bench/", "scripts/"];

/** What the script reports about one export. */
export interface DeadExport {
  /** The module (relative to the repository root). */
  file: string;
  /** The exported name. */
  name: string;
  /** `own-file`: named only where it is declared; `tests-only`: also by tests or test helpers. */
  kind: "own-file" | "tests-only";
  /** Whether the declaring file itself uses the name beyond its declaration. */
  usedInOwnFile: boolean;
  /** `value` (function, constant, class) or `type` (interface, type alias). */
  declares: "value" | "type";
}

function isTest(path: string): boolean {
  return /_test\.ts$/.test(path) || /(^|\/)(testdata|testing|tests|bench)\//.test(path) ||
    path.startsWith("tests/") || path.startsWith("testing/") || path.startsWith("bench/");
}

async function walk(dir: string, out: string[]): Promise<void> {
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory && entry.name !== "node_modules") await walk(`${path}/`, out);
    else if (/\.(ts|tsx)$/.test(path)) out.push(path);
  }
}

/** True when the JSDoc right above the declaration of `name` in `source` says `@internal`. */
function markedInternal(source: string, name: string): boolean {
  const at = source.search(new RegExp(`^export\\s+[\\w\\s*]*?\\b${name}\\b`, "m"));
  if (at < 0) return false;
  const before = source.slice(0, at).trimEnd();
  return before.endsWith("*/") && before.slice(before.lastIndexOf("/**")).includes("@internal");
}

/** True when a JSDoc example in `source` imports `name` (`import { …name… } from "./…"`). */
function importedByOwnExample(source: string, name: string): boolean {
  return new RegExp(`^\\s*\\* import (?:type )?\\{[^}]*\\b${name}\\b[^}]*\\} from "\\./`, "m")
    .test(source);
}

/** The names `source` exports by declaration (`export function f`, `export const c`, …). */
function declaredExports(source: string): Map<string, "value" | "type"> {
  const names = new Map<string, "value" | "type">();
  const pattern =
    /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
  for (const m of source.matchAll(pattern)) {
    names.set(m[2], m[1] === "interface" || m[1] === "type" ? "type" : "value");
  }
  return names;
}

function words(source: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of source.matchAll(/[A-Za-z_$][\w$]*/g)) {
    counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  }
  return counts;
}

/** Every export of a production module no other production file names. */
export async function deadExports(): Promise<DeadExport[]> {
  const files: string[] = [];
  for (const root of SEARCHED) {
    if (root.endsWith("/")) {
      try {
        await walk(root, files);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    } else files.push(root);
  }
  const sources = new Map<string, string>();
  for (const file of files) sources.set(file, await Deno.readTextFile(new URL(file, ROOT)));
  const vocabulary = new Map<string, Map<string, number>>();
  for (const [file, source] of sources) vocabulary.set(file, words(source));
  // What the faces publish through `export *` stays.
  const published = new Set<string>();
  for (const face of FACES) {
    for (const m of (sources.get(face) ?? "").matchAll(/export \* from "(\.[^"]+)"/g)) {
      published.add(new URL(m[1], new URL(face, ROOT)).href.slice(ROOT.href.length));
    }
  }
  const out: DeadExport[] = [];
  for (const [file, source] of sources) {
    const production = PRODUCTION.some((p) => p.endsWith("/") ? file.startsWith(p) : file === p);
    if (!production || isTest(file) || FACES.includes(file) || published.has(file)) continue;
    for (const [name, declares] of declaredExports(source)) {
      const users = [...vocabulary].filter(([other, counts]) => other !== file && counts.has(name))
        .map(([other]) => other);
      if (users.some((user) => !isTest(user)) || markedInternal(source, name)) continue;
      out.push({
        file,
        name,
        kind: users.length === 0 && !importedByOwnExample(source, name) ? "own-file" : "tests-only",
        usedInOwnFile: (vocabulary.get(file)!.get(name) ?? 0) > 1,
        declares,
      });
    }
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
}

function print(line: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(`${line}\n`));
}

if (import.meta.main) {
  const found = await deadExports();
  if (Deno.args.includes("--json")) {
    print(JSON.stringify(found, null, 2));
  } else {
    for (const d of found) {
      const here = d.usedInOwnFile ? "used-here" : "unused";
      print(`${d.kind}\t${d.declares}\t${here}\t${d.file}\t${d.name}`);
    }
    print(`${found.length} export(s)`);
  }
}
