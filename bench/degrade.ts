/**
 * What a store outage costs a read: reads of fresh URLs (so every one asks
 * the page cache and domain memory) with the SQLite store, and with
 * `store.cache_url` pointing at a closed loopback port. With the outage the
 * first read pays for the failed cache calls, then the cache and domain
 * memory are paused (30 s) and reads go on uncached.
 *
 * Run alone: `deno run -A bench/degrade.ts [--reads N]`.
 *
 * @module
 */
import { createGleaner } from "../mod.ts";
import { startFixtureWeb } from "../testing/fixtures/web.ts";
import { percentile } from "../testing/text_metrics.ts";

/** Timings of one store setting (ms). */
export interface DegradeFigures {
  /** Reads that succeeded. */
  ok: number;
  /** Reads in all. */
  reads: number;
  /** The first read. */
  first_ms: number;
  /** Median of the others. */
  p50_ms: number;
  /** 95th percentile of the others. */
  p95_ms: number;
}

async function measure(store: Record<string, unknown>, reads: number): Promise<DegradeFigures> {
  const web = await startFixtureWeb();
  const gleaner = await createGleaner({
    network: { allow_private: [web.origin] },
    store,
    embed: { provider: "none" },
    read: { render: "never" },
  });
  const times: number[] = [];
  let ok = 0;
  try {
    for (let i = 0; i < reads; i++) {
      const started = performance.now();
      try {
        await gleaner.reader.read({ url: web.url(`/pages/wikipedia?bench=${i}`) });
        ok++;
      } catch {
        // counted by `ok`
      }
      times.push(performance.now() - started);
    }
  } finally {
    await gleaner.close();
    await web.close();
  }
  const rest = times.slice(1).sort((a, b) => a - b);
  return {
    ok,
    reads,
    first_ms: Math.round(times[0]),
    p50_ms: Math.round(percentile(rest, 50)),
    p95_ms: Math.round(percentile(rest, 95)),
  };
}

/** Runs both settings. */
export async function runDegradeBench(reads = 30): Promise<Record<string, DegradeFigures>> {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close(); // nothing listens there now
  return {
    sqlite: await measure({ path: ":memory:" }, reads),
    cache_server_down: await measure(
      { path: ":memory:", cache_url: `redis://127.0.0.1:${port}` },
      reads,
    ),
  };
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--reads");
  const reads = at >= 0 ? Number(Deno.args[at + 1]) : 30;
  Deno.stdout.writeSync(
    new TextEncoder().encode(JSON.stringify(await runDegradeBench(reads), null, 2) + "\n"),
  );
}
