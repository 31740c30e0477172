/**
 * `gleaner mcp` answers `tools/list` before loading the reader, ranker,
 * tokenizer or store: the modules it imports statically on that path must not
 * reach them (they load with the first call, or in the warm-up after
 * `tools/list`). Checked twice: on the static module graph (`deno info --json`)
 * and on the running server's own module-load trace (what Deno actually loaded
 * before its first answer, whatever path imported it).
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DENO_RUN_FLAGS } from "../testing/fixtures/world.ts";

interface GraphModule {
  specifier: string;
  kind?: string;
  npmPackage?: string;
  dependencies?: { isDynamic?: boolean; code?: { specifier?: string } }[];
}

/**
 * Every module reached from `entry` through static, non-type imports; with `dynamic`, through
 * literal dynamic imports too (what Deno reads and resolves when it loads `entry`, whether or
 * not a dynamic import runs).
 */
async function staticClosure(
  entry: string,
  { dynamic = false }: { dynamic?: boolean } = {},
): Promise<Set<string>> {
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
      if ((dynamic || !dependency.isDynamic) && dependency.code?.specifier) {
        stack.push(dependency.code.specifier);
      }
    }
  }
  return seen;
}

const ROOT = new URL("../", import.meta.url);
const CLI = new URL("cli.ts", ROOT).pathname;

/** What `gleaner mcp` imports before the server answers `tools/list`. */
const MCP_START = [
  "cli.ts",
  "lib/config/config.ts",
  "lib/log.ts",
  "mcp/stdio.ts",
  "lib/tools/default_tools.ts",
  "mcp/memory_resources.ts",
  "mcp/manage_resources.ts",
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
  /\/lib\/api\.ts$/,
  /\/lib\/telemetry\/(events|mod)\.ts$/,
  /\/lib\/net\/address\.ts$/,
  /^node:(async_hooks|crypto|dns\/promises)$/,
  /npm:\/?ipaddr\.js/,
  // Under the default presentation: only the other presentations declare these.
  /\/lib\/search\/providers\/registry\.ts$/,
  /\/lib\/tools\/(presentations|provider_tools|role_tools|router_tool|deep_research)\.ts$/,
  /\/lib\/deep_research\//,
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

Deno.test("lib/text/tokens.ts builds the o200k encoder on the first count, not at import", async () => {
  // `gpt-tokenizer/encoding/o200k_base` (and the package's main module, which imports it) builds
  // the encoder's tables as it is evaluated, a quarter of a second or more; tokens.ts imports
  // the encoder class and the ranks instead.
  const graph = [...await staticClosure(new URL("lib/text/tokens.ts", ROOT).pathname)];
  const eager = graph.filter((s) => /^npm:\/gpt-tokenizer@[^/]+(\/encoding\/.*|\/main)?$/.test(s));
  assert.deepEqual(eager, [], `evaluated at import: ${eager.join(", ")}`);
  // The check sees what it looks for: the class is in the graph.
  assert.ok(graph.some((s) => /^npm:\/gpt-tokenizer@[^/]+\/GptEncoding$/.test(s)), "GptEncoding");
});

Deno.test("importing lib/gleaner.ts counts no token: no module does at its top level", async () => {
  // Every test module that imports the library pays what its modules do at import; a count at
  // a module's top level (a constant's token count) built the encoder there, about 0.4 CPU-s.
  const tokens = await import("../lib/text/tokens.ts");
  assert.equal(tokens.o200kBuilt(), false, "nothing in this test module has counted yet");
  await import("../lib/gleaner.ts");
  assert.equal(tokens.o200kBuilt(), false, "the encoder was built while lib/gleaner.ts loaded");
  tokens.countTokens("the check sees what it looks for");
  assert.equal(tokens.o200kBuilt(), true);
});

Deno.test("the full graph does reach them (the check above sees what it looks for)", async () => {
  const all = await staticClosure(new URL("lib/gleaner.ts", ROOT).pathname);
  for (const pattern of [/\/lib\/text\/tokens\.ts$/, /\/lib\/store\/mod\.ts$/, /npm:linkedom/]) {
    assert.ok([...all].some((s) => pattern.test(s)), `lib/gleaner.ts reaches ${pattern}`);
  }
});

/**
 * The modules the running server has loaded, from Deno's own module-load trace
 * (`DENO_LOG=deno::module_loader=debug`: one line per module it compiles or
 * takes from the V8 code cache, npm CommonJS scripts included).
 */
const TRACE_LOG = "deno::module_loader=debug,deno_runtime::worker=debug";
const TRACED = /(?:ES module|script): (\S+?),? \[\d+\]$/;

/**
 * Loaded on the first call or in the warm-up after `tools/list`, never before it answers: the
 * call path (`lib/api.ts`, telemetry and its `node:async_hooks`), URL screening with its
 * address checks (`ipaddr.js`, `node:dns`), hashing (`node:crypto`), the reader, ranker,
 * tokenizer, store, embedders (TF.js, ONNX) and the Chromium driver.
 */
const HEAVY_AT_RUNTIME = [
  /\/lib\/api\.ts$/,
  /\/lib\/gleaner\.ts$/,
  /\/lib\/telemetry\//,
  // The robots.txt state names are shared constants; every provider module brings the JSON call,
  // its failure classifier and the failure type (errors and messages only, no address checks).
  /\/lib\/net\/(?!(robots_state|json_call|classify|upstream_failure)\.ts$)/,
  /\/lib\/read\//,
  /\/lib\/extract\//,
  /\/lib\/store\/(mod|sqlite|cache)\.ts$/,
  /\/lib\/text\/tokens\.ts$/,
  /\/lib\/rank\/(mod|bm25|rerank)\.ts$/,
  /\/lib\/embed\//,
  /\/lib\/memory\/(service|stores)\.ts$/,
  /\/lib\/search\/(roles|router)\.ts$/,
  /\/lib\/search\/providers\/pages\.ts$/,
  // What only the other presentations declare (default here): the provider registry and every
  // provider module it brings, the providers' own, role and router tools, Deep Research.
  /\/lib\/search\/providers\/(registry|brave|exa|tavily|gemini|parallel|jina|duckduckgo)\.ts$/,
  /\/lib\/tools\/(presentations|provider_tools|role_tools|router_tool|deep_research)\.ts$/,
  /\/lib\/deep_research\//,
  /\/lib\/evidence\//,
  /\/node_modules\/\.deno\/(gpt-tokenizer|linkedom|@mozilla\+readability|turndown|puppeteer-core|sqlite-vec|hono|ipaddr\.js|@huggingface\+transformers|@energetic-ai\+[a-z-]+|@tensorflow\+[a-z-]+|onnxruntime-[a-z]+|unpdf|pg|iovalkey)@/,
  /\/@modelcontextprotocol\/sdk\/dist\/esm\/server\/index\.js$/,
  /^ext:deno_node\/(async_hooks|crypto|dns|sqlite|worker_threads|net|tls|http)\.ts$/,
];

Deno.test("gleaner mcp: by its first answer the running server has loaded no call-path or heavy module (load trace)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gleaner-startup-trace-" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...DENO_RUN_FLAGS, CLI, "mcp"],
    env: {
      ...Deno.env.toObject(),
      DENO_LOG: TRACE_LOG,
      NO_COLOR: "1",
      XDG_CONFIG_HOME: `${dir}/config`,
      XDG_DATA_HOME: `${dir}/data`,
    },
    stderr: "pipe",
  });
  const chunks: Uint8Array[] = [];
  const stderr = transport.stderr!;
  const drained = new Promise<void>((resolve) => {
    stderr.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    stderr.on("end", resolve);
    stderr.on("close", resolve);
  });
  const client = new Client({ name: "startup-trace", version: "1" });
  try {
    // `initialize` is answered by the same server state that answers `tools/list`: the tool
    // specs are built before the server connects, and the `tools/list` handler imports nothing
    // (it is synchronous). `tools/list` itself is not asked: its answer starts the warm-up,
    // whose loads would race with the end of the trace.
    await client.connect(transport);
    assert.ok(client.getServerCapabilities()?.tools, "the server declares its tools");
    // Stopped at once: a clean exit loads more (the telemetry shutdown), after the answer.
    Deno.kill(transport.pid!, "SIGKILL");
  } finally {
    await client.close();
    await drained;
    await Deno.remove(dir, { recursive: true }).catch(() => undefined);
  }
  const loaded = [
    ...new Set(
      new TextDecoder().decode(
        new Uint8Array(chunks.flatMap((chunk) => [...chunk])),
      ).split("\n").flatMap((line) => line.match(TRACED)?.[1] ?? []),
    ),
  ];
  // The trace sees what it looks for: the entry, the tool specs, zod.
  for (
    const light of [/\/cli\.ts$/, /\/lib\/tools\/scrape_urls\.ts$/, /\/mcp\/stdio\.ts$/, /\/zod@/]
  ) {
    assert.ok(
      loaded.some((s) => light.test(s)),
      `the load trace shows ${light} (${loaded.length} modules)`,
    );
  }
  const heavy = loaded.filter((s) => HEAVY_AT_RUNTIME.some((pattern) => pattern.test(s)));
  assert.deepEqual(heavy, [], `loaded before the first answer: ${heavy.join(", ")}`);
});

Deno.test("the launcher (scripts/launch.ts) loads no npm package, no node: module and not the config schema", async () => {
  const launcher = await staticClosure(new URL("scripts/launch.ts", ROOT).pathname);
  const own = [...launcher].filter((s) => s.startsWith(ROOT.href)).map((s) =>
    s.slice(ROOT.href.length)
  ).sort();
  const foreign = [...launcher].filter((s) => !s.startsWith(ROOT.href));
  assert.deepEqual(foreign, [], "the launcher imports nothing beside Gleaner's own files");
  for (const module of own) {
    assert.doesNotMatch(module, /^lib\/config\/(schema|config|load|parse|env_settings)\b/, module);
  }
  assert.ok(own.includes("lib/permissions.ts") && own.includes("lib/config/path_settings.ts"));
  // The check sees what it looks for: the doctor's graph has the schema and npm packages.
  const doctor = await staticClosure(new URL("lib/doctor.ts", ROOT).pathname);
  assert.ok([...doctor].some((s) => s.startsWith("npm:")));
  assert.ok([...doctor].some((s) => s.endsWith("lib/config/schema.ts")));
});

Deno.test("cli.ts: loading it resolves no command's graph (its lazy modules are named at run time)", async () => {
  const resolved = await staticClosure(CLI, { dynamic: true });
  assert.ok([...resolved].some((s) => s.endsWith("/lib/version.ts")), "the closure sees cli.ts");
  const heavy = [...resolved].filter((s) =>
    /\/(lib\/(gleaner|api|doctor|setup|config\/schema)|mcp\/stdio|http\/serve)\.ts$|^npm:/.test(s)
  );
  assert.deepEqual(heavy, [], `resolved when cli.ts loads: ${heavy.join(", ")}`);
});

Deno.test("deno task compile includes every module cli.ts loads by URL", async () => {
  const cli = await Deno.readTextFile(CLI);
  const lazy = [...cli.matchAll(/^ {2}"\.\/([^"]+)": typeof import\(/gm)].map((m) => m[1]);
  assert.ok(lazy.includes("mcp/stdio.ts") && lazy.includes("lib/gleaner.ts"), lazy.join());
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).tasks;
  const included = [...String(tasks.compile).matchAll(/--include (\S+)/g)].map((m) => m[1]);
  assert.deepEqual(lazy.filter((path) => !included.includes(path)), []);
});
