#!/usr/bin/env -S deno run --allow-net --allow-read --allow-write --allow-env --allow-sys --allow-ffi --allow-run
/**
 * The `gleaner` command.
 *
 * ```
 * gleaner [mcp]                      MCP over stdio (default)
 * gleaner serve [--host H] [--port P] HTTP API + MCP at /mcp
 * gleaner search <query>             search and print results
 * gleaner scrape <url> [--query Q]   read a page and print evidence
 * gleaner research <question>        search, read and print evidence
 * gleaner domains [domain]           what Gleaner remembers per domain
 * gleaner doctor                     check browser, store, embedder, config
 * gleaner setup                      fetch the configured embedding model
 * gleaner config                     print the effective config (secrets redacted)
 * ```
 *
 * Any setting can be given as `--set section.key=value`.
 *
 * @module
 */
// Only what `--version` and `--help` need is imported statically: every
// command loads its own part of the graph (dynamic imports below), so the
// short commands answer without loading extraction, ranking or the store.
import { parseArgs } from "node:util";
import { GleanerError, toGleanerError } from "./lib/errors.ts";
import type { AnyToolSpec } from "./lib/tools/spec.ts";
import { VERSION } from "./lib/version.ts";

const USAGE = `gleaner ${VERSION} — web research and memory for AI agents

usage: gleaner [command] [options]

commands:
  mcp                      MCP server over stdio (default)
  serve                    HTTP API (REST /v1/*, MCP /mcp) on --host/--port
  search <query>           web search
  scrape <url> [--query Q] read a page; evidence for Q or the page in order
  research <question>      search, read and rank in one call
  domains [domain]         per-domain reading memory
  doctor                   check browser, store, embedder and config
  setup                    download the configured embedding model ahead of time
  config                   print the effective configuration (secrets redacted)

options:
  --host H, --port P       server address (default 127.0.0.1:8787)
  --config FILE            config file (default $XDG_CONFIG_HOME/gleaner/config.json)
  --set section.key=value  any setting (repeatable)
  --query Q                query for scrape
  --max-tokens N           token budget
  --json                   print JSON instead of text
  --log-level L            trace|debug|info|warning|error
  --presentation P         tools served: default|roles|all_tools|one_provider|deep-research
  -h, --help, -v, --version
`;

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      config: { type: "string" },
      set: { type: "string", multiple: true },
      query: { type: "string" },
      "max-tokens": { type: "string" },
      json: { type: "boolean" },
      "log-level": { type: "string" },
      presentation: { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
  if (values.help) return print(USAGE), 0;
  if (values.version) return print(`gleaner ${VERSION}`), 0;

  const flags: Record<string, string> = {};
  if (values.host) flags["server.host"] = values.host;
  if (values.port) flags["server.port"] = values.port;
  if (values["log-level"]) flags["log.level"] = values["log-level"];
  if (values.presentation) flags["search.presentation"] = values.presentation.replaceAll("-", "_");
  for (const entry of values.set ?? []) {
    const at = entry.indexOf("=");
    if (at < 1) throw new Error(`--set expects section.key=value, got ${entry}`);
    flags[entry.slice(0, at)] = entry.slice(at + 1);
  }
  const { loadConfig, redactConfig } = await import("./lib/config.ts");
  const config = await loadConfig({ flags, file: values.config });
  const { setupLogging } = await import("./lib/log.ts");
  await setupLogging(config.log.level);

  const [command = "mcp", ...rest] = positionals;
  if (command === "config") return print(JSON.stringify(redactConfig(config), null, 2)), 0;
  if (command === "doctor") {
    const { runDoctor } = await import("./lib/doctor.ts");
    const report = await runDoctor(config);
    print(JSON.stringify(report, null, 2));
    return report.ok ? 0 : 1;
  }

  const { createGleanerFromConfig } = await import("./lib/gleaner.ts");
  const { initTelemetry } = await import("./lib/telemetry/mod.ts");
  await initTelemetry();
  const gleaner = createGleanerFromConfig(config);
  try {
    switch (command) {
      case "mcp": {
        const { serveStdio } = await import("./mcp/stdio.ts");
        const { toolsFor } = await import("./lib/tools/presentations.ts");
        await serveStdio(gleaner, { tools: toolsFor(config) });
        return 0;
      }
      case "serve": {
        const { serveHttp } = await import("./http/serve.ts");
        const controller = new AbortController();
        for (const signal of ["SIGINT", "SIGTERM"] as const) {
          Deno.addSignalListener(signal, () => controller.abort());
        }
        const { toolsFor } = await import("./lib/tools/presentations.ts");
        const server = serveHttp(gleaner, { signal: controller.signal, tools: toolsFor(config) });
        await server.finished;
        return 0;
      }
      case "search":
        return await runTool("search", { items: [{ query: rest.join(" ") }] }, values.json);
      case "scrape":
        return await runTool("scrape_urls", {
          items: rest.map((url) => ({ url, query: values.query })),
          ...(values["max-tokens"] ? { max_tokens: Number(values["max-tokens"]) } : {}),
        }, values.json);
      case "research":
        return await runTool("research", {
          query: rest.join(" "),
          ...(values["max-tokens"] ? { max_tokens: Number(values["max-tokens"]) } : {}),
        }, values.json);
      case "domains":
        return await runTool("domain_stats", rest[0] ? { domain: rest[0] } : {}, values.json);
      case "setup": {
        const embedder = await gleaner.embedder();
        const expander = await gleaner.expander();
        print(
          embedder
            ? `embedder ready: ${embedder.id}`
            : "no embedder could be loaded (see the log above)",
        );
        if (gleaner.config.rank.expand_terms > 0) {
          print(expander ? "query expansion ready" : "no query expansion (see the log above)");
        }
        return embedder ? 0 : 1;
      }
      default:
        printError(`unknown command: ${command}\n\n${USAGE}`);
        return 2;
    }
  } finally {
    await gleaner.close();
  }

  async function runTool(name: string, input: unknown, json?: boolean): Promise<number> {
    const [{ TOOLS }, { callTool }] = await Promise.all([
      import("./lib/tools/mod.ts"),
      import("./lib/api.ts"),
    ]);
    const tool = TOOLS.find((t) => t.name === name) as AnyToolSpec | undefined;
    if (!tool) throw new Error(`tool ${name} is not available`);
    let output;
    try {
      output = await callTool(tool, gleaner, input);
    } catch (error) {
      if (!(error instanceof GleanerError) || error.code !== "invalid_arguments") throw error;
      printError(`invalid_arguments: ${error.message}`);
      return 2;
    }
    print(json ? JSON.stringify(output, null, 2) : tool.render(output));
    return 0;
  }
}

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text.endsWith("\n") ? text : `${text}\n`));
}

function printError(text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(text.endsWith("\n") ? text : `${text}\n`));
}

if (import.meta.main) {
  try {
    const code = await main(Deno.args);
    const { shutdownTelemetry } = await import("./lib/telemetry/mod.ts");
    await shutdownTelemetry();
    Deno.exit(code);
  } catch (error) {
    const failure = toGleanerError(error, "gleaner");
    printError(`${failure.code}: ${failure.code === "internal" ? String(error) : failure.message}`);
    Deno.exit(1);
  }
}
