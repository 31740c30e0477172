/**
 * The house rules of ARCHITECTURE.md, checked on the real module graph
 * (`deno info --json` over every production file; static, dynamic and
 * type-only imports alike):
 *
 * 1. no import cycle between files;
 * 2. no import from a lower layer to a higher one (the order is
 *    {@link LAYERS}, written here and in ARCHITECTURE.md);
 * 3. no environment read (`Deno.env`, `process.env`) outside `lib/config/`,
 *    and no call of its readers (`readEnv`, `readHostEnv`) outside
 *    `lib/config/` and the composition roots ({@link COMPOSITION_ROOTS}):
 *    every other module receives the environment it needs as an argument;
 * 4. every published module is reachable from a published entry point or
 *    from its folder's face (`mod.ts`): a module only tests reach is test
 *    code and must not ship;
 * 5. no import between folders of one layer that {@link FORBIDDEN} rules out:
 *    reading and crawling never reach into web search (what every
 *    outside-service client needs lives in `lib/net/`), and telemetry knows
 *    no domain folder (its decorators sit at the composition root);
 * 6. only the files of {@link CONFIG_IMPORTERS} (at most
 *    {@link MAX_CONFIG_IMPORTERS}: the composition roots, the surfaces and
 *    the tools) import the whole configuration (`lib/config/config.ts`);
 *    every other module takes the sections it reads (`lib/config/sections.ts`,
 *    `ProviderConfig`, `ReadConfig`);
 * 7. no function is longer than {@link MAX_FUNCTION_LINES} lines, except those
 *    of {@link LONG_FUNCTIONS}, each held to the length it has (a ratchet: the
 *    list only shrinks);
 * 8. a search provider module (`lib/search/providers/`, but the plumbing of
 *    {@link PROVIDER_PLUMBING}) sees only the slice of settings it declared
 *    (`defineProvider` in `define.ts`): from `lib/config/` it imports at most
 *    the section types and the tenancy scopes, and it names neither the
 *    router's `ProviderConfig` nor the whole `SearchSection` (a `Pick<>` or a
 *    `keyof` of it is a slice);
 * 9. a read tier module (`lib/read/tiers/`, but `defineTier`'s own
 *    {@link TIER_PLUMBING}) sees only the slice of settings it declared
 *    (`defineTier` in `define.ts`): from `lib/config/` it imports at most the
 *    section types, the scopes, `safeEndpoint` and the environment snapshot's
 *    type, and it names neither the reader's `ReadConfig` or `ReadContext`
 *    nor the whole `ReadSection`.
 *
 * Each rule is also run on a planted fault, so the test shows it can fail.
 *
 * @module
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/**
 * The layers, bottom first. A file may import files of its own layer or of
 * a lower one, never of a higher one. A folder is written with its trailing
 * slash; a file by its path.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["lib/errors.ts", "lib/log.ts", "lib/version.ts", "lib/async/", "lib/cache/", "lib/config/"],
  ["lib/text/", "lib/extract/"],
  ["lib/net/", "lib/embed/"],
  ["lib/store/", "lib/rank/"],
  ["lib/read/", "lib/search/", "lib/memory/", "lib/crawl/", "lib/telemetry/", "lib/deep_research/"],
  ["lib/evidence/", "lib/gleaner.ts", "lib/trace_stages.ts", "lib/health.ts"],
  ["lib/tools/"],
  [
    "lib/api.ts",
    "lib/doctor.ts",
    "lib/manage/",
    "lib/permissions.ts",
    "lib/setup.ts",
    "mcp/",
    "http/",
    "mod.ts",
    "cli.ts",
  ],
];

/**
 * Imports ruled out inside a layer: no file under `from` imports a file under
 * any of `to`.
 */
const FORBIDDEN: readonly { from: string; to: readonly string[] }[] = [
  { from: "lib/read/", to: ["lib/search/"] },
  { from: "lib/crawl/", to: ["lib/search/"] },
  {
    from: "lib/telemetry/",
    to: [
      "lib/read/",
      "lib/search/",
      "lib/memory/",
      "lib/crawl/",
      "lib/evidence/",
      "lib/tools/",
      "lib/store/",
      "lib/rank/",
    ],
  },
];

/** Where production code lives (tests, fixtures and test helpers excluded). */
const PRODUCTION_ROOTS = ["lib/", "mcp/", "http/", "mod.ts", "cli.ts"];

function isTestOnly(path: string): boolean {
  return /_test\.ts$/.test(path) || /(^|\/)(testdata|testing)\//.test(path);
}

/** The layer of `path` (index into {@link LAYERS}), or -1 when it has none. */
function layerOf(path: string): number {
  return LAYERS.findIndex((units) =>
    units.some((unit) => unit.endsWith("/") ? path.startsWith(unit) : path === unit)
  );
}

async function productionFiles(): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) await walk(`${path}/`);
      else if (path.endsWith(".ts") && !isTestOnly(path)) out.push(path);
    }
  }
  for (const root of PRODUCTION_ROOTS) {
    if (root.endsWith("/")) await walk(root);
    else out.push(root);
  }
  return out.sort();
}

interface InfoDependency {
  isDynamic?: boolean;
  code?: { specifier?: string };
  type?: { specifier?: string };
}

/** File → the project files it imports, from `deno info --json` over `files`. */
async function importGraph(files: readonly string[]): Promise<Map<string, Set<string>>> {
  const dir = await Deno.makeTempDir({ prefix: "gleaner-layering-" });
  try {
    const entry = `${dir}/all.ts`;
    await Deno.writeTextFile(
      entry,
      files.map((f) => `import ${JSON.stringify(new URL(f, ROOT).href)};`).join("\n"),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", new URL("deno.json", ROOT).pathname, entry],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, `deno info: ${new TextDecoder().decode(out.stderr)}`);
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: { specifier: string; dependencies?: InfoDependency[] }[];
    };
    const graph = new Map<string, Set<string>>();
    for (const module of info.modules) {
      const from = projectPath(module.specifier);
      if (!from || !files.includes(from)) continue;
      const targets = new Set<string>();
      for (const dependency of module.dependencies ?? []) {
        for (const specifier of [dependency.code?.specifier, dependency.type?.specifier]) {
          const to = specifier ? projectPath(specifier) : undefined;
          if (to && to !== from) targets.add(to);
        }
      }
      graph.set(from, targets);
    }
    return graph;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function projectPath(specifier: string): string | undefined {
  return specifier.startsWith(ROOT.href) ? specifier.slice(ROOT.href.length) : undefined;
}

/** The import cycles of `graph` (strongly connected components of two or more files, or a self-import). */
function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Every import that runs from a lower layer up to a higher one, and every file without a layer. */
function layerFaults(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const faults: string[] = [];
  for (const [from, targets] of graph) {
    const fromLayer = layerOf(from);
    if (fromLayer < 0) {
      faults.push(`${from} is in no layer (add its folder to LAYERS and ARCHITECTURE.md)`);
      continue;
    }
    for (const to of targets) {
      const toLayer = layerOf(to);
      if (toLayer > fromLayer) {
        faults.push(`${from} (layer ${fromLayer}) imports ${to} (layer ${toLayer})`);
      }
    }
  }
  return faults;
}

/** Every import that {@link FORBIDDEN} rules out. */
function forbiddenImports(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const faults: string[] = [];
  for (const [from, targets] of graph) {
    for (const rule of FORBIDDEN) {
      if (!from.startsWith(rule.from)) continue;
      for (const to of targets) {
        const folder = rule.to.find((unit) => to.startsWith(unit));
        if (folder) faults.push(`${from} imports ${to} (${rule.from} may not import ${folder})`);
      }
    }
  }
  return faults;
}

/** Source text without comments, so examples in JSDoc do not count as code. */
function codeOf(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/**
 * Where the environment may be read through `lib/config/env.ts` (a snapshot
 * taken once and handed down): the entry points and the modules that build
 * a Gleaner, the doctor and the permission plan.
 */
const COMPOSITION_ROOTS: readonly string[] = [
  "lib/gleaner.ts",
  "lib/doctor.ts",
  "lib/permissions.ts",
  "mcp/",
  "http/",
  "mod.ts",
  "cli.ts",
];

/** Files outside `lib/config/` and {@link COMPOSITION_ROOTS} that call `readEnv` or `readHostEnv`. */
function environmentCallers(sources: ReadonlyMap<string, string>): string[] {
  const callers: string[] = [];
  for (const [path, source] of sources) {
    if (path.startsWith("lib/config/")) continue;
    if (
      COMPOSITION_ROOTS.some((root) => root.endsWith("/") ? path.startsWith(root) : path === root)
    ) {
      continue;
    }
    if (/\b(readEnv|readHostEnv)\s*\(/.test(codeOf(source))) callers.push(path);
  }
  return callers;
}

/** Files outside `lib/config/` whose code reads the environment. */
function environmentReaders(sources: ReadonlyMap<string, string>): string[] {
  const readers: string[] = [];
  for (const [path, source] of sources) {
    if (path.startsWith("lib/config/")) continue;
    if (/\bDeno\.env\b|\bprocess\.env\b/.test(codeOf(source))) readers.push(path);
  }
  return readers;
}

/** Published modules that no published entry point reaches. */
function unreachable(
  graph: ReadonlyMap<string, ReadonlySet<string>>,
  entries: readonly string[],
): string[] {
  const seen = new Set<string>();
  const stack = [...entries];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const target of graph.get(file) ?? []) stack.push(target);
  }
  return [...graph.keys()].filter((file) => !seen.has(file));
}

/** The published entry points: `exports` of deno.json and the worker modules the compile task includes. */
async function publishedEntries(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
    exports: Record<string, string>;
    tasks: Record<string, string>;
  };
  const exports = Object.values(config.exports).map((path) => path.replace(/^\.\//, ""));
  const workers = [...config.tasks.compile.matchAll(/--include (\S+\.ts)/g)].map((m) => m[1]);
  assert.ok(workers.length > 0, "the compile task names the worker modules");
  return [...exports, ...workers];
}

/** The whole configuration's barrel: only {@link CONFIG_IMPORTERS} import it. */
const CONFIG_BARREL = "lib/config/config.ts";

/** Most production files (outside `lib/config/`) that may import {@link CONFIG_BARREL}. */
const MAX_CONFIG_IMPORTERS = 30;

/**
 * The production files that see the whole configuration: the composition
 * roots and surfaces, and the tools, whose specs are built from it. A file
 * leaves this list when it stops importing the barrel; a file joins it only
 * if it is a root (a plug-in takes its slice instead).
 */
const CONFIG_IMPORTERS: readonly string[] = [
  "cli.ts",
  "http/app.ts",
  "http/config_write.ts",
  "http/serve.ts",
  "lib/doctor.ts",
  "lib/embed/mod.ts",
  "lib/evidence/types.ts",
  "lib/gleaner.ts",
  "lib/manage/views.ts",
  "lib/setup.ts",
  "lib/tools/default_tools.ts",
  "lib/tools/presentations.ts",
  "lib/tools/provider_tools.ts",
  "lib/tools/quality_schemas.ts",
  "lib/tools/research.ts",
  "lib/tools/search.ts",
  "lib/tools/search_and_summarize.ts",
  "mcp/memory_resources.ts",
  "mod.ts",
];

/** Files outside `lib/config/` that import {@link CONFIG_BARREL} (static, dynamic or type-only). */
function configImporters(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  return [...graph].filter(([from, targets]) =>
    !from.startsWith("lib/config/") && targets.has(CONFIG_BARREL)
  ).map(([from]) => from).sort();
}

/**
 * The files of `lib/search/providers/` that hand the router's settings to the
 * providers: the contract, `defineProvider` (which cuts each provider's
 * slice), the registry (role orders) and the doctor's probe.
 */
const PROVIDER_PLUMBING: readonly string[] = [
  "lib/search/providers/define.ts",
  "lib/search/providers/probe.ts",
  "lib/search/providers/registry.ts",
  "lib/search/providers/types.ts",
];

/** What a provider module may import from `lib/config/`: types of a section, and the scopes. */
const PROVIDER_CONFIG_IMPORTS: readonly string[] = [
  "lib/config/sections.ts",
  "lib/config/tenancy.ts",
];

/** The files of `lib/read/tiers/` that hand the reader's settings to the tiers: `defineTier`. */
const TIER_PLUMBING: readonly string[] = ["lib/read/tiers/define.ts"];

/**
 * What a tier module may import from `lib/config/`: types of a section, the
 * scopes, `safeEndpoint` (masks a URL for messages; reads no setting) and the
 * entry point's environment snapshot type (the browser's profiles).
 */
const TIER_CONFIG_IMPORTS: readonly string[] = [
  "lib/config/sections.ts",
  "lib/config/tenancy.ts",
  "lib/config/redact.ts",
  "lib/config/env.ts",
];

/** One kind of plug-in held to the slice of settings it declares. */
interface PluginRule {
  /** The folder of its modules. */
  folder: string;
  /** The files of that folder that hand the settings to the plug-ins. */
  plumbing: readonly string[];
  /** What a plug-in may import from `lib/config/`. */
  configImports: readonly string[];
  /** Names of the whole settings a plug-in may not write (in code). */
  wideNames: readonly string[];
  /** The section a plug-in may name only as a `Pick<>` or a `keyof` of it. */
  section: string;
}

/** The plug-ins held to their slice: search providers and read tiers. */
const PLUGIN_RULES: readonly PluginRule[] = [
  {
    folder: "lib/search/providers/",
    plumbing: PROVIDER_PLUMBING,
    configImports: PROVIDER_CONFIG_IMPORTS,
    wideNames: ["ProviderConfig"],
    section: "SearchSection",
  },
  {
    folder: "lib/read/tiers/",
    plumbing: TIER_PLUMBING,
    configImports: TIER_CONFIG_IMPORTS,
    wideNames: ["ReadConfig", "ReadContext"],
    section: "ReadSection",
  },
];

/**
 * Plug-in modules that see more settings than their slice: an import from
 * `lib/config/` beyond the rule's `configImports`, or the name of the whole
 * settings (`ProviderConfig`; `ReadConfig`, `ReadContext`) or of the whole
 * section (`SearchSection`, `ReadSection`) in code (comments aside).
 */
function widePlugins(
  graph: ReadonlyMap<string, ReadonlySet<string>>,
  sources: ReadonlyMap<string, string>,
  rule: PluginRule,
): string[] {
  const faults: string[] = [];
  const section = new RegExp(`(?<!keyof\\s+|Pick<\\s*)\\b${rule.section}\\b`);
  for (const [file, source] of sources) {
    if (!file.startsWith(rule.folder) || rule.plumbing.includes(file)) continue;
    for (const target of graph.get(file) ?? []) {
      if (target.startsWith("lib/config/") && !rule.configImports.includes(target)) {
        faults.push(`${file} imports ${target}`);
      }
    }
    const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    for (const name of rule.wideNames) {
      if (new RegExp(`\\b${name}\\b`).test(code)) faults.push(`${file} names ${name}`);
    }
    const withoutImports = code.replace(/^import[^;]*;/gm, "");
    if (section.test(withoutImports)) faults.push(`${file} names the whole ${rule.section}`);
  }
  return faults.sort();
}

/** Longest function (in lines, first to last) outside {@link LONG_FUNCTIONS}. */
const MAX_FUNCTION_LINES = 80;

/**
 * The functions longer than {@link MAX_FUNCTION_LINES} lines, each with the
 * most lines it may have (`<file> <name>`, a nested function named after its
 * enclosing ones: `createFetcher.fetchOnce`). A function that grows past its
 * number is cut into named parts (or its number raised, saying why in the
 * commit); one cut below the limit leaves the list.
 */
const LONG_FUNCTIONS: Readonly<Record<string, number>> = {
  "cli.ts main": 274,
  "lib/async/worker_client.ts createWorkerClient": 161,
  "lib/config/diagnose.ts diagnoseConfig": 147,
  "lib/crawl/crawl.ts crawlSite": 183,
  "lib/crawl/firecrawl.ts crawlWithFirecrawl": 214,
  "lib/deep_research/register.ts build": 122,
  "lib/deep_research/vocabulary.ts createVocabulary": 90,
  "lib/doctor.ts postgresChecks": 108,
  "lib/doctor.ts runDoctor": 124,
  "lib/doctor.ts sqliteChecks": 105,
  "lib/embed/mod.ts embedderStatus": 82,
  "lib/embed/openai.ts createOpenAIEmbedder": 106,
  "lib/embed/static_fast.ts createStaticTokenizer": 87,
  "lib/embed/transformers.ts createTransformersEmbedder": 125,
  "lib/evidence/gather.ts gatherPacket": 154,
  "lib/evidence/research.ts research": 88,
  "lib/evidence/scrape.ts scrape": 82,
  "lib/extract/markdown.ts createService": 95,
  "lib/extract/pool.ts createExtractPool": 149,
  "lib/gleaner.ts createGleanerFromConfig": 233,
  "lib/memory/edit.ts updateMemory": 97,
  "lib/memory/recall.ts recallMemories": 243,
  "lib/memory/save.ts saveMemories": 263,
  "lib/memory/vector/dot_kernel.ts dot1Body": 81,
  "lib/memory/vector/dot_kernel.ts dot4Body": 85,
  "lib/memory/vector/dot_kernel.ts selectBody": 127,
  "lib/memory/vector/vector_index.ts nearest": 91,
  "lib/net/fetch.ts createFetcher": 481,
  "lib/net/fetch.ts createFetcher.fetchOnce": 123,
  "lib/net/fetch.ts createFetcher.readBody": 96,
  "lib/net/proxy.ts openTunnel": 102,
  "lib/net/proxy.ts openTunnel.<anonymous>": 93,
  "lib/net/robots.ts createRobotsChecker": 106,
  "lib/rank/select.ts selectEvidence": 139,
  "lib/read/browser/browser.ts createBrowserTier": 428,
  "lib/read/browser/launch.ts openBrowser": 133,
  "lib/read/browser/pool.ts createSlotPool": 233,
  "lib/read/browser/proxy.ts startEgressProxy": 318,
  "lib/read/browser/proxy.ts startEgressProxy.forward": 100,
  "lib/read/cascade.ts createReader": 131,
  "lib/read/cascade.ts createReader.read": 117,
  "lib/read/page_cache.ts createPageCache": 81,
  "lib/read/service.ts createServiceClient": 157,
  "lib/read/service.ts createServiceClient.call": 125,
  "lib/read/tiers/llms_txt.ts createLlmsTxtTier": 88,
  "lib/read/tiers/youtube.ts readVideo": 89,
  "lib/search/providers/wikipedia.ts searchWikipedia": 88,
  "lib/search/roles.ts routerOver": 566,
  "lib/search/roles.ts routerOver.route": 190,
  "lib/search/router.ts createSearchRouter": 126,
  "lib/search/router.ts createSearchRouter.search": 96,
  "lib/store/mod.ts openStore": 90,
  "lib/telemetry/otlp.ts createOtlpTelemetry": 180,
};

/** A node of Deno's lint AST, as far as {@link functionName} reads it. */
interface AstNode {
  type: string;
  range: [number, number];
  parent?: AstNode;
  id?: { type: string; name?: string } | null;
  key?: { name?: string; value?: unknown };
}

const FUNCTION_TYPES = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
]);

/** The own name of a function node: its declaration, variable, property or method; else `<anonymous>`. */
function ownName(node: AstNode): string {
  if (node.id?.name) return node.id.name;
  const parent = node.parent;
  if (parent?.type === "VariableDeclarator" && parent.id?.name) return parent.id.name;
  if (
    (parent?.type === "Property" || parent?.type === "MethodDefinition" ||
      parent?.type === "PropertyDefinition") && parent.key
  ) {
    return parent.key.name ?? String(parent.key.value ?? "<computed>");
  }
  return "<anonymous>";
}

/** A function's name qualified by the functions around it (`createFetcher.fetchOnce`). */
function functionName(node: AstNode): string {
  const names = [ownName(node)];
  for (let up = node.parent; up; up = up.parent) {
    if (FUNCTION_TYPES.has(up.type)) names.unshift(ownName(up));
  }
  return names.join(".");
}

/** `<file> <name>` → lines of every function of `sources` longer than `limit` lines. */
function longFunctions(sources: ReadonlyMap<string, string>, limit: number): Map<string, number> {
  const found = new Map<string, number>();
  let source = "";
  const visit = (node: AstNode) => {
    const lines = source.slice(node.range[0], node.range[1]).split("\n").length;
    if (lines > limit) {
      ctx?.report({ node: node as never, message: `${functionName(node)}\n${lines}` });
    }
  };
  let ctx: Deno.lint.RuleContext | undefined;
  const plugin: Deno.lint.Plugin = {
    name: "size",
    rules: {
      functions: {
        create(context) {
          ctx = context;
          return {
            FunctionDeclaration: visit,
            FunctionExpression: visit,
            ArrowFunctionExpression: visit,
          } as Deno.lint.LintVisitor;
        },
      },
    },
  };
  for (const [path, text] of sources) {
    source = text;
    for (const report of Deno.lint.runPlugin(plugin, path, text)) {
      const [name, lines] = report.message.split("\n");
      let key = `${path} ${name}`;
      for (let n = 2; found.has(key); n++) key = `${path} ${name}#${n}`;
      found.set(key, Number(lines));
    }
  }
  return found;
}

/** What breaks the function-size ratchet: new long functions, growth past a ceiling, stale entries. */
function functionSizeFaults(
  found: ReadonlyMap<string, number>,
  allowed: Readonly<Record<string, number>>,
): string[] {
  const faults: string[] = [];
  for (const [key, lines] of found) {
    const ceiling = allowed[key];
    if (ceiling === undefined) {
      faults.push(`${key}: ${lines} lines (over ${MAX_FUNCTION_LINES}: cut it into named parts)`);
    } else if (lines > ceiling) {
      faults.push(`${key}: ${lines} lines, grew past its ${ceiling} in LONG_FUNCTIONS`);
    }
  }
  for (const key of Object.keys(allowed)) {
    if (!found.has(key)) {
      faults.push(
        `${key}: no longer over ${MAX_FUNCTION_LINES} lines (drop it from LONG_FUNCTIONS)`,
      );
    }
  }
  return faults.sort();
}

const files = await productionFiles();
const graph = await importGraph(files);

Deno.test("layering: every production file is in the import graph", () => {
  assert.ok(files.length > 100, `found ${files.length} production files`);
  const missing = files.filter((f) => !graph.has(f));
  assert.deepEqual(missing, []);
});

Deno.test("layering: no import cycle between files", () => {
  assert.deepEqual(cycles(graph), []);
});

Deno.test("layering: no import runs from a lower layer to a higher one", () => {
  assert.deepEqual(layerFaults(graph), []);
});

Deno.test("layering: reading and crawling never import web search; telemetry imports no domain folder", () => {
  assert.deepEqual(forbiddenImports(graph), []);
});

Deno.test("layering: only lib/config/ reads the environment", async () => {
  const sources = new Map<string, string>();
  for (const file of files) sources.set(file, await Deno.readTextFile(new URL(file, ROOT)));
  assert.deepEqual(environmentReaders(sources), []);
});

Deno.test("layering: only lib/config/ and the composition roots call the environment readers", async () => {
  const sources = new Map<string, string>();
  for (const file of files) sources.set(file, await Deno.readTextFile(new URL(file, ROOT)));
  assert.deepEqual(environmentCallers(sources), []);
});

Deno.test("layering: every published module is reachable from a published entry point", async () => {
  // A folder's face (`<folder>/mod.ts`) is its documented entry point, reached or not.
  const faces = files.filter((file) => file.endsWith("/mod.ts"));
  assert.deepEqual(unreachable(graph, [...await publishedEntries(), ...faces]), []);
});

Deno.test("layering: only the roots import the whole configuration (ratchet)", () => {
  assert.ok(CONFIG_IMPORTERS.length <= MAX_CONFIG_IMPORTERS);
  assert.deepEqual(configImporters(graph), [...CONFIG_IMPORTERS].sort());
});

Deno.test("layering: a search provider sees only the settings it declared", async () => {
  const sources = new Map<string, string>();
  for (const file of files) {
    if (file.startsWith("lib/search/providers/")) {
      sources.set(file, await Deno.readTextFile(new URL(file, ROOT)));
    }
  }
  assert.ok(sources.size > 30, `${sources.size} provider files`);
  assert.deepEqual(widePlugins(graph, sources, PLUGIN_RULES[0]), []);
});

Deno.test("layering: a read tier sees only the settings it declared", async () => {
  const sources = new Map<string, string>();
  for (const file of files) {
    if (file.startsWith("lib/read/tiers/")) {
      sources.set(file, await Deno.readTextFile(new URL(file, ROOT)));
    }
  }
  assert.ok(sources.size >= 12, `${sources.size} tier files`);
  assert.deepEqual(widePlugins(graph, sources, PLUGIN_RULES[1]), []);
});

Deno.test("layering: no function grows past its ceiling (ratchet)", async () => {
  const sources = new Map<string, string>();
  for (const file of files) sources.set(file, await Deno.readTextFile(new URL(file, ROOT)));
  assert.deepEqual(
    functionSizeFaults(longFunctions(sources, MAX_FUNCTION_LINES), LONG_FUNCTIONS),
    [],
  );
});

Deno.test("layering: each rule fails on a planted fault", () => {
  // A cycle: two files that import each other.
  const planted = new Map([...graph].map(([k, v]) => [k, new Set(v)]));
  planted.get("lib/errors.ts")!.add("lib/log.ts");
  planted.get("lib/log.ts")!.add("lib/errors.ts");
  assert.deepEqual(cycles(planted), [["lib/errors.ts", "lib/log.ts"]]);
  // An upward import: the network layer reaching into the tools.
  const upward = new Map([...graph].map(([k, v]) => [k, new Set(v)]));
  upward.get("lib/net/fetch.ts")!.add("lib/tools/spec.ts");
  assert.deepEqual(layerFaults(upward), [
    "lib/net/fetch.ts (layer 2) imports lib/tools/spec.ts (layer 6)",
  ]);
  // Reading reaching into web search, and telemetry into a domain folder.
  const forbidden = new Map([...graph].map(([k, v]) => [k, new Set(v)]));
  forbidden.get("lib/read/cascade.ts")!.add("lib/search/router.ts");
  forbidden.get("lib/telemetry/mod.ts")!.add("lib/read/types.ts");
  assert.deepEqual(forbiddenImports(forbidden).sort(), [
    "lib/read/cascade.ts imports lib/search/router.ts (lib/read/ may not import lib/search/)",
    "lib/telemetry/mod.ts imports lib/read/types.ts (lib/telemetry/ may not import lib/read/)",
  ]);
  // A file in a folder no layer names.
  const stray = new Map(graph);
  stray.set("lib/stray/x.ts", new Set());
  assert.ok(layerFaults(stray).some((f) => f.startsWith("lib/stray/x.ts is in no layer")));
  // An environment read outside lib/config/ (and none in a comment).
  const sources = new Map([
    ["lib/net/x.ts", "const home = Deno.env.get('HOME');"],
    ["lib/net/y.ts", "/** Deno.env.get('HOME') in an example */\nexport const y = 1;"],
    ["lib/config/z.ts", "Deno.env.toObject();"],
  ]);
  assert.deepEqual(environmentReaders(sources), ["lib/net/x.ts"]);
  // A default taken from the environment below the composition root (and none in a comment).
  const callers = new Map([
    ["lib/store/x.ts", "export function dir(env = readEnv()) { return env.HOME; }"],
    ["lib/store/y.ts", "/** readHostEnv() in an example */\nexport const y = 1;"],
    ["lib/gleaner.ts", "const env = readHostEnv();"],
    ["lib/config/z.ts", "readEnv(NAMES);"],
  ]);
  assert.deepEqual(environmentCallers(callers), ["lib/store/x.ts"]);
  // A module below the roots importing the whole configuration.
  const wide = new Map([...graph].map(([k, v]) => [k, new Set(v)]));
  wide.get("lib/net/screen.ts")!.add(CONFIG_BARREL);
  assert.deepEqual(
    configImporters(wide).filter((f) => !CONFIG_IMPORTERS.includes(f)),
    ["lib/net/screen.ts"],
  );
  // A provider that imports the whole configuration or names the router's settings.
  const plugins = new Map([...graph].map(([k, v]) => [k, new Set(v)]));
  plugins.get("lib/search/providers/exa.ts")!.add(CONFIG_BARREL);
  assert.deepEqual(
    widePlugins(
      plugins,
      new Map([
        ["lib/search/providers/exa.ts", "export const x = 1;"],
        ["lib/search/providers/a.ts", "let c: ProviderConfig;"],
        ["lib/search/providers/b.ts", "let s: SearchSection;\n/** ProviderConfig */"],
        [
          "lib/search/providers/c.ts",
          "let s: Pick<SearchSection, 'region'>; type K = keyof SearchSection;",
        ],
        ["lib/search/providers/registry.ts", "let c: ProviderConfig;"],
      ]),
      PLUGIN_RULES[0],
    ),
    [
      "lib/search/providers/a.ts names ProviderConfig",
      "lib/search/providers/b.ts names the whole SearchSection",
      "lib/search/providers/exa.ts imports lib/config/config.ts",
    ],
  );
  // A tier that imports the whole configuration, the configuration parser, or names the
  // reader's settings; defineTier itself may.
  plugins.get("lib/read/tiers/wayback.ts")!.add(CONFIG_BARREL);
  plugins.get("lib/read/tiers/reddit.ts")!.add("lib/config/parse.ts");
  assert.deepEqual(
    widePlugins(
      plugins,
      new Map([
        ["lib/read/tiers/wayback.ts", "export const x = 1;"],
        ["lib/read/tiers/reddit.ts", "export const y = 1;"],
        ["lib/read/tiers/a.ts", "let c: ReadConfig;"],
        ["lib/read/tiers/b.ts", "function f(context: ReadContext) {}\n// ReadConfig"],
        ["lib/read/tiers/c.ts", "let s: ReadSection;\n/** ReadConfig */"],
        [
          "lib/read/tiers/d.ts",
          "import type { ReadSection } from 'x';\nlet s: Pick<ReadSection, 'max_links'>;",
        ],
        ["lib/read/tiers/define.ts", "let c: ReadConfig; let x: ReadContext;"],
      ]),
      PLUGIN_RULES[1],
    ),
    [
      "lib/read/tiers/a.ts names ReadConfig",
      "lib/read/tiers/b.ts names ReadContext",
      "lib/read/tiers/c.ts names the whole ReadSection",
      "lib/read/tiers/reddit.ts imports lib/config/parse.ts",
      "lib/read/tiers/wayback.ts imports lib/config/config.ts",
    ],
  );
  // A long function, one grown past its ceiling, a stale entry; nested names.
  const body = (n: number) => "\n".repeat(n - 1);
  const long = longFunctions(
    new Map([
      ["lib/x.ts", `function outer() {${body(5)}const inner = () => {${body(4)}};\n}`],
      ["lib/y.ts", `export const short = () => {${body(3)}};`],
    ]),
    3,
  );
  assert.deepEqual([...long], [["lib/x.ts outer", 9], ["lib/x.ts outer.inner", 4]]);
  assert.deepEqual(functionSizeFaults(long, { "lib/x.ts outer": 8, "lib/z.ts gone": 90 }), [
    "lib/x.ts outer.inner: 4 lines (over 80: cut it into named parts)",
    "lib/x.ts outer: 9 lines, grew past its 8 in LONG_FUNCTIONS",
    "lib/z.ts gone: no longer over 80 lines (drop it from LONG_FUNCTIONS)",
  ]);
  // A published module nothing reaches.
  const orphan = new Map(graph);
  orphan.set("lib/memory/contract_copy.ts", new Set());
  assert.ok(unreachable(orphan, ["mod.ts"]).includes("lib/memory/contract_copy.ts"));
});
