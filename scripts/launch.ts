/**
 * The launcher behind `deno task start` and `deno task mcp`: it resolves the
 * directories Gleaner will touch on this machine (config file, data dir,
 * store and memory files, models, Chromium, sqlite-vec; `lib/permissions.ts`)
 * and runs `cli.ts` under exactly those scoped grants, with the same
 * arguments, stdio, exit code and signals.
 *
 * Its own permissions: `--allow-env=<the schema's names>` (to resolve the
 * paths as Gleaner will), `--allow-read` (to find the config file, Chromium
 * and sqlite-vec before the paths are known; it writes nothing and opens no
 * connection) and `--allow-run=deno` (the one program it starts).
 *
 * A leading `--node-modules-dir=manual` is passed to the child's `deno run`
 * (the `mcp` task: no install check on each start).
 *
 * ```sh
 * deno run -P=launch scripts/launch.ts serve --port 8787
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { loadConfig, parseConfig } from "../lib/config/config.ts";
import { permissionFlags, permissionGrants } from "../lib/permissions.ts";

const CLI = decodeURIComponent(new URL("../cli.ts", import.meta.url).pathname);

/**
 * The child's `deno run` argv for `args` (what the launcher runs), resolved
 * with `env` (default: the process environment, the schema's names only).
 */
export async function childArgv(
  args: string[],
  env?: Record<string, string | undefined>,
): Promise<string[]> {
  args = [...args];
  const denoFlags: string[] = [];
  while (args[0]?.startsWith("--node-modules-dir")) denoFlags.push(args.shift()!);
  // Only the options that move paths matter here; cli.ts checks them all.
  const { values } = parseArgs({
    args,
    strict: false,
    allowPositionals: true,
    options: { config: { type: "string" }, set: { type: "string", multiple: true } },
  });
  const flags: Record<string, string> = {};
  for (const entry of (values.set ?? []) as string[]) {
    const at = entry.indexOf("=");
    if (at > 0) flags[entry.slice(0, at)] = entry.slice(at + 1);
  }
  const file = typeof values.config === "string" ? values.config : undefined;
  // A setting cli.ts will refuse (and explain) must not stop the launcher: the
  // grants then follow the defaults and the environment.
  const config = await loadConfig({ env, flags, file, warn: () => {} })
    .catch(() => loadConfig({ env, file, warn: () => {} }))
    .catch(() => parseConfig({}));
  const grants = await permissionGrants(config, { env, configFile: file });
  return ["run", ...denoFlags, ...permissionFlags(grants), CLI, ...args];
}

if (import.meta.main) {
  // `deno` by name: that is what `--allow-run=deno` grants (the PATH entry may be a link to
  // Deno.execPath(), which the grant does not name).
  const own = Deno.permissions.querySync({ name: "run", command: Deno.execPath() });
  const child = new Deno.Command(own.state === "granted" ? Deno.execPath() : "deno", {
    args: await childArgv([...Deno.args]),
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => {
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
    });
  }
  const status = await child.status;
  Deno.exit(status.signal ? 128 + (status.signal === "SIGINT" ? 2 : 15) : status.code);
}
