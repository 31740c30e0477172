/**
 * Browser-tier benchmark: renders the 130 real-world pages of the readability
 * test set, served from a loopback server, through a warm browser with 4
 * concurrent pages. Reports pages/s, latency percentiles, the peak
 * resident memory of the Chromium process tree (summed from /proc), the peak
 * RSS of this Deno process (where the egress proxy runs) and the proxy's
 * counters.
 *
 * Run alone: `deno run -A bench/browser.ts` (prints JSON).
 *
 * @module
 */
import { READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";
import { parseConfig } from "../lib/config/config.ts";
import { createBrowserTier } from "../lib/read/browser/browser.ts";

/** Where the real-world pages live (read in place, never copied). */
export const PAGES_DIR: string = READABILITY_CORPUS;

/** Options of {@link runBrowserBench}. */
export interface BrowserBenchOptions {
  /** Directory of `<name>/source.html` pages. */
  pagesDir?: string;
  /** Concurrent browser pages (and concurrent reads). */
  pages?: number;
  /** Per-page timeout (ms). */
  timeoutMs?: number;
  /** Memory sampling interval (ms). */
  sampleMs?: number;
  /** Extra Chromium flags (to compare settings). */
  extraArgs?: string[];
}

/** The figures {@link runBrowserBench} measures. */
export interface BrowserBenchResult {
  bench: "browser";
  chromium_pages: number;
  pages: number;
  ok: number;
  failed: number;
  errors: Record<string, number>;
  launch_ms: number;
  seconds: number;
  pages_per_s: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
  peak_rss_mb: number;
  peak_pss_mb: number;
  peak_processes: number;
  /** Peak RSS of the Deno process running the tier and its egress proxy. */
  peak_deno_rss_mb: number;
  /** Egress proxy counters at the end (absent without a proxy). */
  proxy?: { requests: number; tunnels: number; refused: number };
  /**
   * The memory target: proportional set size (shared pages counted once
   * across Chromium's processes; summed RSS counts them in every process).
   */
  pss_target_mb: number;
  /** `peak_pss_mb <= pss_target_mb`. */
  within_target: boolean;
}

/** Every descendant of `root` (and `root` itself), from /proc. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry.name));
      children.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Kilobytes of one `Key:   N kB` field of a /proc file, 0 when absent. */
function kb(path: string, key: string): number {
  try {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(Deno.readTextFileSync(path));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Summed RSS and PSS (MB) of a process tree. */
function treeMemory(root: number): { rss: number; pss: number; processes: number } {
  let rss = 0;
  let pss = 0;
  const pids = processTree(root);
  for (const pid of pids) {
    rss += kb(`/proc/${pid}/status`, "VmRSS");
    pss += kb(`/proc/${pid}/smaps_rollup`, "Pss");
  }
  return { rss: rss / 1024, pss: pss / 1024, processes: pids.length };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Runs the benchmark and returns its figures.
 *
 * @example
 * ```ts ignore
 * import { runBrowserBench } from "./browser.ts";
 * console.log(JSON.stringify(await runBrowserBench({ pages: 4 })));
 * ```
 */
export async function runBrowserBench(
  options: BrowserBenchOptions = {},
): Promise<BrowserBenchResult> {
  const dir = options.pagesDir ?? PAGES_DIR;
  const concurrency = options.pages ?? 4;
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) names.push(entry.name);
  }
  names.sort();

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const name = new URL(req.url).pathname.split("/")[1];
    if (!names.includes(name)) return new Response("not found", { status: 404 });
    const body = await Deno.readFile(`${dir}/${name}/source.html`);
    return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const config = parseConfig({
    network: { allow_private: [origin] },
    read: {
      browser_pages: concurrency,
      browser_timeout_ms: options.timeoutMs ?? 20_000,
    },
  });
  // Only the loopback origin: the real pages name CDNs that must not be contacted.
  const tier = createBrowserTier(config, {
    requestFilter: (url) => url.origin === origin,
    extraArgs: options.extraArgs,
  });
  let peak = { rss: 0, pss: 0, processes: 0 };
  let denoRss = 0;
  let sampler: ReturnType<typeof setInterval> | undefined;
  try {
    const launchStart = performance.now();
    await tier.read(`${origin}/${names[0]}/`);
    const launchMs = performance.now() - launchStart;
    const pid = tier.stats().pid;
    const sample = () => {
      denoRss = Math.max(denoRss, Deno.memoryUsage().rss / 1024 / 1024);
      if (!pid) return;
      const now = treeMemory(pid);
      peak = {
        rss: Math.max(peak.rss, now.rss),
        pss: Math.max(peak.pss, now.pss),
        processes: Math.max(peak.processes, now.processes),
      };
    };
    sample();
    sampler = setInterval(sample, options.sampleMs ?? 100);

    const latencies: number[] = [];
    const errors: Record<string, number> = {};
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < names.length) {
        const name = names[next++];
        const t0 = performance.now();
        try {
          await tier.read(`${origin}/${name}/`);
          latencies.push(performance.now() - t0);
        } catch (error) {
          const code = (error as { code?: string }).code ?? "unknown";
          errors[`${code}`] = (errors[`${code}`] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    sample();
    latencies.sort((a, b) => a - b);
    const target = 600;
    const proxy = tier.stats().proxy;
    return {
      bench: "browser",
      chromium_pages: concurrency,
      pages: names.length,
      ok: latencies.length,
      failed: names.length - latencies.length,
      errors,
      launch_ms: Math.round(launchMs),
      seconds: round(seconds),
      pages_per_s: round(latencies.length / seconds),
      p50_ms: Math.round(percentile(latencies, 50)),
      p95_ms: Math.round(percentile(latencies, 95)),
      max_ms: Math.round(latencies.at(-1) ?? 0),
      peak_rss_mb: Math.round(peak.rss),
      peak_pss_mb: Math.round(peak.pss),
      peak_processes: peak.processes,
      peak_deno_rss_mb: Math.round(denoRss),
      proxy: proxy
        ? { requests: proxy.requests, tunnels: proxy.tunnels, refused: proxy.refused }
        : undefined,
      pss_target_mb: target,
      within_target: peak.pss <= target,
    };
  } finally {
    if (sampler !== undefined) clearInterval(sampler);
    await tier.close();
    await server.shutdown();
  }
}

if (import.meta.main) {
  const extraArgs = Deno.args.filter((a) => a.startsWith("--"));
  const result = await runBrowserBench({ extraArgs });
  // deno-lint-ignore no-console
  console.log(JSON.stringify(result, null, 2));
}
