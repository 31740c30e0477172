/**
 * Test helpers (not part of the library): a private redis-server on a random
 * loopback port, and concurrent writer processes released together.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { DomainRecord } from "../types.ts";
import { type Requirement, requirement } from "../../../testing/fixtures/require.ts";
import { freePort, waitUntilReady } from "../../../testing/fixtures/serve.ts";

const WRITER = new URL("./domain_writer.ts", import.meta.url).pathname;
const REDIS_BIN = "redis-server";

/** True when `redis-server` can be started. */
export async function redisAvailable(): Promise<boolean> {
  try {
    const out = await new Deno.Command(REDIS_BIN, {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

/**
 * Whether the Valkey/Redis tests run here: ignored (one line on stderr) without
 * `redis-server`, failing instead when `GLEANER_REQUIRE_REDIS=1` (as in CI).
 */
export const redisRequirement: Requirement = requirement({
  group: "valkey",
  env: "GLEANER_REQUIRE_REDIS",
  missing: (await redisAvailable())
    ? undefined
    : "redis-server not found on PATH (install the redis-server package)",
  short: "no redis-server",
});

/** A running private redis-server. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts `redis-server` on a free loopback port with persistence off. */
export async function startRedis(): Promise<RedisServer> {
  const port = freePort();
  const child = new Deno.Command(REDIS_BIN, {
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  await waitUntilReady(child, `redis-server on port ${port}`, async () => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await conn.write(new TextEncoder().encode("PING\r\n"));
      const buf = new Uint8Array(16);
      const n = await conn.read(buf);
      return n !== null && new TextDecoder().decode(buf.subarray(0, n)).startsWith("+PONG");
    } finally {
      conn.close();
    }
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
    },
  };
}

/**
 * Runs `count` writer processes recording `n` attempts each on one origin,
 * releases them together once all are ready, and waits for them to finish.
 */
export async function runWriters(
  count: number,
  args: {
    backend: "sqlite" | "valkey";
    target: string;
    domain: string;
    n: number;
    prefix?: string;
  },
): Promise<void> {
  const children = Array.from({ length: count }, () =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--node-modules-dir=manual",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-net=127.0.0.1",
        "--allow-sys",
        WRITER,
        args.backend,
        args.target,
        args.domain,
        String(args.n),
        ...(args.prefix ? [args.prefix] : []),
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn());
  const readers = children.map((c) => c.stdout.pipeThrough(new TextDecoderStream()).getReader());
  const readLine = async (i: number, want: string) => {
    let text = "";
    while (!text.includes(want)) {
      const { value, done } = await readers[i].read();
      if (done) throw new Error(`writer ${i} ended before "${want}"`);
      text += value;
    }
  };
  let failure: unknown;
  try {
    await Promise.all(children.map((_, i) => readLine(i, "ready")));
    const go = new TextEncoder().encode("go\n");
    await Promise.all(children.map(async (c) => {
      const w = c.stdin.getWriter();
      await w.write(go);
      await w.close();
    }));
    await Promise.all(children.map((_, i) => readLine(i, "done")));
  } catch (error) {
    failure = error;
  }
  const results = await Promise.all(children.map(async (c, i) => {
    await readers[i].cancel();
    if (failure) await c.stdin.abort().catch(() => {});
    const err = await new Response(c.stderr).text();
    return { status: await c.status, err };
  }));
  for (const [i, r] of results.entries()) {
    if (!r.status.success) throw new Error(`writer ${i} failed: ${r.err.slice(0, 2000)}`);
  }
  if (failure) throw failure;
}

/**
 * What two writers of `runWriters(2, { n: 200 })` must leave behind, whatever
 * the backend: every count, none lost.
 */
export function assertRaceCounts(rec: DomainRecord | undefined): void {
  assert.equal(rec?.attempts, 400);
  const counts = (tier: string) => {
    const t = rec?.tiers[tier];
    return t &&
      {
        attempts: t.attempts,
        successes: t.successes,
        failures: t.failures,
        success_rate: t.success_rate,
      };
  };
  assert.deepEqual(counts("http"), {
    attempts: 200,
    successes: 200,
    failures: 0,
    success_rate: 1,
  });
  assert.deepEqual(counts("browser"), {
    attempts: 200,
    successes: 100,
    failures: 100,
    success_rate: 0.5,
  });
}
