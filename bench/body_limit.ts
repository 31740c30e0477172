/**
 * Body limit: the server's resident memory around a 300 MB REST POST (chunked,
 * no Content-Length) to `gleaner serve` on loopback. The server answers 413
 * `too_large` after 4 MiB and stops reading, so its RSS should not move by
 * the size of the body.
 *
 * `deno task bench body_limit`
 *
 * @module
 */
import { request } from "node:http";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const FLAGS = ["--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-sys"];

function rssKb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

async function listening(stderr: ReadableStream<Uint8Array<ArrayBuffer>>): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`server exited: ${text}`);
    text += value;
    const url = /listening on "?(http:\/\/[^\s"]+)/.exec(text)?.[1];
    if (url) {
      reader.releaseLock();
      return url;
    }
  }
}

function post(base: string, bytes: number): Promise<{ status: number; sent: number }> {
  const url = new URL("/v1/search", base);
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  return new Promise((resolve) => {
    let sent = 0;
    const req = request({
      host: url.hostname,
      port: Number(url.port),
      method: "POST",
      path: url.pathname,
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
    }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, sent }));
    });
    req.on("error", () => resolve({ status: 0, sent }));
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

/** Runs the benchmark and returns its figures. */
export async function runBodyLimitBench(): Promise<Record<string, unknown>> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...FLAGS, CLI, "serve", "--port", "0"],
    env: {
      GLEANER_STORE_PATH: ":memory:",
      GLEANER_EMBED_PROVIDER: "none",
      GLEANER_LOG_LEVEL: "info",
      NO_COLOR: "1",
      XDG_CONFIG_HOME: "/nonexistent/gleaner-bench-config",
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const base = await listening(child.stderr);
    // Warm up the route once so the baseline includes the loaded modules.
    await post(base, 1024 * 1024);
    const before = rssKb(child.pid);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await post(base, 300 * 1024 * 1024));
    const after = rssKb(child.pid);
    return {
      body_mb: 300,
      posts: results.length,
      statuses: results.map((r) => r.status),
      client_sent_mb: results.map((r) => Math.round(r.sent / 1024 / 1024)),
      server_rss_before_mb: Math.round(before / 1024),
      server_rss_after_mb: Math.round(after / 1024),
    };
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

if (import.meta.main) {
  const text = JSON.stringify(await runBodyLimitBench(), null, 2) + "\n";
  Deno.stdout.writeSync(new TextEncoder().encode(text));
}
