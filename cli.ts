#!/usr/bin/env -S deno run --allow-net --allow-read --allow-write --allow-env --allow-sys --allow-ffi --allow-run
/**
 * The `gleaner` command.
 *
 * ```
 * gleaner [mcp]                      MCP over stdio (default)
 * gleaner serve [--host H] [--port P] [--insecure]  HTTP API + MCP at /mcp
 * gleaner search <query>             search and print results
 * gleaner scrape <url> [--query Q]   read a page and print evidence
 * gleaner research <question>        search, read and print evidence
 * gleaner domains [domain]           what Gleaner remembers per domain
 * gleaner domains export <file>      write the domain memory as a versioned JSON snapshot
 * gleaner domains import <file>      read a snapshot back (bad entries reported, others kept)
 * gleaner doctor                     check browser, store, embedder, config
 * gleaner setup                      get the stores, model and browser ready
 * gleaner config                     print the effective config (secrets redacted)
 * ```
 *
 * Any setting can be given as `--set section.key=value`.
 *
 * Permissions: `deno task start` and `deno task mcp` run it under the
 * grants `lib/permissions.ts` resolves for the machine (through
 * `scripts/launch.ts`); `gleaner doctor` prints them. The shebang above keeps
 * whole flags: a shebang line cannot hold the environment list (Linux reads
 * at most 255 bytes of it) nor compute the paths.
 *
 * Exit codes: 0 success; 1 failure (for `search`, `scrape`, `research`: every
 * item failed; a bad setting from the environment or config file); 2 usage
 * error (unknown command, flag or setting, a missing query or URL, a flag value
 * the settings refuse). With `--json` a failure is also printed on stdout as
 * `{"error":{"code","message"}}`.
 *
 * @module
 */
// Only what `--version` and `--help` need is imported statically: every
// command loads its own part of the graph (`load` below), so the
// short commands answer without loading extraction, ranking or the store.
import { parseArgs } from "node:util";
import { GleanerError, toGleanerError } from "./lib/errors.ts";
import type { Config } from "./lib/config/config.ts";
import type { Gleaner } from "./lib/gleaner.ts";
import type { DomainStats } from "./lib/store/mod.ts";
import { type AnyToolSpec, everyItemFailed } from "./lib/tools/spec.ts";
import { VERSION } from "./lib/version.ts";

/**
 * The modules the commands load on first use, by path (see {@link load}).
 */
interface LazyModules {
  "./http/serve.ts": typeof import("./http/serve.ts");
  "./lib/api.ts": typeof import("./lib/api.ts");
  "./lib/config/config.ts": typeof import("./lib/config/config.ts");
  "./lib/config/diagnose.ts": typeof import("./lib/config/diagnose.ts");
  "./lib/config/env.ts": typeof import("./lib/config/env.ts");
  "./lib/doctor.ts": typeof import("./lib/doctor.ts");
  "./lib/gleaner.ts": typeof import("./lib/gleaner.ts");
  "./lib/log.ts": typeof import("./lib/log.ts");
  "./lib/setup.ts": typeof import("./lib/setup.ts");
  "./lib/store/domain_snapshot.ts": typeof import("./lib/store/domain_snapshot.ts");
  "./lib/store/mod.ts": typeof import("./lib/store/mod.ts");
  "./lib/store/valkey_client.ts": typeof import("./lib/store/valkey_client.ts");
  "./lib/telemetry/mod.ts": typeof import("./lib/telemetry/mod.ts");
  "./lib/tools/default_tools.ts": typeof import("./lib/tools/default_tools.ts");
  "./lib/tools/mod.ts": typeof import("./lib/tools/mod.ts");
  "./lib/tools/presentations.ts": typeof import("./lib/tools/presentations.ts");
  "./mcp/manage_resources.ts": typeof import("./mcp/manage_resources.ts");
  "./mcp/memory_resources.ts": typeof import("./mcp/memory_resources.ts");
  "./mcp/stdio.ts": typeof import("./mcp/stdio.ts");
}

/**
 * Imports one of {@link LazyModules} through a URL built at run time. Deno
 * reads and resolves the module graph behind every literal `import("…")` of a
 * module when it loads the module, whether or not the import ever runs: behind
 * this file that was every command's graph (reader, browser, stores, HTTP
 * server and their npm packages), 18 ms of each `gleaner --version` and about
 * 33 ms of `gleaner mcp` before `tools/list` on 2 cores. Each command now
 * resolves only what it runs. The types stay checked (`typeof import`);
 * `deno task compile` names these modules with `--include`; from the npm
 * package (`cli.js`) it loads their `.js` twins.
 */
function load<P extends keyof LazyModules>(path: P): Promise<LazyModules[P]> {
  const file = import.meta.url.endsWith(".js") ? path.replace(/\.ts$/, ".js") : path;
  return import(new URL(file, import.meta.url).href);
}

const USAGE = `gleaner ${VERSION} — web research and memory for AI agents

usage: gleaner [command] [options]

commands:
  mcp                      MCP server over stdio (default)
  serve                    HTTP: web page /ui (also at /), MCP /mcp, REST /v1/* on --host/--port
  search <query>           web search
  scrape <url> [--query Q] read a page; evidence for Q or the page in order
  research <question>      search, read and rank in one call
  domains [domain]         per-domain reading memory
  domains export <file>    write the domain memory to a JSON snapshot ("-": stdout)
  domains import <file>    restore a snapshot (bad entries are reported, the others imported)
  doctor [--online]        check config, permissions, stores, browser, embedder, keys: one
                           line per check with its fix (--json: the report as JSON; --online:
                           one search per engine, and ask each keyed provider about its key)
  setup                    get ready ahead of the first call, step by step: stores created
                           and migrated, the ranking model in place, the browser started
  config                   print the effective configuration (secrets redacted)

options:
  --host H, --port P       server address (default 127.0.0.1:8787)
  --insecure               serve beyond loopback without server.api_key (warns)
  --config FILE            config file (default $XDG_CONFIG_HOME/gleaner/config.json)
  --set section.key=value  any setting (repeatable)
  --query Q                query for scrape
  --max-tokens N           token budget
  --json                   print JSON instead of text
  --log-level L            trace|debug|info|warning|error
  --presentation P         tools served: default|roles|all_tools|one_provider|deep-research|router
  -h, --help, -v, --version

exit codes: 0 ok, 1 failed (every item failed), 2 usage error
`;

/** A mistake in how the command was called: printed with a hint, exit code 2. */
class UsageError extends Error {}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        config: { type: "string" },
        set: { type: "string", multiple: true },
        query: { type: "string" },
        "max-tokens": { type: "string" },
        json: { type: "boolean" },
        online: { type: "boolean" },
        insecure: { type: "boolean" },
        "log-level": { type: "string" },
        presentation: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
    });
  } catch (error) {
    // node:util reports ERR_PARSE_ARGS_UNKNOWN_OPTION, ERR_PARSE_ARGS_INVALID_OPTION_VALUE, …
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      throw new UsageError((error as Error).message.split("\n")[0]);
    }
    throw error;
  }
}

/** `--set section.key=value` entries as flags, refusing unknown settings. */
async function settingFlags(entries: readonly string[]): Promise<Record<string, string>> {
  const { nearestSetting, settingPaths } = await load("./lib/config/config.ts");
  const known = new Set(settingPaths());
  const flags: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf("=");
    if (at < 1) throw new UsageError(`--set expects section.key=value, got "${entry}"`);
    const path = entry.slice(0, at);
    if (!known.has(path)) {
      const guess = nearestSetting(path);
      throw new UsageError(
        `--set: unknown setting "${path}"${guess ? `; did you mean "${guess}"?` : ""}`,
      );
    }
    flags[path] = entry.slice(at + 1);
  }
  return flags;
}

/**
 * The settings given as flags (`--host`, `--port`, `--set path=value`, ...), by setting path,
 * and which flag gave each one (to name it when its value is refused).
 */
async function commandLineFlags(
  values: ReturnType<typeof parse>["values"],
): Promise<{ flags: Record<string, string>; flagNames: Record<string, string> }> {
  const flags: Record<string, string> = {};
  // Which flag gave each setting, to name it when its value is refused.
  const flagNames: Record<string, string> = {};
  const setFlag = (path: string, value: string, name: string) => {
    flags[path] = value;
    flagNames[path] = name;
  };
  if (values.host !== undefined) setFlag("server.host", values.host, "--host");
  if (values.port !== undefined) setFlag("server.port", values.port, "--port");
  if (values["log-level"] !== undefined) {
    setFlag("log.level", values["log-level"], "--log-level");
  }
  if (values.presentation !== undefined) {
    setFlag("search.presentation", values.presentation.replaceAll("-", "_"), "--presentation");
  }
  for (const [path, value] of Object.entries(await settingFlags(values.set ?? []))) {
    setFlag(path, value, `--set ${path}`);
  }
  if (values.port !== undefined && !/^\d+$/.test(values.port)) {
    throw new UsageError(`--port expects a number, got "${values.port}"`);
  }
  if (values["max-tokens"] !== undefined && !/^\d+$/.test(values["max-tokens"])) {
    throw new UsageError(`--max-tokens expects a number, got "${values["max-tokens"]}"`);
  }
  return { flags, flagNames };
}

/** Where one run of the command writes, and the environment it reads. */
interface Io {
  /** The environment settings and host paths are read from (default: the process's). */
  env?: Record<string, string>;
  print(text: string): void;
  printError(text: string): void;
}

async function main(args: string[], io: Io): Promise<number> {
  const { print, printError } = io;
  const { values, positionals } = parse(args);
  if (values.help) return print(USAGE), 0;
  if (values.version) return print(`gleaner ${VERSION}`), 0;

  const { flags, flagNames } = await commandLineFlags(values);
  const warnings: string[] = [];
  const { loadConfig, redactConfig } = await load("./lib/config/config.ts");
  const [command = "mcp", ...rest] = positionals;
  let config;
  // The doctor reports every problem of the configuration and runs its checks on the rest.
  let diagnosis: import("./lib/config/diagnose.ts").DiagnosedConfig | undefined;
  try {
    if (command === "doctor") {
      const { diagnoseConfig } = await load("./lib/config/diagnose.ts");
      diagnosis = await diagnoseConfig({ flags, file: values.config, env: io.env });
      config = diagnosis.config;
    } else {
      config = await loadConfig({
        flags,
        file: values.config,
        env: io.env,
        warn: (message) => warnings.push(message),
      });
    }
  } catch (error) {
    // A value given on the command line that the schema refuses is a usage error
    // (flags win over the file and the environment, so the flag is the culprit).
    const field = error instanceof GleanerError && error.code === "invalid_arguments"
      ? error.details?.field
      : undefined;
    const path = typeof field === "string"
      ? Object.keys(flagNames).find((p) => field === p || field.startsWith(`${p}.`))
      : undefined;
    if (path) throw new UsageError(`${flagNames[path]}: ${(error as Error).message}`);
    throw error;
  }
  const { setupLogging } = await load("./lib/log.ts");
  await setupLogging(config.log.level);
  // The environment the defaults come from (data directory, TMPDIR, CA files, OTEL_*), read once
  // here and handed down: no library module reads the environment itself.
  const env = io.env ?? (await load("./lib/config/env.ts")).readHostEnv();
  // Written synchronously: a short command may exit before the log sink flushes.
  for (const warning of warnings) printError(`gleaner: warning: ${warning}`);

  if (command === "mcp" || command === "serve") {
    // A server in an unknown state (a rejection left unhandled, an error thrown from a
    // callback) logs it, flushes the logs and exits non-zero, for its supervisor to restart it.
    const { exitOnUncaught } = await load("./lib/log.ts");
    exitOnUncaught();
  }
  if (command === "config") return print(JSON.stringify(redactConfig(config), null, 2)), 0;
  if (command === "doctor") {
    const { formatDoctorReport, runDoctor } = await load("./lib/doctor.ts");
    const report = await runDoctor(config, {
      online: values.online === true,
      env,
      ...(diagnosis ? { configDiagnosis: diagnosis } : {}),
    });
    print(values.json ? JSON.stringify(report, null, 2) : formatDoctorReport(report));
    return report.ok ? 0 : 1;
  }

  // Created on first use: `mcp` answers `tools/list` before loading the
  // reader, ranker and store (the server then warms up in the background).
  let created: Promise<Gleaner> | undefined;
  const getGleaner = () =>
    created ??= (async () => {
      const [{ createGleanerFromConfig }, { initTelemetry }] = await Promise.all([
        load("./lib/gleaner.ts"),
        load("./lib/telemetry/mod.ts"),
      ]);
      await initTelemetry(env);
      if (config.store.cache_url) {
        await (await load("./lib/store/valkey_client.ts")).loadValkeyDriver();
      }
      return createGleanerFromConfig(config, { env });
    })();
  try {
    switch (command) {
      case "mcp": {
        const { serveStdio } = await load("./mcp/stdio.ts");
        await serveStdio(getGleaner, await stdioOptions(config));
        return 0;
      }
      case "serve": {
        const { serveHttp } = await load("./http/serve.ts");
        const controller = new AbortController();
        for (const signal of ["SIGINT", "SIGTERM"] as const) {
          Deno.addSignalListener(signal, () => controller.abort());
        }
        const [{ toolsFor }, { loadedConfigFile }] = await Promise.all([
          load("./lib/tools/presentations.ts"),
          load("./lib/config/config.ts"),
        ]);
        const gleaner = await getGleaner();
        // The file the configuration was loaded from (`--config`, else `$GLEANER_CONFIG`, else
        // the XDG path): `PUT /config` writes there. Not from the host snapshot `env`, which
        // holds no setting names (`GLEANER_CONFIG` among them) under the launcher's grants.
        const configFile = loadedConfigFile({ file: values.config, env: io.env });
        let server;
        try {
          server = serveHttp(gleaner, {
            signal: controller.signal,
            insecure: values.insecure,
            tools: toolsFor(config),
            ...(configFile ? { configFile } : {}),
          });
        } catch (error) {
          if (!(error instanceof GleanerError) || error.code !== "invalid_arguments") throw error;
          throw new UsageError(error.message);
        }
        await server.finished;
        return 0;
      }
      case "search":
        if (rest.join(" ").trim() === "") throw new UsageError("search needs a query");
        return await runTool("search", { items: [{ query: rest.join(" ") }] }, values.json);
      case "scrape":
        if (rest.length === 0) throw new UsageError("scrape needs at least one URL");
        return await runTool("scrape_urls", {
          items: rest.map((url) => ({ url, query: values.query })),
          ...(values["max-tokens"] ? { max_tokens: Number(values["max-tokens"]) } : {}),
        }, values.json);
      case "research":
        if (rest.join(" ").trim() === "") throw new UsageError("research needs a question");
        return await runTool("research", {
          query: rest.join(" "),
          ...(values["max-tokens"] ? { max_tokens: Number(values["max-tokens"]) } : {}),
        }, values.json);
      case "domains":
        // A pattern, not the word in quotes: the npm build reads quoted `import` as a module.
        if (/^(ex|im)port$/.test(rest[0] ?? "")) {
          if (rest.length !== 2) throw new UsageError(`domains ${rest[0]} needs one file`);
          const action = rest[0] as "export" | "import";
          return await domainSnapshot(action, rest[1], config.store, values.json);
        }
        return await runTool("domain_stats", rest[0] ? { domain: rest[0] } : {}, values.json);
      case "setup": {
        const [{ runSetup, formatSetupStep }, { loadedConfigFile }] = await Promise.all([
          load("./lib/setup.ts"),
          load("./lib/config/config.ts"),
        ]);
        const configFile = loadedConfigFile({ file: values.config, env: io.env });
        let file: string | undefined;
        if (configFile) file = await Deno.stat(configFile).then(() => configFile, () => undefined);
        if (!values.json) print("gleaner setup: getting this machine ready");
        const report = await runSetup(config, {
          env,
          ...(file ? { configFile: file } : {}),
          onStep: (step) => values.json || print(formatSetupStep(step)),
        });
        if (values.json) print(JSON.stringify(report, null, 2));
        else {
          const failed = report.steps.filter((s) => s.status === "fail").length;
          print(
            failed === 0
              ? `ready in ${(report.ms / 1000).toFixed(1)} s`
              : `${failed} step${failed === 1 ? "" : "s"} failed (${
                (report.ms / 1000).toFixed(1)
              } s): see the fix on each`,
          );
        }
        return report.ok ? 0 : 1;
      }
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } finally {
    if (created) await (await created.catch(() => undefined))?.close();
  }

  async function domainSnapshot(
    action: "export" | "import",
    file: string,
    settings: Config["store"],
    json?: boolean,
  ): Promise<number> {
    const [{ buildSnapshot, snapshotEntries }, { openStore }] = await Promise.all([
      load("./lib/store/domain_snapshot.ts"),
      load("./lib/store/mod.ts"),
    ]);
    // Only the store: no reader, browser or extraction threads for a file copy.
    const store = openStore(settings, { env });
    try {
      await store.ready();
      return await copy(store.domains);
    } finally {
      await store.close();
    }
    async function copy(domains: DomainStats): Promise<number> {
      if (action === "export") {
        const snapshot = buildSnapshot(await domains.snapshot());
        const text = `${JSON.stringify(snapshot, null, 2)}\n`;
        if (file === "-") print(text);
        else {
          await Deno.writeTextFile(file, text, { mode: 0o600 });
          const summary = { exported: snapshot.origins.length, file };
          print(json ? JSON.stringify(summary) : `exported ${summary.exported} origins to ${file}`);
        }
        return 0;
      }
      let raw: unknown;
      try {
        raw = JSON.parse(
          file === "-"
            ? await new Response(Deno.stdin.readable).text()
            : await Deno.readTextFile(file),
        );
      } catch (error) {
        if (error instanceof Deno.errors.NotCapable) throw error;
        throw new GleanerError("invalid_arguments", `${file}: not a readable JSON file`, {
          cause: error,
          details: { field: "file" },
        });
      }
      const entries = snapshotEntries(raw);
      let imported = 0;
      const failed: { index: number; origin?: string; error: { code: string; message: string } }[] =
        [];
      for (const [index, entry] of entries.entries()) {
        try {
          await domains.restore(entry);
          imported++;
        } catch (error) {
          const failure = toGleanerError(error, `origins[${index}]`);
          const origin = (entry as { origin?: unknown } | null)?.origin;
          failed.push({
            index,
            ...(typeof origin === "string" ? { origin: origin.slice(0, 200) } : {}),
            error: { code: failure.code, message: failure.message },
          });
        }
      }
      if (json) print(JSON.stringify({ imported, failed }, null, 2));
      else {
        print(`imported ${imported} of ${entries.length} origins from ${file}`);
        for (const f of failed) {
          printError(
            `origins[${f.index}]${
              f.origin ? ` (${f.origin})` : ""
            }: ${f.error.code}: ${f.error.message}`,
          );
        }
      }
      return entries.length > 0 && imported === 0 ? 1 : 0;
    }
  }

  async function runTool(name: string, input: unknown, json?: boolean): Promise<number> {
    const [{ TOOLS }, { callTool }] = await Promise.all([
      load("./lib/tools/mod.ts"),
      load("./lib/api.ts"),
    ]);
    const tool = TOOLS.find((t) => t.name === name) as AnyToolSpec | undefined;
    if (!tool) throw new Error(`tool ${name} is not available`);
    let output;
    try {
      output = await callTool(tool, await getGleaner(), input);
    } catch (error) {
      if (!(error instanceof GleanerError) || error.code !== "invalid_arguments") throw error;
      throw new UsageError(error.message);
    }
    print(json ? JSON.stringify(output, null, 2) : tool.render(output));
    return everyItemFailed(output) ? 1 : 0;
  }
}

/** The log lines written so far reach stderr before the process ends (LogTape writes them later). */
/**
 * What `gleaner mcp` serves on stdio for `config`: the tools of its presentation, stored
 * memories as resources where memory is on, the management views where they are turned on.
 */
async function stdioOptions(
  config: Config,
): Promise<import("./mcp/stdio.ts").StdioOptions> {
  const [{ defaultToolsFor }, { servesMemoryResources }, { manageResourcesToken }] = await Promise
    .all([
      load("./lib/tools/default_tools.ts"),
      load("./mcp/memory_resources.ts"),
      load("./mcp/manage_resources.ts"),
    ]);
  // The other presentations' modules (the provider registry, the Deep Research contract) load
  // only for them.
  const tools = defaultToolsFor(config) ??
    (await load("./lib/tools/presentations.ts")).toolsFor(config);
  const manageToken = manageResourcesToken(config);
  return {
    tools,
    memoryResources: servesMemoryResources(tools, config),
    ...(manageToken ? { manageToken } : {}),
  };
}

async function flushLogsBeforeExit(): Promise<void> {
  const { flushLogs } = await load("./lib/log.ts");
  await flushLogs();
}

/** A writer of whole lines: `text` with a newline added when it has none. */
function lines(write: (text: string) => void): (text: string) => void {
  return (text) => write(text.endsWith("\n") ? text : `${text}\n`);
}

function writer(file: { writeSync(bytes: Uint8Array): number }): (text: string) => void {
  return (text) => file.writeSync(new TextEncoder().encode(text));
}

/**
 * Where {@link runCli} writes and what it reads; every field defaults to the process's own.
 */
export interface CliIo {
  /** The environment settings and host paths are read from (default: the process's). */
  env?: Record<string, string>;
  /** Receives what the command prints on standard output (default: stdout). */
  stdout?: (text: string) => void;
  /** Receives what the command prints on standard error (default: stderr). */
  stderr?: (text: string) => void;
}

/**
 * Runs the `gleaner` command with `args` (as on its command line) and returns its exit code:
 * 0 success, 1 failure, 2 usage error; a failure is printed on `stderr` (and, with `--json`, as
 * `{"error":{"code","message"}}` on `stdout`). The process exits only where `cli.ts` is the main
 * module. Logs go to the process's stderr whatever `io` says.
 *
 * @example
 * ```ts ignore
 * import { runCli } from "./cli.ts";
 * let out = "";
 * const code = await runCli(["config"], { stdout: (text) => out += text });
 * console.assert(code === 0 && JSON.parse(out).server.port === 8787);
 * ```
 */
export async function runCli(args: string[], io: CliIo = {}): Promise<number> {
  return (await run(args, io)).code;
}

/** {@link runCli}, and whether the command ended by a failure it threw (not an exit code). */
async function run(args: string[], io: CliIo): Promise<{ code: number; thrown: boolean }> {
  const print = lines(io.stdout ?? writer(Deno.stdout));
  const printError = lines(io.stderr ?? writer(Deno.stderr));
  // With --json a failure is a JSON object on stdout too: `{"error":{"code","message"}}`.
  const end = args.indexOf("--");
  const json = (end === -1 ? args : args.slice(0, end)).includes("--json");
  try {
    const code = await main(args, { ...(io.env ? { env: io.env } : {}), print, printError });
    return { code, thrown: false };
  } catch (error) {
    const usage = error instanceof UsageError;
    const failure = usage
      ? new GleanerError("invalid_arguments", (error as Error).message)
      : toGleanerError(error, "gleaner");
    if (json) print(JSON.stringify({ error: failure.toJSON() }, null, 2));
    await flushLogsBeforeExit();
    if (usage) {
      printError(`gleaner: ${failure.message}\nrun "gleaner --help" for usage`);
      return { code: 2, thrown: true };
    }
    printError(`${failure.code}: ${failure.code === "internal" ? String(error) : failure.message}`);
    return { code: 1, thrown: true };
  }
}

if (import.meta.main) {
  const { code, thrown } = await run(Deno.args, {});
  if (!thrown) {
    const { shutdownTelemetry } = await load("./lib/telemetry/mod.ts");
    await shutdownTelemetry();
  }
  await flushLogsBeforeExit();
  Deno.exit(code);
}
