/**
 * Browser-tier benchmark: renders the 130 real-world pages of the readability
 * test set, served from a loopback server, through a warm browser with 4
 * concurrent pages. Reports pages/s, latency percentiles, the peak
 * resident memory of the Chromium process tree (summed from /proc), the peak
 * RSS of this Deno process (where the egress proxy runs) and the proxy's
 * counters. Then {@link runBrowserContentionBench}: a plain render alone and
 * while two other calls wait on selectors that never appear (the fairness
 * target: within 2× of its time alone).
 *
 * Run alone: `deno run -A bench/browser.ts` (prints JSON).
 *
 * @module
 */
import { READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";
import { parseConfig } from "../lib/config/config.ts";
import { createBrowserTier } from "../lib/read/browser/browser.ts";
import { BROWSER_CALL_FACTOR } from "../lib/read/call.ts";
import { createGleaner, scrapeUrls } from "../mod.ts";

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
  const contention = await runBrowserContentionBench();
  // deno-lint-ignore no-console
  console.log(JSON.stringify({ ...result, contention }, null, 2));
}

/** Options of {@link runBrowserContentionBench}. */
export interface BrowserContentionOptions {
  /** `read.browser_timeout_ms` (default 20,000, the shipped default). */
  timeoutMs?: number;
  /** `read.browser_pages` (default 4, the shipped default). */
  pages?: number;
  /** Plain renders measured alone and under contention (default 5 each). */
  renders?: number;
}

/** The figures {@link runBrowserContentionBench} measures. */
export interface BrowserContentionResult {
  browser_pages: number;
  browser_timeout_ms: number;
  /** The per-call deadline of browser work (2 × `read.browser_timeout_ms`). */
  call_deadline_ms: number;
  /** One `scrape_urls` call of five `wait_for_selector: "#never"` items, alone (ms). */
  never_call_alone_ms: number;
  /** Its five items' error codes. */
  never_call_codes: Record<string, number>;
  /** A plain render (`scrape_urls`, `render: "always"`) alone: median and slowest (ms). */
  plain_alone_p50_ms: number;
  plain_alone_max_ms: number;
  /**
   * The same render while two other calls each wait on five never-appearing selectors (only
   * renders that start while both still wait are counted).
   */
  plain_contended_p50_ms: number;
  plain_contended_max_ms: number;
  /** Renders measured under contention (fewer than asked when the waiting calls ended first). */
  plain_contended_renders: number;
  /** `plain_contended_p50_ms / plain_alone_p50_ms`. */
  ratio_p50: number;
  /** `plain_contended_max_ms / plain_alone_max_ms`. */
  ratio_max: number;
  /** The two waiting calls' durations (ms). */
  never_calls_contended_ms: number[];
  /**
   * The target: every render asked for ran under contention, and their median is within 2× of
   * the median alone.
   */
  within_2x: boolean;
}

/**
 * Fairness of the browser between calls, through the `scrape_urls` tool of a
 * real Gleaner on a loopback site: a plain render alone, one call of five
 * `wait_for_selector: "#never"` items alone, then plain renders while two
 * such calls hold the pages. Reports medians, the ratios and whether the
 * plain render stays within 2× of its time alone.
 *
 * @example
 * ```ts ignore
 * import { runBrowserContentionBench } from "./browser.ts";
 * console.log(JSON.stringify(await runBrowserContentionBench({ timeoutMs: 5_000 })));
 * ```
 */
export async function runBrowserContentionBench(
  options: BrowserContentionOptions = {},
): Promise<BrowserContentionResult> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const pages = options.pages ?? 4;
  const renders = options.renders ?? 5;
  const neverHits: string[] = [];
  const article = Array.from(
    { length: 12 },
    (_, i) => `<p>Paragraph ${i} of an article that a script finishes after load.</p>`,
  ).join("");
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/never") neverHits.push(url.search);
    const body = url.pathname === "/plain"
      ? `<main><h1>Plain</h1>${article}<p id="out"></p></main>
         <script>document.getElementById("out").textContent = "Rendered " + "by script";</script>`
      : `<main><h1>Waiting</h1><p>Nothing more will come.</p></main>`;
    return new Response(
      `<!DOCTYPE html><html><head><title>${url.pathname}</title></head><body>${body}</body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const gleaner = await createGleaner({
    network: { allow_private: [origin], allowed_ports: [server.addr.port] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { browser_pages: pages, browser_timeout_ms: timeoutMs },
  });
  let run = 0;
  const plain = async () => {
    const started = performance.now();
    const out = await scrapeUrls(gleaner, {
      items: [{ url: `${origin}/plain?run=${++run}` }],
      render: "always",
      no_cache: true,
    });
    if (!out.items[0].ok) throw new Error(`plain render failed: ${out.items[0].error?.message}`);
    return performance.now() - started;
  };
  const neverCall = async (tag: string) => {
    const started = performance.now();
    const out = await scrapeUrls(gleaner, {
      items: [1, 2, 3, 4, 5].map((n) => ({
        url: `${origin}/never?call=${tag}&n=${n}`,
        wait_for_selector: "#never",
      })),
      no_cache: true,
    });
    return { ms: performance.now() - started, items: out.items };
  };
  const series = async (while_: () => boolean = () => true) => {
    const times: number[] = [];
    for (let i = 0; i < renders && while_(); i++) times.push(await plain());
    return times.sort((a, b) => a - b);
  };
  try {
    await plain(); // the browser starts: not measured
    const alone = await series();
    const single = await neverCall("alone");
    const codes: Record<string, number> = {};
    for (const item of single.items) {
      const code = item.error?.code ?? "ok";
      codes[code] = (codes[code] ?? 0) + 1;
    }
    // Two calls that hold the pages, then the plain renders while they wait.
    let waiting = 2;
    const holders = [neverCall("a"), neverCall("b")].map((call) => call.finally(() => waiting--));
    while (neverHits.filter((h) => !h.includes("call=alone")).length < Math.min(pages, 10)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const contended = await series(() => waiting === 2);
    const held = await Promise.all(holders);
    const p50 = (sorted: number[]) => percentile(sorted, 50);
    const ratioP50 = p50(contended) / p50(alone);
    return {
      browser_pages: pages,
      browser_timeout_ms: timeoutMs,
      call_deadline_ms: BROWSER_CALL_FACTOR * timeoutMs,
      never_call_alone_ms: Math.round(single.ms),
      never_call_codes: codes,
      plain_alone_p50_ms: Math.round(p50(alone)),
      plain_alone_max_ms: Math.round(alone.at(-1)!),
      plain_contended_p50_ms: Math.round(p50(contended)),
      plain_contended_max_ms: Math.round(contended.at(-1)!),
      plain_contended_renders: contended.length,
      ratio_p50: round(ratioP50),
      ratio_max: round(contended.at(-1)! / alone.at(-1)!),
      never_calls_contended_ms: held.map((h) => Math.round(h.ms)),
      within_2x: contended.length === renders && ratioP50 <= 2,
    };
  } finally {
    await gleaner.close();
    await server.shutdown();
  }
}
