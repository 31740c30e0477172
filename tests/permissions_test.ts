/**
 * The scoped permissions of `deno task start` and `deno task mcp`: the exact
 * task command lines (run through `deno task`, never -A) start with a fresh
 * HOME and XDG directories, and every tool answers through the MCP SDK client
 * (Streamable HTTP for `start`, stdio for `mcp`) with no permission error;
 * the store and the memory land in the temporary data directory. The web
 * tools read the loopback fixture web with the SSRF exemption for its origins
 * only. The launcher's `--allow-env` list must be the one generated from the
 * config schema, and a missing grant names the flag and the value to add.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { envNames } from "../lib/config/config.ts";
import { startTestWorld, type TestWorld } from "../testing/fixtures/world.ts";
import { childArgv } from "../scripts/launch.ts";
import { browserSuffix, ignoreBrowser } from "../testing/fixtures/browser.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

Deno.test("the launcher's --allow-env list (deno.json permissions.launch.env) is the schema's list", async () => {
  const json = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const listed: string[] = json.permissions.launch.env;
  const generated = envNames();
  const missing = generated.filter((name) => !listed.includes(name));
  const extra = listed.filter((name) => !generated.includes(name));
  assert.deepEqual(
    { missing, extra },
    { missing: [], extra: [] },
    `deno.json permissions.launch.env must be envNames(): ${JSON.stringify(generated)}`,
  );
  // What the launcher grants the server: scoped everywhere but net, sys and ffi (lib/permissions.ts).
  const argv = await childArgv(["serve"], { HOME: "/home/a" });
  const bare = argv.filter((a) => /^--allow-\w+$/.test(a));
  assert.deepEqual(bare, ["--allow-net", "--allow-sys", "--allow-ffi"], argv.join(" "));
  const env = argv.find((a) => a.startsWith("--allow-env="));
  assert.equal(env, `--allow-env=${generated.join(",")}`);
  assert.ok(
    argv.some((a) => a.startsWith("--allow-write=/home/a/.local/share/gleaner")),
    argv.join(" "),
  );
  assert.ok(argv.some((a) => a.startsWith("--allow-read=/home/a/.config/gleaner/config.json,")));
  // A Valkey cache server: its driver enumerates the environment, so that grant is whole.
  const valkey = await childArgv(["serve"], {
    HOME: "/home/a",
    GLEANER_STORE_CACHE_URL: "redis://127.0.0.1:1",
  });
  assert.ok(valkey.includes("--allow-env"), valkey.join(" "));
  assert.ok(!valkey.some((a) => a.startsWith("--allow-env=")), valkey.join(" "));
  for (const task of ["start", "mcp"]) {
    assert.match(
      json.tasks[task],
      /^deno run (--node-modules-dir=manual )?-P=launch scripts\/launch\.ts /,
    );
  }
});

/** Deno's cache directory, so that a child with another HOME does not download again. */
function denoDir(): Promise<string> {
  // Asked once per file: `deno info` is a process start.
  cachedDenoDir ??= new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output().then((out) => JSON.parse(new TextDecoder().decode(out.stdout)).denoDir);
  return cachedDenoDir;
}
let cachedDenoDir: Promise<string> | undefined;

/** A fresh HOME and XDG directories, and the world's settings, with the store on disk. */
async function freshEnv(world: TestWorld): Promise<{ env: Record<string, string>; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "gleaner-perms-" });
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    ...world.env,
    DENO_DIR: await denoDir(),
    HOME: `${dir}/home`,
    XDG_CONFIG_HOME: `${dir}/config`,
    XDG_DATA_HOME: `${dir}/data`,
    TMPDIR: dir,
    GLEANER_EMBED_PROVIDER: "static",
    GLEANER_LOG_LEVEL: "info",
    NO_COLOR: "1",
  };
  delete env.GLEANER_STORE_PATH;
  delete env.GLEANER_MEMORY_PATH;
  delete env.GLEANER_DB;
  await Deno.mkdir(`${dir}/home`);
  return { env, dir };
}

/** Calls every tool the server lists; fails on an error or a missing permission. */
async function callEveryTool(client: Client, world: TestWorld): Promise<string[]> {
  const page = world.web.url("/pages/mozilla-1");
  const args: Record<string, (ref: string) => Record<string, unknown>> = {
    search: () => ({ items: [{ query: "web workers" }] }),
    scrape_urls: () => ({ items: [{ url: page, query: "what is a web worker" }] }),
    research: () => ({ query: "what is a web worker" }),
    crawl_site: () => ({ url: `${world.web.origin}/pages/`, max_pages: 2, max_depth: 1 }),
    domain_stats: () => ({}),
    current_datetime: () => ({}),
    save_memories: () => ({ memories: [{ content: "The harbour ferry leaves every hour." }] }),
    recall_memories: () => ({ query: "when does the ferry leave" }),
    list_memories: () => ({}),
    get_memory: (ref) => ({ memory_id: ref }),
    update_memory: (ref) => ({
      memory_id: ref,
      content: "The harbour ferry leaves twice an hour.",
    }),
    delete_memory: (ref) => ({ memory_id: ref }),
    clear_cache: () => ({ target: "all" }),
  };
  const { tools } = await client.listTools();
  const names: string[] = tools.map((t: { name: string }) => t.name);
  assert.deepEqual(names.filter((n) => !(n in args)), [], "every listed tool has arguments here");
  let ref = "";
  const order = Object.keys(args).filter((n) => names.includes(n));
  for (const name of order) {
    const result = await client.callTool({ name, arguments: args[name](ref) }) as {
      isError?: boolean;
      content: { text?: string }[];
      structuredContent?: Record<string, unknown>;
    };
    const text = JSON.stringify(result);
    assert.doesNotMatch(
      text,
      /NotCapable|permission missing|Requires \w+ access/,
      `${name}: ${text}`,
    );
    assert.ok(!result.isError, `${name}: ${result.content[0]?.text}`);
    const items = (result.structuredContent?.items ?? []) as { ok?: boolean; error?: unknown }[];
    for (const item of items) assert.notEqual(item.ok, false, `${name}: ${JSON.stringify(item)}`);
    if (name === "save_memories") {
      ref = (result.structuredContent as { results: { ref: string }[] }).results[0].ref;
      assert.ok(ref, text);
    }
  }
  return order;
}

/** Files of the data directory the child created. */
async function dataFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/data/gleaner`)) names.push(entry.name);
  return names;
}

Deno.test("deno task start (scoped permissions): every tool over MCP at /mcp, no permission error", async () => {
  const world = await startTestWorld({ embed: "static" });
  const { env, dir } = await freshEnv(world);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "start", "--port", "0"],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  let drained: Promise<void> = Promise.resolve();
  try {
    let base = "";
    while (!base) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`deno task start did not start:\n${seen}`);
      seen += decoder.decode(value, { stream: true });
      base = /listening on "?(http:\/\/[^\s")]+)/.exec(seen)?.[1]?.replace(/\/$/, "") ?? "";
    }
    drained = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        seen += decoder.decode(value, { stream: true });
      }
    })();
    const client = new Client({ name: "gleaner-perms-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)) as Transport);
    try {
      const called = await callEveryTool(client, world);
      assert.ok(called.includes("save_memories") && called.includes("scrape_urls"));
    } finally {
      await client.close();
    }
    const files = await dataFiles(dir);
    assert.ok(files.includes("gleaner.db"), `the store is in the data dir: ${files}`);
    assert.ok(files.includes("memory.db"), `the memory is in the data dir: ${files}`);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await drained;
    await world.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.doesNotMatch(seen, /NotCapable|permission missing/, seen);
});

Deno.test(`deno task mcp (scoped permissions): every tool over stdio, and a page through Chromium, no permission error${browserSuffix}`, async () => {
  const world = await startTestWorld({ embed: "static" });
  const { env, dir } = await freshEnv(world);
  // The browser tier may run: one scrape below asks for it.
  env.GLEANER_READ_RENDER = "auto";
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["task", "mcp"],
    cwd: ROOT,
    env,
    stderr: "pipe",
  });
  let seen = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => seen += new TextDecoder().decode(chunk));
  const client = new Client({ name: "gleaner-perms-test", version: "1.0.0" });
  try {
    await client.connect(transport as Transport);
    const called = await callEveryTool(client, world);
    assert.ok(called.includes("recall_memories"));
    const files = await dataFiles(dir);
    assert.ok(files.includes("memory.db"), `the memory is in the data dir: ${files}`);
    if (!ignoreBrowser) {
      // Chromium runs under --allow-run=<its path>, its profile under $TMPDIR/gleaner-chromium.
      const result = await client.callTool({
        name: "scrape_urls",
        arguments: {
          items: [{ url: world.web.url("/pages/wikipedia") }],
          render: "always",
          no_cache: true,
        },
      }) as {
        content: { text?: string }[];
        structuredContent?: { items: { ok: boolean; tier?: string; error?: unknown }[] };
      };
      assert.ok(result.structuredContent, result.content[0]?.text);
      const [item] = result.structuredContent.items;
      assert.equal(item.ok, true, JSON.stringify(item.error));
      assert.equal(item.tier, "browser", JSON.stringify(item));
    }
  } finally {
    await client.close();
    await world.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.doesNotMatch(seen, /NotCapable|permission missing/, seen);
});

Deno.test("without a grant it needs, the error names the flag and the value to add", async () => {
  const world = await startTestWorld({ embed: "static" });
  const { env, dir } = await freshEnv(world);
  try {
    const argv = await childArgv(["scrape", world.web.url("/pages/mozilla-1"), "--json"], env);
    // The data directory's write grant taken away: the store cannot be created.
    const data = `${dir}/data/gleaner`;
    const scoped = argv.map((arg) =>
      arg.startsWith("--allow-write=")
        ? `--allow-write=${arg.slice(14).split(",").filter((p) => p !== data).join(",")}`
        : arg
    );
    assert.notDeepEqual(scoped, argv, "the data dir was granted");
    const out = await new Deno.Command(Deno.execPath(), {
      args: scoped,
      cwd: ROOT,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.notEqual(out.code, 0, text);
    assert.match(text, new RegExp(`--allow-write=${data.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  } finally {
    await world.close();
    await Deno.remove(dir, { recursive: true });
  }
});
