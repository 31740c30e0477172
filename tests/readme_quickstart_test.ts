/**
 * The README's quick start is true: it comes right after the two commands
 * (`deno task start`, `deno task test`), and every client entry in it, the
 * `claude mcp add` line and each JSON block, starts a server that answers
 * `tools/list` when run as written (this checkout in place of
 * `/path/to/gleaner`), driven by the real MCP SDK client over stdio.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname).replace(/\/$/, "");
const PLACEHOLDER = "/path/to/gleaner";

/** The fenced code blocks of a Markdown text, with their language. */
function codeBlocks(markdown: string): { lang: string; body: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1],
    body: m[2],
  }));
}

/** The README's quick start section (its heading to the next heading or rule). */
function quickStart(readme: string): string {
  const start = readme.indexOf("\n## Quick start");
  assert.ok(start > 0, "README has a quick start section");
  const rest = readme.slice(start + 1);
  const end = rest.slice(3).search(/^(## |---$)/m);
  return end === -1 ? rest : rest.slice(0, end + 3);
}

/** A command a client runs: the program and its arguments. */
interface Launch {
  where: string;
  command: string;
  args: string[];
}

/** Every stdio server entry of the quick start: `claude mcp add … -- <command>` and JSON blocks. */
function launches(section: string): Launch[] {
  const out: Launch[] = [];
  for (const block of codeBlocks(section)) {
    if (block.lang === "sh") {
      for (const line of block.body.split("\n").filter((l) => l.startsWith("claude mcp add"))) {
        const [, command] = line.split(" -- ");
        assert.ok(command, `a stdio entry separates the command with --: ${line}`);
        const [program, ...args] = command.trim().split(/\s+/);
        out.push({ where: "claude mcp add", command: program, args });
      }
    } else if (block.lang === "json") {
      const config = JSON.parse(block.body) as Record<
        string,
        Record<string, { type?: string; command: string; args: string[] }>
      >;
      const servers = config.mcpServers ?? config.servers;
      assert.ok(servers?.gleaner, `a JSON block names the gleaner server: ${block.body}`);
      const entry = servers.gleaner;
      if (config.servers) assert.equal(entry.type, "stdio", "VS Code says the transport");
      out.push({ where: Object.keys(config)[0], command: entry.command, args: entry.args });
    }
  }
  return out;
}

Deno.test("README: the quick start follows the two commands and names every client", async () => {
  const readme = await Deno.readTextFile(`${ROOT}/README.md`);
  const first = codeBlocks(readme)[0];
  assert.match(first.body, /^deno task start\b/m, "the first command stays first");
  assert.match(first.body, /^deno task test\b/m);
  const afterCommands = readme.slice(readme.indexOf(first.body) + first.body.length + 4);
  assert.ok(
    afterCommands.trimStart().startsWith("## Quick start"),
    "the quick start comes right after the two commands",
  );
  const section = quickStart(readme);
  for (const client of ["Claude Code", "Claude Desktop", "Cursor", "VS Code"]) {
    assert.ok(section.includes(client), `the quick start names ${client}`);
  }
  assert.match(section, /once published/i, "the registry lines are marked as not yet published");
  assert.match(section, /http:\/\/127\.0\.0\.1:8787\/mcp/, "the HTTP endpoint");
  assert.equal(launches(section).length, 3, "claude mcp add, mcpServers, servers");
});

Deno.test("README: every quick start entry, run as written, answers tools/list", async () => {
  const section = quickStart(await Deno.readTextFile(`${ROOT}/README.md`));
  const home = await Deno.makeTempDir({ prefix: "gleaner-quickstart-" });
  try {
    for (const launch of launches(section)) {
      assert.ok(launch.args.includes(PLACEHOLDER), `${launch.where}: names the checkout`);
      const client = new Client({ name: "readme-quickstart", version: "1" });
      const transport = new StdioClientTransport({
        command: launch.command,
        args: launch.args.map((arg) => arg === PLACEHOLDER ? ROOT : arg),
        // A client starts the server from anywhere, not from the checkout.
        cwd: home,
        env: {
          PATH: Deno.env.get("PATH") ?? "",
          HOME: home,
          XDG_DATA_HOME: `${home}/data`,
          XDG_CONFIG_HOME: `${home}/config`,
          XDG_CACHE_HOME: Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`,
          ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
          GLEANER_LOG_LEVEL: "warning",
          NO_COLOR: "1",
        },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on(
        "data",
        (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk),
      );
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        const names = tools.map((t: { name: string }) => t.name);
        for (const name of ["search", "scrape_urls", "research", "save_memories"]) {
          assert.ok(names.includes(name), `${launch.where}: ${name} listed (${names})\n${stderr}`);
        }
        const now = await client.callTool({ name: "current_datetime", arguments: {} });
        assert.notEqual(now.isError, true, `${launch.where}: a call works\n${stderr}`);
      } finally {
        await client.close();
      }
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
