/**
 * `deno task bench health`: does the server stay responsive while it reads
 * hostile pages? Starts the HTTP server (`gleaner serve`, `http/serve.ts`, in
 * its own process) and a loopback
 * fixture of 10 hostile pages (`testing/fixtures/hostile.ts`, served by
 * `bench/hostile_server.ts` in a third process: deep nesting,
 * 100,000 links, a 120,000-character CJK run, a 4 MB word, binary served as
 * HTML, a gzip bomb, unclosed scripts, 400,000 elements, ...), fires the 10
 * reads at once through REST (`POST /v1/scrape`, one page each) and samples
 * `GET /health` every 10 ms until they are done. Then the query-ranked case:
 * ten scrapes with a `query` at once, five of a page of 200,000 CJK
 * characters and five of a long article of ordinary prose
 * (`RANKED_PAGES`), ranked with the default embedder (the static model), so
 * chunking, token counting, BM25, embedding, fusion and budget cutting run
 * while `/health` is sampled. Prints, per case, the `/health` latency
 * percentiles (target: p99 under 50 ms) and each read's outcome.
 * `HEALTH_BENCH_CASE=read` or `=ranked` runs one case.
 *
 * Also `deno task bench tokens`: milliseconds to count tokens of 5 MB
 * pathological texts (one word, CJK without spaces, whitespace) and of
 * ordinary text.
 *
 * @module
 */
import { freePort } from "../testing/fixtures/serve.ts";
import { HOSTILE_PATHS, RANKED_PAGES } from "../testing/fixtures/hostile.ts";
import { countTokens } from "../lib/text/tokens.ts";

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * The hostile fixture in a process of its own (`bench/hostile_server.ts`):
 * sending its 40 MB of bodies from this process delayed the `/health`
 * samples by hundreds of milliseconds, counted as the server's latency.
 */
async function startHostileServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      new URL("./hostile_server.ts", import.meta.url).pathname,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the hostile fixture server did not start");
    line += value;
  }
  reader.releaseLock();
  void child.stdout.cancel().catch(() => {});
  return {
    origin: line.trim(),
    async close() {
      await child.stdin.close();
      await child.status;
    },
  };
}

/** The machine's load averages (1, 5, 15 minutes), when the system tells them. */
function loadAverage(): number[] | undefined {
  try {
    return Deno.loadavg();
  } catch {
    return undefined;
  }
}

/**
 * Runs the health benchmark and returns its JSON result. The server is a
 * separate `gleaner serve` process (as in production), so the latency is
 * its own; the hostile fixture runs in a third process, the sampler in this
 * one.
 */
export async function runHealthBench(): Promise<unknown> {
  const web = await startHostileServer();
  const webPort = Number(new URL(web.origin).port);
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const profile = Deno.env.get("HEALTH_BENCH_PROFILE");
  const child = new Deno.Command(Deno.execPath(), {
    // HEALTH_BENCH_PROFILE=<dir> writes the server's CPU profile there.
    args: [
      "run",
      "-A",
      ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []),
      new URL("../cli.ts", import.meta.url).pathname,
      "serve",
    ],
    env: {
      GLEANER_SERVER_HOST: "127.0.0.1",
      GLEANER_SERVER_PORT: String(port),
      GLEANER_NETWORK_ALLOW_PRIVATE: JSON.stringify([web.origin]),
      GLEANER_NETWORK_ALLOWED_PORTS: JSON.stringify([webPort]),
      GLEANER_NETWORK_RESPECT_ROBOTS: "false",
      GLEANER_STORE_PATH: ":memory:",
      // The default embedder: the query-ranked case ranks hybrid (BM25 + the static model).
      GLEANER_EMBED_PROVIDER: "static",
      GLEANER_READ_RENDER: "never",
      GLEANER_LOG_LEVEL: "warning",
      XDG_CONFIG_HOME: "/nonexistent/gleaner-bench-config",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (let i = 0;; i++) {
      try {
        const response = await fetch(`${base}/health`);
        await response.body?.cancel();
        if (response.ok) break;
      } catch (error) {
        if (i > 600) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const scrape = async (path: string, query?: string) => {
      const response = await fetch(`${base}/v1/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          items: [{ url: `${web.origin}${path}`, ...(query ? { query } : {}) }],
          max_tokens: 500,
        }),
      });
      return { status: response.status, json: await response.json() };
    };
    // Warm up: the extraction thread starts and the routes answer once, a ranked read loads the
    // embedder and the query expander (a server loads them in the background once it is up: the
    // first reads would otherwise race that load).
    await scrape("/nested-divs");
    await scrape("/nested-divs?warm", "why do tides rise");

    /** Fires the scrapes at once and samples `/health` every 10 ms until they are done. */
    const measure = async (scrapes: { label: string; path: string; query?: string }[]) => {
      const outcomes: Record<string, unknown> = {};
      const started = performance.now();
      const reads = scrapes.map(async ({ label, path, query }) => {
        const t0 = performance.now();
        const { status, json } = await scrape(path, query);
        const item = json.items?.[0];
        outcomes[label] = {
          ms: Math.round(performance.now() - t0),
          outcome: item?.ok ? "ok" : item?.error?.code ?? `http ${status}`,
          ...(item?.ok ? { page_tokens: item.page_tokens, truncated: item.truncated } : {}),
          ...(query ? { ranking: json.ranking, tokens: json.tokens } : {}),
        };
      });
      let done = false;
      const all = Promise.all(reads).finally(() => done = true);
      const samples: number[] = [];
      const at: number[] = [];
      while (!done) {
        const t0 = performance.now();
        const response = await fetch(`${base}/health`);
        await response.body?.cancel();
        samples.push(performance.now() - t0);
        at.push(t0 - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await all;
      const sorted = [...samples].sort((a, b) => a - b);
      return {
        wall_ms: Math.round(performance.now() - started),
        health: {
          samples: samples.length,
          p50: round(percentile(sorted, 50)),
          p99: round(percentile(sorted, 99)),
          max: round(sorted[sorted.length - 1]),
          target_p99_ms: 50,
          // The ten slowest samples, with when they were sent (ms after the reads were fired).
          slowest: samples.map((ms, i) => ({ ms: round(ms), at: Math.round(at[i]) }))
            .sort((a, b) => b.ms - a.ms).slice(0, 10),
        },
        reads: outcomes,
      };
    };

    const which = Deno.env.get("HEALTH_BENCH_CASE");
    const only = Deno.env.get("HOSTILE_ONLY");
    const result: Record<string, unknown> = {
      what: "GET /health latency (ms) of a `gleaner serve` process while it reads 10 pages, " +
        "fired at once through POST /v1/scrape (one page each): 10 hostile pages (read), then " +
        "5 × 200,000 CJK characters and 5 × a long article ranked against a query (query_ranked)",
      config: "defaults: read.extract_workers 1, read.extract_timeout_ms 15000, embed.provider " +
        "static, max_tokens 500",
      load_average: loadAverage(),
    };
    if (which !== "ranked") {
      result.read = await measure(
        HOSTILE_PATHS.filter((p) => !only || p === only).map((path) => ({ label: path, path })),
      );
    }
    if (which !== "read") {
      const scrapes = [];
      for (let copy = 0; copy < 5; copy++) {
        for (const [path, query] of Object.entries(RANKED_PAGES)) {
          // Distinct URLs: every copy is read, extracted and ranked on its own.
          scrapes.push({ label: `${path}?copy=${copy}`, path: `${path}?copy=${copy}`, query });
        }
      }
      result.query_ranked = await measure(scrapes);
    }
    return result;
  } finally {
    child.kill("SIGINT");
    await child.status;
    await web.close();
  }
}

/** Runs the token-counting benchmark: ms per 5 MB text. */
export function runTokensBench(): Promise<unknown> {
  const n = 5_000_000;
  let cjk = "";
  for (let i = 0; cjk.length < n / 3; i++) cjk += String.fromCharCode(0x4e00 + (i * 7919) % 3000);
  const words = ["the", "tide", "rises", "twice", "a", "day,", "because", "of", "Moon."];
  const prose: string[] = [];
  for (let i = 0, len = 0; len < n; i++) {
    const w = words[(i * 7) % words.length];
    prose.push(w);
    len += w.length + 1;
  }
  const texts: Record<string, string> = {
    "one word (5 MB)": "abcdefghij".repeat(n / 10),
    "CJK without spaces (5 MB UTF-8)": cjk,
    "spaces (5 MB)": " ".repeat(n),
    "ordinary prose (5 MB)": prose.join(" "),
    // Runs just under the length that is cut (256): the worst case of the quick run test.
    "words of 255 characters (5 MB)": `${"x".repeat(255)} `.repeat(n / 256),
  };
  const out: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(texts)) {
    const t0 = performance.now();
    const tokens = countTokens(text);
    out[name] = { ms: Math.round(performance.now() - t0), chars: text.length, tokens };
  }
  return Promise.resolve({ what: "countTokens on 5 MB texts (target: under 1 s each)", ...out });
}

if (import.meta.main) {
  const which = Deno.args[0] ?? "health";
  const result = which === "tokens" ? await runTokensBench() : await runHealthBench();
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(result, null, 2) + "\n"));
}
