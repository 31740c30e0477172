/**
 * `deno task build:npm`: builds the npm package into `dist/npm` from the same
 * sources as the JSR package.
 *
 * 1. collects every local module reachable from the public entry points
 *    (`deno info --json`, dynamic imports included) and copies them into a
 *    staging folder;
 * 2. rewrites what Node lacks: entry points and modules that name `Deno`
 *    import `_shims/deno.ts` (`@deno/shim-deno` plus small adapters and the
 *    `Promise.try` polyfill, see `scripts/npm/deno_shim.ts`), `import.meta.main` becomes a check of
 *    `process.argv[1]`, `new URL("./x.ts", import.meta.url)` (workers) points at `x.js`, the
 *    Deno shebang becomes a Node one; entry points load the Node version gate first, and
 *    `node:sqlite` is imported through `_shims/sqlite.ts`, after it;
 * 3. compiles with TypeScript (`tsc`: ES2022 modules, `.d.ts`, relative
 *    `.ts` imports rewritten to `.js`), without a type check (`deno check`
 *    is the type check; the Node typings of the shims differ in details);
 * 4. writes `package.json` (exports `.`, `./mcp`, `./http`, `./cli`, `./deep-research`; bin
 *    `gleaner`; the npm dependencies the output imports, with the versions of
 *    `deno.json`; no `repository`: the project declares none), copies `models/static`, README,
 *    LICENSE and NOTICE.
 *
 * The build tools (typescript, @types/node) come from the npm registry with
 * the npm client, into `dist/.npm_build/node_modules`, never into the
 * project's `node_modules`.
 *
 * Usage: `deno task build:npm [--out dist/npm]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { NODE_ENGINES } from "./npm/node_gate.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const ENTRIES: Record<string, string> = {
  ".": "mod.ts",
  "./mcp": "mcp/mod.ts",
  "./http": "http/mod.ts",
  "./cli": "cli.ts",
  "./deep-research": "lib/deep_research/mod.ts",
};
/** Files loaded by URL at run time (workers), not by import. */
const EXTRA_MODULES = ["lib/embed/use_lite_worker.ts"];
/** Build tools, installed with npm into the build folder. */
const BUILD_TOOLS = ["typescript@5.9.3", "@types/node@22.20.7"];
/** Runtime dependencies the adapters add. */
const SHIM_DEPENDENCIES: Record<string, string> = {
  "@deno/shim-deno": "0.19.2",
  "@hono/node-server": "2.1.9",
};
/** Loaded only when chosen (`embed.provider: transformers`): an optional peer. */
const OPTIONAL_PEERS: Record<string, string> = {
  "@huggingface/transformers": "4.3.2",
};
const SHIM_MODULE = "_shims/deno.ts";
/**
 * Loaded before anything else, by the CLI and by the library entry points: the Node version
 * gate (the CLI prints and exits 1, the library throws), then the SQLite warning filter.
 */
const CLI_GATE_MODULE = "_shims/cli_entry.ts";
const ENTRY_GATE_MODULE = "_shims/entry.ts";
/** `node:sqlite`, loaded after the gate (see `scripts/npm/sqlite.ts`). */
const SQLITE_MODULE = "_shims/sqlite.ts";
/** Files of `scripts/npm/` copied into `_shims/` as they are. */
const GATE_FILES = ["node_gate.ts", "entry.ts", "cli_entry.ts", "sqlite.ts"];

interface DenoJson {
  name: string;
  version: string;
  license: string;
  description?: string;
  imports: Record<string, string>;
}

function log(message: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`build:npm: ${message}\n`));
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const { success, stdout, stderr } = await new Deno.Command(cmd, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) {
    const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${text.slice(0, 6000)}`);
  }
}

/** Local modules reachable from `entry`, relative to the project root. */
async function localModules(entry: string): Promise<string[]> {
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`deno info ${entry}: ${new TextDecoder().decode(stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(stdout)) as {
    modules: { specifier: string; error?: string }[];
  };
  const rootUrl = new URL(`file://${ROOT}`).href;
  return info.modules
    .map((m) => m.specifier)
    .filter((s) => s.startsWith(rootUrl))
    .map((s) => decodeURIComponent(s.slice(rootUrl.length)));
}

/** Bare package name of an import specifier (`hono/utils/x` → `hono`). */
export function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** `npm:/@scope/name@1.2.3/` or `npm:name@1.2.3` → [name, version]. */
export function npmTarget(target: string): [string, string] | undefined {
  const m = target.match(/^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)\/?$/);
  return m ? [m[1], m[2]] : undefined;
}

function relativeTo(fromFile: string, toFile: string): string {
  const from = fromFile.split("/").slice(0, -1);
  const to = toFile.split("/");
  let common = 0;
  while (common < from.length && from[common] === to[common]) common++;
  const up = from.length - common;
  const path = [...Array(up).fill(".."), ...to.slice(common)].join("/");
  return up === 0 ? `./${path}` : path;
}

/** Source without comments (good enough for import and `Deno` scans). */
function stripComments(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Code outside comments names the `Deno` namespace. */
export function usesDeno(source: string): boolean {
  const code = stripComments(source);
  return /(?<![\w.$"'])Deno\b(?!["'])/.test(code);
}

/** Rewrites one module for Node. */
export function transform(path: string, source: string): string {
  let out = source;
  if (out.startsWith("#!")) {
    out = out.replace(/^#!.*\n/, path === "cli.ts" ? "#!/usr/bin/env node\n" : "");
  }
  const needsMain = out.includes("import.meta.main");
  const isEntry = Object.values(ENTRIES).includes(path);
  if (usesDeno(out) || needsMain || isEntry) {
    const names = [usesDeno(out) ? "Deno" : "", needsMain ? "isMainModule" : ""].filter(Boolean);
    const from = relativeTo(path, SHIM_MODULE);
    // Entry points load the shims first (the Promise.try polyfill included).
    const importLine = names.length
      ? `import { ${names.join(", ")} } from "${from}";\n`
      : `import "${from}";\n`;
    // Entry points check the Node version / filter the SQLite warning before all else.
    const gate = isEntry
      ? `import "${relativeTo(path, path === "cli.ts" ? CLI_GATE_MODULE : ENTRY_GATE_MODULE)}";\n`
      : "";
    // After a leading shebang and the module doc comment, before the first import.
    const shebang = out.match(/^#!.*\n/)?.[0] ?? "";
    out = shebang + gate + importLine + out.slice(shebang.length);
  }
  // `node:sqlite` values come from the shim that loads it after the gate; type imports stay.
  out = out.replace(
    /^import (?!type\b)(\{[^}]*\}) from "node:sqlite";$/gm,
    `import $1 from "${relativeTo(path, SQLITE_MODULE)}";`,
  );
  // Modules loaded by URL (workers) are emitted as .js too.
  out = out.replace(
    /new URL\((["'])(\.{1,2}\/[^"']+)\.ts\1, import\.meta\.url\)/g,
    "new URL($1$2.js$1, import.meta.url)",
  );
  return out.replaceAll("import.meta.main", "isMainModule(import.meta.url)");
}

/** Bare specifiers (npm packages) imported by a compiled module. */
export function bareImports(js: string): string[] {
  const found: string[] = [];
  const re =
    /(?<![\w$.-])(?:import|export)\s[^;]*?from\s*["']([^"'./][^"']*)["']|(?<![\w$.-])import\(\s*["']([^"'./][^"']*)["']\s*\)|(?<![\w$.-])import\s*["']([^"'./][^"']*)["']/g;
  for (const m of stripComments(js).matchAll(re)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec.startsWith("node:")) found.push(spec);
  }
  return found;
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

async function walk(dir: string, base = dir): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) files.push(...await walk(path, base));
    else files.push(path.slice(base.length + 1));
  }
  return files;
}

/** Builds the package; returns its folder. */
export async function buildNpm(outDir = `${ROOT}dist/npm`): Promise<string> {
  const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as DenoJson;
  const work = `${ROOT}dist/.npm_build`;
  const staging = `${work}/src`;

  // Build tools (kept between builds).
  await Deno.mkdir(work, { recursive: true });
  const toolsJson = `${work}/package.json`;
  const wanted = JSON.stringify({ private: true, tools: BUILD_TOOLS, shims: SHIM_DEPENDENCIES });
  const have = await Deno.readTextFile(`${work}/tools.json`).catch(() => "");
  if (have !== wanted) {
    log(`installing ${[...BUILD_TOOLS, ...Object.keys(SHIM_DEPENDENCIES)].join(", ")} with npm`);
    await Deno.writeTextFile(toolsJson, JSON.stringify({ private: true }));
    await run("npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--no-package-lock",
      ...BUILD_TOOLS,
      ...Object.entries(SHIM_DEPENDENCIES).map(([name, version]) => `${name}@${version}`),
    ], work);
    await Deno.writeTextFile(`${work}/tools.json`, wanted);
  }

  // 1. Sources.
  const modules = new Set<string>(EXTRA_MODULES);
  for (const entry of Object.values(ENTRIES)) {
    for (const path of await localModules(entry)) modules.add(path);
  }
  await Deno.remove(staging, { recursive: true }).catch(() => undefined);
  for (const path of modules) {
    if (!path.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(`${ROOT}${path}`);
    const target = `${staging}/${path}`;
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(target, transform(path, source));
  }
  await Deno.mkdir(`${staging}/_shims`, { recursive: true });
  await Deno.copyFile(`${ROOT}scripts/npm/deno_shim.ts`, `${staging}/${SHIM_MODULE}`);
  for (const name of GATE_FILES) {
    await Deno.copyFile(`${ROOT}scripts/npm/${name}`, `${staging}/_shims/${name}`);
  }
  log(`${modules.size} modules staged`);

  // 2. Compile.
  await Deno.remove(outDir, { recursive: true }).catch(() => undefined);
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      module: "ESNext",
      moduleResolution: "Bundler",
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      types: ["node"],
      typeRoots: [`${work}/node_modules/@types`],
      declaration: true,
      noCheck: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      rewriteRelativeImportExtensions: true,
      verbatimModuleSyntax: false,
      isolatedModules: true,
      strict: true,
      removeComments: false,
      rootDir: staging,
      outDir,
    },
    include: [`${staging}/**/*.ts`],
  };
  await Deno.writeTextFile(`${work}/tsconfig.json`, JSON.stringify(tsconfig, null, 2));
  await run(`${work}/node_modules/.bin/tsc`, ["-p", `${work}/tsconfig.json`], work);

  // tsc keeps `.ts` in the specifiers of declaration files: point them at the emitted files.
  for (const file of (await walk(outDir)).filter((f) => f.endsWith(".d.ts"))) {
    const text = await Deno.readTextFile(`${outDir}/${file}`);
    const fixed = text.replace(
      /((?:from\s+|import\(\s*)["'])(\.{1,2}\/[^"']+)\.ts(["'])/g,
      "$1$2.js$3",
    );
    if (fixed !== text) await Deno.writeTextFile(`${outDir}/${file}`, fixed);
  }

  // 3. package.json from what the output imports.
  const versions = new Map<string, string>();
  for (const target of Object.values(denoJson.imports)) {
    const npm = npmTarget(target);
    if (npm) versions.set(npm[0], npm[1]);
  }
  for (const [name, version] of Object.entries(SHIM_DEPENDENCIES)) versions.set(name, version);
  const dependencies: Record<string, string> = {};
  const files = await walk(outDir);
  for (const file of files.filter((f) => f.endsWith(".js"))) {
    for (const spec of bareImports(await Deno.readTextFile(`${outDir}/${file}`))) {
      const name = packageName(spec);
      if (name in OPTIONAL_PEERS) continue;
      const version = versions.get(name);
      if (!version) throw new Error(`${file} imports ${spec}, which deno.json does not map`);
      dependencies[name] = version;
    }
  }
  const exportsField: Record<string, { types: string; import: string }> = {};
  for (const [key, entry] of Object.entries(ENTRIES)) {
    const base = `./${entry.replace(/\.ts$/, "")}`;
    exportsField[key] = { types: `${base}.d.ts`, import: `${base}.js` };
  }
  const packageJson = {
    name: denoJson.name,
    version: denoJson.version,
    description: "Web research and memory for AI agents: search, read, keep the passages " +
      "that answer, within a token budget (MCP server, HTTP API, library).",
    license: denoJson.license,
    type: "module",
    engines: { node: NODE_ENGINES },
    exports: exportsField,
    main: "./mod.js",
    types: "./mod.d.ts",
    bin: { gleaner: "./cli.js" },
    dependencies: Object.fromEntries(
      Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)),
    ),
    peerDependencies: OPTIONAL_PEERS,
    peerDependenciesMeta: Object.fromEntries(
      Object.keys(OPTIONAL_PEERS).map((name) => [name, { optional: true }]),
    ),
  };
  await Deno.writeTextFile(`${outDir}/package.json`, JSON.stringify(packageJson, null, 2) + "\n");
  await Deno.chmod(`${outDir}/cli.js`, 0o755);

  // 4. Data and notices.
  await copyDir(`${ROOT}models/static`, `${outDir}/models/static`);
  for (const name of ["README.md", "LICENSE", "NOTICE"]) {
    await Deno.copyFile(`${ROOT}${name}`, `${outDir}/${name}`).catch(() => undefined);
  }
  log(`${files.length} files, ${Object.keys(dependencies).length} dependencies → ${outDir}`);
  return outDir;
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { out: { type: "string" } } });
  const out = values.out ? new URL(values.out, `file://${Deno.cwd()}/`).pathname : undefined;
  await buildNpm(out?.replace(/\/$/, ""));
}
