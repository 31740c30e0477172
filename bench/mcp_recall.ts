/**
 * End-to-end memory recall over `deno task mcp`, as an MCP client sees it: a
 * store filled with `--memories` memories (2,900 by default, saved through the
 * server itself), then `recall_memories` calls through the real SDK client
 * over stdio, one at a time, each timed from the request to its answer
 * (p50/p95, ms; the client checks each answer against the tool's output
 * schema, which is part of what a client waits for).
 *
 * Each `--roots` entry is a checkout of Gleaner whose own `deno task mcp` is
 * started in it (default: this one), so two commits are measured on stores of
 * the same memories with the same client: e.g. a `git worktree` of an older
 * commit beside this one. A root with `scripts/launch.ts` is also measured
 * through the exact `deno run` its launcher starts (`<root>:run`). Every
 * variant gets a fresh server per round and the rounds alternate the variants
 * (order reversed every round), so they see the same load. Each server is
 * left `--settle` ms after its `tools/list` answer (default 3,000: the
 * warm-up it starts then loads the ranker, tokenizer and store), and its
 * first `--warmup` recalls are not counted. Beside the wall times, the CPU
 * time the server's processes used over the counted recalls, per recall
 * (`/proc`, Linux): on a shared machine it moves far less with the load.
 *
 * Each root's store lives in a throwaway HOME (its own XDG data directory);
 * the server gets that HOME, NO_COLOR and PATH, and keeps Deno's cache folder.
 *
 * ```sh
 * deno run -A bench/mcp_recall.ts --roots=/tmp/gleaner-old,. --memories=2900 --queries=100 --rounds=3
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { pick, rng } from "../lib/memory/testdata/rng.ts";
import { treeCpuMs } from "./lib/proc.ts";

const HERE = decodeURIComponent(new URL("../", import.meta.url).pathname).replace(/\/$/, "");

/** Options of {@link runMcpRecallBench}. */
export interface McpRecallOptions {
  /** Checkouts whose `deno task mcp` is measured (default: this one). */
  roots?: string[];
  /** Memories in each store. */
  memories?: number;
  /** Timed recalls per server start. */
  queries?: number;
  /** Server starts per variant. */
  rounds?: number;
  /** Recalls per start that are not counted. */
  warmup?: number;
  /** Wait after `tools/list` before the first recall, ms. */
  settle?: number;
}

/**
 * The options read from `--roots=a,b --memories=N --queries=N --rounds=N --warmup=N --settle=MS`.
 */
export function mcpRecallOptions(args: string[] = Deno.args): McpRecallOptions {
  const { values } = parseArgs({
    args: args.filter((a) => a.startsWith("--")),
    options: {
      roots: { type: "string" },
      memories: { type: "string" },
      queries: { type: "string" },
      rounds: { type: "string" },
      warmup: { type: "string" },
      settle: { type: "string" },
    },
    strict: false,
  });
  const num = (v: unknown) => (typeof v === "string" ? Number(v) : undefined);
  return {
    ...(typeof values.roots === "string" ? { roots: values.roots.split(",") } : {}),
    memories: num(values.memories),
    queries: num(values.queries),
    rounds: num(values.rounds),
    warmup: num(values.warmup),
    settle: num(values.settle),
  };
}

const PEOPLE = [
  "Ana",
  "Bo",
  "Chen",
  "Dara",
  "Eli",
  "Femi",
  "Gus",
  "Hana",
  "Ivo",
  "Jun",
  "Kai",
  "Lea",
];
const ACTS = ["lent", "repaired", "sold", "borrowed", "painted", "lost", "found", "shipped"];
const PLACES = ["garage", "attic", "office", "car", "basement", "kitchen", "studio", "locker"];
/**
 * Things a memory names. Each memory names four of them, drawn with a seed (the same memories
 * in every run and checkout). Memories that differ only in a number or one word are
 * near-duplicates that some commits skip (f155e32 kept 1,879 of 2,900 such memories), which
 * would make the stores of two checkouts unequal.
 */
const NOUNS = (
  "apple anchor badge basket battery blanket bottle bracelet brush bucket button cable candle " +
  "canoe carpet chair charger clock coat compass cookie crayon cushion desk diary drill drum " +
  "envelope fan fence flag flute folder fork frame glove hammer hat helmet honey jacket jar " +
  "kayak key ladder lamp lantern lens letter magnet map marble mirror mitten needle net oven " +
  "paddle paint pan pencil piano pillow pipe plate pot puzzle quilt radio rake ribbon ring rope " +
  "ruler saddle scarf scissors shovel skate sled soap sofa spoon stamp stapler stool sweater " +
  "table tent ticket toaster towel tractor tray trophy trumpet tulip vase violin wagon wallet " +
  "watch whistle window wrench yarn"
).split(" ");

/** The words of the `i`-th memory: its person, act, four things and place. */
function memoryWords(i: number): { person: string; act: string; things: string[]; place: string } {
  const random = rng(i + 1);
  const act = pick(random, ACTS);
  const things = Array.from({ length: 4 }, () => pick(random, NOUNS));
  return { person: PEOPLE[i % PEOPLE.length], act, things, place: pick(random, PLACES) };
}

/** The `i`-th memory: a short fact, far from every other. */
function memoryText(i: number): string {
  const { person, act, things: [a, b, c, d], place } = memoryWords(i);
  return `${person} ${act} the ${a}, the ${b} and the ${c} near the ${d} in the ${place} on day ${i}.`;
}

/** The `i`-th query: a question about one of the facts. */
function queryText(i: number, memories: number): string {
  const { person, things } = memoryWords((i * 104729) % memories);
  return `what did ${person} do with the ${things[0]}?`;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** How a variant starts its server: argv of `deno`, in `root`. */
interface Variant {
  name: string;
  root: string;
  argv: (env: Record<string, string>) => Promise<string[]>;
}

async function connect(
  variant: Variant,
  env: Record<string, string>,
): Promise<{ client: Client; pid: number | null }> {
  const client = new Client({ name: "mcp-recall-bench", version: "1" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: await variant.argv(env),
    cwd: variant.root,
    env,
    stderr: "ignore",
  });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

async function hasLauncher(root: string): Promise<boolean> {
  try {
    return (await Deno.stat(`${root}/scripts/launch.ts`)).isFile;
  } catch {
    return false;
  }
}

/**
 * Fills a store per root, then measures recall per variant.
 *
 * @example
 * ```ts ignore
 * import { runMcpRecallBench } from "./mcp_recall.ts";
 * console.log(await runMcpRecallBench({ memories: 500, queries: 50, rounds: 1 }));
 * ```
 */
export async function runMcpRecallBench(
  options: McpRecallOptions = {},
): Promise<Record<string, unknown>> {
  const roots = (options.roots ?? [HERE]).map((r) => Deno.realPathSync(r));
  const memories = options.memories ?? 2_900;
  const queries = options.queries ?? 100;
  const rounds = options.rounds ?? 3;
  const warmup = options.warmup ?? 10;
  const settle = options.settle ?? 3_000;
  const variants: Variant[] = [];
  const envs = new Map<string, Record<string, string>>();
  const homes: string[] = [];
  const storedBy = new Map<string, number>();
  try {
    for (const root of roots) {
      const home = await Deno.makeTempDir({ prefix: "gleaner-mcp-recall-" });
      homes.push(home);
      envs.set(root, {
        NO_COLOR: "1",
        HOME: home,
        XDG_DATA_HOME: `${home}/data`,
        XDG_CONFIG_HOME: `${home}/config`,
        PATH: Deno.env.get("PATH") ?? "",
      });
      const task: Variant = {
        name: `${root}:task`,
        root,
        argv: () => Promise.resolve(["task", "mcp"]),
      };
      variants.push(task);
      if (await hasLauncher(root)) {
        const { childArgv } = await import(`file://${root}/scripts/launch.ts`);
        variants.push({
          name: `${root}:run`,
          root,
          argv: (env) => childArgv(["--node-modules-dir=manual", "mcp"], env),
        });
      }
      // The same memories in each root's store, saved through that root's own server.
      const { client } = await connect(task, envs.get(root)!);
      let stored = 0;
      try {
        for (let start = 0; start < memories; start += 500) {
          const batch = [];
          for (let i = start; i < Math.min(memories, start + 500); i++) {
            batch.push({ content: memoryText(i) });
          }
          const saved = await client.callTool({
            name: "save_memories",
            arguments: { memories: batch },
          });
          if (saved.isError) {
            throw new Error(`save_memories failed in ${root}: ${JSON.stringify(saved)}`);
          }
          stored += (saved.structuredContent as { saved?: number } | undefined)?.saved ?? 0;
        }
      } finally {
        await client.close();
      }
      storedBy.set(root, stored);
    }
    const timings = new Map<string, number[]>(variants.map((v) => [v.name, []]));
    const cpu = new Map<string, number>(variants.map((v) => [v.name, 0]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...variants].reverse() : variants;
      for (const variant of order) {
        const { client, pid } = await connect(variant, envs.get(variant.root)!);
        let cpuFrom: number | null = null;
        try {
          await client.listTools();
          await new Promise((resolve) => setTimeout(resolve, settle));
          for (let q = 0; q < warmup + queries; q++) {
            if (q === warmup) cpuFrom = treeCpuMs(pid);
            const started = performance.now();
            const answer = await client.callTool({
              name: "recall_memories",
              arguments: { query: queryText(q + round * queries, memories) },
            });
            const ms = performance.now() - started;
            if (answer.isError) throw new Error(`recall failed: ${JSON.stringify(answer)}`);
            if (q >= warmup) timings.get(variant.name)!.push(ms);
          }
          const cpuTo = treeCpuMs(pid);
          if (cpuFrom !== null && cpuTo !== null) {
            cpu.set(variant.name, cpu.get(variant.name)! + cpuTo - cpuFrom);
          }
        } finally {
          await client.close();
        }
      }
    }
    const result: Record<string, unknown> = {
      memories,
      queries,
      rounds,
      warmup,
      settle_ms: settle,
      // Memories each store kept (the rest were answered as duplicates): equal stores or no comparison.
      stored: Object.fromEntries(storedBy),
    };
    for (const [name, ms] of timings) {
      result[name] = {
        p50_ms: Math.round(percentile(ms, 50) * 100) / 100,
        p95_ms: Math.round(percentile(ms, 95) * 100) / 100,
        // Server CPU per timed recall (the task's processes together).
        cpu_ms_per_call: Math.round((cpu.get(name)! / ms.length) * 100) / 100,
        calls: ms.length,
      };
    }
    return result;
  } finally {
    for (const home of homes) await Deno.remove(home, { recursive: true }).catch(() => undefined);
  }
}

if (import.meta.main) {
  // deno-lint-ignore no-console
  console.log(JSON.stringify(await runMcpRecallBench(mcpRecallOptions()), null, 2));
}
