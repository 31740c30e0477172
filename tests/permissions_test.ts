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
import { ENV_ALIASES, envNames } from "../lib/config/config.ts";
import { POSTGRES_ENV_NAMES } from "../lib/config/env.ts";
import { ENV_NAMES } from "../lib/config/env_names.ts";
import { envNamesModule } from "../scripts/env_names.ts";
import { startTestWorld, type TestWorld } from "../testing/fixtures/world.ts";
import { childArgv } from "../scripts/launch.ts";
import { browserSuffix, ignoreBrowser } from "../testing/fixtures/browser.ts";
import { ignorePostgres, postgresSuffix, startPostgres } from "../testing/fixtures/postgres.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

Deno.test("the launcher's --allow-env list (lib/config/env_names.ts) is the schema's list; the tasks use no permission set", async () => {
  const listed = [...ENV_NAMES];
  const generated = envNames();
  assert.deepEqual(
    listed,
    generated,
    "lib/config/env_names.ts must be envNames(): run " +
      "deno run --allow-read --allow-write=lib/config/env_names.ts scripts/env_names.ts",
  );
  assert.equal(
    await Deno.readTextFile(`${ROOT}lib/config/env_names.ts`),
    envNamesModule(generated, ENV_ALIASES),
    "lib/config/env_names.ts is what scripts/env_names.ts writes",
  );
  // What the launcher grants the server: scoped everywhere but net, sys and ffi (lib/permissions.ts).
  const argv = await childArgv(["serve"], { HOME: "/home/a" });
  const bare = argv.filter((a) => /^--allow-\w+$/.test(a));
  assert.deepEqual(bare, ["--allow-net", "--allow-sys", "--allow-ffi"], argv.join(" "));
  assert.ok(argv.includes("--no-prompt"), argv.join(" "));
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
  const json = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  for (const task of ["start", "mcp"]) {
    // Explicit flags: a permission set (-P) makes Deno print an "experimental" warning on
    // every start. Deno's update check is off: it looked up dl.deno.land from the running
    // server (and may print a "new release" notice on a terminal).
    assert.match(
      json.tasks[task],
      /^DENO_NO_UPDATE_CHECK=1 deno run (--node-modules-dir=manual )?--allow-read --allow-env --allow-ffi --allow-run=deno scripts\/launch\.ts /,
    );
  }
  assert.equal(json.permissions, undefined, "no permission set in deno.json");
});

Deno.test("the server the launcher starts holds the scoped grants, not the launcher's whole ones", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gleaner-launch-" });
  const env = {
    HOME: dir,
    XDG_CONFIG_HOME: `${dir}/config`,
    XDG_DATA_HOME: `${dir}/data`,
    PATH: Deno.env.get("PATH") ?? "",
    NO_COLOR: "1",
    // A misspelt setting: warned about only where the whole environment can be read.
    GLEANER_SERVER_PROTT: "1",
  };
  const run = async (args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, env, stdin: "null" })
      .output();
    const [stdout, stderr] = [out.stdout, out.stderr].map((b) => new TextDecoder().decode(b));
    assert.equal(out.code, 0, stderr);
    return { stdout, stderr };
  };
  try {
    // The same command with the launcher's own (whole) grants sees the name and warns.
    const whole = await run(["run", "--node-modules-dir=manual", "-A", "cli.ts", "config"]);
    assert.match(whole.stderr, /GLEANER_SERVER_PROTT is not a Gleaner setting/);
    // Through the launcher, the server reads only the names of its --allow-env list.
    const launched = await run(await launcherCommand(["config"]));
    assert.doesNotMatch(launched.stderr, /GLEANER_SERVER_PROTT/);
    assert.equal(JSON.parse(launched.stdout).server.port, 8787, launched.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the launcher grants the PostgreSQL driver's names and files only when the memory store is on PostgreSQL", async () => {
  const sqlite = await childArgv(["serve"], { HOME: "/home/a" });
  assert.ok(!sqlite.some((a) => /^--allow-env=.*\bPGPASSWORD\b/.test(a)), sqlite.join(" "));
  const env = {
    HOME: "/home/a",
    GLEANER_MEMORY_BACKEND: "postgres",
    GLEANER_MEMORY_POSTGRES_URL:
      "postgres://g@%2Fvar%2Frun%2Fpostgresql/g?sslrootcert=/etc/pg/ca.pem",
  };
  const pg = await childArgv(["serve"], env);
  const list = (flag: string) =>
    pg.find((a) => a.startsWith(`--allow-${flag}=`))?.slice(`--allow-${flag}=`.length)
      .split(",") ?? [];
  for (const name of POSTGRES_ENV_NAMES) assert.ok(list("env").includes(name), name);
  // No password in the URL: the driver may read ~/.pgpass; the CA file the URL names; the socket.
  for (const path of ["/home/a/.pgpass", "/etc/pg/ca.pem", "/var/run/postgresql"]) {
    assert.ok(list("read").includes(path), `${path} in ${list("read")}`);
  }
  assert.ok(list("write").includes("/var/run/postgresql"), list("write").join());
  // With a password in the URL the password file is not read; a TCP host needs no socket.
  const withPassword = await childArgv(["serve"], {
    ...env,
    GLEANER_MEMORY_POSTGRES_URL: "postgres://g:secret@127.0.0.1:5432/g",
  });
  assert.ok(!withPassword.some((a) => a.includes(".pgpass")), withPassword.join(" "));
  assert.ok(!withPassword.some((a) => a.includes("postgresql")), withPassword.join(" "));
  // The same from the config file given with --config.
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/config.json`,
      JSON.stringify({ memory: { backend: "postgres", postgres_url: "postgres://g@db/g" } }),
    );
    const fromFile = await childArgv(["serve", "--config", `${dir}/config.json`], {
      HOME: "/home/a",
    });
    assert.ok(fromFile.some((a) => /^--allow-env=.*\bPGPASSWORD\b/.test(a)), fromFile.join(" "));
    assert.ok(fromFile.some((a) => a.startsWith(`--allow-read=${dir}/config.json,`)));
  } finally {
    await Deno.remove(dir, { recursive: true });
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
    // `--node-modules-dir=manual` (as the mcp task passes it): the grants are what is tested.
    const argv = await childArgv(
      ["--node-modules-dir=manual", "scrape", world.web.url("/pages/mozilla-1"), "--json"],
      env,
    );
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

/** The `start` task's launcher command line from deno.json, running `command` instead of `serve`. */
async function launcherCommand(command: string[]): Promise<string[]> {
  const json = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const words = (json.tasks.start as string).split(" ");
  assert.equal(words.pop(), "serve");
  assert.equal(words.shift(), "DENO_NO_UPDATE_CHECK=1");
  return [...words.slice(1), ...command];
}

Deno.test({
  name:
    `gleaner doctor under the launcher's grants, memory on PostgreSQL: the store answers; without the PGPASSWORD grant the flag is named${postgresSuffix}`,
  ignore: ignorePostgres,
  async fn() {
    await using pg = await startPostgres();
    const world = await startTestWorld({ embed: "static" });
    const { env, dir } = await freshEnv(world);
    // The fixture's URL gives no password (trust on loopback): the driver reads PGPASSWORD.
    env.GLEANER_MEMORY_BACKEND = "postgres";
    env.GLEANER_MEMORY_POSTGRES_URL = pg.url;
    delete env.PGPASSWORD;
    type Report = { checks: { name: string; status: string; detail: string; fix?: string }[] };
    const doctor = async (args: string[]): Promise<Report> => {
      const out = await new Deno.Command(Deno.execPath(), {
        args,
        cwd: ROOT,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(
          `doctor printed no report:\n${text}\n${new TextDecoder().decode(out.stderr)}`,
        );
      }
    };
    const check = (report: Report, name: string) => {
      const found = report.checks.find((c) => c.name === name);
      assert.ok(found, `${name} in ${JSON.stringify(report.checks.map((c) => c.name))}`);
      return found;
    };
    try {
      // Through the launcher, as deno task start runs it.
      const launched = await doctor(await launcherCommand(["doctor", "--json"]));
      const store = check(launched, "memory store");
      assert.equal(store.status, "ok", JSON.stringify(store));
      assert.match(store.detail, /PostgreSQL \d+/);
      assert.equal(check(launched, "memory vectors").status, "ok");
      assert.equal(check(launched, "permissions").status, "ok");
      // Over the server's Unix socket: the launcher grants its folder (connecting needs read
      // and write access to the socket; without it the connection never settles).
      const tcpUrl = env.GLEANER_MEMORY_POSTGRES_URL;
      env.GLEANER_MEMORY_POSTGRES_URL = `postgres://postgres@${
        encodeURIComponent(pg.socketDir)
      }:${pg.port}/postgres`;
      const socket = await doctor(await launcherCommand(["doctor", "--json"]));
      assert.equal(check(socket, "memory store").status, "ok", JSON.stringify(socket.checks));
      env.GLEANER_MEMORY_POSTGRES_URL = tcpUrl;
      // The same grants less PGPASSWORD: both the permission check and the store name it.
      const argv = await childArgv(["--node-modules-dir=manual", "doctor", "--json"], env);
      const without = argv.map((arg) =>
        arg.startsWith("--allow-env=")
          ? `--allow-env=${arg.slice(12).split(",").filter((n) => n !== "PGPASSWORD").join(",")}`
          : arg
      );
      assert.notDeepEqual(without, argv, "PGPASSWORD was granted");
      const denied = await doctor(without);
      const missing = check(denied, "memory store");
      assert.equal(missing.status, "fail");
      assert.match(missing.detail, /the process lacks --allow-env=PGPASSWORD/);
      assert.doesNotMatch(missing.detail, /connect failed/);
      assert.match(missing.fix ?? "", /--allow-env=PGPASSWORD/);
      assert.match(
        check(denied, "permissions").detail,
        /--allow-env=PGPASSWORD \(the PostgreSQL driver\)/,
      );
    } finally {
      await world.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
