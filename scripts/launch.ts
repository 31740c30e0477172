/**
 * The launcher behind `deno task start` and `deno task mcp`: it resolves the
 * directories Gleaner will touch on this machine (config file, data dir,
 * store and memory files, models, Chromium, the PostgreSQL driver's files;
 * `lib/permissions.ts`) and runs `cli.ts` under exactly those scoped grants,
 * with the same arguments, stdio, exit code and signals.
 *
 * It costs one short Deno start: it reads only the settings that move paths
 * (`lib/config/path_settings.ts`, no schema and no npm package), then replaces
 * itself with `deno run <grants> cli.ts …` (`execv` through FFI), so the server
 * is the process the task started and no launcher stays beside it. Where
 * `execv` is not available (Windows) it starts the server as a child and
 * passes on its stdio, signals and exit code.
 *
 * Its own permissions: `--allow-read` (the config file, Chromium), `--allow-env`
 * (the settings, and the environment it hands on), `--allow-ffi` (`execv`) and
 * `--allow-run=deno` (the child where there is no `execv`): each of the last two
 * already amounts to every permission, so they are not narrowed further; what
 * is scoped is the server. It writes nothing and opens no connection.
 *
 * A leading `--node-modules-dir=manual` is passed to the server's `deno run`
 * (the `mcp` task: no install check on each start).
 *
 * ```sh
 * deno run --allow-read --allow-env --allow-ffi --allow-run=deno scripts/launch.ts serve --port 8787
 * ```
 *
 * @module
 */
import { type Env, POSTGRES_ENV_NAMES, readEnv } from "../lib/config/env.ts";
import { ENV_NAMES } from "../lib/config/env_names.ts";
import { loadPathSettings } from "../lib/config/path_settings.ts";
import { permissionFlags, permissionGrants } from "../lib/permissions.ts";

const CLI = decodeURIComponent(new URL("../cli.ts", import.meta.url).pathname);

/**
 * The server's `deno run` argv for `args` (what the launcher runs), resolved
 * with `env` (default: the process environment).
 *
 * @example
 * ```ts ignore
 * import { childArgv } from "./launch.ts";
 * const argv = await childArgv(["mcp"], { HOME: "/home/a" });
 * console.assert(argv.includes("--allow-write=/home/a/.local/share/gleaner,/tmp/gleaner-chromium"));
 * ```
 */
export async function childArgv(args: string[], env?: Env): Promise<string[]> {
  args = [...args];
  const denoFlags: string[] = [];
  while (args[0]?.startsWith("--node-modules-dir")) denoFlags.push(args.shift()!);
  env ??= readEnv([...ENV_NAMES, ...POSTGRES_ENV_NAMES]);
  const { file, flags } = pathOptions(args);
  const settings = await loadPathSettings({ env, flags, file });
  const grants = await permissionGrants(settings, { env, configFile: file, libraries: false });
  return ["run", ...denoFlags, ...permissionFlags(grants), CLI, ...args];
}

/**
 * `--config` and the `--set` entries of `args`, read as `cli.ts` reads them (`node:util`'s
 * `parseArgs`: `--name value` or `--name=value`, nothing after `--`); cli.ts checks them all.
 */
function pathOptions(args: string[]): { file?: string; flags: Record<string, string> } {
  let file: string | undefined;
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") break;
    const match = /^--(config|set)(?:=(.*))?$/s.exec(arg);
    if (!match) continue;
    const value = match[2] ?? args[++i];
    if (value === undefined) break;
    if (match[1] === "config") {
      file = value;
      continue;
    }
    const at = value.indexOf("=");
    if (at > 0) flags[value.slice(0, at)] = value.slice(at + 1);
  }
  return { file, flags };
}

/** The C library that has `execv`, by operating system (none on Windows). */
const LIBC: Partial<Record<typeof Deno.build.os, string[]>> = {
  linux: ["libc.so.6", "libc.so"],
  android: ["libc.so"],
  darwin: ["/usr/lib/libSystem.B.dylib"],
  freebsd: ["libc.so.7"],
  netbsd: ["libc.so"],
  solaris: ["libc.so"],
  illumos: ["libc.so"],
  aix: ["libc.a"],
};

/**
 * Replaces this process with `path` run with `argv` (`execv(3)`: same process id, stdio,
 * environment and parent). Returns only when that is not possible here.
 */
function exec(path: string, argv: string[]): void {
  for (const name of LIBC[Deno.build.os] ?? []) {
    let libc;
    try {
      libc = Deno.dlopen(name, { execv: { parameters: ["buffer", "buffer"], result: "i32" } });
    } catch {
      continue;
    }
    const encoder = new TextEncoder();
    const strings = argv.map((arg) => encoder.encode(`${arg}\0`));
    const pointers = new BigUint64Array(strings.length + 1);
    strings.forEach((bytes, i) => {
      pointers[i] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(bytes)));
    });
    libc.symbols.execv(encoder.encode(`${path}\0`), new Uint8Array(pointers.buffer));
    // Still here: execv failed. (The strings are used below so that they outlive the call.)
    if (strings.length > 0) libc.close();
    return;
  }
}

/** Runs the server as a child, passing on its stdio, signals and exit code. */
async function spawn(argv: string[]): Promise<never> {
  // `deno` by name: that is what `--allow-run=deno` grants (the PATH entry may be a link to
  // Deno.execPath(), which the grant does not name).
  const own = Deno.permissions.querySync({ name: "run", command: Deno.execPath() });
  const child = new Deno.Command(own.state === "granted" ? Deno.execPath() : "deno", {
    args: argv,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    try {
      Deno.addSignalListener(signal, () => {
        try {
          child.kill(signal);
        } catch {
          // Already gone.
        }
      });
    } catch {
      // Windows knows SIGINT only (and SIGBREAK).
    }
  }
  const status = await child.status;
  Deno.exit(status.signal ? 128 + (status.signal === "SIGINT" ? 2 : 15) : status.code);
}

if (import.meta.main) {
  const argv = await childArgv([...Deno.args]);
  // FFI is whole or absent: asked without a prompt.
  if (Deno.permissions.querySync({ name: "ffi" }).state === "granted") {
    exec(Deno.execPath(), ["deno", ...argv]);
  }
  await spawn(argv);
}
