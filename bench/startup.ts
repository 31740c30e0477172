/**
 * Start-up cost of the `gleaner` command, each run a fresh process:
 * - `--version` and `--help`: wall time to exit and peak RSS;
 * - `mcp`: wall time from spawning the server to the arrival of the
 *   `tools/list` answer, driven by the real MCP SDK client over stdio, and the
 *   server's peak RSS at that moment (`VmHWM`). `client_done_p50_ms` adds the
 *   client's own work on the answer (the SDK client compiles every output
 *   schema with Ajv).
 *
 * - `mcp` through `deno task mcp` (the launcher and the server it becomes) and
 *   the exact `deno run` the launcher starts (its argv from `childArgv`),
 *   alternating run by run: wall time to the `tools/list` answer, the ratio,
 *   and the memory of every process of the task (`deno task` and the server)
 *   against the server alone, read from `/proc/PID/smaps_rollup` when the
 *   answer arrives, summed over the processes: `rss_mb` (resident set; it
 *   counts the pages of the deno binary that both processes share twice, so
 *   `extra_rss_mb` overstates what the task costs), `pss_mb` (proportional:
 *   shared pages divided among the processes that map them; `extra_pss_mb`,
 *   the tree's PSS minus the server's alone, is the memory the task really
 *   adds) and `uss_mb` (pages of no other process). The extras compare
 *   medians of different runs, so a few MB of run-to-run noise remain.
 *
 * - with `--against=<checkout>` (another commit's working tree, e.g. a `git
 *   worktree` of f155e32, installed), that checkout's own `deno task mcp` joins
 *   the same rotation: `against_p50_ms` and `task_over_against`, this task's
 *   p50 over that one's.
 *
 * The rotation runs 20 rounds (4 × `runs`); beside each ratio of medians,
 * `*_paired` is the median of the rounds' own ratios (the variants of a round
 * run back to back, so a drift of the machine's speed moves both alike).
 *
 * The server runs with the permissions of `deno task mcp`. Peak RSS of the
 * short commands is read through `/usr/bin/time` when it exists (`null`
 * otherwise). Run alone: `deno run -A bench/startup.ts`, or
 * `deno task bench startup --against=/tmp/gleaner-f155e32`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { DENO_RUN_FLAGS } from "../testing/fixtures/world.ts";
import { childArgv } from "../scripts/launch.ts";
import { processTree } from "./lib/proc.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
/**
 * The flags of `deno task mcp`. `--node-modules-dir=manual` uses the
 * installed `node_modules` as it is: in `auto` mode Deno re-verifies every
 * installed package once per npm import in the module graph (about 50 passes
 * over 200 packages, 0.3 s), on every start.
 */
const FLAGS = DENO_RUN_FLAGS;
/** The same command with the project's `nodeModulesDir: "auto"` (a bare `deno run cli.ts`). */
const AUTO_FLAGS = FLAGS.filter((flag) => !flag.startsWith("--node-modules-dir"));
const RUNS = 5;
const TIME = "/usr/bin/time";

/** Figures of one measured command over several fresh processes. */
export interface StartupFigure {
  /** Wall time of the first (coldest) run, ms. */
  first_ms: number;
  /** Median wall time, ms. */
  p50_ms: number;
  /** Fastest run, ms. */
  min_ms: number;
  /** Median peak resident set, MB (`null` when it cannot be read). */
  rss_mb: number | null;
  /** Runs measured. */
  runs: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function summarise(ms: number[], rss: (number | null)[]): StartupFigure {
  const known = rss.filter((r): r is number => r !== null);
  return {
    first_ms: Math.round(ms[0]),
    p50_ms: Math.round(median(ms)),
    min_ms: Math.round(Math.min(...ms)),
    rss_mb: known.length ? Math.round(median(known) / 1024) : null,
    runs: ms.length,
  };
}

async function hasTime(): Promise<boolean> {
  try {
    return (await Deno.stat(TIME)).isFile;
  } catch {
    return false;
  }
}

async function timeCommand(args: string[], withTime: boolean): Promise<[number, number | null]> {
  const deno = [Deno.execPath(), "run", ...FLAGS, CLI, ...args];
  const [cmd, ...rest] = withTime ? [TIME, "-f", "RSS_KB=%M", ...deno] : deno;
  const started = performance.now();
  const out = await new Deno.Command(cmd, {
    args: rest,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const ms = performance.now() - started;
  const err = new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`gleaner ${args.join(" ")} failed: ${err.slice(0, 400)}`);
  const rss = err.match(/RSS_KB=(\d+)/);
  return [ms, rss ? Number(rss[1]) : null];
}

async function peakRssKb(pid: number | null | undefined): Promise<number | null> {
  if (!pid) return null;
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const m = status.match(/VmHWM:\s+(\d+) kB/);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Deno's cache folder (transpiled modules, npm packages): the server keeps
 * using it although its HOME is a fresh folder, as an MCP client starting
 * `gleaner mcp` for a user who ran it before would.
 */
async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  return (JSON.parse(new TextDecoder().decode(out.stdout)) as { denoDir: string }).denoDir;
}

/** Memory of a process tree, kB: resident, proportional and unique sets, summed. */
interface TreeMemory {
  /** Resident set (`Rss`): counts every shared page (the deno binary's text) once per process. */
  rss: number;
  /** Proportional set (`Pss`): each shared page divided among the processes that map it. */
  pss: number;
  /** Unique set (`Private_Clean` + `Private_Dirty`): pages no other process maps. */
  uss: number;
  /** Processes read. */
  processes: number;
}

/**
 * The memory of `pid` and the processes below it, now (`/proc/PID/smaps_rollup`; `VmRSS`
 * alone where that is unreadable); `null` where nothing is readable (not Linux).
 */
function treeMemory(pid: number | null | undefined): TreeMemory | null {
  if (!pid) return null;
  const sum: TreeMemory = { rss: 0, pss: 0, uss: 0, processes: 0 };
  for (const p of processTree(pid)) {
    try {
      const rollup = Deno.readTextFileSync(`/proc/${p}/smaps_rollup`);
      const kb = (name: string) =>
        Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0);
      sum.rss += kb("Rss");
      sum.pss += kb("Pss");
      sum.uss += kb("Private_Clean") + kb("Private_Dirty");
      sum.processes++;
    } catch {
      // Gone.
    }
  }
  return sum.processes > 0 ? sum : null;
}

/**
 * One start to the `tools/list` answer; `argv` gets the run's environment (its fresh HOME),
 * and the command runs in `cwd` (this checkout unless given).
 */
async function toolsListOnce(
  cache: string,
  argv: (env: Record<string, string>) => Promise<string[]> | string[],
  cwd = ROOT,
): Promise<
  {
    answered: number;
    listed: number;
    peak: number | null;
    tree: TreeMemory | null;
    tools: number;
  }
> {
  const dir = await Deno.makeTempDir({ prefix: "gleaner-startup-" });
  const env = {
    NO_COLOR: "1",
    DENO_DIR: cache,
    HOME: dir,
    XDG_DATA_HOME: `${dir}/data`,
    XDG_CONFIG_HOME: `${dir}/config`,
    PATH: Deno.env.get("PATH") ?? "",
  };
  const args = await argv(env);
  const client = new Client({ name: "startup-bench", version: "1" });
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args,
    cwd,
    env,
    stderr: "ignore",
  });
  try {
    await client.connect(transport);
    // When the answer arrives, before the client checks it (the SDK client
    // compiles every tool's output schema, which is the client's cost).
    let answered = 0;
    let tree: TreeMemory | null = null;
    const deliver = transport.onmessage!;
    transport.onmessage = (message: { result?: { tools?: unknown } }, extra?: unknown) => {
      if (message.result?.tools && !answered) {
        answered = performance.now();
        tree = treeMemory(transport.pid);
      }
      deliver(message, extra);
    };
    const { tools } = await client.listTools();
    const listed = performance.now() - started;
    const peak = await peakRssKb(transport.pid);
    return { answered: answered - started, listed, peak, tree, tools: tools.length };
  } finally {
    await client.close();
    await Deno.remove(dir, { recursive: true }).catch(() => undefined);
  }
}

/** The options read from `--against=<checkout>` (see the module documentation). */
export function startupOptions(args: string[] = Deno.args): { against?: string } {
  const { values } = parseArgs({
    args: args.filter((a) => a.startsWith("--against")),
    options: { against: { type: "string" } },
  });
  return values.against ? { against: Deno.realPathSync(values.against) } : {};
}

/**
 * Measures `--version`, `--help` and `tools/list` over stdio; `against` is another
 * checkout whose `deno task mcp` is measured in the same rotation.
 *
 * @example
 * ```ts ignore
 * import { runStartupBench } from "./startup.ts";
 * console.log(await runStartupBench());
 * ```
 */
export async function runStartupBench(
  runs = RUNS,
  { against }: { against?: string } = {},
): Promise<Record<string, unknown>> {
  const withTime = await hasTime();
  const result: Record<string, unknown> = {
    command: `deno run ${FLAGS.join(" ")} cli.ts`,
    auto_command: `deno run ${AUTO_FLAGS.join(" ")} cli.ts mcp (mcp_tools_list_auto)`,
    rss_source: withTime ? "/usr/bin/time %M; VmHWM for mcp" : "VmHWM for mcp only",
  };
  for (const args of [["--version"], ["--help"]]) {
    const ms: number[] = [];
    const rss: (number | null)[] = [];
    for (let i = 0; i < runs; i++) {
      const [t, r] = await timeCommand(args, withTime);
      ms.push(t);
      rss.push(r);
    }
    result[args[0].replace(/^--/, "")] = summarise(ms, rss);
  }
  const cache = await denoDir();
  for (
    const [key, flags] of [["mcp_tools_list", FLAGS], ["mcp_tools_list_auto", AUTO_FLAGS]] as const
  ) {
    const answered: number[] = [];
    const listed: number[] = [];
    const rss: (number | null)[] = [];
    let tools = 0;
    for (let i = 0; i < runs; i++) {
      const run = await toolsListOnce(cache, () => ["run", ...flags, CLI, "mcp"]);
      answered.push(run.answered);
      listed.push(run.listed);
      rss.push(run.peak);
      tools = run.tools;
    }
    result[key] = {
      ...summarise(answered, rss),
      client_done_p50_ms: Math.round(median(listed)),
      tools,
      target_ms: 400,
    };
  }
  // `deno task mcp` as an MCP client starts it, against the `deno run` the launcher starts,
  // one after the other in turn (the order swapped every run), so both see the same load.
  type Name = "task" | "child" | "against";
  const task = () => ["task", "mcp"];
  const variants: Record<Name, (env: Record<string, string>) => Promise<string[]> | string[]> = {
    task,
    child: (env) => childArgv(["--node-modules-dir=manual", "mcp"], env),
    // The other checkout's own task, run in that checkout.
    against: task,
  };
  type Seen = { ms: number[]; rss: number[]; pss: number[]; uss: number[]; processes: number };
  const seen: Record<Name, Seen> = {
    task: { ms: [], rss: [], pss: [], uss: [], processes: 0 },
    child: { ms: [], rss: [], pss: [], uss: [], processes: 0 },
    against: { ms: [], rss: [], pss: [], uss: [], processes: 0 },
  };
  const names: Name[] = against ? ["task", "child", "against"] : ["task", "child"];
  for (let i = 0; i < Math.max(runs * 4, 20); i++) {
    const order = i % 2 ? [...names].reverse() : names;
    for (const name of order) {
      const run = await toolsListOnce(cache, variants[name], name === "against" ? against : ROOT);
      seen[name].ms.push(run.answered);
      if (run.tree) {
        seen[name].rss.push(run.tree.rss / 1024);
        seen[name].pss.push(run.tree.pss / 1024);
        seen[name].uss.push(run.tree.uss / 1024);
        seen[name].processes = run.tree.processes;
      }
    }
  }
  const p50 = (xs: number[]) => xs.length ? Math.round(median(xs)) : null;
  const extra = (task: number[], child: number[]) =>
    task.length && child.length ? Math.round(median(task) - median(child)) : null;
  // The median of each round's own ratio: the variants of a round ran one after the other, so
  // a drift of the machine's speed across the run moves both sides of each ratio alike.
  const paired = (a: number[], b: number[]) =>
    Math.round(median(a.map((ms, i) => ms / b[i])) * 100) / 100;
  const taskMs = p50(seen.task.ms)!;
  const childMs = p50(seen.child.ms)!;
  result.mcp_tools_list_task = {
    command: "deno task mcp",
    p50_ms: taskMs,
    min_ms: Math.round(Math.min(...seen.task.ms)),
    child_p50_ms: childMs,
    child_min_ms: Math.round(Math.min(...seen.child.ms)),
    task_over_child: Math.round((taskMs / childMs) * 100) / 100,
    task_over_child_paired: paired(seen.task.ms, seen.child.ms),
    rss_mb: p50(seen.task.rss),
    child_rss_mb: p50(seen.child.rss),
    extra_rss_mb: extra(seen.task.rss, seen.child.rss),
    pss_mb: p50(seen.task.pss),
    child_pss_mb: p50(seen.child.pss),
    extra_pss_mb: extra(seen.task.pss, seen.child.pss),
    uss_mb: p50(seen.task.uss),
    child_uss_mb: p50(seen.child.uss),
    extra_uss_mb: extra(seen.task.uss, seen.child.uss),
    processes: seen.task.processes,
    runs: seen.task.ms.length,
    target: "task_over_child <= 1.2",
    ...(against
      ? {
        against,
        against_p50_ms: p50(seen.against.ms),
        against_rss_mb: p50(seen.against.rss),
        task_over_against: Math.round((taskMs / p50(seen.against.ms)!) * 100) / 100,
        task_over_against_paired: paired(seen.task.ms, seen.against.ms),
        against_target: "task_over_against <= 1.2",
      }
      : {}),
  };
  return result;
}

if (import.meta.main) {
  // deno-lint-ignore no-console
  console.log(JSON.stringify(await runStartupBench(RUNS, startupOptions()), null, 2));
}
